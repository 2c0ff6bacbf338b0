package engine

import (
	"context"
	"errors"
	"fmt"
	"github.com/txedit/txedit/journal"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/fsys/faultfs"
)

// retainedTxns counts the transactions in dir's journal (the records in
// txns/, not their marks).
func retainedTxns(t *testing.T, dir string) int {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(dir, ".txedit", "txns"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		if !strings.Contains(e.Name(), ".") {
			n++
		}
	}
	return n
}

// lineEdit is the request that sets f.txt's one line to i.
func lineEdit(i int) string {
	return fmt.Sprintf(`{"command":"replace_lines","path":"f.txt","start_line":1,"end_line":1,"new_str":"%d"}`, i)
}

// mustEdit applies lineEdit(i) and fails the test unless it succeeded
// without a warning.
func mustEdit(t *testing.T, w *Workspace, i int) {
	t.Helper()
	if res := run(t, w, lineEdit(i)); !res.Success || len(res.Warnings) > 0 {
		t.Fatalf("edit %d: %+v", i, res)
	}
}

// TestBackgroundGC: with Options.BackgroundGC, the write that puts the
// journal over its retention returns before the batch runs (the batch is
// held at its start here, and the write still answers), the next write of
// the workspace waits for the batch rather than failing, and Close waits
// for it: the journal is back to Keep transactions after it.
func TestBackgroundGC(t *testing.T) {
	const keep = 8
	dir := primedWorkspace(t, keep)
	started, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	testHookBackgroundGC = func() { once.Do(func() { close(started); <-release }) }
	defer func() { testHookBackgroundGC = nil }()
	w, err := Open(dir, &Options{Keep: keep, Durability: NotDurable, BackgroundGC: true})
	if err != nil {
		t.Fatal(err)
	}
	edit := func(i int) { t.Helper(); mustEdit(t, w, i) }
	i := 2 // the primer's edit was the first
	for ; ; i++ {
		edit(i)
		if i > keep+keep/16 {
			// The batch is due: its goroutine reaches the hook.
			select {
			case <-started:
			case <-time.After(10 * time.Second):
				t.Fatalf("no background batch started after %d transactions (keep %d)", i, keep)
			}
			break
		}
		select {
		case <-started:
			t.Fatalf("a batch started after %d transactions, under the limit (keep %d)", i, keep)
		default:
		}
	}
	if n := retainedTxns(t, dir); n != i {
		t.Fatalf("the write that made retention due returned with %d transactions retained, want all %d (its batch has not run)", n, i)
	}
	// Another write while the batch is held: it must not wait for it
	// (the batch has not taken the lock) and must not start a second one.
	i++
	edit(i)
	close(release)
	// The next write goes after the batch, whichever takes the lock first.
	i++
	edit(i)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if n := retainedTxns(t, dir); n > keep+keep/16 {
		t.Errorf("after Close, %d transactions retained; want at most %d (the batch ran, and Close waited for it)", n, keep+keep/16)
	}
	if got := readTree(t, dir)["f.txt"]; got != fmt.Sprintf("%d\n", i) {
		t.Errorf("f.txt = %q, want the last edit's %d", got, i)
	}
}

