package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/txedit/txedit/apply"
	"github.com/txedit/txedit/hash"
	"github.com/txedit/txedit/internal/par"
	"github.com/txedit/txedit/journal"
	"github.com/txedit/txedit/plan"
)

// UndoOptions select what Undo reverts.
type UndoOptions struct {
	// ID is a transaction id or a unique prefix of one. Empty means the
	// newest committed transaction that is in effect and is not itself an
	// undo, so repeated undos walk back through history. Undoing an undo
	// transaction is redo.
	ID string
	// Force undoes files that changed since the transaction; their
	// current bytes are journaled, so the forced undo can be undone too.
	Force  bool
	DryRun bool
	// Redo, with no ID, picks the newest undo transaction still in
	// effect, so it re-applies what the last undo reverted.
	Redo bool
	// Agent, with no ID, picks that agent's newest transaction still in
	// effect; Undo then refuses with conflict if a later transaction of
	// another agent changed one of its files (unless Force).
	Agent string
}

// Undo reverts a committed transaction as a new transaction of its own:
// modified files get their old bytes back, created files are removed (and
// the directories created for them, if empty), deleted files come back with
// their mode, moved files move back. If a file changed since, Undo refuses
// with conflict and names every such file, unless Force is set.
func (w *Workspace) Undo(ctx context.Context, uo UndoOptions) (*plan.Result, error) {
	o := w.begin()
	defer o.end()
	return o.undo(ctx, uo, &caller{agent: w.opts.Agent})
}

func (o *op) undo(ctx context.Context, uo UndoOptions, c *caller) (*plan.Result, error) {
	res := &plan.Result{DryRun: uo.DryRun, Files: []*plan.FileResult{}}
	if !uo.DryRun {
		if err := o.w.readOnly("undo"); err != nil {
			return failResult(res, err)
		}
	}
	tm, err := o.undoTarget(uo)
	if err != nil {
		return failResult(res, err)
	}
	m := undoManifest(tm, uo, c)
	o.undoDirs(tm, m)
	// Each file is checked, and (dry run) its diff rendered, in parallel,
	// holding only its own bytes and before-image while it is looked at:
	// the commit reads the before-images from the pack again as it stages
	// them, and a streamed result hands each file over as soon as it is
	// final (results.go). A 50,000-file transaction is undone in bounded
	// memory (undo held every before-image, 440-860 MiB, before it was
	// streamed).
	st := streamOf(ctx)
	pack := o.j.OpenPack(tm)
	defer pack.Close()
	slots, err := o.undoFiles(ctx, tm, uo, pack, res, st)
	if err != nil {
		return failResult(res, err)
	}
	units, conflicts := undoUnits(slots, m, res, uo, st)
	if len(conflicts) > 0 {
		if !uo.DryRun {
			o.emitAll(st, res, nil)
		}
		return failResult(res, plan.Errorf(plan.CodeConflict, "", "cannot undo %s: %d file(s) changed since: %s (use --force to undo anyway; their current bytes are journaled)",
			tm.ID, len(conflicts), strings.Join(conflicts, ", ")))
	}
	res.FilesModified = len(units)
	if uo.DryRun {
		res.Success = true
		return res, nil
	}
	if len(units) == 0 && len(m.Rmdirs) == 0 && len(m.MakeDirs) == 0 {
		res.Success = true
		o.emitAll(st, res, nil)
		return res, nil
	}
	warning, err := o.commitWith(ctx, nil, m, units, st == nil)
	if err != nil {
		for _, f := range res.Files {
			f.ContentHash, f.Diff = "", ""
		}
		o.emitAll(st, res, nil)
		return failResult(res, err)
	}
	if warning != "" {
		res.Warnings = append(res.Warnings, warning)
		noteDurability(res, warning)
	}
	res.Success = true
	res.TransactionID, res.Summary = m.ID, m.Summary
	o.emitAll(st, res, units)
	return res, nil
}

