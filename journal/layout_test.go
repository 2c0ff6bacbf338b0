package journal

import (
	"fmt"
	"strings"
	"testing"

	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/fsys/fstest"
	"github.com/txedit/txedit/fsys/memfs"
)

// toLegacy rewrites transaction id as an older txedit laid it out: a
// directory with its manifest and its pack (layout.go).
func toLegacy(t *testing.T, mem *memfs.FS, id string) {
	t.Helper()
	data := []byte(mem.Files()[txnPath(id)])
	end := manifestEnd(t, data)
	if err := mem.Remove(txnPath(id)); err != nil {
		t.Fatal(err)
	}
	if err := mem.Mkdir(txnPath(id), 0o700); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, mem, txnPath(id)+"/manifest", data[recHeader:end])
	mustWrite(t, mem, txnPath(id)+"/pack", data[end:])
}

// TestLegacyLayout: a journal an older txedit wrote (a directory per
// transaction) is still recovered, read and retired: an interrupted
// transaction is rolled back, a file changed since saved aside in its
// directory as that txedit did, and a committed one's before-images and
// diffs read, and GC removes it whole.
func TestLegacyLayout(t *testing.T) {
	d, w, id := interrupted(t)
	toLegacy(t, d.Mem, id)
	mustWrite(t, d.Mem, "a/x", []byte("someone's\n")) // neither version
	reps, err := New(d.Mem, &Options{Sync: SyncData}).Recover()
	if err != nil {
		t.Fatal(err)
	}
	if len(reps) != 1 || len(reps[0].Conflicts) != 1 {
		t.Fatalf("recovery reported %+v, want one transaction with a conflict", reps)
	}
	c := reps[0].Conflicts[0]
	if c.Path != "a/x" || !strings.HasPrefix(c.SavedAs, txnPath(id)+"/conflicts/") || d.Files()[c.SavedAs] != "someone's\n" {
		t.Errorf("conflict %+v: want a/x saved aside in the transaction's directory", c)
	}
	want := map[string]string{}
	for k, v := range w.initial {
		want[k] = v
	}
	want["a/x"] = "someone's\n"
	if got := fstest.Key(d.Files(Dir)); got != treeOf(want) {
		t.Errorf("tree after recovery:\n%s", got)
	}
	if _, pending := journalState(d); pending {
		t.Error("a transaction is still pending")
	}

	// Committed, in the old layout: read back, then retired.
	mem := memfs.New(map[string]string{"f": "old\n"})
	j := New(mem, &Options{Sync: SyncData, Keep: 1})
	w2 := workload{initial: map[string]string{"f": "old\n"}, change: map[string]*string{"f": s("new\n")}}
	if err := runTxOn(j, mem, w2); err != nil {
		t.Fatal(err)
	}
	ents, err := j.List()
	if err != nil || len(ents) != 1 || ents[0].Manifest == nil {
		t.Fatalf("List = %v, %v", ents, err)
	}
	old := ents[0]
	toLegacy(t, mem, old.ID)
	ents, err = j.List()
	if err != nil || len(ents) != 1 || ents[0].Manifest == nil || ents[0].State != StateCommitted {
		t.Fatalf("List of the old layout = %+v, %v", ents, err)
	}
	if b, err := j.Before(ents[0].Manifest, 0); err != nil || string(b) != "old\n" {
		t.Errorf("Before = %q, %v", b, err)
	}
	if r, err := j.OpenDiffs(old.ID); err != nil {
		t.Errorf("OpenDiffs of the old layout: %v", err)
	} else {
		r.Close()
	}
	if size := j.packBytes(old.ID); size == 0 || size != int64(len(mem.Files()[txnPath(old.ID)+"/pack"])) {
		t.Errorf("packBytes = %d", size)
	}
	w3 := workload{initial: map[string]string{"f": "new\n"}, change: map[string]*string{"f": s("newer\n")}}
	if err := runTxOn(j, mem, w3); err != nil {
		t.Fatal(err)
	}
	l, err := j.Lock()
	if err != nil {
		t.Fatal(err)
	}
	removed, err := l.GC()
	l.Unlock()
	if err != nil || len(removed) != 1 || removed[0] != old.ID {
		t.Fatalf("GC removed %v, %v; want %s", removed, err, old.ID)
	}
	for name := range mem.Files() {
		if strings.HasPrefix(name, txnPath(old.ID)) {
			t.Errorf("%s left after GC", name)
		}
	}
}

