package journal

import (
	"slices"
	"testing"

	"github.com/txedit/txedit/fsys/faultfs"
	"github.com/txedit/txedit/fsys/memfs"
)

// TestKeyReadOncePerJournal: the journal's id (and this user's key it
// names) is read once per Journal, not at every lock of every view: an
// engine takes each lock through a fresh view (WithFS), and an agent's
// edit paid two file reads for the key at each (journal.go, Journal.tr).
// So is the
// temporary file an interrupted rewrite of .gitignore may leave looked
// for once (Journal.swept).
func TestKeyReadOncePerJournal(t *testing.T) {
	ff := &faultfs.FS{Inner: memfs.New(map[string]string{"a": "x\n"}), Record: true}
	j := New(ff, &Options{Sync: SyncNone})
	for i := range 3 {
		v := j.WithFS(ff)
		l, err := v.Lock()
		if err != nil {
			t.Fatal(err)
		}
		l.Unlock()
		if i == 0 {
			ff.Calls = nil // the first lock makes the key
		}
	}
	// A journal made afresh (another process) reads it once, then no more.
	j2 := New(ff, &Options{Sync: SyncNone})
	for range 3 {
		l, err := j2.WithFS(ff).Lock()
		if err != nil {
			t.Fatal(err)
		}
		l.Unlock()
	}
	reads, sweeps := 0, 0
	for _, c := range ff.Calls {
		if slices.Contains([]string{"open " + idName, "open " + keyName, "open " + legacyName}, c) {
			reads++
		}
		if c == "remove "+Dir+"/.gitignore.tmp" {
			sweeps++
		}
	}
	if sweeps != 2 {
		t.Errorf(".gitignore.tmp looked for %d times over 2 journals' 5 more locks; want 2 (once each): %q", sweeps, ff.Calls)
	}
	if reads != 1 {
		t.Errorf("the journal's id was opened %d times over 2 journals' 5 more locks; want 1 (once, by the second journal): %q", reads, ff.Calls)
	}
}

// TestKeyMadeAgainIsReadAgain: a journal that cached the key reads it
// again once the journal's id file is another (removed, and the journal
// claimed again by another process's lock), so that it signs with the key
// every process uses.
func TestKeyMadeAgainIsReadAgain(t *testing.T) {
	mfs := memfs.New(map[string]string{"a": "x\n"})
	lock := func(j *Journal) {
		t.Helper()
		l, err := j.WithFS(mfs).Lock()
		if err != nil {
			t.Fatal(err)
		}
		l.Unlock()
	}
	server := New(mfs, &Options{Sync: SyncNone})
	lock(server)
	old := server.tr.Load()
	if old == nil {
		t.Fatal("no key after the first lock")
	}
	if err := mfs.Remove(idName); err != nil {
		t.Fatal(err)
	}
	other := New(mfs, &Options{Sync: SyncNone})
	lock(other) // makes a new key
	lock(server)
	now := server.tr.Load()
	if now == nil || string(now.key) != string(other.tr.Load().key) || string(now.key) == string(old.key) {
		t.Errorf("after the key was made again, the first journal still verifies with its old one")
	}
}
