package walk

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/fsys/faultfs"
	"github.com/txedit/txedit/fsys/memfs"
)

func write(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func collect(t *testing.T, root string, opts Options) []string {
	t.Helper()
	fsy, err := fsys.NewOS(root)
	if err != nil {
		t.Fatal(err)
	}
	defer fsy.Close()
	return collectOn(t, fsy, opts)
}

func collectOn(t *testing.T, fsy fsys.FS, opts Options) []string {
	t.Helper()
	var mu sync.Mutex
	var got []string
	err := Walk(context.Background(), fsy, opts, func(e *Entry) error {
		mu.Lock()
		got = append(got, e.Path)
		mu.Unlock()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(got)
	return got
}

// gitFixture covers the corners of gitignore(5).
var gitFixture = map[string]string{
	".gitignore": strings.Join([]string{
		"# a comment", "", "*.log", "!keep.log", "/anchored.txt", "build/", "a/**/b.txt", "**/gen/",
		"logs/*", "!logs/.gitkeep", `\#hash.txt`, `\!bang.txt`, "trailing.txt   ", `space\ .txt`,
		"file[0-2].c", "*.o", "node_modules", "excluded/", "!excluded/reinclude.txt", "mid/*/x.txt", "sub/**",
		"!sub/keep/**", "x**y.txt", "[[:digit:]]*.num", "deep/",
	}, "\n"),
	"keep.log": "", "other.log": "", "anchored.txt": "", "dir/anchored.txt": "", "build/out": "",
	"src/build/out": "", "buildfile": "", "a/b.txt": "", "a/x/y/b.txt": "", "b.txt": "", "x/gen/g.go": "",
	"gen": "", "logs/a.log2": "", "logs/.gitkeep": "", "logs/sub/z": "", "#hash.txt": "", "!bang.txt": "",
	"trailing.txt": "", "space .txt": "", "space.txt": "", "file1.c": "", "file5.c": "", "x/file2.c": "",
	"m.o": "", "node_modules/p/index.js": "", "a/node_modules": "", "excluded/reinclude.txt": "",
	"excluded/other": "", "mid/q/x.txt": "", "mid/q/r/x.txt": "", "sub/a": "", "sub/keep/b": "",
	"xay.txt": "", "xa/y.txt": "", "7.num": "", "a7.num": "", ".hidden/file": "", ".dotfile": "",
	"n1/.gitignore": "*.tmp\n!important.tmp\n/local\nnested/\n",
	"n1/a.tmp":      "", "n1/important.tmp": "", "n1/local": "", "n1/sub/local": "", "n1/nested/x": "",
	"n1/n2/.gitignore": "!*.tmp\n*.md\n",
	"n1/n2/c.tmp":      "", "n1/n2/readme.md": "", "n1/n2/ok.txt": "",
	"n1/n2/n3/.gitignore": "!readme.md\n",
	"n1/n2/n3/readme.md":  "", "n1/n2/n3/other.md": "",
	"ex/excluded-by-info": "", "ex/kept": "",
	"deep/d1/d2/f": "", "CRLF/.gitignore": "crlf.txt\r\n", "CRLF/crlf.txt": "", "CRLF/kept": "",
}

// TestMatchesGit compares the walk with git's own answer
// (git ls-files --others --exclude-standard) on a fixture that covers
// comments, negation, anchoring, directory patterns, **, escapes, trailing
// spaces, classes, nested files at three levels and .git/info/exclude.
func TestMatchesGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("git is not installed; .ci/run installs it")
		}
		t.Skip("git not installed")
	}
	root := t.TempDir()
	write(t, root, gitFixture)
	cmd := exec.Command("git", "init", "-q")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	os.WriteFile(filepath.Join(root, ".git/info/exclude"), []byte("ex/excluded-by-info\n"), 0o644)
	cmd = exec.Command("git", "-c", "core.excludesFile=/dev/null", "-c", "core.quotePath=false", "ls-files", "--others", "--exclude-standard")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(strings.TrimSpace(string(out)), "\n")
	sort.Strings(want)
	got := collect(t, root, Options{Hidden: true})
	t.Logf("git keeps %d of %d fixture files", len(want), len(gitFixture))
	if len(want) < 20 {
		t.Fatalf("fixture too small to mean anything: %v", want)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("walk disagrees with git\n got: %q\nwant: %q", got, want)
	}
}

func TestHiddenDepthPruneAndDotIgnore(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{
		"a.go": "", ".hidden.go": "", ".dir/x.go": "", "d1/b.go": "", "d1/d2/c.go": "",
		".gitignore": "*.gen\n", "z.gen": "", ".ignore": "!z.gen\nvendor/\n", "vendor/v.go": "",
		".txedit/txns/x": "", "d1/.txedit-123-0.tmp": "",
	})
	os.Mkdir(filepath.Join(root, ".git"), 0o755)
	os.Symlink("a.go", filepath.Join(root, "link.go"))
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"default", Options{}, "a.go d1/b.go d1/d2/c.go z.gen"},
		{"hidden", Options{Hidden: true, Skip: skipJournal}, ".gitignore .hidden.go .ignore a.go d1/b.go d1/d2/c.go z.gen .dir/x.go"},
		{"no ignore", Options{NoIgnore: true}, "a.go d1/b.go d1/d2/c.go vendor/v.go z.gen"},
		{"depth 1", Options{MaxDepth: 1}, "a.go z.gen"},
		{"depth 2", Options{MaxDepth: 2}, "a.go d1/b.go z.gen"},
		{"subdir", Options{Dir: "d1"}, "d1/b.go d1/d2/c.go"},
		{"prune", Options{Prune: func(p string) bool { return p == "d1/d2" }}, "a.go d1/b.go z.gen"},
		{"dirs", Options{Dirs: true, MaxDepth: 2}, "a.go d1 d1/b.go d1/d2 z.gen"},
	}
	for _, tc := range tests {
		got := collect(t, root, tc.opts)
		want := strings.Fields(tc.want)
		sort.Strings(want)
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s: got %v, want %v", tc.name, got, want)
		}
	}
}

