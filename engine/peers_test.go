package engine

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/txedit/txedit/internal/testlong"
	"github.com/txedit/txedit/internal/teststate"
	"github.com/txedit/txedit/plan"
)

// The equality tests run txedit and the real ripgrep and fd on a copy of
// the Go distribution's source tree made a git repository, with ignore
// files added so that nested rules and negation are exercised. In the
// quick run and under the race detector a part of the tree is used
// (smallCorpus).
var goTree struct {
	once sync.Once
	dir  string
	err  error
}

// peerHome is the empty home directory the peers run with (peerEnv).
var peerHome struct {
	once sync.Once
	dir  string
}

// TestMain removes the shared trees the tests made once: the copy of the
// Go source tree is over 100 MiB, and every run used to leave one behind.
func TestMain(m *testing.M) {
	cleanup := teststate.Isolate()
	code := m.Run()
	cleanup()
	for _, dir := range []string{goTree.dir, peerHome.dir} {
		if dir != "" {
			os.RemoveAll(dir)
		}
	}
	os.Exit(code)
}

func peer(t *testing.T, names ...string) string {
	t.Helper()
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("%s is not installed; .ci/run installs it", names[0])
	}
	t.Skipf("%s not installed", names[0])
	return ""
}

// smallCorpus reports whether the tests over a copy of GOROOT/src copy a
// few of its packages (fmt, net, go, strings) rather than all of it: in
// the quick run and under the race detector. TXEDIT_LONG=1 without -race
// copies it all.
func smallCorpus() bool { return raceEnabled || !testlong.Long() }

func goSourceTree(t *testing.T) string {
	t.Helper()
	goTree.once.Do(func() {
		src := filepath.Join(goRoot(t), "src")
		dir, err := os.MkdirTemp("", "txedit-gosrc")
		if err != nil {
			goTree.err = err
			return
		}
		goTree.dir = dir
		parts := []string{src + "/."}
		if smallCorpus() {
			parts = []string{src + "/fmt", src + "/net", src + "/go", src + "/strings"}
		}
		for _, p := range parts {
			dst := dir
			if smallCorpus() {
				dst = filepath.Join(dir, filepath.Base(p))
			}
			if out, err := exec.Command("cp", "-a", p, dst).CombinedOutput(); err != nil {
				goTree.err = fmt.Errorf("cp: %v %s", err, out)
				return
			}
		}
		write := func(name, data string) {
			os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
			if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
				goTree.err = err
			}
		}
		write(".gitignore", "testdata/\n*_test.go\n!fmt/*_test.go\n/cmd/vendor/\n*.s\n")
		write("net/http/.gitignore", "*.go\n!doc.go\n")
		write("go/.ignore", "!*_test.go\n")
		write(".hidden/visible-only-with-hidden.go", "package hidden // context.Context\n")
		cmd := exec.Command("git", "init", "-q")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			goTree.err = fmt.Errorf("git init: %v %s", err, out)
		}
	})
	if goTree.err != nil {
		t.Fatal(goTree.err)
	}
	return goTree.dir
}

// peerEnv keeps the user's configuration out of the peers' behaviour.
func peerEnv() []string {
	peerHome.once.Do(func() { peerHome.dir, _ = os.MkdirTemp("", "txedit-home") })
	home := peerHome.dir
	return append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home, "GIT_CONFIG_NOSYSTEM=1", "RIPGREP_CONFIG_PATH=")
}

func runPeer(t *testing.T, dir string, name string, args ...string) []string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = peerEnv()
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 { // 1: no match
			t.Fatalf("%s %v: %v", name, args, err)
		}
	}
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		lines = append(lines, strings.TrimPrefix(sc.Text(), "./"))
	}
	sort.Strings(lines)
	return lines
}

func diffSets(got, want []string) string {
	g, w := map[string]bool{}, map[string]bool{}
	for _, s := range got {
		g[s] = true
	}
	for _, s := range want {
		w[s] = true
	}
	var b strings.Builder
	n := 0
	for _, s := range want {
		if !g[s] && n < 10 {
			fmt.Fprintf(&b, "  missing: %s\n", s)
			n++
		}
	}
	for _, s := range got {
		if !w[s] && n < 20 {
			fmt.Fprintf(&b, "  extra:   %s\n", s)
			n++
		}
	}
	return b.String()
}

