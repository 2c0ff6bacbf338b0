package engine

import (
	"errors"
	"runtime"
	"sync"
	"time"

	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/journal"
)

// Background retention (Options.BackgroundGC; docs/journal.md, "Retention
// after the answer"). A commit that leaves the journal over its retention
// limits does not retire the oldest transactions itself: it starts one
// goroutine that takes the lock again once the write has returned, and
// retires them then. A server's next request comes seconds later (an
// agent thinks between calls), so the write's answer no longer waits for
// the unlinks, the directory sync and the index rewrite of a batch.
//
// The goroutine starts when the write releases the lock
// (journal.Locked.AfterUnlock), before the write's answer is sent.
//
// The batch is the same GC, under the same lock, with the same crash
// ordering as in the write (journal.Locked.GC); only when it runs moves.
type bgGC struct {
	// gate is held by the goroutine while it holds the lock: a write of
	// this process that arrives meanwhile waits on it and goes on the
	// moment the batch ends, instead of polling the lock file.
	gate sync.Mutex

	mu      sync.Mutex
	running bool // a goroutine is started and has not ended
	// again: a commit made retention due while a batch ran: the goroutine
	// runs one more batch before it ends (the one running may have found
	// the lock held by that very commit, and given up).
	again  bool
	closed bool  // Close was called: no goroutine starts any more
	err    error // the last batch's failure, for the next write's warning
	wg     sync.WaitGroup
}

// bgLockWait bounds how long a background batch waits for the lock.
const bgLockWait = 100 * time.Millisecond

// testHookBackgroundGC, if set, runs in the goroutine before it takes
// the lock; testHookBackgroundGCDone after each batch, with its error.
var (
	testHookBackgroundGC     func()
	testHookBackgroundGCDone func(error)
)

// scheduleGC starts the background batch, or, if one is running, has its
// goroutine run another after it; none starts once the workspace is
// closing.
func (w *Workspace) scheduleGC() {
	b := &w.bg
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.running {
		b.again = true
		return
	}
	if b.closed {
		return
	}
	b.running = true
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		for {
			err := w.runBackgroundGC()
			if testHookBackgroundGCDone != nil {
				testHookBackgroundGCDone(err)
			}
			b.mu.Lock()
			if err != nil && !errors.Is(err, fsys.ErrBusy) {
				// Busy: another holder kept the lock past bgLockWait;
				// the next commit tries again. Anything else is told to
				// the next write.
				b.err = err
			}
			if !b.again {
				b.running = false
				b.mu.Unlock()
				return
			}
			b.again = false
			b.mu.Unlock()
		}
	}()
}

func (w *Workspace) runBackgroundGC() error {
	if testHookBackgroundGC != nil {
		testHookBackgroundGC()
	}
	b := &w.bg
	b.gate.Lock()
	defer b.gate.Unlock()
	o := w.begin()
	defer o.end()
	// Not the workspace's lock timeout: a batch that finds the lock
	// taken (by another process: this one's writes wait on the gate)
	// leaves the work to the next commit rather than hold the gate, and
	// this process's writes behind it, for that long.
	l, err := o.j.LockWithin(bgLockWait)
	if err != nil {
		return err
	}
	defer l.Unlock()
	clock := time.Now()
	_, err = l.GCIfNeeded()
	w.phase("gc", &clock)
	return err
}

// lockJournal takes the workspace lock through j, as every path of the
// engine that takes it does: first, with BackgroundGC, it waits for a
// background batch that holds the lock (on the gate, without polling).
func (w *Workspace) lockJournal(j *journal.Journal) (*journal.Locked, error) {
	if w.opts.BackgroundGC {
		w.bg.gate.Lock()
		//lint:ignore SA2001 an empty critical section: waiting is the point
		w.bg.gate.Unlock()
	}
	l, err := j.Lock()
	if err != nil {
		return nil, wrapJournalErr(err)
	}
	return l, nil
}

// makeJournalEarly starts making the journal of a workspace on disk that
// has none yet, for a request that will commit: a new journal waits for
// the device twice before the first transaction can begin (its claim:
// docs/journal.md, "A workspace's first commit"), and those waits are
// spent while the request's edits are computed (CPU) instead of after
// them. It takes the lock as a write does (what it makes is what the
// write's own lock would make) and releases it at once: the request
// locks again to commit, and whatever failed here that lock meets and
// reports. It waits for the lock at most bgLockWait (a holder is making
// the journal, or writing: the request's own lock waits). wait ends it;
// every return of the request calls it, so nothing outlives the request.
// A request that then fails leaves the journal made (empty: fresh, but
// claimed), as a request that commits nothing does.
func (w *Workspace) makeJournalEarly() (wait func()) {
	if !w.OnDisk() || w.j.Made() {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if l, err := w.j.LockWithin(bgLockWait); err == nil {
			l.Unlock()
		}
		if testHookJournalEarly != nil {
			testHookJournalEarly()
		}
	}()
	// Its first waits for the device start now, not once the edits'
	// workers, started next, have run their first files (on two cores it
	// began 4-21 ms after them: bench/README.md, "round 5 (stage5)").
	runtime.Gosched()
	return sync.OnceFunc(func() { <-done })
}

// StartJournal starts making the journal of a workspace on disk that has
// none yet, in the background, for a caller about to write that has work
// of its own first: txedit apply parses its request meanwhile, so the
// journal's two waits for the device (makeJournalEarly) overlap the
// parse, not only the edits. The next write waits for it instead of
// starting its own, and so does Close. It does nothing in a read-only
// workspace, one not on disk, or one with a journal; a caller that then
// writes nothing leaves the journal made (empty, claimed), as a request
// that commits nothing does.
func (w *Workspace) StartJournal() {
	if w.opts.ReadOnly {
		return
	}
	w.early.mu.Lock()
	defer w.early.mu.Unlock()
	if w.early.wait == nil {
		w.early.wait = w.makeJournalEarly()
	}
}

// earlyJournal is a journal StartJournal is making, until a write or
// Close waits for it.
type earlyJournal struct {
	mu   sync.Mutex
	wait func()
}

// take returns the wait of the journal StartJournal started (nil: none)
// and forgets it.
func (e *earlyJournal) take() func() {
	e.mu.Lock()
	defer e.mu.Unlock()
	wait := e.wait
	e.wait = nil
	return wait
}

// testHookJournalEarly, set only by tests, runs once makeJournalEarly's
// lock is released.
var testHookJournalEarly func()

// takeGCError returns and forgets the last background batch's failure.
func (w *Workspace) takeGCError() error {
	w.bg.mu.Lock()
	defer w.bg.mu.Unlock()
	err := w.bg.err
	w.bg.err = nil
	return err
}

// stopGC waits for a background batch to end and starts no other.
func (w *Workspace) stopGC() {
	w.bg.mu.Lock()
	w.bg.closed = true
	w.bg.mu.Unlock()
	w.bg.wg.Wait()
}

// retention runs the journal's retention after a commit under l: at once,
// or (Options.BackgroundGC) after the write, by scheduleGC. It returns the
// warning the write carries, if any.
func (o *op) retention(l *journal.Locked) string {
	if !o.w.opts.BackgroundGC {
		if _, err := l.GCIfNeeded(); err != nil {
			return "committed; the journal's retention failed: " + err.Error()
		}
		return ""
	}
	if l.GCDue() {
		// Started once this write releases the lock, so that its first
		// try for the lock finds it free.
		l.AfterUnlock(o.w.scheduleGC)
	}
	if err := o.w.takeGCError(); err != nil {
		return "committed; the journal's retention failed after an earlier write: " + err.Error()
	}
	return ""
}