// undoTarget finds the manifest of the transaction to undo and checks
// that it may be: no later transaction of another agent in the way (an
// undo by agent, unless forced), the policy allowing every path it
// touched, every file it names known exactly.
func (o *op) undoTarget(uo UndoOptions) (*journal.Manifest, error) {
	if err := o.w.trustedJournal(); err != nil {
		return nil, err
	}
	entries, err := o.undoCandidates(uo)
	if err != nil {
		return nil, err
	}
	target, err := pickUndo(entries, o.j, uo)
	if err != nil {
		return nil, err
	}
	if uo.Agent != "" && !uo.Force {
		if err := laterByOthers(entries, target); err != nil {
			return nil, err
		}
	}
	tm := target.Manifest
	if err := o.w.undoAllowed(tm); err != nil {
		return nil, err
	}
	if in := tm.Inexact(); len(in) > 0 {
		// Even with force: which file the journal means cannot be known.
		return nil, plan.Errorf(plan.CodeConflict, "", "cannot undo %s: it was recorded by an older txedit that wrote names that are not UTF-8 as U+FFFD, so %d of its files cannot be identified exactly (%s); undo it by hand (txedit show %s)",
			tm.ID, len(in), strings.Join(in, ", "), tm.ID)
	}
	return tm, nil
}

// undoManifest begins the manifest of the undo (or redo) of tm: the
// directories tm made are removed, and those it removed come back with
// the mode and owner it recorded.
func undoManifest(tm *journal.Manifest, uo UndoOptions, c *caller) *journal.Manifest {
	m := &journal.Manifest{Command: "undo", Undoes: tm.ID, Forced: uo.Force, Agent: c.agentName(""), Session: c.sessionID(),
		Dirs: append([]journal.DirState(nil), tm.Dirs...)}
	verb := "undo"
	if tm.Undoes != "" {
		verb = "redo"
	}
	m.Summary = fmt.Sprintf("%s %s: %s", verb, tm.ID, tm.Summary)
	for i := len(tm.Mkdirs) - 1; i >= 0; i-- {
		m.Rmdirs = append(m.Rmdirs, tm.Mkdirs[i])
	}
	return m
}

// undoFiles checks every file of tm against what it is now, in parallel
// (undoFile), newest op first, each with its result in res.
func (o *op) undoFiles(ctx context.Context, tm *journal.Manifest, uo UndoOptions, pack *journal.Pack, res *plan.Result, st *stream) ([]undoSlot, error) {
	n := len(tm.Ops)
	slots := make([]undoSlot, n)
	for k := range slots {
		slots[k].fr = &plan.FileResult{Path: tm.Ops[n-1-k].Path}
		res.Files = append(res.Files, slots[k].fr)
	}
	var em *emitter
	if uo.DryRun && st != nil {
		em = newEmitter(st, res.Files, 8*o.w.opts.Workers)
	}
	err := par.Do(ctx, n, o.w.opts.Workers, func(k int) error {
		if em != nil {
			em.wait(k)
			defer em.finish(k)
		}
		return o.undoFile(&slots[k], tm, n-1-k, pack, uo)
	})
	return slots, err
}

// undoUnits adds the ops of the files that change to m and returns their
// units, and the files that changed since tm (conflicts); it gives res
// the warnings and (a dry run, not streamed) the diff.
func undoUnits(slots []undoSlot, m *journal.Manifest, res *plan.Result, uo UndoOptions, st *stream) (units []*unit, conflicts []string) {
	var diff strings.Builder
	for k := range slots {
		sl := &slots[k]
		if sl.conflict != "" {
			conflicts = append(conflicts, sl.conflict)
		}
		if sl.warning != "" {
			res.Warnings = append(res.Warnings, sl.warning)
		}
		if sl.u == nil {
			continue
		}
		sl.u.ops = make([]int, len(sl.ops))
		for j, o := range sl.ops {
			sl.u.ops[j] = len(m.Ops)
			m.Ops = append(m.Ops, o)
		}
		units = append(units, sl.u)
		if uo.DryRun && st == nil {
			diff.WriteString(sl.fr.Preview)
		}
	}
	if uo.DryRun && len(conflicts) == 0 {
		res.Diff = diff.String()
	}
	return units, conflicts
}

// undoSlot is one file of an undo: its result and, if it changes, its
// unit and ops.
type undoSlot struct {
	fr       *plan.FileResult
	u        *unit
	ops      []*journal.Op
	conflict string
	warning  string
}