// primedWorkspace is a workspace with one committed edit of f.txt, made
// with GC inline: its journal's index knows its totals, so retention is
// due only past the limits (a journal whose index says nothing runs GC at
// its first commit, to write it).
func primedWorkspace(t *testing.T, keep int) string {
	t.Helper()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"f.txt": "0\n"})
	w, err := Open(dir, &Options{Keep: keep, Durability: NotDurable})
	if err != nil {
		t.Fatal(err)
	}
	if res := run(t, w, lineEdit(1)); !res.Success {
		t.Fatalf("primer: %+v", res)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestBackgroundGCFailureWarnsTheNextWrite: a batch that fails after the
// write that started it has answered is told to the next write, as the
// warning an inline batch's failure gives its own write.
func TestBackgroundGCFailureWarnsTheNextWrite(t *testing.T) {
	const keep = 4
	dir := primedWorkspace(t, keep)
	inner, err := fsys.NewOS(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer inner.Close()
	ffs := &faultfs.FS{Inner: inner, Mode: faultfs.ModeErrorPersistent}
	started, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	testHookBackgroundGC = func() { once.Do(func() { close(started); <-release }) }
	defer func() { testHookBackgroundGC = nil }()
	w, err := Open(dir, &Options{FS: ffs, Keys: journal.UserKeys(), Keep: keep, Durability: NotDurable, BackgroundGC: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	edit := func(i int) []string {
		t.Helper()
		res := run(t, w, lineEdit(i))
		if !res.Success {
			t.Fatalf("edit %d: %+v", i, res)
		}
		return res.Warnings
	}
	i := 2
	for ; i <= keep+keep/16+1; i++ {
		if ws := edit(i); len(ws) > 0 {
			t.Fatalf("edit %d warned: %v", i, ws)
		}
	}
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("no background batch started")
	}
	// Every call of the batch fails from here (its lock, first).
	ffs.FailAt = ffs.N() + 1
	close(release)
	w.stopGC() // the batch ended (and no other starts; enough for one more write)
	ffs.Disarm()
	ws := edit(i)
	if len(ws) != 1 || !strings.Contains(ws[0], "retention failed after an earlier write") {
		t.Fatalf("the write after a failed batch: warnings %q, want the batch's failure", ws)
	}
	if ws := edit(i + 1); len(ws) != 0 {
		t.Errorf("the failure was told twice: %q", ws)
	}
}

// TestBackgroundGCLeavesABusyLock: a batch that finds the lock held by
// another holder gives up within bgLockWait (it does not make this
// process's writes wait behind it for the lock timeout), reports nothing,
// and the next commit starts another.
func TestBackgroundGCLeavesABusyLock(t *testing.T) {
	const keep = 4
	dir := primedWorkspace(t, keep)
	other, err := Open(dir, &Options{Durability: NotDurable})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	var held func() error
	var once sync.Once
	testHookBackgroundGC = func() {
		once.Do(func() {
			l, err := other.j.Lock()
			if err != nil {
				t.Errorf("the other holder's lock: %v", err)
				return
			}
			held = l.Unlock
		})
	}
	defer func() { testHookBackgroundGC = nil }()
	w, err := Open(dir, &Options{Keep: keep, Durability: NotDurable, BackgroundGC: true, LockTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	edit := func(i int) { t.Helper(); mustEdit(t, w, i) }
	i := 2
	for ; i <= keep+keep/16+1; i++ {
		edit(i)
	}
	start := time.Now()
	w.bg.wg.Wait() // the batch, with the lock held by the other
	if waited := time.Since(start); waited > 10*bgLockWait {
		t.Errorf("the batch waited %v for a busy lock, want about %v", waited, bgLockWait)
	}
	if held == nil {
		t.Fatal("the other holder did not take the lock")
	}
	if n := retainedTxns(t, dir); n != i-1 {
		t.Errorf("%d transactions retained after the batch that found the lock busy; want all %d", n, i-1)
	}
	if err := w.takeGCError(); err != nil {
		t.Errorf("a busy lock was kept as a failure: %v", err)
	}
	if err := held(); err != nil {
		t.Fatal(err)
	}
	edit(i) // starts the batch again
	w.stopGC()
	if n := retainedTxns(t, dir); n > keep+keep/16 {
		t.Errorf("after the next commit's batch, %d transactions retained; want at most %d", n, keep+keep/16)
	}
}

// TestBackgroundGCRunsAgainAfterABusyTry: a batch that found the lock
// held by a write of this very process (one that passed the gate before
// the batch took it, and held the lock past bgLockWait) gives up; that
// write's commit, which made retention due again while the batch was
// still running, has the goroutine run one more batch instead of being
// dropped (CI once saw 9 transactions retained, want 8, after Close).
func TestBackgroundGCRunsAgainAfterABusyTry(t *testing.T) {
	const keep = 4
	dir := primedWorkspace(t, keep)
	var slow atomic.Bool
	locked := make(chan struct{}, 1)
	opts := &Options{Keep: keep, Durability: NotDurable, BackgroundGC: true, Timings: func(p string, d time.Duration) {
		if p == "begin" && slow.CompareAndSwap(true, false) {
			locked <- struct{}{}
			time.Sleep(10 * bgLockWait) // under the lock: the batch gives up long before
		}
	}}
	started, release, editDone := make(chan struct{}), make(chan struct{}), make(chan struct{})
	var first error
	var once, onceDone sync.Once
	testHookBackgroundGC = func() { once.Do(func() { close(started); <-release }) }
	testHookBackgroundGCDone = func(err error) { onceDone.Do(func() { first = err; <-editDone }) }
	defer func() { testHookBackgroundGC, testHookBackgroundGCDone = nil, nil }()
	w, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	edit := func(i int) error {
		res, err := w.Apply(context.Background(), mustParse(t, lineEdit(i)))
		if err == nil && (!res.Success || len(res.Warnings) > 0) {
			err = fmt.Errorf("%+v", res)
		}
		return err
	}
	i := 2
	for ; i <= keep+keep/16+1; i++ {
		if err := edit(i); err != nil {
			t.Fatalf("edit %d: %v", i, err)
		}
	}
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("no background batch started")
	}
	slow.Store(true)
	var editErr error
	go func() { editErr = edit(i); close(editDone) }()
	<-locked       // the write holds the lock
	close(release) // the batch tries for it, and gives up
	w.stopGC()     // the batch's end waits for the write to answer
	if editErr != nil {
		t.Fatalf("the write that held the lock: %v", editErr)
	}
	if !errors.Is(first, fsys.ErrBusy) {
		t.Fatalf("the first batch ended with %v, want busy (the write held the lock past %v)", first, bgLockWait)
	}
	if n := retainedTxns(t, dir); n > keep+keep/16 {
		t.Errorf("%d transactions retained after the batches; want at most %d (the write's commit, due while a batch ran, was dropped)", n, keep+keep/16)
	}
}
