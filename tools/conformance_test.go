package tools

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

// The conformance tests run each dialect's tool and the real program it
// imitates on the same tree, and compare what they print: rg for the
// searches, grep -r, find, diff -u and ls -lA for the ADK and Amazon Q
// tools. Where a dialect deliberately differs (docs/toolsets.md, "Where a dialect
// differs from its tool"), the test says so next to the comparison.

// peer finds a real program; without it the test is skipped, except in
// CI, where it must run.
func peer(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not installed; .ci/run installs it", name)
		}
		t.Skipf("%s is not installed", name)
	}
	return p
}

// run runs a peer in dir with the C locale (byte order, English messages)
// and returns its stdout and stderr; exit status 1 (no match, files
// differ) is not a failure.
func run(t *testing.T, dir, prog string, args ...string) (string, string) {
	t.Helper()
	cmd := exec.Command(prog, args...)
	cmd.Args[0] = filepath.Base(prog) // as its messages name it
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			t.Fatalf("%s %v: %v\n%s", prog, args, err, errb.String())
		}
	}
	return out.String(), errb.String()
}

// searchTree is the tree the search tools are compared on: overlapping
// contexts, a multiline span, a dot-directory, an ignored directory, a
// binary file, files of distinct ages (newest first is a sort order
// here).
var searchTree = map[string]string{
	"a.txt":         "one\nfoo two\nthree\nfoo four\nfive\nsix\nseven\neight\nnine\nten\nfoo eleven\ntwelve\n",
	"b/b.txt":       "foo\nbar foo\nbaz\n",
	"b/deep/c.go":   "package c\n\n// foo is here\nfunc Foo() {}\n",
	"d.txt":         "x\nstart here\nmiddle\nend there\ny\nstart\nend\n",
	"e.md":          "nothing to see\n",
	".hidden/h.txt": "foo hidden\n",
	"bin.dat":       "foo\x00binary foo\n",
	"ignored/i.txt": "foo ignored\n",
	".gitignore":    "ignored/\n",
	"upper.txt":     "FOO shouting\nFoo mixed\n",
}

// searchSetup writes searchTree with every file a different age: the
// order of the map's sorted names, oldest first.
func searchSetup(t *testing.T) (*Env, string) {
	env, dir := setup(t, searchTree, nil)
	var names []string
	for n := range searchTree {
		names = append(names, n)
	}
	sort.Strings(names)
	base := time.Now().Add(-time.Hour)
	for i, n := range names {
		mt := base.Add(time.Duration(i) * time.Minute)
		os.Chtimes(filepath.Join(dir, n), mt, mt)
	}
	return env, dir
}

// rgArgs are the flags that make rg print what the tools print: no
// heading, paths in order, .gitignore honoured outside a git repository.
var rgArgs = []string{"--no-config", "--no-heading", "--no-require-git", "--color=never"}

func lines(s string, n int) string {
	ls := strings.SplitAfter(s, "\n")
	if n < len(ls) {
		ls = ls[:n]
	}
	return strings.Join(ls, "")
}

// claudeRgArgs are the flags Claude Code 2.1.x gives rg: hidden files
// searched, version-control directories left out, .gitignore honoured
// inside a git repository only (rg's default: the tree has none, so its
// .gitignore does not count).
var claudeRgArgs = []string{"--no-config", "--no-heading", "--color=never", "--hidden", "--glob", "!.git", "--glob", "!.svn", "--glob", "!.hg"}