// undoFile checks op i of the undone transaction tm against the file as it
// is now and fills sl: nothing to do, a conflict, or the unit that reverts
// it (whose new bytes are read from the pack when they are staged). A dry
// run renders the file's diff into its result.
func (o *op) undoFile(sl *undoSlot, tm *journal.Manifest, i int, pack *journal.Pack, uo UndoOptions) error {
	op, fr := tm.Ops[i], sl.fr
	cur, err := o.readEntry(op.Path, op.Path, op.Old.IsLink() || op.New.IsLink())
	if err != nil {
		fr.Code, fr.Error = plan.CodeOf(err), err.Error()
		sl.conflict = op.Path + " (" + err.Error() + ")"
		return nil
	}
	if sameState(cur, op.Old) {
		fr.Success = true // already as the undo would leave it
		return nil
	}
	if !sameState(cur, op.New) && !uo.Force {
		fr.Code, fr.Error = plan.CodeConflict, fmt.Sprintf("conflict: %s: changed since transaction %s", op.Path, tm.ID)
		sl.conflict = op.Path
		return nil
	}
	var before []byte
	if op.Old != nil {
		if before, err = pack.Before(i); err != nil {
			e := plan.Errorf(plan.CodeIOError, op.Path, "before-image unreadable: %v", err)
			e.Err = err
			return e
		}
	}
	u, ops := undoUnit(op, cur, func() ([]byte, error) { return pack.Before(i) })
	if n := ops[0].New; n != nil && op.Old != nil && n.Mode != op.Old.Mode {
		sl.warning = fmt.Sprintf("%s comes back as %v, not %v: undo never sets setuid, setgid or sticky on a file that does not have them", op.Path, n.Mode, op.Old.Mode)
	}
	sl.u, sl.ops = u, ops
	fr.Success = true
	fr.EditsApplied = 1
	wm := true
	fr.WouldModify = &wm
	if op.Old != nil {
		fr.ContentHash = op.Old.Hash.String()
	}
	switch {
	case op.Old == nil:
		fr.Status = "deleted"
	case !cur.exists:
		fr.Status = "created"
	default:
		fr.Status = "modified"
	}
	if uo.DryRun {
		d, st := u.render(cur.data, before)
		fr.LinesAdded, fr.LinesRemoved = st.Added, st.Removed
		fr.Preview = d
	} else {
		u.res = fr // the commit renders the diff as it stages
	}
	return nil
}

// undoAllowed puts an undo (or redo) through the policy every write
// passes: a transaction that touched a path the options now deny, for
// reading or writing, is not undone, nor previewed (its diff would show
// a file that may not be read). Undo is all or nothing, so one such path
// refuses it whole.
func (w *Workspace) undoAllowed(tm *journal.Manifest) error {
	var denied, git []string
	for _, op := range tm.Ops {
		if journal.UnderGit(op.Path) {
			git = append(git, op.Path)
		}
		if err := w.checkPolicy(op.Path, op.Path, true); err != nil {
			denied = append(denied, err.Error())
		}
	}
	if len(git) > 0 {
		// Undo and redo never write git's own files, even where writes
		// there are allowed: a hook or a config is code git runs, and an
		// undo puts back what a journal says (docs/design.md, "Threat
		// model").
		return plan.Errorf(plan.CodeDenied, git[0], "cannot undo %s: it changed %d file(s) under .git (%s), which undo and redo never write; restore them with git",
			tm.ID, len(git), strings.Join(git, ", "))
	}
	for _, d := range append(append([]string{}, tm.Mkdirs...), tm.Rmdirs...) {
		if err := w.checkPolicy(d, d, true); err != nil {
			denied = append(denied, err.Error())
		}
	}
	if len(denied) == 0 {
		return nil
	}
	return plan.Errorf(plan.CodeDenied, "", "cannot undo %s: it touched %d path(s) this workspace's policy denies: %s",
		tm.ID, len(denied), strings.Join(denied, "; "))
}

