package engine

import (
	"errors"
	"strings"

	"github.com/txedit/txedit/apply"
	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/hash"
	"github.com/txedit/txedit/journal"
	"github.com/txedit/txedit/plan"
)

// Rebase instead of refuse (docs/design.md, "Concurrency"). An edit made
// against a version of a file that is no longer the current one — the
// session's read is older than the file, or a request that opts in to it
// gives an old content_hash — is applied to the current bytes when the
// version it was made against is known (the session's memory of it, or a
// before-image in the journal) and apply.Rebase finds that what the edit
// changes does not touch what changed since. The result then carries the
// change (who made it, a compact diff); a refusal carries it too, with the
// current text of the lines concerned. Under the lock the commit holds, a
// file that changed again is planned again (replanTask), so the merge that
// commits is always computed on the bytes it replaces.

// rebaseState is a task's rebase: the edits to apply (fo, without a
// content_hash the rebase answers), the version they were made against,
// and the outcome on the version they were last computed on.
type rebaseState struct {
	fo   *plan.FileOps
	base []byte
	cur  hash.Sum
	out  *apply.Outcome
}

// outcomeOn is the rebased edit's outcome on cur: computed already for
// those bytes, or again (the result of apply.Rebase, a stale_hash failure
// when it no longer applies).
func (rb *rebaseState) outcomeOn(cur []byte) *apply.Outcome {
	if hash.Of(cur) == rb.cur {
		o := *rb.out
		return &o
	}
	r := apply.Rebase(rb.fo, rb.base, cur)
	if r.Why != "" {
		return &apply.Outcome{Content: cur, Failed: []*plan.Error{plan.Errorf(plan.CodeStaleHash, rb.fo.Path, "the file changed while this request was being applied, and the edit cannot be rebased on it: %s", r.Why)}}
	}
	return r.Outcome
}

// Limits of what a delta shows.
const (
	deltaDiffMax = 1200 // bytes of a success's diff before the rest is named by lines
	// A refusal shows more: the agent retries from it.
	refusalDiffMax = 4000
	regionContext  = 1  // lines shown around a refused edit's region
	regionMax      = 80 // lines of a region at most
	historyMax     = 64 // transactions looked at to find who changed a file
)

// readCheck applies the session's read-before-write rule to task t, whose
// file's current bytes are cur, rebasing the edit where the rule would
// refuse it and the version read is known. It also rebases a request that
// opts in with an old whole-file content_hash. A nil error with t.rb set:
// produce applies the rebase.
func (o *op) readCheck(t *task, cur *fileInfo, c *caller) error {
	t.rb, t.res.Delta = nil, nil
	c.sawContent(t, cur)
	if fo := t.fo; fo.Rebase && fo.Hash != nil && !fo.Hash.IsRange() && cur.exists && !fo.Hash.Check(cur.data) {
		stripped := *fo
		stripped.Hash = nil
		return o.rebaseFrom(t, cur, c, &stripped, version{t.src, fo.Hash.Sum}, plan.Errorf(plan.CodeStaleHash, fo.Path,
			"file changed since it was read: content_hash %s no longer matches (now %s); read it again", fo.Hash, hash.Of(cur.data)))
	}
	err := c.checkRead(t, cur)
	if err == nil {
		if !cur.exists && c != nil && c.session != nil && t.fo.Final == nil && t.fo.Create == nil {
			return o.movedAway(t, c.session)
		}
		return nil
	}
	s := c.session
	pe := plan.As(err)
	switch pe.Code {
	case plan.CodeStaleHash:
		read, ok := s.seenSum(t.src)
		if !ok {
			return err
		}
		return o.rebaseFrom(t, cur, c, t.fo, version{t.src, read}, pe)
	case plan.CodeNotRead:
		// The session read the file under another name, and someone
		// moved it here through txedit since: its read counts.
		if v, ok := o.readUnderOldName(t.src, hash.Of(cur.data), s); ok {
			if v.sum == hash.Of(cur.data) {
				s.noteResolved(t.src, v.sum.String())
				return nil
			}
			return o.rebaseFrom(t, cur, c, t.fo, v, plan.Errorf(plan.CodeStaleHash, t.fo.Path,
				"the file changed since this session read it (as %s): read it again", v.path))
		}
	}
	return err
}

// version is one version of a file: its path then and its hash.
type version struct {
	path string
	sum  hash.Sum
}

