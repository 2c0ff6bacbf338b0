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

// widenMinOps is the fewest ops of a transaction whose staged files are
// named (many files, in these tests).
const widenMinOps = maxUnnamed + 1

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
// in Commit (a sync's EIO); so does one of a few files (widenFewMinOps
// or more); a transaction whose root is in memory (Options.InMemory),
// one of one or two files, or one that syncs nothing, leaves it alone.
func TestManyFileCommitWidens(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	const unset, onDisk, inMemory = 0, 1, 2
	for _, c := range []struct {
		files  int
		mode   SyncMode
		failAt int64 // the sync that fails (failSync); 0: none
		memory int   // Options.InMemory: unset, false (onDisk) or true
		wide   bool
	}{
		{widenMinOps + 3, SyncData, 0, unset, true},
		{widenMinOps + 3, SyncFile, 0, unset, true},
		{widenMinOps + 3, SyncData, 1, unset, true},  // Begin's round fails
		{widenMinOps + 3, SyncData, 10, unset, true}, // a staged file's sync fails: Commit rolls back
		{widenMinOps + 3, SyncData, 0, inMemory, false},
		{widenMinOps + 3, SyncData, 10, inMemory, false}, // and fails in Commit
		{widenMinOps - 1, SyncData, 0, onDisk, true},
		{widenFewMinOps, SyncData, 0, onDisk, true},
		{widenFewMinOps, SyncData, 0, unset, true},
		{widenFewMinOps, SyncData, 4, onDisk, true}, // a staged file's sync fails
		{widenMinOps - 1, SyncData, 0, inMemory, false},
		{widenFewMinOps, SyncData, 0, inMemory, false},
		{widenFewMinOps - 1, SyncData, 0, onDisk, false},
		{1, SyncData, 0, onDisk, false},
		{widenMinOps + 3, SyncNone, 0, unset, false},
	} {
		name := fmt.Sprintf("%d files, %s, sync %d fails, in memory %v", c.files, modeName(c.mode), c.failAt, [...]string{"unset", "false", "true"}[c.memory])
		w := workload{name: name, initial: map[string]string{}, change: map[string]*string{}}
		for i := range c.files {
			p := fmt.Sprintf("d%d/f%d", i%3, i)
			w.initial[p] = "old\n"
			w.change[p] = s("new " + p + "\n")
		}
		fail := &failSync{FS: fstest.NewDisk(w.initial).Mem}
		probe := &procsSeen{FS: fail}
		opts := &Options{Sync: c.mode, Workers: 4, SyncWorkers: 8}
		if c.memory != unset {
			inMem := c.memory == inMemory
			opts.InMemory = func() bool { return inMem }
		}
		j := New(probe, opts)
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

// panicLstat panics in Lstat while armed, as a crash test's disk does
// (fstest).
type panicLstat struct {
	procsSeen
	armed atomic.Bool
}

func (p *panicLstat) Lstat(name string) (fs.FileInfo, error) {
	if p.armed.Load() {
		panic("power off")
	}
	return p.procsSeen.Lstat(name)
}

// TestBeginPanicGivesBackProcs: a Begin that widened and then panicked
// (planOps' look at a create's parent) leaves GOMAXPROCS where it was,
// and the next transaction widens again: a caller that recovers from the
// panic (a crash test, a server) is not left widened for good, nor does
// par.Widen still count the dead transaction.
func TestBeginPanicGivesBackProcs(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	initial := map[string]string{"d0/keep": "k\n", "d1/keep": "k\n", "d2/keep": "k\n"}
	w := workload{name: "many", initial: initial, change: map[string]*string{}}
	for i := range widenMinOps + 3 {
		w.change[fmt.Sprintf("d%d/f%d", i%3, i)] = s("new\n")
	}
	probe := &panicLstat{procsSeen: procsSeen{FS: fstest.NewDisk(initial).Mem}}
	j := New(probe, &Options{Sync: SyncData, Workers: 4, SyncWorkers: 8})
	first := workload{initial: map[string]string{}, change: map[string]*string{"first": s("f\n")}}
	if err := runTxOn(j, probe, first); err != nil {
		t.Fatal(err)
	}
	func() {
		l, err := j.Lock()
		if err != nil {
			t.Fatal(err)
		}
		defer l.Unlock()
		defer func() {
			probe.armed.Store(false)
			if r := recover(); r == nil {
				t.Fatal("the armed Lstat did not panic")
			}
		}()
		m := &Manifest{Command: "test"}
		for p := range w.change {
			m.Ops = append(m.Ops, &Op{Path: p, Kind: Create, New: st(*w.change[p])})
		}
		probe.armed.Store(true)
		l.Begin(m)
	}()
	if got := runtime.GOMAXPROCS(0); got != 2 {
		t.Errorf("GOMAXPROCS %d after Begin panicked, want 2", got)
	}
	probe.most.Store(0)
	if err := runTxOn(j, probe, w); err != nil {
		t.Fatal(err)
	}
	if most := probe.most.Load(); most < par.SyscallProcs {
		t.Errorf("the next transaction's syncs ran with GOMAXPROCS up to %d, want %d", most, par.SyscallProcs)
	}
}
