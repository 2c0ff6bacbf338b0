package engine

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/txedit/txedit/apply"
	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/hash"
	"github.com/txedit/txedit/plan"
)

// The tries of one Session.Apply, and its last look (docs/design.md,
// "Concurrency"). A commit that an outside save interrupts is tried again,
// and so is an edit refused because the file was found empty (a save in
// place between its truncation and its write). Three rules hold:
//
//   - What a refusal counts as read (Session.noteShown) counts only for
//     the answer the agent is given: a try that is tried again shows
//     nothing, so its notes are dropped.
//   - A refusal never counts as read a file found empty that the session
//     read with content (rebaseFrom): it is most likely a save half done.
//     Before, it did, and the next try, meeting the file still empty,
//     passed the read check there and failed ("old_string not found")
//     with no change to show.
//   - When the last try meets a save too, the answer is a conflict that
//     still carries the change since the session's read and the current
//     text of the lines the edit concerns, so that the agent can retry
//     without reading the whole file again: from the file as it is after
//     the last try, or, when a save has just emptied it, as a try last saw
//     it with content. An empty file is shown as the file's content only
//     when every look found it empty.

// tryState is what the tries of one Session.Apply share.
type tryState struct {
	limit, file int64 // bounds of the bytes kept: all files, each file

	mu    sync.Mutex
	notes []pendingNote
	seen  map[string][]byte // by rel: the newest bytes with content a try read
	prev  map[string][]byte // by rel: the bytes seen held before (for writing)
	kept  int64             // the bytes of seen and prev
	// writing: the files this try found being written by another
	// program (refuseWriting); tried again as a file found empty is.
	writing map[string]bool
}

// writing records that the current try found rel being written (a save
// in place half done): what the try read of it is not remembered as its
// content (saw), and Session.Apply tries again. Outside the tries of a
// Session.Apply, nothing.
func (c *caller) writing(rel string) {
	if c == nil || c.tries == nil {
		return
	}
	ts := c.tries
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.writing == nil {
		ts.writing = map[string]bool{}
	}
	ts.writing[rel] = true
	// What the try read of it goes; what a try read before stays.
	ts.kept -= int64(len(ts.seen[rel]))
	if p := ts.prev[rel]; p != nil {
		ts.seen[rel] = p
		delete(ts.prev, rel)
	} else {
		delete(ts.seen, rel)
	}
}

// wasWriting reports whether the current try found rel being written
// ("": any file).
func (ts *tryState) wasWriting(rel string) bool {
	if ts == nil {
		return false
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if rel == "" {
		return len(ts.writing) > 0
	}
	return ts.writing[rel]
}

// pendingNote is a refusal's note of what it showed, counted once the
// answer it belongs to is given.
type pendingNote struct {
	rel  string
	note func()
}

func (ts *tryState) pend(rel string, note func()) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.notes = append(ts.notes, pendingNote{rel, note})
}

// flush counts the notes of the try whose answer is given, but those of
// the files in skip (the last look noted what it showed of them).
func (ts *tryState) flush(skip map[string]bool) {
	if ts == nil {
		return
	}
	ts.mu.Lock()
	notes := ts.notes
	ts.notes = nil
	ts.mu.Unlock()
	for _, n := range notes {
		if !skip[n.rel] {
			n.note()
		}
	}
}

// drop forgets the notes of a try that is tried again, and what it found
// being written.
func (ts *tryState) drop() {
	ts.mu.Lock()
	ts.notes = nil
	ts.writing = nil
	ts.mu.Unlock()
}