func sameState(cur *fileInfo, st *journal.State) bool {
	if st == nil {
		return !cur.exists
	}
	return cur.exists && cur.link == st.IsLink() && int64(len(cur.data)) == st.Size && hash.Of(cur.data) == st.Hash
}

// undoUnit builds the unit restoring op's old state over cur; before reads
// op's before-image (from the pack) when the unit is staged. The unit
// keeps none of cur's bytes: staging reads the file again under the lock
// and checks it is still what was looked at.
func undoUnit(op *journal.Op, cur *fileInfo, before func() ([]byte, error)) (*unit, []*journal.Op) {
	old := stateOf(cur)
	u := &unit{src: op.Path, old: old, load: before, link: op.Old.IsLink() || op.New.IsLink(),
		render: func(o, n []byte) (string, apply.Stat) {
			c := apply.Change{OldPath: op.Path, NewPath: op.Path, Old: o, New: n}
			if old == nil {
				c.OldPath = ""
			} else {
				c.OldMode = old.Mode
			}
			if op.Old == nil {
				c.NewPath, c.New = "", nil
			} else {
				c.NewMode = op.Old.Mode
			}
			return apply.Render(c)
		}}
	switch {
	case op.Old == nil:
		u.newSum, u.load = hash.Of(cur.data), nil
		return u, []*journal.Op{{Path: op.Path, Kind: journal.Delete, Old: old}}
	case old == nil:
		u.newSum = op.Old.Hash
		return u, []*journal.Op{{Path: op.Path, Kind: journal.Create, New: restoredState(op.Old, 0)}}
	default:
		u.newSum = op.Old.Hash
		return u, []*journal.Op{{Path: op.Path, Kind: journal.Modify, Old: old, New: restoredState(op.Old, cur.mode)}}
	}
}

// specialBits are the mode bits undo never adds to a file.
const specialBits = fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky

// restoredState is the state undo gives a file back: the recorded one,
// but setuid, setgid and sticky only where the file it replaces (mode
// cur; 0 when there is none) has them still. Undo never makes a file
// setuid that is not (docs/design.md, "Threat model"): a deleted setuid
// file comes back without the bit, and the result says so.
func restoredState(st *journal.State, cur fs.FileMode) *journal.State {
	if st.Mode&specialBits&^cur == 0 {
		return st
	}
	c := *st
	c.Mode &^= specialBits &^ cur
	return &c
}

// undoCandidates reads the journal newest first down to the transaction
// undo would pick (see pickUndo), and returns what it read, oldest first:
// everything pickUndo and laterByOthers look at is that transaction or
// newer, so an undo reads a few manifests however many are retained.
func (o *op) undoCandidates(uo UndoOptions) ([]*journal.Entry, error) {
	full := ""
	if uo.ID != "" {
		var err error
		if full, err = o.j.Resolve(uo.ID); err != nil {
			return nil, nil // pickUndo says why
		}
	}
	if uo.Redo && full == "" {
		// Down to the newest undo in effect that is not itself a redo:
		// which it is shows only once what it undid is read (redoKinds).
		seen := map[string]*journal.Entry{}
		var cands []*journal.Entry
		return recentDownTo(o.j, func(e *journal.Entry, undone map[string]string) bool {
			seen[e.ID] = e
			if e.State == journal.StateCommitted && e.Manifest == nil {
				return true // pickUndo refuses it
			}
			if undoable(e, undone, uo, nil) {
				cands = append(cands, e)
			}
			for len(cands) > 0 {
				k, ok := txnKindOf(cands[0], seen)
				if !ok {
					return false
				}
				if k == kindUndo {
					return true
				}
				cands = cands[1:]
			}
			return false
		})
	}
	return recentDownTo(o.j, func(e *journal.Entry, undone map[string]string) bool {
		if full != "" {
			return e.ID == full
		}
		return e.State == journal.StateCommitted && (e.Manifest == nil && uo.Agent == "" || undoable(e, undone, uo, nil))
	})
}

