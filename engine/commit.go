package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/txedit/txedit/apply"
	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/hash"
	"github.com/txedit/txedit/internal/par"
	"github.com/txedit/txedit/journal"
	"github.com/txedit/txedit/plan"
)

// unit is one file's share of a commit: what its source must still be,
// how to get its new bytes, and which manifest ops it stages.
type unit struct {
	src     string         // path read again under the lock
	old     *journal.State // expected state of src; nil: must be absent
	newSum  hash.Sum
	newSize int64
	kept    []byte // new bytes kept from pass 1, or nil
	// cur, if set, is src as read under the lock this commit holds (its
	// bytes are old's, its identity taken with them): staging uses it
	// instead of reading the file again.
	cur *fileInfo
	// done, if set, runs once the unit is staged: its bytes are in the
	// journal and the staged file, and need not be held any more.
	done func()
	// content computes the new bytes from the current ones (pass 1 is
	// repeated when its result was not kept).
	content func(cur []byte, exists bool) []byte
	// fill, if set, is content appending to dst instead of allocating:
	// the new bytes of a file a pattern_replace's walk found are its
	// substitution alone, which staging computes into a buffer it reuses
	// from file to file (the walk kept only the current bytes: keeping
	// the new ones too took a page fault each 4 KiB of them).
	fill func(dst, cur []byte) []byte
	// load, if set, reads the new bytes instead (undo: from the pack).
	load   func() ([]byte, error)
	render func(old, new []byte) (string, apply.Stat)
	// diffed: staging recorded a diff for the unit (its first op's).
	diffed bool
	ops    []int // indexes into the manifest's ops
	// res, if set, receives the diff and stat of what was committed.
	res *plan.FileResult
	// link: src names an entry, a symbolic link there read as its target
	// (links.go).
	link bool
	// wrote, if set, is handed the new bytes once they are staged (the
	// session keeps them: basecache.go).
	wrote func([]byte)
	// replan, if set, plans the unit again on the file's current bytes
	// when they are not what pass 1 planned against (a request without
	// hashes of its own is re-planned, not refused: docs/decisions.md); it updates
	// the unit and its ops, or says why the change no longer applies.
	replan func(cur *fileInfo) error
}

// errReplan reports, from staging, a unit whose file changed since it was
// planned and that can be planned again.
type errReplan struct{ path string }

func (e *errReplan) Error() string { return e.path + " changed since it was planned" }

// maxReplans bounds how often one commit plans again under its lock.
const maxReplans = 3

// commitWith is pass 2: under the workspace lock (held: one the caller
// already holds; nil: take it), re-read and re-verify every source, stage
// new contents in parallel, and commit through the journal. A trouble
// after the commit point that changes nothing (the journal's retention
// failing) comes back as a warning. With keepDiffs false the units' results get their diff's
// line counts but not the diff itself (it is in the journal).
func (o *op) commitWith(ctx context.Context, held *journal.Locked, m *journal.Manifest, units []*unit, keepDiffs bool) (warning string, err error) {
	clock := time.Now()
	l := held
	if l == nil {
		// A fresh view: directory handles from the unlocked pass are
		// not trusted under the lock.
		fresh, locked, lerr := o.w.beginLocked()
		if lerr != nil {
			return "", lerr
		}
		defer fresh.end()
		defer locked.Unlock()
		fresh.charge = o.charge
		o, l = fresh, locked
		o.w.phase("lock", &clock)
	}
	var tx *journal.Tx
	for attempt := 0; ; attempt++ {
		tx, err = l.Begin(m)
		if err != nil {
			return "", wrapJournalErr(err)
		}
		o.w.phase("begin", &clock)
		prog := o.w.progress(ctx, "stage", len(units))
		err = par.Do(ctx, len(units), o.w.opts.Workers, func(i int) error {
			defer prog.add(1)
			return o.stage(tx, units[i], keepDiffs)
		})
		prog.end()
		o.w.phase("stage", &clock)
		if err == nil {
			break
		}
		aerr := tx.Abort()
		var rp *errReplan
		if errors.As(err, &rp) && aerr == nil && attempt < maxReplans {
			// Someone wrote a file between planning and the lock: plan
			// every changed file again on its current bytes, still under
			// the lock, and begin anew.
			if err := o.replan(ctx, m, units); err != nil {
				return "", err
			}
			continue
		}
		if aerr != nil {
			err = fmt.Errorf("%w (rolling back: %w)", err, aerr)
		}
		return "", wrapJournalErr(err)
	}
	if err := tx.Commit(); err != nil {
		if errors.Is(err, journal.ErrCommitUnknown) {
			return durabilityUnknown(err), nil // committed: see durability.go
		}
		return "", wrapJournalErr(err)
	}
	o.w.phase("commit", &clock)
	warning = o.retention(l)
	o.w.phase("gc", &clock)
	return warning, nil
}