func TestGrepEqualsRipgrep(t *testing.T) {
	rg := peer(t, "rg")
	dir := goSourceTree(t)
	w := openWS(t, dir, &Options{ReadOnly: true})
	cases := []struct {
		name    string
		req     plan.GrepRequest
		rgFlags []string
	}{
		{"literal", plan.GrepRequest{Pattern: `context.Context`, Literal: true}, []string{"-F"}},
		{"regex", plan.GrepRequest{Pattern: `func \w+\(ctx context\.Context`}, nil},
		{"ignore case", plan.GrepRequest{Pattern: `deprecated`, IgnoreCase: true}, []string{"-i"}},
		{"alternation", plan.GrepRequest{Pattern: `fmt\.Errorf|errors\.New|panic\(`}, nil},
		{"anchors", plan.GrepRequest{Pattern: `^package main$`}, nil},
		{"word", plan.GrepRequest{Pattern: `\bTODO\b`}, nil},
		{"class", plan.GrepRequest{Pattern: `[A-Z][a-z]+Error\b`}, nil},
		{"negated class stays on the line", plan.GrepRequest{Pattern: `if err[^{]*\{$`}, nil},
		{"space class stays on the line", plan.GrepRequest{Pattern: `return\s+nil\s*$`}, nil},
		{"type", plan.GrepRequest{Pattern: `sync\.Mutex`, Type: "go"}, []string{"-t", "go"}},
		{"globs", plan.GrepRequest{Pattern: `Reader`, Globs: []string{"*.go", "!**/internal/**"}}, []string{"-g", "*.go", "-g", "!**/internal/**"}},
		{"anchored glob", plan.GrepRequest{Pattern: `Printf`, Glob: "fmt/*.go"}, []string{"-g", "fmt/*.go"}},
		{"brace glob", plan.GrepRequest{Pattern: `Unicode`, Glob: "*.{go,txt}"}, []string{"-g", "*.{go,txt}"}},
		{"hidden", plan.GrepRequest{Pattern: `context\.Context`, Hidden: true}, []string{"--hidden"}},
		{"no ignore", plan.GrepRequest{Pattern: `HandlerFunc`, NoIgnore: true}, []string{"--no-ignore"}},
		{"multiline", plan.GrepRequest{Pattern: `err != nil \{\n\s*return err`, Multiline: true}, []string{"-U"}},
		{"non-ascii", plan.GrepRequest{Pattern: `résumé|日本`}, nil},
		{"no match", plan.GrepRequest{Pattern: `zzqqxxyy-no-such-text`}, nil},
		{"invert", plan.GrepRequest{Pattern: `^\s*(//|$)|\{|\}|\(|\)`, Invert: true, Type: "go"}, []string{"-v", "-t", "go"}},
	}
	ctx := context.Background()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--no-config"}, tc.rgFlags...)
			// files
			req := tc.req
			req.OutputMode = "files_with_matches"
			res, err := w.Grep(ctx, &req)
			if err != nil {
				t.Fatal(err)
			}
			want := runPeer(t, dir, rg, append(append(args, "-l"), "--", tc.req.Pattern)...)
			if d := diffSets(res.Files, want); d != "" {
				t.Errorf("files differ from rg (%d vs %d):\n%s", len(res.Files), len(want), d)
			}
			// counts
			req.OutputMode = "count"
			res, err = w.Grep(ctx, &req)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range res.Counts {
				got = append(got, fmt.Sprintf("%s:%d", c.Path, c.Count))
			}
			sort.Strings(got)
			want = runPeer(t, dir, rg, append(append(args, "-c"), "--", tc.req.Pattern)...)
			if d := diffSets(got, want); d != "" {
				t.Errorf("counts differ from rg:\n%s", d)
			}
			if len(want) == 0 && tc.name != "no match" {
				t.Errorf("rg found nothing: the case tests nothing")
			}
		})
	}
	// Matching lines, with their numbers, for content mode.
	req := plan.GrepRequest{Pattern: `errors\.New\("[^"]*"\)`, OutputMode: "content", Before: 1, After: 2}
	res, err := w.Grep(ctx, &req)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range res.Matches {
		got = append(got, fmt.Sprintf("%s:%d:%s", m.Path, m.Line, m.Text))
	}
	sort.Strings(got)
	want := runPeer(t, dir, rg, "--no-config", "-n", "--no-heading", "--", req.Pattern)
	if d := diffSets(got, want); d != "" || len(want) == 0 {
		t.Errorf("content lines differ from rg (%d vs %d):\n%s", len(got), len(want), d)
	}
}

func TestGlobEqualsFd(t *testing.T) {
	fd := peer(t, "fdfind", "fd")
	dir := goSourceTree(t)
	w := openWS(t, dir, &Options{ReadOnly: true})
	cases := []struct {
		pattern string
		hidden  bool
		noIgn   bool
		fdArgs  []string
	}{
		{pattern: "**/*.go"},
		{pattern: "*.go"},
		{pattern: "*_test.go", noIgn: true, fdArgs: []string{"--no-ignore"}},
		{pattern: "*.{s,h,c}"},
		{pattern: "[A-Z]*"},
		{pattern: "*.go", hidden: true, fdArgs: []string{"--hidden"}},
		{pattern: "go/**/*.go", fdArgs: []string{"--full-path"}},
	}
	for _, tc := range cases {
		res, err := w.Glob(context.Background(), GlobOptions{Pattern: tc.pattern, Hidden: tc.hidden, NoIgnore: tc.noIgn})
		if err != nil {
			t.Fatal(err)
		}
		fdPattern := tc.pattern
		for _, a := range tc.fdArgs {
			if a == "--full-path" { // fd matches the absolute path
				fdPattern = dir + "/" + tc.pattern
			}
		}
		// txedit's glob is case-sensitive, as shells are; fd's default is
		// smart case, so it is asked to be case-sensitive too.
		want := runPeer(t, dir, fd, append(append([]string{"-t", "f", "-s", "--glob"}, tc.fdArgs...), fdPattern)...)
		if d := diffSets(res.Files, want); d != "" || (len(want) == 0 && !smallCorpus()) {
			t.Errorf("glob %q differs from fd (%d vs %d):\n%s", tc.pattern, len(res.Files), len(want), d)
		}
	}
}