// saw remembers data, with content, as the newest bytes of rel a try read
// (within the bounds: the bytes are the file's as read, never written to).
func (ts *tryState) saw(rel string, data []byte) {
	n := int64(len(data))
	if n == 0 || n > ts.file {
		return
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	// The bytes seen held become prev (a try that finds the file being
	// written gives them back: writing), and prev's go.
	old := ts.seen[rel]
	kept := ts.kept + n
	if old != nil {
		kept -= int64(len(ts.prev[rel]))
	}
	if kept > ts.limit {
		return
	}
	if ts.seen == nil {
		ts.seen, ts.prev = map[string][]byte{}, map[string][]byte{}
	}
	if old != nil {
		ts.prev[rel] = old
	}
	ts.seen[rel], ts.kept = data, kept
}

// last is the newest bytes with content a try read of rel (nil: none).
func (ts *tryState) last(rel string) []byte {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.seen[rel]
}

// sawContent remembers, for the last look, the bytes with content of a
// file the session's rule applies to, as a try read them.
func (c *caller) sawContent(t *task, cur *fileInfo) {
	if c == nil || c.tries == nil || c.session == nil || cur == nil || !cur.exists || cur.link || !needsReadCheck(t) && !t.fo.Rebase {
		return
	}
	c.tries.saw(t.src, cur.data)
}

// noteShown is Session.noteShown for a refusal of this caller's: at once,
// or, within the tries of a Session.Apply, once its answer is given.
func (c *caller) noteShown(rel string, data []byte, now hash.Sum, d *plan.Delta, whole bool) {
	s := c.session
	if c.tries == nil {
		s.noteShown(rel, data, now, d, whole)
		return
	}
	c.tries.pend(rel, func() { s.noteShown(rel, data, now, d, whole) })
}

// lastLook answers a request whose every try met an outside save: res
// and err are the last try's answer, ce the conflict its commit met (nil:
// none; a file found empty then), n the tries made. Each file that the
// save stopped, and whose edit falls under the session's rule, is refused
// as a conflict carrying the change and the region (lastLook1); the
// rest of the answer stays the last try's.
func (s *Session) lastLook(ctx context.Context, req *plan.Request, res *plan.Result, err error, ce *fsys.ConflictError, tries *tryState, n int) (*plan.Result, error) {
	looked := map[string]bool{}
	defer func() { tries.flush(looked) }()
	p, perr := plan.Compile(req)
	if perr != nil || p.Pattern != nil || !s.check {
		return res, err
	}
	o := s.w.begin()
	defer o.end()
	o.charge = chargeOf(ctx)
	tasks := o.prepare(p)
	if len(tasks) != len(res.Files) {
		return res, err
	}
	c := &caller{agent: s.agent, session: s, deltaShown: req.DeltaShown}
	var refused *plan.Error
	for i, t := range tasks {
		f := res.Files[i]
		emptied, writing := emptiedDelta(f.Delta), tries.wasWriting(t.src)
		if t.fileErr != nil || f.Success || f.Path != t.fo.Path || !emptied && !writing && (ce == nil || ce.Path != t.src) {
			continue
		}
		last := "was found empty (a save in place, half done)"
		switch {
		case writing:
			last = "was being written by another program (a save in place, half done)"
		case !emptied:
			last, _, _ = strings.Cut(ce.Msg, ";")
		}
		e := o.lastLook1(t, c, tries, fmt.Sprintf("another program was saving the file at each of the %d tries to commit this edit (the last time, it %s); nothing was written", n, last))
		if e == nil {
			continue
		}
		looked[t.src] = true
		t.res, t.fileErr = f, e
		f.FailedEdits = nil
		summarize(t)
		if refused == nil {
			refused = e
		}
	}
	if refused != nil && len(res.Files) == 1 {
		return failResult(res, refused)
	}
	return res, err
}

// lastLook1 is the refusal of task t's edit after the last try (msg says
// what the tries met): a conflict whose delta is the change since the
// session's read and the lines the edit concerns, in the file as it is
// now, or, while it is empty (a save half done), as a try last read it
// with content. nil: nothing to show (the version read is not known, the
// file is gone, or it was empty at every look).
func (o *op) lastLook1(t *task, c *caller, tries *tryState, msg string) *plan.Error {
	// The version the edit was made against, as readCheck finds it: the
	// request's own content_hash when it opts in to a rebase, else the
	// session's read.
	fo := t.fo
	var read hash.Sum
	switch {
	case fo.Rebase && fo.Hash != nil && !fo.Hash.IsRange():
		stripped := *fo
		stripped.Hash = nil
		fo, read = &stripped, t.fo.Hash.Sum
	case needsReadCheck(t):
		sum, ok := c.session.seenSum(t.src)
		if !ok {
			return nil
		}
		read = sum
	default:
		return nil
	}
	if !apply.Rebaseable(fo) {
		return nil
	}
	var data []byte
	fresh, writing := false, false
	switch cur, err := o.readEntry(fo.Path, t.src, entryOps(fo)); {
	case err == nil && !cur.exists, err == nil && cur.link:
		return nil // gone, or a link now: nothing of the file to show
	case err == nil && o.beingWritten(t.src, cur):
		// Half written, the writer at it: not its content.
		data, writing = tries.last(t.src), true
	case err == nil && (len(cur.data) > 0 || read == hash.Of(nil)):
		data, fresh = nonNil(cur.data), true
	default: // empty (a save half done), or replaced as it was read
		data = tries.last(t.src)
	}
	if data == nil {
		return nil
	}
	why := "another program was saving the file at each try to commit it"
	switch {
	case writing:
		why += "; the file is being written at this moment (a save in place under way): the lines below are as a try last read it"
		msg += "; it is being written at this moment"
	case !fresh:
		why += "; the file is empty at this moment (a save half done): the lines below are as a try last read it"
		msg += "; it is empty at this moment"
	}
	read0 := version{t.src, read}
	d, whole := o.lookDelta(t, c, fo, data, read0, nil, why), true
	if d == nil || d.Region == nil {
		// The edit made from a region a refusal showed (rebase.go).
		if sh, ok := c.session.shownOf(t.src); ok && sh.sum != read {
			if base, ok := o.w.bases.get(c.session.id, shownKey(t.src), sh.sum); ok {
				if d2 := o.lookDelta(t, c, fo, data, version{t.src, sh.sum}, base, why); d2 != nil && d2.Region != nil {
					d, whole = d2, false
				}
			}
		}
	}
	if d == nil {
		return nil
	}
	now := hash.Of(data)
	e := plan.Errorf(plan.CodeConflict, t.fo.Path, "%s", msg)
	e.Delta, e.Current = d, now.String()
	if c.deltaShown {
		c.session.noteShown(t.src, data, now, d, whole)
	}
	return e
}

// lookDelta is the delta of a refusal of fo on cur, made against version
// v (whose bytes are base; nil: found as a rebase finds them), with the
// region the edit concerns; why is the refusal's reason when the edit
// would rebase. nil: v's bytes are not known.
func (o *op) lookDelta(t *task, c *caller, fo *plan.FileOps, cur []byte, v version, base []byte, why string) *plan.Delta {
	now := hash.Of(cur)
	h := o.history(t.src, now, func(p string, sum hash.Sum) bool { return p == v.path && sum == v.sum })
	if base == nil {
		if v.sum == now {
			base = cur
		} else if b, ok := o.baseBytes(c, v, h); ok {
			base = b
		} else {
			return nil
		}
	}
	r := apply.Rebase(fo, base, cur)
	d := o.delta(r, base, cur, v, now, h, refusalDiffMax)
	d.Why = why
	if r.Why != "" {
		d.Why = "the edit was not applied on top of it: " + r.Why
	}
	if s, e := r.Region(cur, regionContext, regionMax); s > 0 {
		d.Region = regionOf(cur, s, e)
	}
	return d
}
