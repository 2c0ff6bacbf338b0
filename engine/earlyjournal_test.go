package engine

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/txedit/txedit/journal"
)

// TestJournalMadeWhileEditsAreComputed: in a workspace on disk without a
// journal, a request that commits makes its journal (directories, claim)
// while its edits are computed, not after them (makeJournalEarly): the
// edit below waits until the journal is there, which it never is if the
// journal is made only when the lock is taken after the edits. The
// journal is this user's, the commit goes through, and a request that
// fails leaves a journal the next write uses as it is.
func TestJournalMadeWhileEditsAreComputed(t *testing.T) {
	defer func() { testHookEdit, testHookJournalEarly = nil, nil }()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.txt": "one\n", "b.txt": "two\n"})
	w := openWS(t, dir, nil)
	early := make(chan struct{}, 1)
	testHookJournalEarly = func() { early <- struct{}{} }
	sawJournal := false
	testHookEdit = func(string) {
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			if _, err := os.Lstat(filepath.Join(dir, ".txedit", "id")); err == nil {
				sawJournal = true
				return
			}
			time.Sleep(time.Millisecond)
		}
	}
	res := run(t, w, `{"command":"str_replace","path":"a.txt","old_str":"one","new_str":"ONE"}`)
	if !res.Success {
		t.Fatalf("the first write: %+v", res)
	}
	if !sawJournal {
		t.Fatal("the journal was not made while the edit was computed")
	}
	select {
	case <-early:
	default:
		t.Fatal("the early lock did not end before the request returned")
	}
	if st, err := w.j.Status(); err != nil || st.Standing != journal.Trusted {
		t.Fatalf("the journal made early: %v %+v", err, st)
	}
	if got := readTree(t, dir)["a.txt"]; got != "ONE\n" {
		t.Fatalf("a.txt: %q", got)
	}

	// A request that fails in a new workspace: its journal is made, empty,
	// this user's; nothing else is written, and the next write commits.
	testHookEdit = nil
	dir2 := t.TempDir()
	writeTree(t, dir2, map[string]string{"a.txt": "one\n"})
	w2 := openWS(t, dir2, nil)
	res = run(t, w2, `{"command":"str_replace","path":"a.txt","old_str":"absent","new_str":"x"}`)
	if res.Success {
		t.Fatalf("the failing request: %+v", res)
	}
	<-early
	if got := readTree(t, dir2)["a.txt"]; got != "one\n" {
		t.Fatalf("the failing request wrote a.txt: %q", got)
	}
	if st, err := w2.j.Status(); err != nil || st.Standing != journal.Trusted {
		t.Fatalf("the journal the failing request made: %v %+v", err, st)
	}
	res = run(t, w2, `{"command":"str_replace","path":"a.txt","old_str":"one","new_str":"ONE"}`)
	if !res.Success || readTree(t, dir2)["a.txt"] != "ONE\n" {
		t.Fatalf("the write after: %+v", res)
	}
	select {
	case <-early:
		t.Fatal("a journal already made was made again early")
	default:
	}
}

// TestStartJournal: StartJournal makes a new workspace's journal before
// any request (txedit apply starts it before it parses its request): the
// journal is there, this user's, while nothing has been asked yet; the
// write after it waits for that journal and makes none of its own; Close
// waits for one nothing used; a read-only workspace, or one with its
// journal, makes none.
func TestStartJournal(t *testing.T) {
	defer func() { testHookJournalEarly = nil }()
	early := make(chan struct{}, 4)
	testHookJournalEarly = func() { early <- struct{}{} }

	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.txt": "one\n"})
	w := openWS(t, dir, nil)
	w.StartJournal()
	w.StartJournal() // once
	select {
	case <-early:
	case <-time.After(10 * time.Second):
		t.Fatal("StartJournal made no journal")
	}
	if _, err := os.Lstat(filepath.Join(dir, ".txedit", "id")); err != nil {
		t.Fatalf("no journal after StartJournal: %v", err)
	}
	if st, err := w.j.Status(); err != nil || st.Standing != journal.Trusted {
		t.Fatalf("the journal StartJournal made: %v %+v", err, st)
	}
	res := run(t, w, `{"command":"str_replace","path":"a.txt","old_str":"one","new_str":"ONE"}`)
	if !res.Success || readTree(t, dir)["a.txt"] != "ONE\n" {
		t.Fatalf("the write after StartJournal: %+v", res)
	}
	select {
	case <-early:
		t.Fatal("the write made its journal again")
	default:
	}
	w.StartJournal() // has its journal: nothing
	select {
	case <-early:
		t.Fatal("StartJournal made a journal the workspace has")
	case <-time.After(50 * time.Millisecond):
	}

	// Close waits for a journal nothing wrote through.
	dir2 := t.TempDir()
	writeTree(t, dir2, map[string]string{"a.txt": "one\n"})
	w2, err := Open(dir2, nil)
	if err != nil {
		t.Fatal(err)
	}
	w2.StartJournal()
	if err := w2.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-early:
	default:
		t.Fatal("Close returned before the journal StartJournal began was made")
	}

	// Read-only: nothing.
	dir3 := t.TempDir()
	writeTree(t, dir3, map[string]string{"a.txt": "one\n"})
	w3 := openWS(t, dir3, &Options{ReadOnly: true})
	w3.StartJournal()
	w3.Close()
	if _, err := os.Lstat(filepath.Join(dir3, ".txedit")); !os.IsNotExist(err) {
		t.Fatalf("a read-only workspace got a journal: %v", err)
	}
}