func (o *op) stage(tx *journal.Tx, u *unit, keepDiff bool) error {
	cur, err := o.stagedCurrent(u)
	if err != nil {
		return err
	}
	m := tx.Manifest()
	var buf *[]byte // the new bytes' buffer, when fill computes them
	if u.kept == nil && u.load == nil && u.fill != nil {
		buf = stageBufs.get()
		defer func() { stageBufs.put(buf) }()
	}
	newData, err := u.newBytes(m, cur, buf)
	if err != nil {
		return err
	}
	if u.wrote != nil && newData != nil && int64(len(newData)) <= o.w.bases.file {
		if buf != nil {
			newData = bytes.Clone(newData) // the session keeps them
		}
		u.wrote(newData)
	}
	diff, st := u.render(cur.data, newData)
	u.diffed = diff != ""
	if u.res != nil {
		u.res.LinesAdded, u.res.LinesRemoved = st.Added, st.Removed
		if keepDiff {
			u.res.Diff = diff
		}
	}
	for k, i := range u.ops {
		// stagedCurrent checked cur against the unit's old state and
		// newBytes the new bytes against its new hash: the journal need
		// not hash them again.
		s := journal.Staging{Ident: cur.ident, Checked: true}
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
	u.cur, u.kept = nil, nil
	if u.done != nil {
		u.done()
	}
	return nil
}

// stagedCurrent is a unit's file as it is under the lock, checked against
// what the unit was planned from: stale_hash or conflict if it changed,
// errReplan if it changed and the unit can be planned again.
func (o *op) stagedCurrent(u *unit) (*fileInfo, error) {
	cur := u.cur // read under this lock already: it is what was planned
	if cur != nil {
		// Unless a writer that is not txedit changed it since: then it
		// is read again (and the unit planned again if it can be).
		if fi, err := o.fsy.Lstat(u.src); err != nil || !fsys.SameVersion(fsys.IdentityOf(fi), cur.ident) {
			cur = nil
		}
	}
	if cur != nil {
		return cur, nil
	}
	cur, err := o.readEntry(u.src, u.src, u.link)
	if err != nil {
		return nil, err
	}
	same := sameState(cur, u.old) // hashes the file's bytes: once
	if !same && u.replan != nil {
		return nil, &errReplan{path: u.src}
	}
	switch {
	case u.old != nil && !same:
		now := "is gone"
		if cur.exists {
			now = "now hashes to " + hash.Of(cur.data).String()
		}
		e := plan.Errorf(plan.CodeStaleHash, u.src, "changed while this request was being applied (planned against %s, %s); nothing was written", u.old.Hash, now)
		e.Current = tokenIf(cur)
		return nil, e
	case u.old == nil && cur.exists:
		return nil, plan.Errorf(plan.CodeConflict, u.src, "was created by someone else while this request was being applied; nothing was written")
	}
	return cur, nil
}

// newBytes is what the unit writes over cur (nil when none of its ops
// writes): kept from pass 1, loaded (undo), or computed again (by fill
// into buf, when both are set: then the bytes are buf's and *buf holds
// them, grown, until the caller gives it back), and checked against the
// hash it was planned to have.
func (u *unit) newBytes(m *journal.Manifest, cur *fileInfo, buf *[]byte) ([]byte, error) {
	for _, i := range u.ops {
		if m.Ops[i].New == nil {
			continue
		}
		newData := u.kept
		switch {
		case newData != nil:
			// Kept from pass 1, whose hash is u.newSum (replan sets
			// both): nothing to check again.
			return newData, nil
		case u.load != nil:
			var err error
			if newData, err = u.load(); err != nil {
				e := plan.Errorf(plan.CodeIOError, u.src, "before-image unreadable: %v", err)
				e.Err = err
				return nil, e
			}
		case buf != nil && u.fill != nil && cur.exists:
			newData = u.fill((*buf)[:0], cur.data)
			*buf = newData[:0]
		default:
			newData = u.content(cur.data, cur.exists)
		}
		if hash.Of(newData) != u.newSum {
			return nil, plan.Errorf(plan.CodeStaleHash, u.src, "changed while this request was being applied; nothing was written")
		}
		return newData, nil
	}
	return nil, nil
}

// replan plans again, on the current bytes, every unit whose file changed
// since it was planned; units that cannot be planned again fail as stale.
func (o *op) replan(ctx context.Context, m *journal.Manifest, units []*unit) error {
	m.Mkdirs = nil // Begin finds them again
	return par.Do(ctx, len(units), o.w.opts.Workers, func(i int) error {
		u := units[i]
		cur, err := o.readEntry(u.src, u.src, u.link)
		if err != nil {
			return err
		}
		if sameState(cur, u.old) {
			return nil
		}
		if u.replan == nil {
			return plan.Errorf(plan.CodeStaleHash, u.src, "changed while this request was being applied; nothing was written")
		}
		if err := u.replan(cur); err != nil {
			return err
		}
		for _, k := range u.ops {
			op := m.Ops[k]
			if op.Old != nil {
				op.Old = u.old
			}
			if op.New != nil {
				st := *op.New
				st.Hash, st.Size = u.newSum, u.newSize
				op.New = &st
			}
		}
		return nil
	})
}

func tokenIf(f *fileInfo) string {
	if !f.exists {
		return ""
	}
	return hash.Of(f.data).String()
}
