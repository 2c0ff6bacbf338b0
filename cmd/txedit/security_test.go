package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txedit/txedit/apply/patch"
	"github.com/txedit/txedit/tools"
)

// TestNestedJournalEverySurface (docs/testing.md, the second red-team audit): no command line surface, no
// toolset and no patch format reads or writes a nested workspace's
// journal (sub/.txedit), or writes below .git at any depth.
func TestNestedJournalEverySurface(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "sub/.git"), 0o755)
	os.WriteFile(filepath.Join(dir, "sub/f.txt"), []byte("one\n"), 0o644)
	if r := runStdin(`{"command":"str_replace","path":"f.txt","old_str":"one","new_str":"two"}`, "apply", "--root", filepath.Join(dir, "sub"), "-"); r.code != 0 {
		t.Fatalf("nested commit: %+v", r)
	}
	secret := "sub/.txedit/id" // the journal's id, which names its key in the user's store
	writes := []struct {
		args  []string
		stdin string
	}{
		{[]string{"apply", "-"}, `{"command":"create","path":"sub/.txedit/x","file_text":"forged\n"}`},
		{[]string{"apply", "--format", "apply_patch", "-"}, "*** Begin Patch\n*** Add File: sub/.txedit/x\n+forged\n*** End Patch\n"},
		{[]string{"apply", "--format", "diff", "-"}, "--- /dev/null\n+++ b/sub/.TXEDIT/x\n@@ -0,0 +1 @@\n+forged\n"},
		{[]string{"apply", "-"}, `{"command":"create","path":"sub/.git/hooks/pre-commit","file_text":"evil\n"}`},
		{[]string{"tool", "--toolset", "txedit", "fs_write"}, `{"command":"create","path":"sub/.txedit/x","file_text":"forged\n"}`},
		{[]string{"tool", "--toolset", "amazonq", "fs_write"}, `{"command":"create","path":"sub/.txedit/x","file_text":"forged\n"}`},
		{[]string{"tool", "--toolset", "claude", "Write"}, `{"file_path":"sub/.txedit/x","content":"forged\n"}`},
		{[]string{"tool", "--toolset", "deepagents", "write_file"}, `{"path":"sub/.txedit/x","content":"forged\n"}`},
		{[]string{"tool", "--toolset", "adk", "write_file"}, `{"file_path":"sub/.txedit/x","text":"forged\n"}`},
		{[]string{"tool", "--toolset", "codex", "apply_patch"}, `{"input":"*** Begin Patch\n*** Add File: sub/.txedit/x\n+forged\n*** End Patch\n"}`},
		{[]string{"tool", "--toolset", "claude", "Write"}, `{"file_path":"sub/.Git/hooks/pre-commit","content":"evil\n"}`},
	}
	for _, w := range writes {
		r := runStdin(w.stdin, append(w.args, "--root", dir)...)
		if !strings.Contains(r.stdout+r.stderr, "denied") {
			t.Errorf("%q: no denial: %+v", w.args, r)
		}
	}
	for _, p := range []string{"sub/.txedit/x", "sub/.TXEDIT/x", "sub/.git/hooks/pre-commit", "sub/.Git/hooks/pre-commit"} {
		if _, err := os.Lstat(filepath.Join(dir, p)); err == nil {
			t.Errorf("%s was written", p)
		}
	}
	reads := []struct {
		args  []string
		stdin string
	}{
		{[]string{"read", "-"}, `{"mode":"Line","path":"` + secret + `"}`},
		{[]string{"tool", "--toolset", "claude", "Read"}, `{"file_path":"` + secret + `"}`},
		{[]string{"tool", "--toolset", "deepagents", "read_file"}, `{"path":"` + secret + `"}`},
		{[]string{"tool", "--toolset", "adk", "read_file"}, `{"file_path":"` + secret + `"}`},
		{[]string{"tool", "--toolset", "txedit", "fs_read"}, `{"mode":"Line","path":"` + secret + `"}`},
	}
	key, _ := os.ReadFile(filepath.Join(dir, secret))
	for _, rd := range reads {
		r := runStdin(rd.stdin, append(rd.args, "--root", dir)...)
		if len(key) < 32 || strings.Contains(r.stdout+r.stderr, strings.TrimSpace(string(key))) || !strings.Contains(r.stdout+r.stderr, "denied") {
			t.Errorf("%q read the journal: %+v", rd.args, r)
		}
	}
}

func runStdin(stdin string, args ...string) cliResult {
	var out, errb strings.Builder
	code := run(args, strings.NewReader(stdin), &out, &errb)
	return cliResult{code, out.String(), errb.String()}
}

// TestGCPercentByCommand: writes run the collector at 100 on every entry
// point (a pattern_replace through a tool or the MCP server at 400 took
// twice the page faults of txedit apply), grep at 50, reads at 400.
func TestGCPercentByCommand(t *testing.T) {
	for args, want := range map[string]int{
		"apply -": 100, "replace s/a/b/": 100, "mcp --toolset claude": 100, "undo": 100,
		"grep x": 50, "read -": 400, "log": 400, "tool --toolset claude Read": 400,
	} {
		if got := gcPercent(strings.Fields(args)); got != want {
			t.Errorf("gcPercent(%s) = %d, want %d", args, got, want)
		}
	}
	// txedit apply sets it again once the request is parsed: 300 for
	// edits and patches of up to smallRequestFiles files, 150 for more,
	// the command's 100 for a pattern_replace.
	var many strings.Builder
	for i := range smallRequestFiles + 1 {
		fmt.Fprintf(&many, "diff --git a/f%d b/f%d\n--- a/f%d\n+++ b/f%d\n@@ -1 +1 @@\n-a\n+b\n", i, i, i, i)
	}
	for js, want := range map[string]int{
		`{"path":"a","command":"str_replace","old_str":"x","new_str":"y"}`: 300,
		`{"directory":".","sed_pattern":"s/a/b/","file_pattern":"*.go"}`:   0,
		"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n":      300,
		many.String(): 150,
	} {
		req, _, err := patch.Compile(patch.FormatAuto, []byte(js))
		if err != nil {
			t.Fatal(err)
		}
		if got := applyGCPercent(req); got != want {
			t.Errorf("applyGCPercent(%.60q) = %d, want %d", js, got, want)
		}
	}
	// txedit tool sets it once the tool is known: 0 keeps the command's 400.
	for call, want := range map[string]int{
		"txedit fs_write": 100, "claude Edit": 100, "deepagents edit_file": 100, "txedit apply_patch": 100,
		"claude Read": 0, "claude Grep": 50, "txedit grep": 50, "deepagents execute": 0,
	} {
		set, name, _ := strings.Cut(call, " ")
		ts, err := tools.Get(set)
		if err != nil {
			t.Fatal(err)
		}
		tool := ts.Tool(name)
		if tool == nil {
			t.Fatalf("%s has no %s", set, name)
		}
		if got := toolGCPercent(tool); got != want {
			t.Errorf("toolGCPercent(%s) = %d, want %d", call, got, want)
		}
	}
}