// skipJournal is the engine's Skip: txedit's journal and staging files.
func skipJournal(n string) bool {
	return n == ".txedit" || strings.HasPrefix(n, ".txedit-") && strings.HasSuffix(n, ".tmp")
}

// TestSkipHook: what the caller's Skip names is neither reported nor
// entered, even with Hidden.
func TestSkipHook(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{".jrnl/x": "", "a/.stage.tmp": "", "a/b": "", ".git/c": ""})
	got := collect(t, root, Options{Hidden: true, NoIgnore: true, Skip: func(n string) bool { return n == ".jrnl" || strings.HasSuffix(n, ".tmp") }})
	if strings.Join(got, " ") != "a/b" {
		t.Errorf("walk = %v, want [a/b]", got)
	}
}

// TestSameOnEveryFS: the walk of the OS file system, of an in-memory one
// and of either behind fault injection (which forwards directory handles)
// find the same files, and the wrapped walks read files through the
// directory handles, not by path.
func TestSameOnEveryFS(t *testing.T) {
	root := t.TempDir()
	write(t, root, gitFixture)
	want := collect(t, root, Options{})
	files := map[string]string{}
	for k, v := range gitFixture {
		files[k] = v
	}
	mem := memfs.New(files)
	if got := collectOn(t, mem, Options{}); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("memfs walk:\n%v\nOS walk:\n%v", got, want)
	}
	osfs, err := fsys.NewOS(root)
	if err != nil {
		t.Fatal(err)
	}
	defer osfs.Close()
	for name, inner := range map[string]fsys.FS{"os": osfs, "mem": mem} {
		ff := &faultfs.FS{Inner: inner, Record: true}
		var reads int
		err := Walk(context.Background(), ff, Options{}, func(e *Entry) error {
			_, err := e.ReadInto(nil, 1<<20)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if got := collectOn(t, ff, Options{}); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s behind faultfs: %v, want %v", name, got, want)
		}
		for _, c := range ff.Calls {
			if strings.HasPrefix(c, "readfile ") {
				reads++
			}
		}
		if reads != len(want) {
			t.Errorf("%s behind faultfs: %d reads through directory handles, want %d (calls: %v)", name, reads, len(want), ff.Calls)
		}
	}
}

func openFDs(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	return len(ents)
}

// TestNoDescriptorLeft: a walk that fails, is cancelled or ends leaves no
// directory open, and numbers its workers from 0.
func TestNoDescriptorLeft(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{}
	for i := 0; i < 40; i++ {
		for j := 0; j < 5; j++ {
			files[filepath.Join("d"+strconv.Itoa(i), "e"+strconv.Itoa(j), "f.txt")] = "x"
		}
		files[filepath.Join("d"+strconv.Itoa(i), "g.txt")] = "y"
	}
	write(t, root, files)
	fsy, err := fsys.NewOS(root)
	if err != nil {
		t.Fatal(err)
	}
	defer fsy.Close()
	before := openFDs(t)
	stop := errors.New("stop")
	var seen atomic.Int64
	err = Walk(context.Background(), fsy, Options{Workers: 3}, func(e *Entry) error {
		if e.Worker < 0 || e.Worker >= 3 {
			t.Errorf("worker %d of 3", e.Worker)
		}
		if seen.Add(1) == 7 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) {
		t.Fatalf("walk: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	err = Walk(ctx, fsy, Options{Workers: 2}, func(e *Entry) error {
		cancel()
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled walk: %v", err)
	}
	if got := collect(t, root, Options{}); len(got) != len(files) {
		t.Fatalf("walk found %d files, want %d", len(got), len(files))
	}
	if after := openFDs(t); after != before {
		t.Errorf("%d descriptors open before the walks, %d after", before, after)
	}
}

// TestRequireGit: with RequireGit a .gitignore counts only in a git
// repository (a .git here or above, or InRepo), as ripgrep decides; a
// .ignore counts everywhere.
func TestRequireGit(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{
		".gitignore": "a.log\n", ".ignore": "b.log\n", "a.log": "", "b.log": "", "c.txt": "",
		"repo/.git/HEAD": "ref: refs/heads/main\n", "repo/.gitignore": "x.log\n", "repo/x.log": "", "repo/y.txt": "",
	})
	got := strings.Join(collect(t, root, Options{RequireGit: true}), " ")
	if want := "a.log c.txt repo/y.txt"; got != want {
		t.Errorf("RequireGit outside a repository: %q, want %q", got, want)
	}
	got = strings.Join(collect(t, root, Options{RequireGit: true, InRepo: true}), " ")
	if want := "c.txt repo/y.txt"; got != want {
		t.Errorf("RequireGit, root inside a repository: %q, want %q", got, want)
	}
	got = strings.Join(collect(t, root, Options{}), " ")
	if want := "c.txt repo/y.txt"; got != want {
		t.Errorf("without RequireGit: %q, want %q", got, want)
	}
}
