package fsys_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/fsys/faultfs"
	"github.com/txedit/txedit/fsys/memfs"
)

func countFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd to count descriptors")
	}
	return len(ents)
}

func readVia(t *testing.T, f fsys.FS, dir, name string) (string, error) {
	t.Helper()
	d, release, err := f.HoldDir(dir)
	if err != nil {
		return "", err
	}
	defer release()
	data, err := d.ReadFile(name, nil, 1<<20)
	return string(data), err
}

// TestHoldDir: a held directory is the one at its path, reached without
// following a symbolic link, on the OS, a view of it and memfs alike.
func TestHoldDir(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "a/b"), 0o755)
	os.WriteFile(filepath.Join(dir, "a/b/x"), []byte("x\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "top"), []byte("top\n"), 0o644)
	os.Symlink("a", filepath.Join(dir, "ln"))
	os.Symlink("b", filepath.Join(dir, "a/lb"))
	osfs, err := fsys.NewOS(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer osfs.Close()
	view, release := osfs.View()
	defer release()
	mem := memfs.New(map[string]string{"a/b/x": "x\n", "top": "top\n"})
	for name, f := range map[string]fsys.FS{"os": osfs, "view": view, "memfs": mem, "faultfs": &faultfs.FS{Inner: view}} {
		for i := range 2 { // the second time from the view's cache
			if got, err := readVia(t, f, "a/b", "x"); err != nil || got != "x\n" {
				t.Errorf("%s #%d: a/b/x = %q, %v", name, i, got, err)
			}
			if got, err := readVia(t, f, ".", "top"); err != nil || got != "top\n" {
				t.Errorf("%s #%d: top = %q, %v", name, i, got, err)
			}
		}
		for _, bad := range []string{"ln", "ln/b", "a/lb", "top", "missing", "a/missing"} {
			if d, release, err := f.HoldDir(bad); err == nil {
				release()
				t.Errorf("%s: HoldDir(%q) succeeded through a symlink, a file or nothing (%v)", name, bad, d)
			}
		}
	}
}

// TestHoldDirCache: a view hands out one handle per directory, keeps a
// bounded number open, closes them all at release, and drops a handle
// once the view itself moves its directory.
func TestHoldDirCache(t *testing.T) {
	dir := t.TempDir()
	const n = 100 // more than the view keeps
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("d%03d/x", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(p), 0o644)
	}
	osfs, err := fsys.NewOS(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer osfs.Close()
	before := countFDs(t)
	view, release := osfs.View()
	d1, r1, err := view.HoldDir("d000")
	if err != nil {
		t.Fatal(err)
	}
	d2, r2, _ := view.HoldDir("d000")
	if d1 != d2 {
		t.Errorf("two holds of one directory: two handles")
	}
	r1()
	r2()
	for i := range n {
		if got, err := readVia(t, view, fmt.Sprintf("d%03d", i), "x"); err != nil || !strings.HasSuffix(got, fmt.Sprintf("d%03d/x", i)) {
			t.Fatalf("d%03d/x = %q, %v", i, got, err)
		}
	}
	if open := countFDs(t) - before; open > 64+1 || open < 2 {
		t.Errorf("%d descriptors open after holding %d directories: want the root's and at most 64 more", open, n)
	}
	// The view moves d001 away and makes another: the name holds the new.
	if got, _ := readVia(t, view, "d001", "x"); !strings.HasSuffix(got, "d001/x") {
		t.Fatalf("d001/x = %q", got)
	}
	if err := view.Rename("d001", "moved"); err != nil {
		t.Fatal(err)
	}
	view.Mkdir("d001", 0o755)
	os.WriteFile(filepath.Join(dir, "d001/x"), []byte("new"), 0o644)
	if got, err := readVia(t, view, "d001", "x"); got != "new" {
		t.Errorf("after the view renamed d001: %q, %v; want the new directory's file", got, err)
	}
	held, give, _ := view.HoldDir("d002")
	release()
	if _, err := held.ReadFile("x", nil, 100); err != nil {
		t.Errorf("a handle still held when the view was released: %v", err)
	}
	give()
	if after := countFDs(t); after != before {
		t.Errorf("%d descriptors before the view, %d after its release", before, after)
	}
	if _, err := held.ReadFile("x", nil, 100); err == nil {
		t.Errorf("a handle given back after release is still open")
	}
}

// TestHoldDirFaults: faultfs counts a hold as an opendir and giving it
// back as a closedir, and fails the hold where it is told to.
func TestHoldDirFaults(t *testing.T) {
	mem := memfs.New(map[string]string{"a/x": "x"})
	rec := &faultfs.FS{Inner: mem, Record: true}
	d, release, err := rec.HoldDir("a")
	if err != nil {
		t.Fatal(err)
	}
	d.ReadFile("x", nil, 10)
	release()
	if got := strings.Join(rec.Calls, ", "); got != "opendir a, readfile a/x, closedir a" {
		t.Errorf("calls: %s", got)
	}
	bad := &faultfs.FS{Inner: mem, FailAt: 1, Mode: faultfs.ModeError}
	if _, _, err := bad.HoldDir("a"); err == nil {
		t.Errorf("the failing call did not fail")
	}
}