// rebaseFrom rebases fo, made against version read, onto cur; refused
// is the refusal to give (with the change, where it is known) when it
// cannot.
func (o *op) rebaseFrom(t *task, cur *fileInfo, c *caller, fo *plan.FileOps, read version, refused *plan.Error) error {
	now := hash.Of(cur.data)
	h := o.history(t.src, now, func(p string, sum hash.Sum) bool { return p == read.path && sum == read.sum })
	base, ok := o.baseBytes(c, read, h)
	if !ok {
		if o.rebaseShown(t, cur, c, fo, read) {
			return nil
		}
		if e := o.refuseWriting(t, cur, c, refused); e != nil {
			return e
		}
		return refused // the version read is not known: refused as before
	}
	r := apply.Rebase(fo, base, cur.data)
	if r.Why == "" {
		d := o.delta(r, base, cur.data, read, now, h, deltaDiffMax)
		d.Rebased = true
		t.rb = &rebaseState{fo: fo, base: base, cur: now, out: r.Outcome}
		t.res.Delta = d
		return nil
	}
	if o.rebaseShown(t, cur, c, fo, read) {
		return nil
	}
	if e := o.refuseWriting(t, cur, c, refused); e != nil {
		return e
	}
	d := o.delta(r, base, cur.data, read, now, h, refusalDiffMax)
	d.Why = "the edit was not applied on top of it: " + r.Why
	whole := true
	if s, e := r.Region(cur.data, regionContext, regionMax); s > 0 {
		d.Region = regionOf(cur.data, s, e)
	} else if d2 := o.shownRefusal(t, cur, c, fo); d2 != nil {
		// The edit was made from the region a refusal showed (it does
		// not apply to the version read): the change since then, and
		// the region as it is now. It counts as a read of that region
		// only: the rest of the agent's view is still the version read.
		d, whole = d2, false
	}
	e := *refused
	e.Delta = d
	e.Current = now.String()
	t.res.Delta = d
	// A file found empty that the session read with content is most
	// likely a save in place half done: it never counts as read, or the
	// next edit would pass the check on the empty file (lastlook.go).
	if c != nil && c.session != nil && c.deltaShown && !emptiedDelta(d) {
		c.noteShown(t.src, cur.data, now, d, whole)
	}
	return &e
}

// shownRefusal is the delta of a refusal of fo computed from the version
// of which a refusal last showed the session a region, when fo applies
// to it: nil otherwise.
func (o *op) shownRefusal(t *task, cur *fileInfo, c *caller, fo *plan.FileOps) *plan.Delta {
	if c == nil || c.session == nil {
		return nil
	}
	sh, ok := c.session.shownOf(t.src)
	if !ok {
		return nil
	}
	base, ok := o.w.bases.get(c.session.id, shownKey(t.src), sh.sum)
	if !ok {
		return nil
	}
	r := apply.Rebase(fo, base, cur.data)
	s, e := r.Region(cur.data, regionContext, regionMax)
	if r.Why == "" || s == 0 {
		return nil
	}
	now := hash.Of(cur.data)
	shown := version{t.src, sh.sum}
	h := o.history(t.src, now, func(p string, sum hash.Sum) bool { return p == shown.path && sum == shown.sum })
	d := o.delta(r, base, cur.data, shown, now, h, refusalDiffMax)
	d.Why = "the edit was not applied on top of it: " + r.Why
	d.Region = regionOf(cur.data, s, e)
	return d
}

// refuseWriting is the refusal of t's edit when the bytes a refusal would
// show as the file's current content (cur) are a save in place caught
// half done (beingWritten): no change, no region, no hash of them, and
// they do not count as read; the tries of a Session.Apply try again
// (lastlook.go). nil: the file is settled.
func (o *op) refuseWriting(t *task, cur *fileInfo, c *caller, refused *plan.Error) *plan.Error {
	if !o.beingWritten(t.src, cur) {
		return nil
	}
	c.writing(t.src)
	return &plan.Error{Code: refused.Code, Path: refused.Path, Index: refused.Index, Command: refused.Command,
		Msg: "the file changed since this session read it, and is being written by another program at this moment (a save in place under way); nothing of it is shown: read it again once the save is done"}
}