// TestClaudeGrepLikeRipgrep: Claude Code runs rg; its Grep's content is
// rg's output (context merged, -- separators, each line of a multiline
// match with its prefix, head_limit on output lines), files come newest
// first (rg --sortr modified), counts are rg -c -H's.
func TestClaudeGrepLikeRipgrep(t *testing.T) {
	rg := peer(t, "rg")
	env, dir := searchSetup(t)
	cases := []struct {
		args string
		rg   []string
		head int // compare the first head lines (head_limit)
	}{
		{`{"pattern":"foo","output_mode":"content","-C":2}`, []string{"--sort", "path", "-n", "-C", "2", "foo"}, 0},
		{`{"pattern":"foo","output_mode":"content","-A":1,"-B":3}`, []string{"--sort", "path", "-n", "-A", "1", "-B", "3", "foo"}, 0},
		{`{"pattern":"foo","output_mode":"content","-C":1,"-n":false}`, []string{"--sort", "path", "-C", "1", "foo"}, 0},
		{`{"pattern":"foo","output_mode":"content","-C":2,"head_limit":7}`, []string{"--sort", "path", "-n", "-C", "2", "foo"}, 7},
		{`{"pattern":"start.*end","output_mode":"content","multiline":true}`, []string{"--sort", "path", "-n", "-U", "--multiline-dotall", "start.*end"}, 0},
		{`{"pattern":"foo","output_mode":"content","-i":true,"glob":"*.txt"}`, []string{"--sort", "path", "-n", "-i", "-g", "*.txt", "foo"}, 0},
		{`{"pattern":"foo","output_mode":"content","type":"go","path":"b"}`, []string{"--sort", "path", "-n", "-t", "go", "foo", "b"}, 0},
		{`{"pattern":"foo","output_mode":"content","path":"a.txt","-C":1}`, []string{"--sort", "path", "-n", "-C", "1", "foo", "a.txt"}, 0},
		{`{"pattern":"foo","output_mode":"count"}`, []string{"--sort", "path", "-c", "-H", "foo"}, 0},
		{`{"pattern":"foo","output_mode":"count","path":"a.txt"}`, []string{"--sort", "path", "-c", "-H", "foo", "a.txt"}, 0},
		{`{"pattern":"foo"}`, []string{"--sort", "path", "-l", "foo"}, 0},
	}
	for _, tc := range cases {
		want, _ := run(t, dir, rg, append(append([]string{}, claudeRgArgs...), tc.rg...)...)
		if tc.head > 0 {
			want = lines(want, tc.head)
		}
		want = strings.TrimSuffix(want, "\n")
		got := call(t, env, "claude", "Grep", tc.args).Value.(ToolResult).Content
		switch {
		case strings.Contains(tc.args, `"count"`):
			got, _, _ = strings.Cut(got, "\n\nFound ")
		case strings.Contains(tc.args, `"content"`):
			got, _, _ = strings.Cut(got, "\n\n[Showing results")
		default:
			first, rest, _ := strings.Cut(got, "\n")
			if !strings.HasPrefix(first, "Found ") {
				t.Errorf("Grep %s: no Found line: %q", tc.args, got)
			}
			got = rest
		}
		if strings.Contains(tc.args, `"content"`) || strings.Contains(tc.args, `"count"`) {
			if got != want {
				t.Errorf("Grep %s:\n%s\nrg %v:\n%s", tc.args, got, tc.rg, want)
			}
			continue
		}
		// files_with_matches: rg's files, newest first (rg's --sortr
		// modified orders siblings only: the order is checked against
		// the files' own times).
		if sortedLines(got) != sortedLines(want) {
			t.Errorf("Grep %s:\n%s\nrg %v:\n%s", tc.args, got, tc.rg, want)
		}
		checkNewestFirst(t, dir, "Grep "+tc.args, got)
	}
	// head_limit cuts the newest-first list.
	all := call(t, env, "claude", "Grep", `{"pattern":"foo"}`).Value.(ToolResult).Content
	two := call(t, env, "claude", "Grep", `{"pattern":"foo","head_limit":2}`).Value.(ToolResult).Content
	_, allFiles, _ := strings.Cut(all, "\n")
	first, twoFiles, _ := strings.Cut(two, "\n")
	if twoFiles != lines(allFiles, 2)[:len(lines(allFiles, 2))-1] || first != "Found 2 files limit: 2" {
		t.Errorf("head_limit 2 of\n%s\ngave\n%s", all, two)
	}
}

// checkNewestFirst fails unless the listed files are newest first.
func checkNewestFirst(t *testing.T, dir, what, list string) {
	t.Helper()
	files := strings.Split(list, "\n")
	for i := 1; i < len(files); i++ {
		a, _ := os.Stat(filepath.Join(dir, files[i-1]))
		b, _ := os.Stat(filepath.Join(dir, files[i]))
		if a == nil || b == nil || a.ModTime().Before(b.ModTime()) {
			t.Errorf("%s: %s is listed before the newer %s", what, files[i-1], files[i])
		}
	}
}

