package engine

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/txedit/txedit/plan"
)

// TestSearchModeMergesContext: fs_read's Search mode prints each line
// once however the contexts of nearby matches overlap, with "--" between
// groups that do not touch — the lines and separators GNU grep -n -i -F
// -C prints (overlapping context used to come out twice).
func TestSearchModeMergesContext(t *testing.T) {
	dir := t.TempDir()
	text := "one\nfoo two\nthree\nFOO four\nfive\nsix\nseven\neight\nnine\nfoo ten\neleven\n"
	writeTree(t, dir, map[string]string{"a.txt": text})
	w := openWS(t, dir, &Options{ReadOnly: true})
	for _, n := range []int{0, 1, 2, 3} {
		rs, err := w.Read(context.Background(), &plan.ReadRequest{Mode: "Search", Path: "a.txt", Pattern: "foo", ContextLines: ip(n)})
		if err != nil || !rs[0].Success {
			t.Fatalf("search: %v %+v", err, rs)
		}
		got := rs[0].Content
		want := "Line 2: foo two\nLine 4: FOO four\nLine 10: foo ten\n"
		if grepPath, err := exec.LookPath("grep"); err == nil {
			out, err := exec.Command(grepPath, "-n", "-i", "-F", "-C", strconv.Itoa(n), "foo", filepath.Join(dir, "a.txt")).Output()
			if err != nil {
				t.Fatal(err)
			}
			// grep's N:text and N-text become "Line N: text".
			want = regexp.MustCompile(`(?m)^(\d+)[:-]`).ReplaceAllString(string(out), "Line $1: ")
		} else if n != 0 {
			continue
		}
		if got != want {
			t.Errorf("context %d:\n%s\nwant (grep -n -i -F -C %d):\n%s", n, got, n, want)
		}
	}
}

// TestGlobNewestFirst: NewestFirst sorts by modification time, newest
// first with ties by path, before Limit cuts.
func TestGlobNewestFirst(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.txt": "", "b.txt": "", "c.txt": "", "d/e.txt": ""})
	base := time.Now().Add(-time.Hour)
	for name, age := range map[string]int{"a.txt": 3, "b.txt": 1, "c.txt": 2, "d/e.txt": 1} {
		mt := base.Add(-time.Duration(age) * time.Minute)
		os.Chtimes(filepath.Join(dir, name), mt, mt)
	}
	w := openWS(t, dir, &Options{ReadOnly: true})
	res, err := w.Glob(context.Background(), GlobOptions{Pattern: "**/*.txt", NewestFirst: true, Limit: 3})
	if err != nil || strings.Join(res.Files, " ") != "b.txt d/e.txt c.txt" || !res.Truncated {
		t.Errorf("newest first: %v %+v", err, res)
	}
}

// TestGrepSortModified: Sort "modified" lists the files newest first,
// ties by path — the order `ls -t` gives the files rg -l finds — before
// HeadLimit cuts; an unknown order is refused.
func TestGrepSortModified(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for i := 0; i < 12; i++ {
		files[fmt.Sprintf("d%d/f%02d.txt", i%3, i)] = "needle\n"
	}
	files["other.txt"] = "hay\n"
	writeTree(t, dir, files)
	base := time.Now().Add(-time.Hour)
	for i := 0; i < 12; i++ {
		mt := base.Add(time.Duration((i*7)%12) * time.Minute) // a shuffled order
		os.Chtimes(filepath.Join(dir, fmt.Sprintf("d%d/f%02d.txt", i%3, i)), mt, mt)
	}
	w := openWS(t, dir, &Options{ReadOnly: true})
	res, err := w.Grep(context.Background(), &plan.GrepRequest{Pattern: "needle", Sort: "modified"})
	if err != nil {
		t.Fatal(err)
	}
	found := runPeer(t, dir, peer(t, "rg"), "--no-config", "-l", "needle")
	cmd := exec.Command("ls", append([]string{"-t"}, found...)...)
	cmd.Dir, cmd.Env = dir, append(peerEnv(), "LC_ALL=C")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(res.Files, "\n")+"\n", string(out); got != want || len(found) != 12 {
		t.Errorf("sort modified:\n%s\nls -t of rg -l:\n%s", got, want)
	}
	res, err = w.Grep(context.Background(), &plan.GrepRequest{Pattern: "needle", Sort: "modified", HeadLimit: 2})
	if err != nil || len(res.Files) != 2 || res.Files[0] != strings.SplitN(string(out), "\n", 2)[0] || !res.Truncated {
		t.Errorf("newest two: %v %+v", err, res)
	}
	if _, err := w.Grep(context.Background(), &plan.GrepRequest{Pattern: "needle", Sort: "size"}); plan.CodeOf(err) != plan.CodeInvalidRequest {
		t.Errorf("sort size: %v, want invalid_request", err)
	}
}

// TestListEach: Each sees every entry listed with its file information.
func TestListEach(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.txt": "abc", "d/b.txt": ""})
	w := openWS(t, dir, &Options{ReadOnly: true})
	seen := map[string]int64{}
	var links uint64
	_, err := w.List(context.Background(), ".", ListOptions{Depth: 1, Each: func(e *plan.DirEntry, fi fs.FileInfo) {
		seen[e.Path] = fi.Size()
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && e.Path == "d" {
			links = uint64(st.Nlink)
		}
	}})
	if err != nil || len(seen) != 3 || seen["a.txt"] != 3 || links != 2 {
		t.Errorf("each: %v %v (links of d: %d)", err, seen, links)
	}
}
