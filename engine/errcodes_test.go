package engine

import (
	"fmt"
	"github.com/txedit/txedit/journal"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/fsys/faultfs"
	"github.com/txedit/txedit/internal/testlong"
	"github.com/txedit/txedit/plan"
)

// TestDiskFullCodes: the disk fills up at each call of a commit in turn
// (every create, write, mkdir and link from then on fails with ENOSPC).
// The answer is an io_error that says so, never a conflict: "directory was
// moved or replaced" sent agents re-reading files that had not changed.
func TestDiskFullCodes(t *testing.T) {
	old, _ := crashWorkload(t)
	codes := map[plan.Code]int{}
	probe, pdir := &faultfs.FS{}, t.TempDir()
	writeTree(t, pdir, crashTree)
	if res, _ := faultApply(t, pdir, Options{}, probe, crashRequest); res == nil || !res.Success {
		t.Fatalf("clean run: %+v", res)
	}
	// Full from every call (the quick run: from a sample of them); from
	// a call after the last write on, nothing trips.
	for _, n := range testlong.Points(probe.N(), 24) {
		dir := t.TempDir()
		writeTree(t, dir, crashTree)
		ff := &faultfs.FS{FailAt: n, Mode: faultfs.ModeFull}
		res, _ := faultApply(t, dir, Options{}, ff, crashRequest)
		if res == nil {
			continue // the workspace did not open
		}
		if !ff.Tripped || res.Success {
			continue
		}
		codes[res.Code]++
		label := fmt.Sprintf("disk full from call %d", n)
		if res.Code != plan.CodeIOError || !strings.Contains(res.Error, "no space left") {
			t.Errorf("%s: %s: %s", label, res.Code, res.Error)
		}
		// A rollback on a full disk may not finish: the next open
		// recovers (here the disk has room again).
		openWS(t, dir, nil)
		if got := treeString(readTree(t, dir)); got != treeString(old) {
			t.Errorf("%s: failed (%s), but the tree changed", label, res.Error)
		}
	}
	t.Logf("codes: %v", codes)
	if codes[plan.CodeIOError] == 0 {
		t.Errorf("no full disk failed the commit")
	}
}

// TestImmutableFileDenied: a file the system will not let anyone replace
// (chattr +i; EPERM from the rename) is refused with denied, not io_error,
// and nothing is written. Where chattr cannot be used (not root, a file
// system without the attribute) the rename's EPERM is injected.
func TestImmutableFileDenied(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"f.txt": "one\n", "g.txt": "g\n"})
	var opts *Options
	if out, err := exec.Command("chattr", "+i", filepath.Join(dir, "f.txt")).CombinedOutput(); err == nil {
		t.Cleanup(func() { exec.Command("chattr", "-i", filepath.Join(dir, "f.txt")).Run() })
		t.Log("f.txt is immutable (chattr +i)")
	} else {
		t.Logf("chattr +i: %v %s; injecting the rename's EPERM instead", err, out)
		inner, err := fsys.NewOS(dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { inner.Close() })
		opts = &Options{FS: epermFS{inner, "f.txt"}, Keys: journal.UserKeys()}
	}
	w := openWS(t, dir, opts)
	res := run(t, w, `{"fileEdits":[{"path":"g.txt","edits":[{"command":"append","new_str":"more"}]},
		{"path":"f.txt","edits":[{"command":"append","new_str":"two"}]}]}`)
	if res.Success || res.Code != plan.CodeDenied {
		t.Fatalf("%s: %s", res.Code, res.Error)
	}
	t.Logf("%s: %s", res.Code, res.Error)
	if got := readTree(t, dir); got["f.txt"] != "one\n" || got["g.txt"] != "g\n" {
		t.Errorf("written: %q", got)
	}
}

// epermFS refuses to rename anything onto target, as the kernel does for
// an immutable file.
type epermFS struct {
	fsys.FS
	target string
}

func (e epermFS) Rename(oldname, newname string) error {
	if newname == e.target {
		return &os.LinkError{Op: "rename", Old: oldname, New: newname, Err: syscall.EPERM}
	}
	return e.FS.Rename(oldname, newname)
}

func (e epermFS) View() (fsys.FS, func()) {
	v, release := e.FS.View()
	return epermFS{v, e.target}, release
}

// TestTrailingSlash: "a/f.txt/" names a directory; it was accepted as
// a/f.txt. Writes and reads through it are refused, and a create of
// "a/new/" does not make a file.
func TestTrailingSlash(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a/f.txt": "one\n"})
	if err := os.Symlink("f.txt", filepath.Join(dir, "a/link")); err != nil {
		t.Fatal(err)
	}
	w := openWS(t, dir, nil)
	for _, p := range []string{"a/f.txt/", "a/f.txt/.", "a/link/", "a/new.txt/", filepath.Join(dir, "a/f.txt") + "/"} {
		for _, req := range []string{
			`{"command":"str_replace","path":%q,"old_str":"one","new_str":"ONE"}`,
			`{"command":"create","path":%q,"file_text":"x\n"}`,
		} {
			res := run(t, w, fmt.Sprintf(req, p))
			if res.Success || res.Code != plan.CodeFileNotFound {
				t.Errorf("%s: %s %s", fmt.Sprintf(req, p), res.Code, res.Error)
			}
		}
		if _, err := w.direct().resolve(p); plan.CodeOf(err) != plan.CodeFileNotFound {
			t.Errorf("resolve(%q): %v", p, err)
		}
	}
	if got := readTree(t, dir); len(got) != 3 || got["a/f.txt"] != "one\n" {
		t.Errorf("written: %q", got)
	}
	for _, p := range []string{"a/", "a/.", "a//f.txt", "./a/f.txt"} {
		if _, err := w.direct().resolve(p); err != nil {
			t.Errorf("resolve(%q): %v", p, err)
		}
	}
}
