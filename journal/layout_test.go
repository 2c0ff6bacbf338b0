package journal

import (
	"strings"
	"testing"

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