// undoable reports whether undo without an id would pick e. For a redo,
// kinds (when known) says which undo transactions are redos themselves,
// which redo skips.
func undoable(e *journal.Entry, undone map[string]string, uo UndoOptions, kinds map[string]txnKind) bool {
	ok := e.State == journal.StateCommitted && e.Manifest != nil && (e.Manifest.Undoes != "") == uo.Redo && undone[e.ID] == "" &&
		(uo.Agent == "" || e.Manifest.Agent == uo.Agent)
	if ok && uo.Redo && kinds != nil {
		ok = kinds[e.ID] == kindUndo
	}
	return ok
}

// txnKind is what a transaction is to undo and redo, as to users of an
// editor: a change, the undo of one, or the redo of an undo. The undo of
// a redo is an undo again (it takes the change back once more).
type txnKind int

const (
	kindChange txnKind = iota
	kindUndo
	kindRedo
)

// txnKindOf is e's kind, found by following what it undid, and what that
// undid, down to a change among seen: an odd number of steps is an undo,
// an even one a redo. ok is false while the chain reaches a transaction
// not read yet.
func txnKindOf(e *journal.Entry, seen map[string]*journal.Entry) (txnKind, bool) {
	hops := 0
	for cur := e; ; hops++ {
		if cur.Manifest == nil {
			return kindChange, false
		}
		t := cur.Manifest.Undoes
		if t == "" {
			break
		}
		next := seen[t]
		if next == nil || t >= cur.ID {
			return kindChange, false
		}
		cur = next
	}
	switch {
	case hops == 0:
		return kindChange, true
	case hops%2 == 1:
		return kindUndo, true
	}
	return kindRedo, true
}

// redoKinds classifies the undo transactions of entries (oldest first,
// as read): an undo whose chain leads to a transaction retention removed
// is taken by what its summary says (undoManifest names a redo so).
func redoKinds(entries []*journal.Entry) map[string]txnKind {
	seen := make(map[string]*journal.Entry, len(entries))
	for _, e := range entries {
		seen[e.ID] = e
	}
	kinds := map[string]txnKind{}
	for _, e := range entries {
		if e.Manifest == nil || e.Manifest.Undoes == "" {
			continue
		}
		k, ok := txnKindOf(e, seen)
		if !ok {
			k = kindUndo
			if strings.HasPrefix(e.Manifest.Summary, "redo ") {
				k = kindRedo
			}
		}
		kinds[e.ID] = k
	}
	return kinds
}

// recentDownTo walks the journal newest first, reading each manifest as it
// is reached, until stop says the entry reached is the last one needed
// (stop sees who undid each newer entry). It returns the entries read,
// oldest first. Nothing older is opened.
func recentDownTo(j *journal.Journal, stop func(e *journal.Entry, undone map[string]string) bool) ([]*journal.Entry, error) {
	recent, err := j.Recent()
	if err != nil {
		return nil, wrapJournalErr(err)
	}
	undone := map[string]string{}
	var seen []*journal.Entry
	for e := range recent {
		seen = append(seen, e)
		if stop(e, undone) {
			break
		}
		noteUndo(undone, e)
	}
	slices.Reverse(seen)
	return seen, nil
}