// TestTxeditGrepTextLikeRipgrep: the txedit toolset's grep reads as rg's
// output (its JSON is the structured content).
func TestTxeditGrepTextLikeRipgrep(t *testing.T) {
	rg := peer(t, "rg")
	env, dir := searchSetup(t)
	for _, tc := range []struct {
		args string
		rg   []string
	}{
		{`{"pattern":"foo","output_mode":"content","-C":2}`, []string{"-n", "-C", "2", "foo"}},
		{`{"pattern":"start.*\\nmiddle","output_mode":"content","multiline":true,"-A":1}`, []string{"-n", "-U", "-A", "1", `start.*\nmiddle`}},
		{`{"pattern":"foo","output_mode":"count"}`, []string{"-c", "foo"}},
		{`{"pattern":"foo"}`, []string{"-l", "foo"}},
	} {
		want, _ := run(t, dir, rg, append(append([]string{}, rgArgs...), append([]string{"--sort", "path"}, tc.rg...)...)...)
		if got := call(t, env, "txedit", "grep", tc.args).TextOf(); got != want {
			t.Errorf("grep %s:\n%s\nrg %v:\n%s", tc.args, got, tc.rg, want)
		}
	}
}

// TestDeepAgentsGrepLikeRipgrep: deepagents' grep prints file:line:text,
// file:count or files, paths relative to path, as rg -n run in path does;
// rg's options that are not the dialect's (multiline here) are ignored,
// and every output line has its prefix.
func TestDeepAgentsGrepLikeRipgrep(t *testing.T) {
	rg := peer(t, "rg")
	env, dir := searchSetup(t)
	for _, tc := range []struct {
		args, in string
		rg       []string
	}{
		{`{"pattern":"foo","output_mode":"content"}`, ".", []string{"-n", "foo"}},
		{`{"pattern":"foo","output_mode":"content","path":"b"}`, "b", []string{"-n", "foo"}},
		{`{"pattern":"start.*end","output_mode":"content","multiline":true}`, ".", []string{"-n", "start.*end"}},
		{`{"pattern":"foo","output_mode":"count","path":"b"}`, "b", []string{"-c", "foo"}},
		{`{"pattern":"foo","glob":"*.go"}`, ".", []string{"-l", "-g", "*.go", "foo"}},
	} {
		want, _ := run(t, filepath.Join(dir, tc.in), rg, append(append([]string{}, rgArgs...), append([]string{"--sort", "path"}, tc.rg...)...)...)
		if got := call(t, env, "deepagents", "grep", tc.args).Value; got != strings.TrimSuffix(want, "\n") {
			t.Errorf("grep %s:\n%s\nrg %v in %s:\n%s", tc.args, got, tc.rg, tc.in, want)
		}
	}
}

// TestClaudeGlobLikeRipgrepFiles: Claude Code 2.1.x's Glob finds the
// files rg --files --hidden --no-ignore --glob finds (a pattern without
// "/" matches names at any depth, as rg's globs do); an absolute pattern
// works. The files come oldest first (checked against their own times).
func TestClaudeGlobLikeRipgrepFiles(t *testing.T) {
	rg := peer(t, "rg")
	env, dir := searchSetup(t)
	for _, tc := range []struct {
		args string
		rg   []string
	}{
		{`{"pattern":"**/*.txt"}`, []string{"-g", "**/*.txt"}},
		{`{"pattern":"*.txt"}`, []string{"-g", "*.txt"}},
		{`{"pattern":"*.txt","path":"b"}`, []string{"-g", "*.txt", "b"}},
		{`{"pattern":"**/*"}`, nil},
		{`{"pattern":"` + dir + `/b/**/*.go"}`, []string{"-g", "b/**/*.go"}},
	} {
		want, _ := run(t, dir, rg, append([]string{"--files", "--sort", "path", "--no-config", "--hidden", "--no-ignore"}, tc.rg...)...)
		got := call(t, env, "claude", "Glob", tc.args).Value.(ToolResult).Content
		if sortedLines(got) != sortedLines(want) {
			t.Errorf("Glob %s:\n%s\nrg --files %v:\n%s", tc.args, got, tc.rg, want)
		}
		checkOldestFirst(t, dir, "Glob "+tc.args, got)
	}
}

