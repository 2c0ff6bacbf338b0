package journal

import (
	"errors"
	"fmt"
	"io/fs"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/fsys/fstest"
	"github.com/txedit/txedit/fsys/memfs"
)

// failSync fails the at-th durability call (fsync, fdatasync or directory
// fsync) with EIO, counting in whatever order concurrent calls come.
type failSync struct {
	fsys.FS
	n, at atomic.Int64
}

func (f *failSync) hit(op, name string) error {
	if f.n.Add(1) == f.at.Load() {
		return &fs.PathError{Op: op, Path: name, Err: syscall.EIO}
	}
	return nil
}

func (f *failSync) Create(name string, perm fs.FileMode) (fsys.File, error) {
	h, err := f.FS.Create(name, perm)
	if err != nil {
		return nil, err
	}
	return &failSyncFile{h, f, name}, nil
}

func (f *failSync) Open(name string) (fsys.File, error) {
	h, err := f.FS.Open(name)
	if err != nil {
		return nil, err
	}
	return &failSyncFile{h, f, name}, nil
}

func (f *failSync) SyncDir(name string) error {
	if err := f.hit("syncdir", name); err != nil {
		return err
	}
	return f.FS.SyncDir(name)
}

type failSyncFile struct {
	fsys.File
	f    *failSync
	name string
}

func (h *failSyncFile) Sync() error {
	if err := h.f.hit("fsync", h.name); err != nil {
		return err
	}
	return h.File.Sync()
}

func (h *failSyncFile) DataSync() error {
	if err := h.f.hit("fdatasync", h.name); err != nil {
		return err
	}
	return h.File.DataSync()
}

// TestSyncFailureFailsCommit: whichever fsync or fdatasync fails — most
// of them run in the background, many at once — the commit reports it:
// before the commit point it rolls back (the tree is old), after it it
// reports that durability is unknown (the tree is new).
func TestSyncFailureFailsCommit(t *testing.T) {
	// mixed: modify, create in new dirs, delete, move (its commit mark is
	// not synced: forward.go); mkdir-only: its mark is, and a failure of
	// that sync is ErrCommitUnknown.
	for _, c := range []struct {
		w       workload
		unknown bool
	}{{workloadNamed(t, "mixed"), false}, {workloadNamed(t, "mkdir-only"), true}} {
		unknown := 0
		syncFailures(t, c.w, func() { unknown++ })
		if (unknown > 0) != c.unknown {
			t.Errorf("%s: %d failed syncs answered ErrCommitUnknown", c.w.name, unknown)
		}
	}
}

func syncFailures(t *testing.T, w workload, unknown func()) {
	for _, mode := range []SyncMode{SyncData, SyncFile} {
		opts := &Options{Sync: mode, Workers: 4, SyncWorkers: 8}
		probe := &failSync{FS: fstest.NewDisk(w.initial).Mem}
		if err := runTx(probe, opts, w); err != nil {
			t.Fatal(err)
		}
		total := probe.n.Load()
		if total < 10 {
			t.Fatalf("%s: only %d syncs in a clean run", modeName(mode), total)
		}
		for at := int64(1); at <= total; at++ {
			d := fstest.NewDisk(w.initial)
			f := &failSync{FS: d.Mem}
			f.at.Store(at)
			err := runTx(f, opts, w)
			got := fstest.Key(d.Files(Dir))
			switch {
			case err == nil:
				t.Errorf("%s: EIO at sync %d of %d went unreported", modeName(mode), at, total)
			case errors.Is(err, ErrCommitUnknown):
				unknown()
				if got != treeOf(w.final()) {
					t.Errorf("%s: EIO at sync %d: commit unknown, but the tree is not new:\n%s", modeName(mode), at, got)
				}
			case got != treeOf(w.initial):
				t.Errorf("%s: EIO at sync %d (%v): the tree was not rolled back:\n%s", modeName(mode), at, err, got)
			}
		}
	}
}

// TestAutoPicksByQuiet: the default mode syncs a big transaction's own
// files while the system is busy writing, and uses syncfs barriers while
// it is quiet; a transaction of 16 to 63 files does so only while
// Options.QuietFew says so (the stricter limit), whatever Quiet says; a
// smaller transaction always syncs its own files. On a file system that
// keeps nothing across a power loss (Options.Volatile) a big transaction
// syncs nothing, busy or quiet; a small one syncs its own files as
// anywhere.
func TestAutoPicksByQuiet(t *testing.T) {
	for _, c := range []struct {
		quiet, volatile bool
		ops             int
		want            SyncMode
		quietFew        bool
	}{{false, false, 100, SyncData, false}, {true, false, 100, SyncFilesystem, false}, {true, false, 3, SyncData, false},
		{false, true, 100, SyncNone, false}, {true, true, 100, SyncNone, false}, {false, true, 63, SyncData, false}, {true, true, 3, SyncData, false},
		{true, false, 60, SyncData, false}, {false, false, 60, SyncFilesystem, true}, {true, false, 16, SyncFilesystem, true},
		{true, false, 15, SyncData, true}, {false, false, 100, SyncData, true}, {true, false, 3, SyncData, true}} {
		mem := memfs.New(nil)
		var ops []*Op
		for i := 0; i < c.ops; i++ {
			name := fmt.Sprintf("f%03d", i)
			ops = append(ops, &Op{Path: name, Kind: Create, New: st("x\n")})
		}
		j := New(mem, &Options{Quiet: func() bool { return c.quiet }, QuietFew: func() bool { return c.quietFew }, Volatile: func() bool { return c.volatile }})
		l, err := j.Lock()
		if err != nil {
			t.Fatal(err)
		}
		tx, err := l.Begin(&Manifest{Command: "apply", Ops: ops})
		if err != nil {
			t.Fatal(err)
		}
		if tx.sync != c.want {
			t.Errorf("quiet %v (few %v), volatile %v, %d ops: mode %v, want %v", c.quiet, c.quietFew, c.volatile, c.ops, tx.sync, c.want)
		}
		tx.Abort()
		l.Unlock()
	}
}