// pickUndo finds the transaction Undo should revert.
func pickUndo(entries []*journal.Entry, j *journal.Journal, uo UndoOptions) (*journal.Entry, error) {
	id, redo := uo.ID, uo.Redo
	byID := map[string]*journal.Entry{}
	for _, e := range entries {
		byID[e.ID] = e
	}
	undoneBy := undoneBy(entries)
	if id != "" {
		full, err := j.Resolve(id)
		if err != nil {
			if h := j.Horizon(); h != "" && id <= h {
				return nil, plan.Wrapf(resolveCode(err), "", err, "%v: the journal's retention removed it (every transaction up to %s is gone)", err, h)
			}
			return nil, plan.Wrapf(resolveCode(err), "", err, "%v (see txedit log; gc may have removed it)", err)
		}
		e := byID[full]
		switch {
		case e == nil:
			return nil, plan.Errorf(plan.CodeFileNotFound, "", "no such transaction %s", full)
		case e.Manifest == nil:
			return nil, refusedTxn(e)
		case e.State != journal.StateCommitted:
			return nil, plan.Errorf(plan.CodeConflict, "", "transaction %s is %s, not committed: there is nothing to undo", full, e.State)
		case undoneBy[full] != "":
			return nil, plan.Errorf(plan.CodeConflict, "", "transaction %s was already undone by %s (undo %s to redo it)", full, undoneBy[full], undoneBy[full])
		}
		return e, nil
	}
	var kinds map[string]txnKind
	if redo {
		kinds = redoKinds(entries)
	}
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		if e.State == journal.StateCommitted && e.Manifest == nil && uo.Agent == "" {
			// Whether it is the one to undo cannot be known: undoing an
			// older one instead would revert what the user did not mean.
			return nil, refusedTxn(e)
		}
		if undoable(e, undoneBy, uo, kinds) {
			return e, nil
		}
	}
	gone := ""
	if h := j.Horizon(); h != "" {
		gone = fmt.Sprintf(" (the journal's retention removed every transaction up to %s: older ones cannot be undone)", h)
	}
	if uo.Agent != "" {
		return nil, plan.Errorf(plan.CodeFileNotFound, "", "nothing to undo: agent %q has no transaction in effect%s", uo.Agent, gone)
	}
	if redo {
		return nil, plan.Errorf(plan.CodeFileNotFound, "", "nothing to redo: no undo is in effect")
	}
	return nil, plan.Errorf(plan.CodeFileNotFound, "", "nothing to undo: no committed transaction is in effect%s", gone)
}

// resolveCode is the code of a failure to resolve a transaction id: one
// that matches nothing is file_not_found, an ambiguous prefix an
// invalid_request, and a journal that could not be listed keeps its own
// (io_error) instead of passing for a missing transaction.
func resolveCode(err error) plan.Code {
	switch {
	case errors.Is(err, journal.ErrUnknownTxn):
		return plan.CodeFileNotFound
	case errors.Is(err, journal.ErrAmbiguousTxn):
		return plan.CodeInvalidRequest
	}
	return plan.CodeOf(err)
}

// refusedTxn is the error of undoing a transaction whose manifest could
// not be read or verified: a journal record txedit's own commit did not
// write is never acted on (docs/design.md, "Threat model").
func refusedTxn(e *journal.Entry) error {
	if errors.Is(e.Err, journal.ErrUntrusted) {
		return plan.Wrapf(plan.CodeDenied, "", e.Err, "transaction %s is refused: %v; your txedit did not write it, so nothing it says is done (remove .txedit/txns/%s* by hand if it is not yours)", e.ID, e.Err, e.ID)
	}
	return plan.Wrapf(plan.CodeIOError, "", e.Err, "transaction %s is unreadable: %v", e.ID, e.Err)
}

// laterByOthers refuses to undo target when a later transaction still in
// effect, of another agent, changed one of target's files: undoing would
// take back someone else's work along with the agent's.
func laterByOthers(entries []*journal.Entry, target *journal.Entry) error {
	paths := map[string]bool{}
	for _, op := range target.Manifest.Ops {
		paths[op.Path] = true
	}
	undone := undoneBy(entries)
	var clash []string
	for _, e := range entries {
		// Transactions undone since, and undos of transactions after
		// target (they took their changes back), do not count.
		if e.ID <= target.ID || e.State != journal.StateCommitted || e.Manifest == nil || undone[e.ID] != "" ||
			e.Manifest.Agent == target.Manifest.Agent || e.Manifest.Undoes >= target.ID {
			continue
		}
		for _, op := range e.Manifest.Ops {
			if paths[op.Path] {
				who := e.Manifest.Agent
				if who == "" {
					who = "an unnamed agent"
				}
				clash = append(clash, fmt.Sprintf("%s (%s, by %s)", op.Path, e.ID, who))
				break
			}
		}
	}
	if len(clash) > 0 {
		return plan.Errorf(plan.CodeConflict, "", "cannot undo %s of %s: later transactions of other agents changed its files: %s (use force to undo anyway)",
			target.ID, target.Manifest.Agent, strings.Join(clash, ", "))
	}
	return nil
}

