package journal

import (
	"fmt"
	"io/fs"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/fsys/fstest"
	"github.com/txedit/txedit/internal/par"
)

// procsSeen records the largest GOMAXPROCS any sync ran under.
type procsSeen struct {
	fsys.FS
	most atomic.Int64
}

func (p *procsSeen) see() {
	n := int64(runtime.GOMAXPROCS(0))
	for {
		m := p.most.Load()
		if n <= m || p.most.CompareAndSwap(m, n) {
			return
		}
	}
}

func (p *procsSeen) SyncDir(name string) error { p.see(); return p.FS.SyncDir(name) }

func (p *procsSeen) Create(name string, perm fs.FileMode) (fsys.File, error) {
	f, err := p.FS.Create(name, perm)
	if err != nil {
		return nil, err
	}
	return &procsSeenFile{f, p}, nil
}

type procsSeenFile struct {
	fsys.File
	p *procsSeen
}

func (f *procsSeenFile) Sync() error     { f.p.see(); return f.File.Sync() }
func (f *procsSeenFile) DataSync() error { f.p.see(); return f.File.DataSync() }

// TestManyFileCommitWidens: a transaction of many files runs its syncs
// with GOMAXPROCS raised to par.SyscallProcs (a goroutine blocked in an
// fsync keeps its P: par.Widen), and GOMAXPROCS is back where it was once
// the transaction ends, whether it committed, failed in Begin or failed
// in Commit (a sync's EIO); a transaction of a few files, or one that
// syncs nothing, leaves it alone.
func TestManyFileCommitWidens(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	for _, c := range []struct {
		files  int
		mode   SyncMode
		failAt int64 // the sync that fails (failSync); 0: none
		wide   bool
	}{
		{widenMinOps + 3, SyncData, 0, true},
		{widenMinOps + 3, SyncFile, 0, true},
		{widenMinOps + 3, SyncData, 1, true},  // Begin's round fails
		{widenMinOps + 3, SyncData, 10, true}, // a staged file's sync fails: Commit rolls back
		{widenMinOps - 1, SyncData, 0, false},
		{widenMinOps + 3, SyncNone, 0, false},
	} {
		name := fmt.Sprintf("%d files, %s, sync %d fails", c.files, modeName(c.mode), c.failAt)
		w := workload{name: name, initial: map[string]string{}, change: map[string]*string{}}
		for i := range c.files {
			p := fmt.Sprintf("d%d/f%d", i%3, i)
			w.initial[p] = "old\n"
			w.change[p] = s("new " + p + "\n")
		}
		fail := &failSync{FS: fstest.NewDisk(w.initial).Mem}
		probe := &procsSeen{FS: fail}
		j := New(probe, &Options{Sync: c.mode, Workers: 4, SyncWorkers: 8})
		// The journal made first, by a transaction of one file: the
		// syncs counted from here on are the transaction's.
		first := workload{initial: map[string]string{}, change: map[string]*string{"first": s("f\n")}}
		if err := runTxOn(j, probe, first); err != nil {
			t.Fatal(err)
		}
		probe.most.Store(0)
		if c.failAt != 0 {
			fail.at.Store(fail.n.Load() + c.failAt)
		}
		err := runTxOn(j, probe, w)
		if (err != nil) != (c.failAt != 0) {
			t.Fatalf("%s: commit: %v", name, err)
		}
		if got := runtime.GOMAXPROCS(0); got != 2 {
			t.Errorf("%s: GOMAXPROCS %d after the transaction, want 2", name, got)
		}
		most := probe.most.Load()
		if c.mode == SyncNone {
			continue
		}
		if c.wide && most < par.SyscallProcs || !c.wide && most != 2 {
			t.Errorf("%s: syncs ran with GOMAXPROCS up to %d (wide: %v)", name, most, c.wide)
		}
	}
}
