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