// undoneBy maps each transaction to the undo transaction currently in
// effect against it. An undo that was itself undone (redo) no longer counts.
func undoneBy(entries []*journal.Entry) map[string]string {
	out := map[string]string{}
	// Newest first, so a redo is seen before the undo it reverts.
	for i := len(entries) - 1; i >= 0; i-- {
		noteUndo(out, entries[i])
	}
	return out
}

// noteUndo records in undone what e, seen after every newer transaction,
// undid.
func noteUndo(undone map[string]string, e *journal.Entry) {
	if e.State != journal.StateCommitted || e.Manifest == nil || e.Manifest.Undoes == "" {
		return
	}
	if undone[e.ID] != "" {
		return // this undo was undone
	}
	if _, taken := undone[e.Manifest.Undoes]; !taken {
		undone[e.Manifest.Undoes] = e.ID
	}
}

// TxnInfo is one line of the transaction log.
type TxnInfo struct {
	ID       string    `json:"id"`
	Time     time.Time `json:"time"`
	State    string    `json:"state"` // committed, undone, rolled_back, pending, untrusted
	Agent    string    `json:"agent,omitempty"`
	Session  string    `json:"session,omitempty"`
	Command  string    `json:"command,omitempty"`
	Summary  string    `json:"summary,omitempty"`
	Undoes   string    `json:"undoes,omitempty"`
	UndoneBy string    `json:"undone_by,omitempty"`
	Files    []TxnFile `json:"files"`
	Error    string    `json:"error,omitempty"`
}

// TxnFile is one file of a logged transaction.
type TxnFile struct {
	Path    string `json:"path"`
	Kind    string `json:"kind"` // modify, create, delete
	OldHash string `json:"old_hash,omitempty"`
	NewHash string `json:"new_hash,omitempty"`
	Note    string `json:"note,omitempty"`
}

// LogOptions select what Log lists.
type LogOptions struct {
	Limit int    // at most this many (0: all)
	Agent string // only this agent's transactions
}

// Log lists the journal's transactions, newest first.
func (w *Workspace) Log(ctx context.Context, o LogOptions) ([]*TxnInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := w.readableJournal(); err != nil {
		return nil, err
	}
	n := 0
	entries, err := recentDownTo(w.j, func(e *journal.Entry, _ map[string]string) bool {
		if o.Agent == "" || e.Manifest != nil && e.Manifest.Agent == o.Agent {
			n++
		}
		return o.Limit > 0 && n >= o.Limit
	})
	if err != nil {
		return nil, err
	}
	undone := undoneBy(entries)
	out := []*TxnInfo{}
	for i := len(entries) - 1; i >= 0 && (o.Limit <= 0 || len(out) < o.Limit); i-- {
		if o.Agent != "" && (entries[i].Manifest == nil || entries[i].Manifest.Agent != o.Agent) {
			continue
		}
		out = append(out, txnInfo(entries[i], undone))
	}
	return out, nil
}

func txnInfo(e *journal.Entry, undone map[string]string) *TxnInfo {
	ti := &TxnInfo{ID: e.ID, State: string(e.State), Files: []TxnFile{}}
	if u := undone[e.ID]; u != "" {
		ti.State, ti.UndoneBy = "undone", u
	}
	m := e.Manifest
	if m == nil {
		ti.Error = fmt.Sprint(e.Err)
		if errors.Is(e.Err, journal.ErrUntrusted) {
			ti.State = "untrusted" // never shown as what it claims to be
		}
		return ti
	}
	ti.Time, ti.Command, ti.Summary, ti.Undoes, ti.Agent, ti.Session = m.Time, m.Command, m.Summary, m.Undoes, m.Agent, m.Session
	for _, op := range m.Ops {
		f := TxnFile{Path: op.Path, Kind: string(op.Kind), Note: op.Note}
		if op.Old != nil {
			f.OldHash = op.Old.Hash.String()
		}
		if op.New != nil {
			f.NewHash = op.New.Hash.String()
		}
		ti.Files = append(ti.Files, f)
	}
	return ti
}

// Show returns a transaction's record and the unified diff it applied.
func (w *Workspace) Show(ctx context.Context, id string) (*TxnInfo, string, error) {
	var info *TxnInfo
	var diff strings.Builder
	err := w.ShowStream(ctx, id, func(ti *TxnInfo) error { info = ti; return nil }, func(d string) error {
		diff.WriteString(d)
		return nil
	})
	return info, diff.String(), err
}