// beingWritten reports whether cur, the bytes of rel a refusal is about
// to show as its current content, may be a save in place caught half
// done: another process has the file open for writing (its read lease
// is refused, or broken while it is looked at), or the file is no longer
// the version read (its size, mtime or change time moved since: written
// meanwhile). An empty file is told apart already (emptiedDelta); where
// there are no leases, a writer that holds the file open without
// writing between the read and this look is not seen.
func (o *op) beingWritten(rel string, cur *fileInfo) bool {
	if cur == nil || !cur.exists || cur.link || len(cur.data) == 0 {
		return false
	}
	l, err := o.fsy.ReadLease(rel)
	if errors.Is(err, fsys.ErrOpenForWriting) {
		return true
	}
	fi, serr := o.fsy.Lstat(rel)
	broken := false
	if l != nil {
		broken = l.Broken()
		l.Release()
	}
	return broken || serr != nil || !fsys.SameVersion(fsys.IdentityOf(fi), cur.ident)
}

// rebaseShown rebases fo from the version of which a refusal last showed
// the session a region (a change too large to show whole) when fo changes
// lines of that region only: the agent made the edit from what it was
// shown (docs/design.md, "Concurrency").
func (o *op) rebaseShown(t *task, cur *fileInfo, c *caller, fo *plan.FileOps, read version) bool {
	if c == nil || c.session == nil || read.path != t.src {
		return false
	}
	sh, ok := c.session.shownOf(t.src)
	if !ok || sh.sum == read.sum {
		return false
	}
	base, ok := o.w.bases.get(c.session.id, shownKey(t.src), sh.sum)
	if !ok {
		return false
	}
	r := apply.Rebase(fo, base, cur.data)
	if r.Why != "" || len(r.Edit) == 0 {
		return false
	}
	for _, e := range r.Edit {
		if e.Old0 < sh.start-1 || e.Old1 > sh.end {
			return false // the edit changes lines the agent was not shown
		}
	}
	now := hash.Of(cur.data)
	shown := version{t.src, sh.sum}
	h := o.history(t.src, now, func(p string, sum hash.Sum) bool { return p == shown.path && sum == shown.sum })
	d := o.delta(r, base, cur.data, shown, now, h, deltaDiffMax)
	d.Rebased = true
	t.rb = &rebaseState{fo: fo, base: base, cur: now, out: r.Outcome}
	t.res.Delta = d
	return true
}

// regionOf is lines s..e of data as a Region.
func regionOf(data []byte, s, e int) *plan.Region {
	tok, _ := hash.Lines(data, s, e)
	return &plan.Region{Start: s, End: e, Lines: apply.Lines(data, s, e), Token: tok.String()}
}

// delta describes what changed from base (version read) to cur (now).
func (o *op) delta(r *apply.Rebased, base, cur []byte, read version, now hash.Sum, h *fileHistory, limit int) *plan.Delta {
	d := &plan.Delta{Read: read.sum.String(), Current: now.String(), By: h.by, From: h.from}
	d.Diff, d.Reread = apply.CompactDiff(base, cur, r.Change, limit)
	return d
}

// fileHistory is what the journal says of how a file came from the
// version read to the current one.
type fileHistory struct {
	by []plan.Changer // oldest first
	// read is the version the walk stopped at (ok: it found one).
	read version
	ok   bool
	// from is the path the file was moved from, if it was.
	from string
	// found is, when the version read was a before-image of a
	// transaction on the way, where to read it.
	found *journal.Manifest
	op    int
}

