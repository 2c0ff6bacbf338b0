package journal

import (
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/fsys/fstest"
)

// linkFails is a file system whose hard links to .txedit/mark fail with
// errno.
type linkFails struct {
	fsys.FS
	errno syscall.Errno
}

func (l *linkFails) Link(oldname, newname string) error {
	if oldname != markName {
		return l.FS.Link(oldname, newname)
	}
	return &os.LinkError{Op: "link", Old: oldname, New: newname, Err: l.errno}
}

// TestMarksAreLinks: a commit's pending entry and marks are hard links to
// .txedit/mark (no inode each: marks.go); a journal without that file (an
// older txedit's) gets it on first use; where links fail (no hard links,
// the link count at its limit) the marks are files, as before, and the
// commit is the same.
func TestMarksAreLinks(t *testing.T) {
	w := workloadNamed(t, "mixed")
	opts := &Options{Sync: SyncData, Workers: 1}
	for _, tc := range []struct {
		name      string
		noSource  bool
		errno     syscall.Errno
		wantLinks bool
	}{
		{"links", false, 0, true},
		{"an older journal without .txedit/mark", true, 0, true},
		{"no hard links", false, syscall.EPERM, false},
		{"link count at its limit", false, syscall.EMLINK, false},
	} {
		d := fstest.NewDisk(w.initial)
		if tc.noSource {
			if err := New(d.Mem, opts).init(); err != nil {
				t.Fatal(err)
			}
			if err := d.Mem.Remove(markName); err != nil {
				t.Fatal(err)
			}
		}
		var fsy fsys.FS = d.Mem
		if tc.errno != 0 {
			fsy = &linkFails{FS: d.Mem, errno: tc.errno}
		}
		if err := runTx(fsy, opts, w); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := fstest.Key(d.Files(Dir)); got != treeOf(w.final()) {
			t.Errorf("%s: tree %s", tc.name, got)
		}
		src, err := d.Mem.Lstat(markName)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		marks := 0
		for name := range d.Files() {
			if !strings.HasSuffix(name, ".prepared") && !strings.HasSuffix(name, ".committed") {
				continue
			}
			marks++
			fi, err := d.Mem.Lstat(name)
			if err != nil || !fi.Mode().IsRegular() || fi.Size() != 0 {
				t.Errorf("%s: mark %s: %v, %v", tc.name, name, fi, err)
				continue
			}
			if linked := fsys.IdentityOf(fi).Ino == fsys.IdentityOf(src).Ino; linked != tc.wantLinks {
				t.Errorf("%s: mark %s a link to %s: %v", tc.name, name, markName, linked)
			}
		}
		if marks != 2 {
			t.Errorf("%s: %d marks, want prepared and committed", tc.name, marks)
		}
		if committed, pending := journalState(d); !committed || pending {
			t.Errorf("%s: committed %v, pending %v", tc.name, committed, pending)
		}
	}
}