// ShowStream is Show for a transaction of any size: it calls head with the
// record, then diff with each file's diff in turn (their concatenation is
// Show's diff), holding one at a time (show used to join a 50,000-file
// transaction's diffs into one string). head is called before
// any error about the diffs; an error from head or diff stops it and is
// returned.
func (w *Workspace) ShowStream(ctx context.Context, id string, head func(*TxnInfo) error, diff func(string) error) error {
	return w.ShowFiles(ctx, id, head, func(_ string, d string) error { return diff(d) })
}

// ShowFiles is ShowStream with each diff's file: diff is called with the
// root-relative path of the journal's operation the diff belongs to (a
// move's old path), in the manifest's order, for each operation with a
// non-empty diff. The txedit toolset's history tool pages through a
// transaction's diffs with it (docs/toolsets.md, "The answer budget").
func (w *Workspace) ShowFiles(ctx context.Context, id string, head func(*TxnInfo) error, diff func(path, d string) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := w.readableJournal(); err != nil {
		return err
	}
	full := ""
	if id != "" {
		var err error
		if full, err = w.j.Resolve(id); err != nil {
			return plan.Wrapf(resolveCode(err), "", err, "%v", err)
		}
	}
	// Down to the transaction (the newest one without an id).
	entries, err := recentDownTo(w.j, func(e *journal.Entry, _ map[string]string) bool { return full == "" || e.ID == full })
	if err != nil {
		return err
	}
	if full == "" {
		if len(entries) == 0 {
			return plan.Errorf(plan.CodeFileNotFound, "", "no transactions yet")
		}
		full = entries[len(entries)-1].ID
	}
	undone := undoneBy(entries)
	for _, e := range entries {
		if e.ID != full {
			continue
		}
		if err := head(txnInfo(e, undone)); err != nil {
			return err
		}
		if e.Manifest == nil {
			if err := w.trustedJournal(); err != nil {
				return err
			}
			return refusedTxn(e)
		}
		err := w.j.EachDiff(e.Manifest, func(i int, d string) error {
			op := e.Manifest.Ops[i]
			// A diff shows content: a file that may not be read now is
			// named, its diff withheld.
			if d != "" && w.checkPolicy(op.Path, op.Path, false) != nil {
				d = fmt.Sprintf("# %s: diff withheld (%s)\n", op.Path, plan.CodeDenied)
			}
			if d == "" {
				return nil
			}
			if err := diff(op.Path, d); err != nil {
				return &callerErr{err}
			}
			return nil
		})
		var ce *callerErr
		switch {
		case errors.As(err, &ce):
			return ce.err
		case err != nil && !errors.Is(err, journal.ErrCorrupt):
			return wrapJournalErr(err)
		}
		return nil
	}
	return plan.Errorf(plan.CodeFileNotFound, "", "no such transaction %s", id)
}

// callerErr carries an error of the caller's callback through the journal.
type callerErr struct{ err error }

func (e *callerErr) Error() string { return e.err.Error() }

// Recover rolls back transactions whose owners died before their commit
// point (Open already does this for writable workspaces).
func (w *Workspace) Recover(ctx context.Context) ([]*journal.Report, error) {
	if err := w.readOnly("recovery"); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	reps, err := w.j.Recover()
	return reps, wrapErrIf(err)
}

// GC applies the journal's retention limits and returns the removed ids.
func (w *Workspace) GC(ctx context.Context) ([]string, error) {
	if err := w.readOnly("gc"); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l, err := w.lockJournal(w.j)
	if err != nil {
		return nil, err
	}
	defer l.Unlock()
	ids, err := l.GC()
	return ids, wrapErrIf(err)
}

// Strays lists the names in the journal's transactions directory that are
// not txedit's: writes ignore them; recover and gc report them.
func (w *Workspace) Strays() ([]string, error) {
	s, err := w.j.Strays()
	return s, wrapErrIf(err)
}

func wrapErrIf(err error) error {
	if err == nil {
		return nil
	}
	return wrapJournalErr(err)
}