// checkOldestFirst fails unless the listed files are oldest first.
func checkOldestFirst(t *testing.T, dir, what, list string) {
	t.Helper()
	files := strings.Split(list, "\n")
	for i := 1; i < len(files); i++ {
		a, _ := os.Stat(filepath.Join(dir, files[i-1]))
		b, _ := os.Stat(filepath.Join(dir, files[i]))
		if a == nil || b == nil || b.ModTime().Before(a.ModTime()) {
			t.Errorf("%s: %s is listed before the older %s", what, files[i-1], files[i])
		}
	}
}

// TestAmazonQSearchLikeGrep: fs_read's Search mode (case-insensitive text,
// context_lines) prints the lines grep -n -i -F -C prints, each once, --
// between groups, as "Line N: text".
func TestAmazonQSearchLikeGrep(t *testing.T) {
	grepPath := peer(t, "grep")
	env, dir := searchSetup(t)
	for _, n := range []string{"0", "1", "2", "4"} {
		out, _ := run(t, dir, grepPath, "-n", "-i", "-F", "-C", n, "foo", "a.txt")
		want := regexp.MustCompile(`(?m)^(\d+)[:-]`).ReplaceAllString(out, "Line $1: ")
		for _, ts := range []string{"amazonq", "txedit"} {
			r := call(t, env, ts, "fs_read", `{"mode":"Search","path":"a.txt","pattern":"FOO","context_lines":`+n+`}`)
			if got := jsonField(t, r.Value, "content"); got != want {
				t.Errorf("%s Search, context %s:\n%s\ngrep -n -i -F -C %s:\n%s", ts, n, got, n, want)
			}
		}
	}
}

func jsonField(t *testing.T, v any, field string) string {
	t.Helper()
	var m map[string]any
	if err := jsonUnmarshal(jsonOf(v), &m); err != nil {
		t.Fatalf("%s: %v", jsonOf(v), err)
	}
	s, _ := m[field].(string)
	return s
}

// TestAmazonQDirectoryLikeLs: Directory mode is an ls -lA listing (ls
// -lAR down to depth): the total, mode, links, owner, group, size, time
// and name columns as ls prints them.
func TestAmazonQDirectoryLikeLs(t *testing.T) {
	ls := peer(t, "ls")
	env, dir := setup(t, map[string]string{"a.txt": "hello\n", "big.bin": strings.Repeat("x", 10000), "sub/c.txt": "c\n", "sub/deep/d.txt": "", ".dot": "."}, nil)
	os.Symlink("a.txt", filepath.Join(dir, "link"))
	os.Chmod(filepath.Join(dir, "sub", "c.txt"), 0o4755)
	old := time.Date(2020, 3, 4, 5, 6, 7, 0, time.UTC)
	os.Chtimes(filepath.Join(dir, "big.bin"), old, old)
	for _, tc := range []struct {
		args string
		ls   []string
	}{
		{`{"mode":"Directory","path":"."}`, []string{"-lA"}},
		{`{"mode":"Directory","path":"sub"}`, []string{"-lA", "sub"}},
		{`{"mode":"Directory","path":".","depth":5}`, []string{"-lAR", "."}},
		{`{"mode":"Directory","path":"sub","depth":1}`, []string{"-lAR", "sub"}},
	} {
		want, _ := run(t, dir, ls, tc.ls...)
		// Where SELinux or ACLs are in use, ls widens the mode column by a
		// marker (".", "+", or " " on the lines without one); txedit
		// shows none (README).
		if regexp.MustCompile(`(?m)^[-dlcbps][-rwxsStT]{9}[.+] `).MatchString(want) {
			want = regexp.MustCompile(`(?m)^([-dlcbps][-rwxsStT]{9}).`).ReplaceAllString(want, "$1")
		}
		for _, ts := range []string{"amazonq", "txedit"} {
			if got := jsonField(t, call(t, env, ts, "fs_read", tc.args).Value, "content"); got != want {
				t.Errorf("%s fs_read %s:\n%s\nls %v:\n%s", ts, tc.args, got, tc.ls, want)
			}
		}
	}
}

