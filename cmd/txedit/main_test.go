package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/txedit/txedit/internal/goplstest"
	"github.com/txedit/txedit/internal/teststate"
)

var update = flag.Bool("update", false, "rewrite the golden output in testdata/script")

func TestMain(m *testing.M) {
	testscript.Main(cleanup{m}, map[string]func(){
		"txedit": func() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// cleanup removes the binaries the tests built once (txeditBinary,
// hookedBinary) after the tests ran; every run used to leave them behind.
type cleanup struct{ m *testing.M }

func (c cleanup) Run() int {
	// A key store of the tests' own (internal/teststate); the scripts get
	// one each (TestScript's Setup).
	done := teststate.Isolate()
	defer done()
	code := c.m.Run()
	for _, bin := range []string{builtBin, hooked.bin} {
		if bin != "" {
			os.RemoveAll(filepath.Dir(bin))
		}
	}
	goplstest.Cleanup()
	return code
}

func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       *update,
		Setup: func(env *testscript.Env) error {
			// Beside $WORK, not in it: the scripts look at their trees.
			env.Setenv("XDG_STATE_HOME", env.WorkDir+".state")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// readlink PATH TARGET: PATH is a symbolic link to TARGET.
			"readlink": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 2 {
					ts.Fatalf("usage: readlink PATH TARGET")
				}
				got, err := os.Readlink(ts.MkAbs(args[0]))
				if ok := err == nil && got == args[1]; ok == neg {
					ts.Fatalf("readlink %s: %q %v, want %q", args[0], got, err, args[1])
				}
			},
		},
	})
}

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(dir+"/a.txt", []byte("a\n"), 0o644)
	tests := []struct {
		name  string
		args  []string
		stdin string
		want  int
	}{
		{"ok", []string{"apply", "--root", dir}, `{"command":"append","path":"a.txt","new_str":"b"}`, 0},
		{"flags after positional", []string{"apply", "-", "--root", dir, "--dry-run"}, `{"command":"append","path":"a.txt","new_str":"c"}`, 0},
		{"edit failed", []string{"apply", "--root", dir}, `{"command":"str_replace","path":"a.txt","old_str":"zzz","new_str":"y"}`, 1},
		{"unparseable request", []string{"apply", "--root", dir}, `{"command":`, 2},
		{"unknown field", []string{"apply", "--root", dir}, `{"command":"append","path":"a.txt","new_str":"b","oops":1}`, 2},
		{"invalid edit", []string{"apply", "--root", dir}, `{"command":"str_replace","path":"a.txt","old_str":"a"}`, 2},
		{"unknown flag", []string{"apply", "--nope"}, ``, 2},
		{"unknown command", []string{"frobnicate"}, ``, 2},
		{"no command", nil, ``, 2},
		{"outside root", []string{"apply", "--root", dir}, `{"command":"create","path":"../x","file_text":"x"}`, 1},
		{"missing root", []string{"log", "--root", dir + "/nope"}, ``, 1},
		// A git diff that creates a symbolic link leading outside the
		// root is a refusal (outside_root), not bad usage: it parsed.
		{"symlink outside the root", []string{"apply", "--root", dir, "--format", "diff"}, "diff --git a/l b/l\nnew file mode 120000\nindex 0000000..1111111\n--- /dev/null\n+++ b/l\n@@ -0,0 +1 @@\n+../x\n\\ No newline at end of file\n", 1},
	}
	for _, tc := range tests {
		var out, errb bytes.Buffer
		got := run(tc.args, strings.NewReader(tc.stdin), &out, &errb)
		if got != tc.want {
			t.Errorf("%s: exit %d, want %d\nstdout: %s\nstderr: %s", tc.name, got, tc.want, out.String(), errb.String())
		}
	}
	if data, _ := os.ReadFile(dir + "/a.txt"); string(data) != "a\nb\n" {
		t.Errorf("a.txt = %q: only the first request should have written", data)
	}
}