// TestOneFilePerTransaction: a commit makes one journal file for its
// transaction (no directory), which holds its manifest and its pack; what
// recovery saves aside for it goes to txns/ID.conflicts/, which GC
// retires with it.
func TestOneFilePerTransaction(t *testing.T) {
	d, _, id := interrupted(t)
	if fi, err := d.Mem.Lstat(txnPath(id)); err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("the transaction's entry: %v, %v; want a regular file", fi, err)
	}
	mustWrite(t, d.Mem, "a/x", []byte("someone's\n"))
	j := New(d.Mem, &Options{Sync: SyncData, Keep: 1})
	reps, err := j.Recover()
	if err != nil || len(reps) != 1 || len(reps[0].Conflicts) != 1 {
		t.Fatalf("recovery: %+v, %v", reps, err)
	}
	c := reps[0].Conflicts[0]
	if !strings.HasPrefix(c.SavedAs, txnPath(id)+".conflicts/") || d.Files()[c.SavedAs] != "someone's\n" {
		t.Errorf("conflict %+v: want a/x saved in %s.conflicts/", c, txnPath(id))
	}
	if strays, err := j.Strays(); err != nil || len(strays) != 0 {
		t.Errorf("strays %v, %v: the conflicts directory is the journal's", strays, err)
	}
	for _, n := range []int{1, 2} {
		w := workload{initial: map[string]string{}, change: map[string]*string{"n" + strings.Repeat("x", n): s("n\n")}}
		if err := runTxOn(j, d.Mem, w); err != nil {
			t.Fatal(err)
		}
	}
	l, err := j.Lock()
	if err != nil {
		t.Fatal(err)
	}
	_, err = l.GC()
	l.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	for name := range d.Files() {
		if strings.HasPrefix(name, txnPath(id)) || strings.HasPrefix(name, gcDir) {
			t.Errorf("%s left after GC", name)
		}
	}
}

// TestGCPowerLoss: retirement crashed at each of its calls, the power then
// lost, and recovery: the tree is what the commits made (the second's, if
// all was reported done), nothing is pending, every transaction listed has
// a manifest that reads (no half-retired one), and neither gc/ nor a mark
// without its transaction is left (log.go: the records removed, synced,
// then the marks). It caught two faults: marks left without their
// record (never cleaned up, they made every open recover under the lock),
// and, with no sync between the two steps, a power loss that kept the
// marks' removal and lost the record's, so that recovery rolled the
// retired transaction back over the commit after it.
func TestGCPowerLoss(t *testing.T) {
	w1 := workload{initial: map[string]string{"f": "0\n", "g": "g\n"}, change: map[string]*string{"f": s("1\n")}}
	// The second leaves the first's file as it made it: a retired
	// transaction mistaken for an interrupted one would be rolled back.
	w2 := workload{initial: map[string]string{"f": "1\n", "g": "g\n"}, change: map[string]*string{"g": nil}}
	opts := &Options{Sync: SyncData, Workers: 1, Keep: 1}
	e := &fstest.Exploration{
		Initial:  w1.initial,
		Settings: fstest.Drops(1),
		Run: func(fsy fsys.FS) error {
			j := New(fsy, opts)
			for _, w := range []workload{w1, w2} {
				if err := runTxOn(j, fsy, w); err != nil {
					return err
				}
			}
			l, err := j.Lock()
			if err != nil {
				return err
			}
			defer l.Unlock()
			removed, err := l.GC()
			if err == nil && len(removed) != 1 {
				err = fmt.Errorf("GC removed %v, want the first transaction", removed)
			}
			return err
		},
		Recover: func(fsy fsys.FS) error {
			reps, err := New(fsy, opts).Recover()
			for _, r := range reps {
				if err == nil && r.Damaged != "" {
					err = fmt.Errorf("%s reported damaged: %s", r.ID, r.Damaged)
				}
			}
			return err
		},
		Check: func(d *fstest.Disk, succeeded bool) string {
			tree := fstest.Key(d.Files(Dir))
			if tree != treeOf(w1.initial) && tree != treeOf(w2.initial) && tree != treeOf(w2.final()) {
				// A retired transaction mistaken for an interrupted one
				// and rolled back (its marks removed before its file).
				return "the tree is none of the commits' states:\n" + tree
			}
			if succeeded && tree != treeOf(w2.final()) {
				return "both commits were reported, but the tree is not the second's"
			}
			if _, pending := journalState(d); pending {
				return "a transaction is pending after recovery"
			}
			ents, err := New(d.Mem, opts).List()
			if err != nil {
				return err.Error()
			}
			for _, e := range ents {
				if e.Manifest == nil {
					return fmt.Sprintf("transaction %s listed without a manifest: %v", e.ID, e.Err)
				}
			}
			for name := range d.Files() {
				rest, ok := strings.CutPrefix(name, txnsDir+"/")
				if strings.HasPrefix(name, gcDir) {
					return name + " left"
				}
				if id, mark, _ := strings.Cut(rest, "."); ok && mark != "" {
					if _, ok := d.Files()[txnPath(id)]; !ok {
						if _, ok := d.Files()[txnPath(id)+"/"]; !ok {
							return "a mark without its transaction: " + name
						}
					}
				}
			}
			return ""
		},
	}
	rep, err := e.Explore()
	if err != nil {
		t.Fatal(err)
	}
	if rep.Bad > 0 || len(rep.Errors) > 0 {
		t.Fatalf("%d of %d states violate: %v %v", rep.Bad, rep.States, rep.Examples, rep.Errors)
	}
	t.Logf("%d states", rep.States)
}
