package journal

import (
	"errors"
	"io/fs"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/fsys/faultfs"
	"github.com/txedit/txedit/fsys/fstest"
)

// noTmpfile is a file system without O_TMPFILE.
type noTmpfile struct{ fsys.FS }

func (noTmpfile) CreateUnnamed(string, fs.FileMode) (fsys.Unnamed, error) {
	return nil, errors.ErrUnsupported
}

// TestUnnamedFallsBack: where a staged file cannot be made unnamed, the
// begin round runs first and the file is staged under its name, as before
// unnamed staging (unnamed.go); the journal stops asking. Where it can, no
// name appears in the user's directories before the prepare round is
// over (the PREPARED mark's sync).
func TestUnnamedFallsBack(t *testing.T) {
	w := workloadNamed(t, "modify-only")
	opts := &Options{Sync: SyncData, Workers: 1}
	for _, unsupported := range []bool{false, true} {
		d := fstest.NewDisk(w.initial)
		var inner fsys.FS = d.Mem
		if unsupported {
			inner = noTmpfile{d.Mem}
		}
		rec := &faultfs.FS{Inner: inner, Record: true}
		j := New(rec, opts)
		if err := runTxOn(j, rec, w); err != nil {
			t.Fatal(err)
		}
		if got := fstest.Key(d.Files(Dir)); got != treeOf(w.final()) {
			t.Errorf("unsupported=%v: tree %s", unsupported, got)
		}
		firstName := slices.IndexFunc(rec.Calls, func(c string) bool {
			return (strings.HasPrefix(c, "create ") || strings.HasPrefix(c, "link ")) && strings.Contains(c, "/.txedit-")
		})
		pendingSync := slices.Index(rec.Calls, "syncdir .txedit/pending")
		prepared := slices.IndexFunc(rec.Calls, func(c string) bool { return strings.HasSuffix(c, ".prepared") && !strings.HasPrefix(c, "lstat") })
		switch {
		case firstName < 0 || pendingSync < 0 || prepared < 0:
			t.Fatalf("unsupported=%v: calls %v", unsupported, rec.Calls)
		case unsupported && !(pendingSync < firstName && firstName < prepared):
			t.Errorf("named staging: the begin round (call %d) must come before the first staged name (%d), before PREPARED (%d)", pendingSync, firstName, prepared)
		case !unsupported && !(pendingSync < prepared && prepared < firstName):
			t.Errorf("unnamed staging: the begin round (call %d) and PREPARED (%d) must come before the first staged name (%d)", pendingSync, prepared, firstName)
		}
		if j.noUnnamed.Load() != unsupported {
			t.Errorf("unsupported=%v: the journal remembers %v", unsupported, j.noUnnamed.Load())
		}
	}
}

// linkRefused is a file system whose unnamed files cannot be linked.
type linkRefused struct{ fsys.FS }

func (l linkRefused) CreateUnnamed(dir string, perm fs.FileMode) (fsys.Unnamed, error) {
	f, err := l.FS.CreateUnnamed(dir, perm)
	if err != nil {
		return nil, err
	}
	return refusedLink{f}, nil
}

type refusedLink struct{ fsys.Unnamed }

func (refusedLink) Link(name string) error {
	return &os.LinkError{Op: "link", Old: "(unnamed)", New: name, Err: syscall.EPERM}
}

// TestUnnamedLinkRefused: a file system that makes unnamed files but will
// not link them (a security policy on /proc, say) fails one commit, which
// rolls back whole, and the journal stages named files from then on.
func TestUnnamedLinkRefused(t *testing.T) {
	w := workloadNamed(t, "modify-only")
	opts := &Options{Sync: SyncData, Workers: 1}
	d := fstest.NewDisk(w.initial)
	fsy := linkRefused{d.Mem}
	j := New(fsy, opts)
	err := runTxOn(j, fsy, w)
	if !errors.Is(err, syscall.EPERM) {
		t.Fatalf("first commit: %v, want the link's EPERM", err)
	}
	if got := fstest.Key(d.Files(Dir)); got != treeOf(w.initial) {
		t.Errorf("after the refused link the tree is %s", got)
	}
	if !j.noUnnamed.Load() {
		t.Errorf("the journal still stages unnamed files")
	}
	if err := runTxOn(j, fsy, w); err != nil {
		t.Fatalf("second commit: %v", err)
	}
	if got := fstest.Key(d.Files(Dir)); got != treeOf(w.final()) {
		t.Errorf("after the second commit the tree is %s", got)
	}
	if committed, pending := journalState(d); !committed || pending || len(d.Temps(isTemp)) > 0 {
		t.Errorf("committed %v, pending %v, temporary files %v", committed, pending, d.Temps(isTemp))
	}
}