// adkTree is the tree grep -r, find and diff are compared on.
var adkTree = map[string]string{
	"a.txt":          "hello\nworld\nHello again\nhelloworld\n",
	"sub/c.txt":      "hello\n",
	"sub/b.bin":      "bin\x00hello\n",
	"sub/deep/d.txt": "x\n",
	"sub/deep/e.py":  "print('hello')\n",
	".h/x.txt":       "hello hidden\n",
	"ignored/i.txt":  "hello ignored\n",
	".gitignore":     "ignored/\n",
	"one.txt":        "a\nb\nc\nd\ne\nf\ng\n",
	"two.txt":        "a\nB\nc\nd\ne\nf\ng\nh",
}

// sortedLines sorts a program's output lines: grep -r and find list a
// directory in the order it reads it, txedit in path order.
func sortedLines(s string) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	sort.Strings(ls)
	return strings.Join(ls, "\n")
}

// TestADKGrepFileLikeGrep: grep_file prints what grep prints — every file
// of a recursive search (dot-files, ignored and binary ones), zero
// counts, binary files counted and listed but their lines left to
// stderr's "binary file matches" — and says so when nothing matched.
func TestADKGrepFileLikeGrep(t *testing.T) {
	grepPath := peer(t, "grep")
	env, dir := setup(t, adkTree, nil)
	os.Symlink("a.txt", filepath.Join(dir, "sub", "link")) // grep -r does not follow it
	for _, tc := range []struct {
		args  string
		flags []string
	}{
		{`{"file_path":".","pattern":"hello","recursive":true}`, []string{"-r", "hello", "."}},
		{`{"file_path":".","pattern":"hello","recursive":true,"count_matches":true}`, []string{"-r", "-c", "hello", "."}},
		{`{"file_path":"sub","pattern":"hello","recursive":true,"files_with_matches":true}`, []string{"-r", "-l", "hello", "sub"}},
		{`{"file_path":"sub/","pattern":"hello","recursive":true,"show_line_numbers":true}`, []string{"-n", "-r", "hello", "sub/"}},
		{`{"file_path":"a.txt","pattern":"hello","ignore_case":true,"show_line_numbers":true}`, []string{"-i", "-n", "hello", "a.txt"}},
		{`{"file_path":"a.txt","pattern":"hello","whole_word":true}`, []string{"-w", "hello", "a.txt"}},
		{`{"file_path":"a.txt","pattern":"hello","invert_match":true,"count_matches":true}`, []string{"-v", "-c", "hello", "a.txt"}},
		{`{"file_path":"sub/deep","pattern":"hello","recursive":true,"invert_match":true}`, []string{"-r", "-v", "hello", "sub/deep"}},
	} {
		out, stderr := run(t, dir, grepPath, tc.flags...)
		r := call(t, env, "adk", "grep_file", tc.args)
		v := r.Value.(map[string]any)
		if v["status"] != "success" {
			t.Fatalf("grep_file %s: %v", tc.args, v)
		}
		if got, want := sortedLines(v["output"].(string)), sortedLines(out); got != want {
			t.Errorf("grep_file %s:\n%s\ngrep %v:\n%s", tc.args, got, tc.flags, want)
		}
		if got, want := sortedLines(v["debug"].(map[string]any)["stderr"].(string)), sortedLines(stderr); got != want {
			t.Errorf("grep_file %s: stderr %q, grep's %q", tc.args, got, want)
		}
	}
	// Nothing selected: grep exits 1, and the tool says so in words.
	if _, stderr := run(t, dir, grepPath, "nothing", "a.txt"); stderr != "" {
		t.Fatal(stderr)
	}
	r := call(t, env, "adk", "grep_file", `{"file_path":"a.txt","pattern":"nothing"}`)
	if v := r.Value.(map[string]any); v["output"] != "No lines found matching the pattern 'nothing' in a.txt." || v["debug"].(map[string]any)["return_code"] != 1 {
		t.Errorf("no match: %v", v)
	}
}

