package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/sourcegraph/conc/panics"
	"github.com/sourcegraph/conc/pool"

	"github.com/txedit/txedit/hash"
	"github.com/txedit/txedit/journal"
	"github.com/txedit/txedit/plan"
)

// unit is one file's share of a commit: what its source must still be,
// how to get its new bytes, and which manifest ops it stages.
type unit struct {
	src    string         // path read again under the lock
	old    *journal.State // expected state of src; nil: must be absent
	newSum hash.Sum
	kept   []byte // new bytes kept from pass 1, or nil
	// content computes the new bytes from the current ones (pass 1 is
	// repeated when its result was not kept).
	content func(cur []byte, exists bool) []byte
	render  func(old, new []byte) string
	ops     []int // indexes into the manifest's ops
}

// commit is pass 2: under the workspace lock, re-read and re-verify every
// source, stage new contents in parallel, and commit through the journal.
func (w *Workspace) commit(ctx context.Context, m *journal.Manifest, units []*unit) error {
	// A fresh view: directory handles from the unlocked pass are not
	// trusted under the lock.
	w, release := w.view()
	defer release()
	clock := time.Now()
	l, err := w.j.Lock()
	if err != nil {
		return wrapJournalErr(err)
	}
	defer l.Unlock()
	tx, err := l.Begin(m)
	if err != nil {
		return wrapJournalErr(err)
	}
	w.phase("lock", &clock)
	prog := w.progress(ctx, "stage", len(units))
	err = w.forEach(ctx, len(units), func(i int) error {
		defer prog.add(1)
		return w.stage(tx, units[i])
	})
	prog.end()
	w.phase("stage", &clock)
	if err != nil {
		if aerr := tx.Abort(); aerr != nil {
			err = fmt.Errorf("%w (rolling back: %v)", err, aerr)
		}
		return wrapJournalErr(err)
	}
	if err := tx.Commit(); err != nil {
		return wrapJournalErr(err)
	}
	w.phase("commit", &clock)
	l.GCIfNeeded()
	w.phase("gc", &clock)
	return nil
}

func (w *Workspace) stage(tx *journal.Tx, u *unit) error {
	cur, err := w.readFile(u.src, u.src, true)
	if err != nil {
		return err
	}
	switch {
	case u.old != nil && (!cur.exists || int64(len(cur.data)) != u.old.Size || hash.Of(cur.data) != u.old.Hash):
		now := "is gone"
		if cur.exists {
			now = "now hashes to " + hash.Of(cur.data).String()
		}
		return &plan.Error{Code: plan.CodeStaleHash, Path: u.src, Index: -1, Current: tokenIf(cur),
			Msg: fmt.Sprintf("changed while this request was being applied (planned against %s, %s); nothing was written", u.old.Hash, now)}
	case u.old == nil && cur.exists:
		return plan.Errorf(plan.CodeConflict, u.src, "was created by someone else while this request was being applied; nothing was written")
	}
	m := tx.Manifest()
	var newData []byte
	for _, i := range u.ops {
		if m.Ops[i].New == nil {
			continue
		}
		newData = u.kept
		if newData == nil {
			newData = u.content(cur.data, cur.exists)
		}
		if hash.Of(newData) != u.newSum {
			return plan.Errorf(plan.CodeStaleHash, u.src, "changed while this request was being applied; nothing was written")
		}
		break
	}
	diff := u.render(cur.data, newData)
	for k, i := range u.ops {
		s := journal.Staging{Ident: cur.ident}
		if m.Ops[i].Old != nil {
			s.Old = cur.data
		}
		if m.Ops[i].New != nil {
			s.New = newData
		}
		if k == 0 {
			s.Diff = diff
		}
		if err := tx.Stage(i, s); err != nil {
			return err
		}
	}
	return nil
}

func tokenIf(f *fileInfo) string {
	if !f.exists {
		return ""
	}
	return hash.Of(f.data).String()
}

// forEach runs fn(0..n-1) on the bounded worker pool. A panic in fn comes
// back as an error instead of killing the process (conc re-raises panics
// in the caller of Wait). After the first error, tasks not yet started are
// skipped.
func (w *Workspace) forEach(ctx context.Context, n int, fn func(i int) error) error {
	if n == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu      sync.Mutex
		first   error
		skipped error
	)
	p := pool.New().WithMaxGoroutines(min(w.opts.Workers, n))
	for i := 0; i < n; i++ {
		p.Go(func() {
			if err := ctx.Err(); err != nil {
				mu.Lock()
				skipped = err
				mu.Unlock()
				return
			}
			var c panics.Catcher
			var err error
			c.Try(func() { err = fn(i) })
			if r := c.Recovered(); r != nil {
				err = r.AsError()
			}
			if err != nil {
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
				cancel()
			}
		})
	}
	p.Wait()
	if first == nil {
		// The caller's context ended and tasks were skipped.
		first = skipped
	}
	return first
}

func asPlanError(err error, target **plan.Error) bool { return errors.As(err, target) }
