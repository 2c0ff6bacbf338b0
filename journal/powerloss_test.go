package journal

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/txedit/txedit/hash"
)

// A workload is a change to a tree: new content per path, "" to delete;
// moves are a delete of the source and a create of the destination.
type workload struct {
	name    string
	initial map[string]string
	change  map[string]*string
}

func s(v string) *string { return &v }

var big = strings.Repeat("0123456789abcdef", 600) // 9.6 KB: torn across blocks

var workloads = []workload{
	{"modify-only", map[string]string{"a/x": "old x\n", "b/y": big, "c/z": "old z\n"},
		map[string]*string{"a/x": s("new x\n"), "b/y": s(big + "more"), "c/z": s("new z, longer\n")}},
	{"create-in-new-dirs", map[string]string{"keep": "k\n"},
		map[string]*string{"n1/n2/f": s("f\n"), "n1/g": s(big), "p/q/r/s": s("s\n")}},
	{"delete", map[string]string{"a/x": "x\n", "b/y": big, "b/keep": "k\n", "c/only": "o\n"},
		map[string]*string{"a/x": nil, "b/y": nil, "c/only": nil}},
	{"move-across-dirs", map[string]string{"src/m": big, "src/n": "n\n", "dst/other": "o\n"},
		map[string]*string{"src/m": nil, "dst/deep/m": s(big), "src/n": nil, "dst/n": s("n\n")}},
	{"mixed", map[string]string{"a/x": "x\n", "a/y": "y\n", "b/d": "d\n", "c/m": big},
		map[string]*string{"a/x": s("X\n"), "b/d": nil, "new/dir/f": s("f\n"), "c/m": nil, "e/m": s(big), "a/y": s("y\ny\n")}},
}

func (w workload) final() map[string]string {
	out := map[string]string{}
	for k, v := range w.initial {
		out[k] = v
	}
	for k, v := range w.change {
		if v == nil {
			delete(out, k)
		} else {
			out[k] = *v
		}
	}
	return out
}

func st(data string) *State {
	return &State{Hash: hash.Of([]byte(data)), Size: int64(len(data)), Mode: 0o644}
}

// runTx commits the workload through the journal API on fsys.
func runTx(fsys FS, opts *Options, w workload) error {
	j := New(fsys, opts)
	l, err := j.Lock()
	if err != nil {
		return err
	}
	defer l.Unlock()
	m := &Manifest{Command: "test"}
	paths := make([]string, 0, len(w.change))
	for p := range w.change {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	// Creates before deletes, as the engine orders a move.
	sort.SliceStable(paths, func(i, k int) bool { return w.change[paths[i]] != nil && w.change[paths[k]] == nil })
	for _, p := range paths {
		op := &Op{Path: p}
		if old, ok := w.initial[p]; ok {
			op.Old = st(old)
		}
		if nv := w.change[p]; nv != nil {
			op.New = st(*nv)
		}
		switch {
		case op.Old == nil:
			op.Kind = Create
		case op.New == nil:
			op.Kind = Delete
		default:
			op.Kind = Modify
		}
		m.Ops = append(m.Ops, op)
	}
	tx, err := l.Begin(m)
	if err != nil {
		return err
	}
	for i, op := range m.Ops {
		var s Staging
		if op.Old != nil {
			fi, err := fsys.Lstat(op.Path)
			if err != nil {
				tx.Abort()
				return err
			}
			s.Old, s.Ident = []byte(w.initial[op.Path]), IdentityOf(fi)
		}
		if op.New != nil {
			s.New = []byte(*w.change[op.Path])
		}
		if err := tx.Stage(i, s); err != nil {
			tx.Abort()
			return err
		}
	}
	return tx.Commit()
}

// crashRun runs the workload with a crash planned at call n and reports
// whether it crashed.
func crashRun(m *memFS, opts *Options, w workload) (crashed bool) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(memCrash); !ok {
				panic(r)
			}
			crashed = true
		}
	}()
	runTx(m, opts, w)
	return false
}

// recoverRun runs recovery, crashing at call n if n > 0.
func recoverRun(m *memFS, opts *Options, n int) (crashed bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(memCrash); !ok {
				panic(r)
			}
			crashed = true
		}
	}()
	m.failAt, m.calls, m.dead = n, 0, false
	_, err = New(m, opts).Recover()
	return false, err
}

func treeKey(t map[string]string) string {
	keys := make([]string, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%x\n", k, hash.Of([]byte(t[k])))
	}
	return b.String()
}

// treeOf is what a tree with the given files looks like, directories
// included.
func treeOf(files map[string]string) string { return treeKey(newMemFS(files).tree()) }

// violation checks a recovered file system: every file of the workload
// entirely old or entirely new, new exactly when the commit mark
// survived, every transaction finished, no temporary file anywhere.
func violation(m *memFS, w workload) string {
	committed, pending := false, false
	if txns, err := m.lookup(txnsDir); err == nil {
		marks := map[string]bool{}
		for name := range txns.entries {
			marks[name] = true
		}
		for name, id := range txns.entries {
			if !m.inodes[id].dir {
				continue
			}
			if marks[name+".committed"] {
				committed = true
			} else if !marks[name+".rolledback"] {
				pending = true
			}
		}
	}
	got := treeKey(m.tree())
	switch {
	case pending:
		return "a transaction is still pending after recovery"
	case committed && got != treeOf(w.final()):
		return "committed, but the tree is not the new tree:\n" + got
	case !committed && got != treeOf(w.initial):
		return "not committed, but the tree is not the old tree:\n" + got
	}
	if t := m.temps(); len(t) > 0 {
		return fmt.Sprintf("temporary files left: %v", t)
	}
	return ""
}

var syncModes = map[string]SyncMode{"fsync": SyncFile, "syncfs": SyncFilesystem}