// history walks the journal from the newest transaction back, following
// the file's versions from now (at rel) until stop says a version is the
// one read: each transaction whose op made the version looked for names
// its agent; a version no transaction made was made outside txedit, and
// the walk stops there (whether earlier transactions came after the
// version read is not known); a move follows the file to its old name.
// It looks at historyMax transactions at most; what it cannot account
// for is "outside txedit".
func (o *op) history(rel string, now hash.Sum, stop func(path string, sum hash.Sum) bool) *fileHistory {
	h := &fileHistory{op: -1}
	want, path := now, rel
	outside := func() {
		if len(h.by) == 0 || !h.by[len(h.by)-1].Outside {
			h.by = append(h.by, plan.Changer{Outside: true})
		}
	}
	h.ok = stop(path, want)
	recent, err := o.j.Recent()
	if err == nil && !h.ok {
		n := 0
		stopped := false
		for e := range recent {
			if h.ok || n == historyMax || stopped {
				break
			}
			n++
			if e.State == journal.StateRolledBack {
				continue
			}
			if e.Manifest == nil {
				break // what it did is not known
			}
			// A transaction still being committed counts where it made
			// the version looked for (its rename is done); otherwise it
			// has not touched the file yet.
			m := e.Manifest
			for i := len(m.Ops) - 1; i >= 0; i-- {
				op := m.Ops[i]
				if op.Path != path || op.New == nil {
					continue
				}
				if e.State != journal.StateCommitted && op.New.Hash != want {
					break
				}
				if op.New.Hash != want {
					// Someone outside txedit made the version looked for,
					// from this transaction's or a later one's: what came
					// before is not known to be after the version read,
					// so the walk names no one it cannot prove.
					outside()
					stopped = true
					break
				}
				h.by = append(h.by, plan.Changer{Agent: m.Agent, Transaction: m.ID})
				k := i
				if op.Old != nil {
					want = op.Old.Hash
				} else if src, d := movedFrom(m, op); d >= 0 {
					// Created here by a move, from the name it had.
					path, want, h.from, k = src, m.Ops[d].Old.Hash, src, d
				} else {
					h.found = nil
					break
				}
				if h.ok = stop(path, want); h.ok {
					h.found, h.op = m, k
				}
				break
			}
			if !h.ok && createdHere(m, path) {
				break // the file did not exist before this transaction
			}
		}
	}
	if !h.ok {
		outside()
	}
	h.read = version{path, want}
	for i, j := 0, len(h.by)-1; i < j; i, j = i+1, j-1 {
		h.by[i], h.by[j] = h.by[j], h.by[i]
	}
	return h
}

// createdHere reports whether m created path (from nothing: no move).
func createdHere(m *journal.Manifest, path string) bool {
	for _, op := range m.Ops {
		if op.Path == path && op.Old == nil && op.New != nil {
			if _, d := movedFrom(m, op); d < 0 {
				return true
			}
		}
	}
	return false
}

// movedFrom finds, for op creating a file by a move in m, the op deleting
// the file it was moved from (index -1: none).
func movedFrom(m *journal.Manifest, op *journal.Op) (string, int) {
	src, ok := strings.CutPrefix(op.Note, "moved from ")
	if !ok {
		return "", -1
	}
	for k, d := range m.Ops {
		if d.Path == src && d.Kind == journal.Delete && d.Old != nil {
			return src, k
		}
	}
	return "", -1
}

// baseBytes returns the bytes of the version read: kept by the session,
// or the before-image the history found, or one in the journal.
func (o *op) baseBytes(c *caller, read version, h *fileHistory) ([]byte, bool) {
	if c != nil && c.session != nil {
		if b, ok := o.w.bases.get(c.session.id, read.path, read.sum); ok {
			return b, true
		}
	}
	if h.found != nil {
		if b, err := o.j.Before(h.found, h.op); err == nil && hash.Of(b) == read.sum {
			return b, true
		}
	}
	recent, err := o.j.Recent()
	if err != nil {
		return nil, false
	}
	n := 0
	for e := range recent {
		if n++; n > historyMax {
			break
		}
		if e.Manifest == nil || e.State != journal.StateCommitted {
			continue
		}
		for i, op := range e.Manifest.Ops {
			if op.Path == read.path && op.Old != nil && op.Old.Hash == read.sum {
				if b, err := o.j.Before(e.Manifest, i); err == nil && hash.Of(b) == read.sum {
					return b, true
				}
			}
		}
	}
	return nil, false
}

// readUnderOldName reports whether the file rel (now hashing to now) came
// through txedit's moves from a file the session read under its old
// name, and that version.
func (o *op) readUnderOldName(rel string, now hash.Sum, s *Session) (version, bool) {
	h := o.history(rel, now, func(p string, sum hash.Sum) bool {
		if p == rel {
			return false
		}
		read, ok := s.seenSum(p)
		return ok && read == sum
	})
	return h.read, h.ok
}

// movedAway refuses an edit of a file the session read that txedit moved
// since, naming where it went.
func (o *op) movedAway(t *task, s *Session) error {
	if _, ok := s.seenSum(t.src); !ok {
		return nil
	}
	e, i := o.lastOp(t.src)
	if e == nil {
		return nil
	}
	op := e.Manifest.Ops[i]
	dst, ok := strings.CutPrefix(op.Note, "moved to ")
	if !ok || op.Kind != journal.Delete {
		return nil
	}
	by := e.Manifest.Agent
	if by == "" {
		by = "someone"
	}
	return plan.Errorf(plan.CodeFileNotFound, t.fo.Path, "was moved to %s by %s (transaction %s) since this session read it: edit %s (the read counts for it)", dst, by, e.ID, dst)
}
