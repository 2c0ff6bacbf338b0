package engine

import (
	"bytes"
	"strings"

	"github.com/txedit/txedit/apply"
	"github.com/txedit/txedit/hash"
	"github.com/txedit/txedit/journal"
	"github.com/txedit/txedit/plan"
)

// The journal proof of a retry (docs/patch-formats.md, "Already applied
// only with proof"): a patch whose change the file's content alone cannot
// prove — a deletion, a hunk whose context stands in several places — is
// already applied when the transaction in effect on the file (the newest
// committed one that touched it) produced its current state, and the same
// edits, applied to that transaction's before-image, give exactly that
// state. That is a true retry of the same patch; anything else stays the
// failure the patch got.

// retryCodes are the failures a journal proof may turn into
// already_applied: the patch's lines, or the file, were not where it said.
var retryCodes = map[plan.Code]bool{plan.CodeNotFound: true, plan.CodeConflict: true, plan.CodeAmbiguous: true, plan.CodeFileNotFound: true,
	plan.CodeLineOutOfRange: true}

// retryable reports whether t's failure is one a journal proof may answer:
// a file whose edits are patches, str_replace or line edits (a request
// sent again: the answer says so, naming the transaction), or a
// patch's delete or move, every failure of a retryCodes code. Appends never
// fail, and an append sent again is a second append.
func retryable(t *task) bool {
	f := t.fo
	if t.sed != nil || f.Create != nil || f.Hash != nil || len(f.Appends) > 0 || len(f.Invalid) > 0 ||
		!f.ProveRetries && len(f.StrReplaces)+len(f.LineEdits) > 0 {
		return false
	}
	switch {
	case f.Final == nil:
		if len(f.Patches) == 0 && (!f.ProveRetries || len(f.StrReplaces)+len(f.LineEdits) == 0) {
			return false
		}
	case f.Final.Command == plan.Delete:
		if !f.Final.MissingOK {
			return false
		}
	case f.Final.Command != plan.Move:
		return false
	}
	if t.out == nil || t.out.OK() {
		return false
	}
	for _, e := range t.out.Failed {
		if !retryCodes[e.Code] {
			return false
		}
	}
	return true
}

// journalRetry reports whether the journal proves t's edits already in
// effect on the file as read (cur), and if so the outcome to report and
// the transaction that made them. Moves are proven by movedByJournal.
func (o *op) journalRetry(t *task, cur *fileInfo) (*apply.Outcome, string, bool) {
	out, e, ok := o.journalRetry1(t, cur)
	if !ok {
		return nil, "", false
	}
	return out, e.ID, true
}

func (o *op) journalRetry1(t *task, cur *fileInfo) (*apply.Outcome, *journal.Entry, bool) {
	if !retryable(t) {
		return nil, nil, false
	}
	e, i := o.lastOp(t.src)
	if e == nil {
		return nil, nil, false
	}
	op := e.Manifest.Ops[i]
	switch f := t.fo.Final; {
	case f == nil:
		if !cur.exists || op.New == nil || op.New.Hash != hash.Of(cur.data) {
			return nil, nil, false
		}
		if out, ok := o.replay(t.fo, e.Manifest, i); ok && bytes.Equal(out.Content, cur.data) {
			return provenRetry(t.fo, cur.data, out), e, true
		}
	case f.Command == plan.Delete:
		if cur.exists || op.Kind != journal.Delete || op.New != nil || strings.HasPrefix(op.Note, "moved to ") {
			return nil, nil, false
		}
		// A diff's deletion empties the file first: its hunks must have.
		if out, ok := o.replay(t.fo, e.Manifest, i); ok && (len(t.fo.Patches) == 0 || len(out.Content) == 0) {
			return &apply.Outcome{AlreadyApplied: true}, e, true
		}
	}
	return nil, nil, false
}

// movedByJournal reports whether the journal proves a move already made:
// the source gone and the destination as read (dst) both as the transaction
// in effect on them left them, which moved the source there, and the
// move's patches applied to the source's before-image give dst's bytes.
func (o *op) movedByJournal(t *task, dst *fileInfo) bool {
	if dst == nil || !dst.exists {
		return false
	}
	e, i := o.lastOp(t.src)
	if e == nil || e.Manifest.Ops[i].Kind != journal.Delete {
		return false
	}
	de, di := o.lastOp(t.dst)
	if de == nil || de.ID != e.ID || e.Manifest.Ops[di].New == nil || e.Manifest.Ops[di].New.Hash != hash.Of(dst.data) {
		return false
	}
	out, ok := o.replay(t.fo, e.Manifest, i)
	return ok && bytes.Equal(out.Content, dst.data)
}

// replay applies fo's edits (without its delete or move) to the
// before-image of op i of m: the outcome, and whether they applied and
// changed something (already applied there proves nothing). Without
// patches the outcome's Content is the before-image.
func (o *op) replay(fo *plan.FileOps, m *journal.Manifest, i int) (*apply.Outcome, bool) {
	op := m.Ops[i]
	var before []byte
	if op.Old != nil {
		b, err := o.j.Before(m, i)
		if err != nil {
			return nil, false
		}
		before = b
	}
	rest := *fo
	rest.Final = nil
	if !rest.TextEdits() {
		return &apply.Outcome{Content: before}, op.Old != nil
	}
	out := apply.Edit(&rest, before, op.Old != nil)
	if !out.OK() || out.AlreadyApplied {
		return nil, false
	}
	return out, true
}

// lastOp finds the newest committed transaction that touched path, and
// the index of its op on it, reading the journal newest first only as far
// as that. A manifest that cannot be read, or a transaction still pending,
// hides what came after: no answer then.
func (o *op) lastOp(path string) (*journal.Entry, int) {
	recent, err := o.j.Recent()
	if err != nil {
		return nil, -1
	}
	for e := range recent {
		if e.State == journal.StateRolledBack {
			continue
		}
		if e.Manifest == nil || e.State != journal.StateCommitted {
			return nil, -1
		}
		for i := len(e.Manifest.Ops) - 1; i >= 0; i-- {
			if e.Manifest.Ops[i].Path == path {
				return e, i
			}
		}
	}
	return nil, -1
}

// provenRetry is the outcome of a patch retry the journal proved: nothing
// changes; each hunk is reported already applied where its new lines stand
// (its place in the first run, moved by the hunks placed before it).
func provenRetry(fo *plan.FileOps, cur []byte, first *apply.Outcome) *apply.Outcome {
	out := &apply.Outcome{AlreadyApplied: true, Content: cur, Applied: len(fo.Patches)}
	var hunks []plan.Hunk
	blocks := false
	for _, op := range fo.Patches {
		hunks = append(hunks, op.Hunks...)
		blocks = blocks || op.Blocks
	}
	for _, r := range first.Hunks {
		line := r.Line
		if !blocks {
			for _, o := range first.Hunks {
				if o.Line < r.Line && o.Hunk < len(hunks) {
					line += len(hunks[o.Hunk].New) - len(hunks[o.Hunk].Old)
				}
			}
		}
		out.Hunks = append(out.Hunks, plan.HunkReport{Hunk: r.Hunk, Line: line, Rung: r.Rung, AlreadyApplied: true})
	}
	return out
}