// TestADKFindFilesLikeFind: find_files lists what find DIR -path '*/.*'
// -prune -o [-type T] [-name P] -print lists (DIR itself as "."),
// relative to DIR.
func TestADKFindFilesLikeFind(t *testing.T) {
	findPath := peer(t, "find")
	env, dir := setup(t, adkTree, nil)
	for _, tc := range []struct {
		args string
		in   string
		find []string
	}{
		{`{"dir_path":"."}`, ".", nil},
		{`{"dir_path":".","type":"d"}`, ".", []string{"-type", "d"}},
		{`{"dir_path":"sub","type":"f"}`, "sub", []string{"-type", "f"}},
		{`{"dir_path":".","name_pattern":"*.txt"}`, ".", []string{"-name", "*.txt"}},
		{`{"dir_path":"sub","name_pattern":"[cd]*","type":"f"}`, "sub", []string{"-type", "f", "-name", "[cd]*"}},
		{`{"dir_path":"sub","name_pattern":"sub"}`, "sub", []string{"-name", "sub"}},
	} {
		// find's starting point is dir_path; paths relative to it.
		args := append([]string{filepath.Join(dir, tc.in), "-path", "*/.*", "-prune", "-o"}, append(tc.find, "-print")...)
		out, _ := run(t, dir, findPath, args...)
		var want []string
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			if rel, err := filepath.Rel(filepath.Join(dir, tc.in), l); err == nil && l != "" {
				want = append(want, rel)
			}
		}
		sort.Strings(want)
		got := call(t, env, "adk", "find_files", tc.args).Value.(map[string]any)["output"].([]string)
		sorted := append([]string(nil), got...)
		sort.Strings(sorted)
		if strings.Join(sorted, "\n") != strings.Join(want, "\n") {
			t.Errorf("find_files %s:\n%v\nfind %v:\n%v", tc.args, got, tc.find, want)
		}
	}
}

// TestADKDiffFilesLikeDiff: diff_files prints diff -u's output (its
// header lines with the files' times too), or "Files are identical.".
func TestADKDiffFilesLikeDiff(t *testing.T) {
	diffPath := peer(t, "diff")
	env, dir := setup(t, adkTree, nil)
	for _, pair := range [][2]string{{"one.txt", "two.txt"}, {"two.txt", "one.txt"}, {"a.txt", "sub/c.txt"}, {"one.txt", "one.txt"}} {
		out, _ := run(t, dir, diffPath, "-u", pair[0], pair[1])
		want := strings.TrimSpace(out)
		if want == "" {
			want = "Files are identical."
		}
		got := call(t, env, "adk", "diff_files", `{"file_path1":"`+pair[0]+`","file_path2":"`+pair[1]+`"}`).Value.(map[string]any)["output"]
		if got != want {
			t.Errorf("diff_files %v:\n%s\ndiff -u:\n%s", pair, got, want)
		}
	}
}

// TestADKFileSearchAndListLikeFindAndLs: file_search finds names the way
// os.walk and fnmatch do — dot-files and ignored files too — as find
// -type f -name does; list_directory lists what ls -A does.
func TestADKFileSearchAndListLikeFindAndLs(t *testing.T) {
	findPath, ls := peer(t, "find"), peer(t, "ls")
	env, dir := setup(t, adkTree, nil)
	for _, tc := range [][2]string{{".", "*.txt"}, {"sub", "*"}, {".", "[!a-h]*.txt"}, {".", ".git*"}} {
		out, _ := run(t, filepath.Join(dir, tc[0]), findPath, ".", "-type", "f", "-name", tc[1])
		want := strings.ReplaceAll(sortedLines(out), "./", "")
		got := call(t, env, "adk", "file_search", `{"dir_path":"`+tc[0]+`","pattern":"`+tc[1]+`"}`).Value.(string)
		if sortedLines(got) != want {
			t.Errorf("file_search %v:\n%s\nfind -name:\n%s", tc, got, want)
		}
	}
	for _, d := range []string{".", "sub"} {
		out, _ := run(t, dir, ls, "-A", d)
		if got := call(t, env, "adk", "list_directory", `{"dir_path":"`+d+`"}`).Value.(string); got != strings.TrimSpace(out) {
			t.Errorf("list_directory %s:\n%s\nls -A:\n%s", d, got, out)
		}
	}
}