type settingRun struct {
	setting int
	seed    int64
}

func settings(seeds int) []settingRun {
	out := []settingRun{{dropAll, 0}, {keepAll, 0}}
	for s := int64(1); s <= int64(seeds); s++ {
		out = append(out, settingRun{randomMix, s}, settingRun{tornBlocks, s})
	}
	return out
}

// explore enumerates crash point x drop setting x seed for one workload
// and sync mode, and returns the number of states and violations.
func explore(t *testing.T, w workload, mode SyncMode, seeds int, nested bool) (states, bad int) {
	opts := &Options{Sync: mode, Workers: 1}
	probe := newMemFS(w.initial)
	if err := runTx(probe, opts, w); err != nil {
		t.Fatalf("%s: clean run: %v", w.name, err)
	}
	if got := treeKey(probe.tree()); got != treeOf(w.final()) {
		t.Fatalf("%s: clean run gives %s", w.name, got)
	}
	total := probe.calls
	for n := 1; n <= total+1; n++ {
		for _, sr := range settings(seeds) {
			m := newMemFS(w.initial)
			m.failAt = n
			crashRun(m, opts, w)
			rng := rand.New(rand.NewSource(sr.seed*1000 + int64(n)))
			c := m.crash(rng, sr.setting)
			if nested && n%3 == 0 {
				// Crash recovery itself at every call, lose power again,
				// then recover.
				probe := c.crash(rand.New(rand.NewSource(1)), keepAll)
				recoverRun(probe, opts, 0)
				for k := 1; k <= probe.calls; k++ {
					c2 := c.crash(rand.New(rand.NewSource(1)), keepAll)
					if crashed, _ := recoverRun(c2, opts, k); !crashed {
						continue
					}
					c3 := c2.crash(rng, sr.setting)
					if _, err := recoverRun(c3, opts, 0); err != nil {
						t.Errorf("%s: recovery after a recovery crash: %v", w.name, err)
					}
					states++
					if v := violation(c3, w); v != "" {
						bad++
						if bad <= 3 {
							t.Logf("%s: crash at %d, recovery crash at %d, setting %d: %s", w.name, n, k, sr.setting, v)
						}
					}
				}
			}
			if _, err := recoverRun(c, opts, 0); err != nil {
				t.Errorf("%s: recovery: %v", w.name, err)
			}
			states++
			if v := violation(c, w); v != "" {
				bad++
				if bad <= 3 {
					t.Logf("%s: crash at call %d of %d, setting %d seed %d: %s", w.name, n, total, sr.setting, sr.seed, v)
				}
			}
		}
	}
	return states, bad
}

// TestPowerLoss: after a power loss at any call of the commit, whatever
// unsynced state is lost (all, none, random subsets, torn blocks), and
// after recovery (crashed itself at every call, for every third point),
// every file is entirely old or entirely new, new exactly when the commit
// mark survived, with no temporary file left.
func TestPowerLoss(t *testing.T) {
	seeds := 4
	if testing.Short() || raceEnabled {
		seeds = 1 // the full enumeration runs without the race detector
	}
	total := 0
	for _, w := range workloads {
		for mname, mode := range syncModes {
			states, bad := explore(t, w, mode, seeds, true)
			total += states
			if bad > 0 {
				t.Errorf("%s/%s: %d of %d crash states violate the guarantees", w.name, mname, bad, states)
			}
		}
	}
	t.Logf("%d crash states explored, 0 violations", total)
}

// TestPowerLossCatchesBrokenOrderings proves the model has teeth: each
// deliberately wrong ordering of the protocol produces violations.
func TestPowerLossCatchesBrokenOrderings(t *testing.T) {
	cases := []struct {
		name string
		set  func(on bool)
	}{
		{"staged file not fsynced before rename", func(on bool) { brokenOrder.noFileSync = on }},
		{"no dir fsync before the commit mark", func(on bool) { brokenOrder.noDirSyncBeforeCommit = on }},
		{"commit mark written first", func(on bool) { brokenOrder.commitFirst = on }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.set(true)
			defer tc.set(false)
			bad, states := 0, 0
			for _, w := range workloads {
				s, b := explore(&testing.T{}, w, SyncFile, 2, false)
				states += s
				bad += b
			}
			t.Logf("%d of %d states violate", bad, states)
			if bad == 0 {
				t.Errorf("the broken ordering went unnoticed in %d states", states)
			}
		})
	}
}

// TestIOErrorEverywhere injects EIO at every call (no crash): the commit
// fails and rolls itself back, or — after the commit point — reports the
// doubt; either way the tree is old or new, and recovery finishes it.
func TestIOErrorEverywhere(t *testing.T) {
	for _, w := range workloads {
		opts := &Options{Sync: SyncFile, Workers: 1}
		probe := newMemFS(w.initial)
		runTx(probe, opts, w)
		for n := 1; n <= probe.calls; n++ {
			m := newMemFS(w.initial)
			m.failAt, m.eio = n, true
			err := runTx(m, opts, w)
			got := treeKey(m.tree())
			if got != treeOf(w.initial) && got != treeOf(w.final()) {
				t.Errorf("%s: EIO at %d: tree neither old nor new before recovery", w.name, n)
			}
			if err == nil && got != treeOf(w.final()) {
				t.Errorf("%s: EIO at %d: success reported but the tree is not new", w.name, n)
			}
			m.failAt, m.eio = 0, false
			if _, err := recoverRun(m, opts, 0); err != nil {
				t.Errorf("%s: recovery after EIO at %d: %v", w.name, n, err)
			}
			if v := violation(m, w); v != "" {
				t.Errorf("%s: EIO at %d: %s", w.name, n, v)
			}
		}
	}
}
