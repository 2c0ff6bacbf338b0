package engine

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/txedit/txedit/apply"
	"github.com/txedit/txedit/hash"
	"github.com/txedit/txedit/internal/par"
	"github.com/txedit/txedit/journal"
	"github.com/txedit/txedit/plan"
)

// task is one file of a write request on its way through the pipeline.
type task struct {
	fo       *plan.FileOps
	src      string // resolved source path
	dst      string // resolved destination of move/copy
	dstNamed string
	res      *plan.FileResult
	fileErr  error // a failure of the whole file, found before editing

	cur     *fileInfo
	dstCur  *fileInfo // the destination a move or copy with overwrite replaces
	out     *apply.Outcome
	old     *journal.State // the state cur was read in (nil: absent)
	newSum  hash.Sum
	newSize int64
	kept    []byte // new content, if the memory budget allowed keeping it
	changed bool   // the transaction must touch this file

	// pre is the outcome a pattern_replace walk already computed from
	// cur (its substitution), so pass 1 need not compute it again.
	pre *apply.Outcome
	// curLocked: cur's bytes and identity were read consistently under
	// the workspace lock the commit holds, so staging need not read the
	// file again.
	curLocked bool
	// curStable: cur's bytes were read before the lock, and kept, from a
	// file whose change time was well before the read (stableRead):
	// staging takes them if the file's identity is still the one read,
	// instead of reading the file again.
	curStable bool
	// charged is what the task's kept bytes took from the memory budget.
	charged int64

	// sed is the request's pattern_replace, applied after the file's own
	// edits when the pattern's walk found this file.
	sed *apply.Sed
	// edited: pass 1 has run on the task (before the lock: apply says
	// why).
	edited bool
	// rb, if set, is the task's rebase: its edits were made against an
	// older version of the file (rebase.go).
	rb *rebaseState
	// wrote is the bytes staged for the file, kept for the session's
	// memory of what it wrote (basecache.go).
	wrote []byte
}

// reset undoes pass 1 on a task, so it runs again (the pattern's walk
// found the file after its edits were evaluated).
func (t *task) reset(budget *atomic.Int64) {
	t.release(budget)
	sed := t.sed
	*t = task{fo: t.fo, src: t.src, dst: t.dst, dstNamed: t.dstNamed, res: &plan.FileResult{Path: t.fo.Path}, sed: sed}
}

// anyFailed reports whether pass 1 failed on any task.
func anyFailed(tasks []*task) bool {
	for _, t := range tasks {
		if !t.res.Success {
			return true
		}
	}
	return false
}

// produce computes a task's new content from the file's current bytes:
// its edits, then the pattern. It is pure, so pass 2 can repeat it.
func (t *task) produce(cur []byte, exists bool) (*apply.Outcome, int) {
	var out *apply.Outcome
	if t.rb != nil && exists {
		out = t.rb.outcomeOn(cur)
	} else {
		out = apply.Edit(t.fo, cur, exists)
	}
	n := 0
	if t.sed != nil && !(t.fo.Final != nil && t.fo.Final.Command == plan.Delete) && !apply.IsBinary(out.Content) {
		out.Content, n = t.sed.Apply(out.Content)
		out.Replacements += n
		if n > 0 {
			out.Spans = nil // the substitution's changes are not among them
		}
	}
	return out, n
}

// Apply runs a write request: plan, read and verify, edit (in parallel),
// diff, and — unless it is a dry run — commit all-or-nothing through the
// journal. The result is never nil; when Success is false the returned
// error is the *plan.Error behind result.Code.
func (w *Workspace) Apply(ctx context.Context, req *plan.Request) (*plan.Result, error) {
	o := w.begin()
	defer o.end()
	return o.apply(ctx, req, &caller{agent: w.opts.Agent})
}

func (o *op) apply(ctx context.Context, req *plan.Request, c *caller) (*plan.Result, error) {
	o.charge = chargeOf(ctx)
	res := &plan.Result{DryRun: req.DryRun, Files: []*plan.FileResult{}}
	clock := time.Now()
	p, err := plan.Compile(req)
	if err != nil {
		return failResult(res, err)
	}
	if req.Dirs != nil && c.dirs == nil {
		d, err := o.requestDirs(req.Dirs)
		if err != nil {
			return failResult(res, err)
		}
		c = c.withDirs(d)
	}
	if !p.DryRun {
		if err := o.w.readOnly("writing"); err != nil {
			return failResult(res, err)
		}
	}
	st := streamOf(ctx)
	budget := o.budgetFor(p)
	tasks := o.prepare(p)
	prepared := preparedOnly(tasks)
	reserveFor(p.DryRun, len(tasks)) // while the files are read and edited
	// A request that commits evaluates its files' edits before it takes
	// the workspace lock: a plan that fails, however long its edits take
	// (a patch of thousands of hunks), never holds the lock, and one that
	// succeeds holds it to check its files and commit, not to compute
	// (a failing 3,000-hunk patch made a one-line write beside it wait
	// 28.5 s). Staging reads each file again under
	// the lock and checks that it is what the edits were computed from (a
	// request without hashes of its own is planned again on what it finds).
	// A pattern_replace walks its directory under the lock, so that the
	// files it changes are those that match when it commits (unless the
	// request has already failed: then without it, to list them): a file
	// the request edits and the walk finds is edited again there, with
	// the substitution.
	var held *journal.Locked
	unlock := func() {}
	if !p.DryRun {
		if err := o.editBeforeLock(ctx, tasks, budget, c); err != nil {
			return failResult(res, err)
		}
		o.w.phase("edit", &clock)
		if !p.Atomic || !anyFailed(tasks) {
			fresh, l, err := o.w.beginLocked()
			if err != nil {
				return failResult(res, err)
			}
			defer fresh.end()
			fresh.charge = o.charge
			o, held, unlock = fresh, l, sync.OnceFunc(func() { l.Unlock() })
			defer unlock()
			o.w.phase("lock", &clock)
		}
	}
	if p.Pattern != nil {
		if tasks, err = o.addPatternTasks(ctx, p, res, tasks, prepared, budget, held != nil); err != nil {
			return failResult(res, err)
		}
	}
	o.w.phase("plan", &clock)
	for _, t := range tasks {
		res.Files = append(res.Files, t.res)
	}
	if err := o.editRest(ctx, p.DryRun, tasks, res, budget, c, held != nil); err != nil {
		return failResult(res, err)
	}
	o.w.phase("recheck", &clock)
	failures, firstErr := countFailures(tasks)
	if p.DryRun {
		dryRunTotals(res, tasks, st)
	}
	if failures > 0 && p.Atomic {
		return o.failAtomic(res, p, tasks, st, failures, firstErr)
	}
	if p.DryRun {
		res.Success = failures == 0
		if !res.Success {
			return failResult(res, firstErr)
		}
		return res, nil
	}
	units, m := o.unitsFor(tasks, p, c)
	c.dirs.shape(m)
	if testHookBeforeCommit != nil {
		testHookBeforeCommit()
	}
	if len(units) > 0 || c.dirs.changesDirs() {
		err := o.commitTasks(ctx, res, tasks, units, m, c, held, unlock)
		if err != nil {
			return failResult(res, err)
		}
	}
	unlock()
	o.emitAll(st, res, units)
	return partialResult(res, failures, len(tasks), firstErr)
}

// patternBudget: a pattern_replace may keep, beside the memory budget,
// patternBudget times it of the bytes its walk read and substituted
// (32 MiB by default; planFile): staging takes them instead of reading
// each changed file again (and, when the walk was not under the lock,
// substituting again). Over GOROOT/src (585 files, 12 MB changed, 24 MB
// kept then; 12 MB since round 5: the new bytes are computed again) that took 10-15% off the replacement's
// CPU and wall time on tmpfs against the peak RSS's 29 -> 50 MB
// (bench/README.md, "round 4 (replace CPU)"); a first-touched page costs
// ~1.6 µs on the benchmark machine now, not the 15 µs that made the walk
// keep nothing (docs/decisions.md, "Big requests read a changed file twice").
const patternBudget = 8

// budgetFor is a request's memory budget: Options.MemoryBudget, and
// patternBudget times it more for a pattern_replace's walk.
func (o *op) budgetFor(p *plan.Plan) *atomic.Int64 {
	budget := new(atomic.Int64)
	budget.Store(o.w.opts.MemoryBudget)
	if p.Pattern != nil {
		budget.Add(patternBudget * o.w.opts.MemoryBudget)
	}
	return budget
}

// partialResult is the result of a request that committed: a success,
// or (not atomic) the files that failed while the rest were written.
func partialResult(res *plan.Result, failures, files int, firstErr error) (*plan.Result, error) {
	res.Success = failures == 0
	if !res.Success {
		res.Code = plan.CodeOf(firstErr)
		res.Error = fmt.Sprintf("%d of %d files had failing edits; the rest were written (atomic: false). First: %v", failures, files, firstErr)
		return res, firstErr
	}
	return res, nil
}

// preparedOnly is the tasks that prepare let through.
func preparedOnly(tasks []*task) []*task {
	prepared := make([]*task, 0, len(tasks))
	for _, t := range tasks {
		if t.fileErr == nil {
			prepared = append(prepared, t)
		}
	}
	return prepared
}

// editBeforeLock is pass 1 of a request that commits, run before it
// takes the lock (apply says why). A workspace without a journal makes
// it meanwhile (makeJournalEarly), done when this returns.
func (o *op) editBeforeLock(ctx context.Context, tasks []*task, budget *atomic.Int64, c *caller) error {
	wait := o.w.early.take() // StartJournal's, if it started one
	if wait == nil {
		wait = o.w.makeJournalEarly()
	}
	defer wait()
	return par.Do(ctx, len(tasks), o.w.opts.Workers, func(i int) error {
		o.edit(tasks[i], false, budget, c, false)
		summarize(tasks[i])
		tasks[i].edited = true
		return nil
	})
}

// addPatternTasks walks a pattern_replace's directory and adds the tasks
// of the files it changes to tasks, and the files it could not read or
// passed over to res (an atomic request fails with the unreadable ones).
// A file the request's own edits named is edited again, with the
// substitution after its edits.
func (o *op) addPatternTasks(ctx context.Context, p *plan.Plan, res *plan.Result, tasks, prepared []*task, budget *atomic.Int64, locked bool) ([]*task, error) {
	sc, err := o.patternTasks(ctx, p.Pattern, prepared, budget, locked)
	if err != nil {
		return nil, err
	}
	for _, t := range prepared {
		if t.edited && t.sed != nil {
			t.reset(budget) // its edits, then the substitution
		}
	}
	tasks = append(tasks, sc.found...)
	// A file it could not read may have needed the change: an
	// atomic request fails with it; one that is not lists it.
	for _, t := range sc.unreadable {
		if p.Atomic {
			tasks = append(tasks, t)
		} else {
			res.Skipped = append(res.Skipped, skippedOf(t))
		}
	}
	res.Skipped = append(res.Skipped, sc.binary...)
	sort.SliceStable(res.Skipped, func(i, j int) bool { return res.Skipped[i].Path < res.Skipped[j].Path })
	res.FilesSkipped = len(res.Skipped)
	if p.Summary == "" {
		p.Summary = fmt.Sprintf("replace %s in %s", p.Pattern.SedPattern, orRoot(p.Pattern.Directory))
	}
	return tasks, nil
}

// editRest is pass 1 for every task the pass before the lock did not
// edit (all of a dry run's). A streamed dry run hands each file's preview
// over as soon as it and the files before it are done, and holds at most
// a window of them.
func (o *op) editRest(ctx context.Context, dryRun bool, tasks []*task, res *plan.Result, budget *atomic.Int64, c *caller, locked bool) error {
	var em *emitter
	if st := streamOf(ctx); dryRun && st != nil {
		em = newEmitter(st, res.Files, 8*o.w.opts.Workers)
	}
	return par.Do(ctx, len(tasks), o.w.opts.Workers, func(i int) error {
		if em != nil {
			em.wait(i)
			defer em.finish(i)
		}
		if tasks[i].edited {
			return nil
		}
		o.edit(tasks[i], dryRun, budget, c, locked)
		summarize(tasks[i])
		return nil
	})
}

// countFailures counts the tasks that failed and finds the first failure.
func countFailures(tasks []*task) (failures int, first error) {
	for _, t := range tasks {
		if !t.res.Success {
			failures++
			if first == nil {
				first = firstFailure(t)
			}
		}
	}
	return failures, first
}

// dryRunTotals gives a dry run's result its diff (unless streamed) and
// the count of files it would modify.
func dryRunTotals(res *plan.Result, tasks []*task, st *stream) {
	var diff strings.Builder
	for _, t := range tasks {
		if st == nil {
			diff.WriteString(t.res.Preview)
		}
		if t.changed {
			res.FilesModified++
		}
	}
	res.Diff = diff.String()
}

// failAtomic is the result of an atomic request some of whose files
// failed: nothing is written.
func (o *op) failAtomic(res *plan.Result, p *plan.Plan, tasks []*task, st *stream, failures int, firstErr error) (*plan.Result, error) {
	for _, t := range tasks {
		if !p.DryRun {
			t.res.ContentHash = ""
		}
	}
	res.FilesModified = 0
	e := plan.Errorf(plan.CodeOf(firstErr), "", "%d of %d files had failing edits; nothing was written (atomic). First: %v", failures, len(tasks), firstErr)
	e.Err = firstErr
	if !p.DryRun {
		o.emitAll(st, res, nil)
	}
	return failResult(res, e)
}

// commitTasks is pass 2 of a request: the commit of its units under the
// lock (held, released by unlock as soon as the commit is over), and
// what it gives the result.
func (o *op) commitTasks(ctx context.Context, res *plan.Result, tasks []*task, units []*unit, m *journal.Manifest, c *caller, held *journal.Locked, unlock func()) error {
	st := streamOf(ctx)
	warning, err := o.commitWith(ctx, held, m, units, st == nil)
	unlock()
	if err != nil {
		for _, t := range tasks {
			t.res.ContentHash, t.res.Status, t.res.Diff, t.res.LinesAdded, t.res.LinesRemoved = "", "", "", 0, 0
			if t.changed {
				t.res.Success = false
			}
		}
		o.emitAll(st, res, nil)
		return err
	}
	if warning != "" {
		res.Warnings = append(res.Warnings, warning)
		noteDurability(res, warning)
	}
	c.noteCommitted(tasks)
	res.TransactionID, res.Summary = m.ID, m.Summary
	for _, t := range tasks {
		if t.changed {
			res.FilesModified++
		}
	}
	return nil
}

// Preview is Apply as a dry run: nothing is written, no journal entry is
// made, no lock is taken.
func (w *Workspace) Preview(ctx context.Context, req *plan.Request) (*plan.Result, error) {
	r := *req
	r.DryRun = true
	return w.Apply(ctx, &r)
}

func failResult(res *plan.Result, err error) (*plan.Result, error) {
	pe := plan.As(err)
	res.Success = false
	res.Code = pe.Code
	res.Error = pe.Error()
	return res, pe
}

// prepare resolves every file's paths, applies policy, and refuses requests
// in which two entries would decide the fate of the same file.
func (o *op) prepare(p *plan.Plan) []*task {
	tasks := make([]*task, len(p.Files))
	claims := map[string]int{}
	claim := func(t *task, i int, rel, named string, fi fs.FileInfo) {
		rel = o.claimKey(rel, fi) // the file, not its spelling (bind mounts)
		if k, ok := claims[rel]; ok && k != i {
			if t.fileErr == nil {
				t.fileErr = plan.Errorf(plan.CodeInvalidRequest, t.fo.Path, "%s is also changed by fileEdits entry %d (%s): give all edits of one file in one entry", named, k, tasks[k].fo.Path)
			}
			return
		}
		claims[rel] = i
	}
	for i, fo := range p.Files {
		t := &task{fo: fo, res: &plan.FileResult{Path: fo.Path}}
		tasks[i] = t
		if len(fo.Invalid) > 0 && fo.Invalid[0].Index < 0 {
			t.fileErr = fo.Invalid[0]
			continue
		}
		rel, dangling, fi, err := o.resolveStat(fo.Path)
		if entryOps(fo) {
			rel, dangling, fi, err = "", false, nil, nil
			rel, err = o.resolveEntry(fo.Path)
		}
		if err == nil && rel == "." {
			err = plan.Errorf(plan.CodeNotRegular, fo.Path, "is the workspace root, a directory")
		}
		if err == nil && dangling {
			err = plan.Errorf(plan.CodeDenied, fo.Path, "is a dangling symlink (its target %s does not exist); refusing to write through it", rel)
		}
		if err == nil {
			err = o.w.checkPolicy(fo.Path, rel, true)
		}
		if err != nil {
			t.fileErr = err
			continue
		}
		t.src = rel
		claim(t, i, rel, fo.Path, fi)
		if f := fo.Final; f != nil && (f.Command == plan.Move || f.Command == plan.Copy) {
			t.dstNamed = f.NewPath
			dst, dangling, err := o.resolveLinks(f.NewPath)
			if entryOps(fo) {
				dst, dangling, err = "", false, nil
				dst, err = o.resolveEntry(f.NewPath)
			}
			if err == nil && dangling {
				err = plan.Errorf(plan.CodeDenied, f.NewPath, "is a dangling symlink; refusing to write through it")
			}
			if err == nil && (dst == "." || dst == rel) {
				err = plan.Errorf(plan.CodeInvalidRequest, f.NewPath, "new_path must name another file than %s", fo.Path)
			}
			if err == nil {
				err = o.w.checkPolicy(f.NewPath, dst, true)
			}
			if err != nil {
				t.fileErr = editErr(err, f)
				continue
			}
			t.dst = dst
			claim(t, i, dst, f.NewPath, nil)
		}
	}
	return tasks
}

// editErr pins a file-level error on the edit that caused it.
func editErr(err error, op *plan.Op) error {
	return plan.As(err).WithEdit(op.Index, string(op.Command))
}

// emitAll hands every file's final result to the stream, in order, with
// its committed diff read back from the journal (units: what committed)
// when the stream wants diffs.
func (o *op) emitAll(st *stream, res *plan.Result, units []*unit) {
	if st == nil || st.held && res.TransactionID == "" {
		return
	}
	var dr *journal.DiffReader
	type first struct {
		op     int  // the unit's first op, whose record holds its diff
		diffed bool // staging recorded a diff
	}
	ops := map[*plan.FileResult]first{}
	if st.diffs && res.TransactionID != "" {
		if r, err := o.j.OpenDiffs(res.TransactionID); err == nil {
			dr = r
			defer dr.Close()
			for _, u := range units {
				if u.res != nil && len(u.ops) > 0 {
					ops[u.res] = first{u.ops[0], u.diffed}
				}
			}
		}
	}
	for _, r := range res.Files {
		if f, ok := ops[r]; ok {
			if st.want == nil || st.want() {
				r.Diff, _ = dr.Diff(f.op)
			} else {
				r.DiffLeft = f.diffed
			}
		}
		emit(st, r)
	}
}

// edit is pass 1 for one file: read, verify, edit, and (dry run) diff.
// locked says that it runs under the lock the commit will hold.
func (o *op) edit(t *task, dryRun bool, budget *atomic.Int64, c *caller, locked bool) {
	if t.fileErr != nil {
		return
	}
	if testHookEdit != nil {
		testHookEdit(t.fo.Path)
	}
	cur, planned := o.current(t, dryRun, budget, locked)
	if planned || cur == nil {
		return
	}
	t.cur = cur
	// A dry run writes nothing, so it loses nothing: it needs no read.
	// A link read as an entry cannot have been read by the session (a
	// read follows it): the rule does not apply to it (links.go).
	if !dryRun && !cur.link {
		if err := o.readCheck(t, cur, c); err != nil {
			t.fileErr = err
			return
		}
	}
	moved, ok := o.checkDestination(t, cur)
	if !ok {
		return
	}
	if moved {
		t.res.Status, t.res.Success = "already_applied", true
		t.out = &apply.Outcome{}
		return
	}
	if sedN := o.outcome(t, cur); t.out.Applied == 0 && sedN == 0 {
		t.release(budget)
		return
	}
	newData := t.out.Content
	if n := int64(len(newData)); n > o.w.opts.MaxFileSize && (!cur.exists || !bytes.Equal(newData, cur.data)) {
		// Limits apply at the door: what a commit writes, undo must be
		// able to read back and revert.
		t.fileErr = plan.Errorf(plan.CodeTooLarge, t.fo.Path, "would be %d bytes, over the %d-byte limit of a file txedit writes (and can undo)", n, o.w.opts.MaxFileSize)
		return
	}
	t.noteChange(cur, newData)
	if err := o.checkEntry(t, cur, newData); err != nil {
		t.fileErr = err
		return
	}
	if dryRun {
		var st apply.Stat
		t.res.Preview, st = renderDiff(t, cur.data, newData)
		t.res.LinesAdded, t.res.LinesRemoved = st.Added, st.Removed
		t.release(budget)
		return
	}
	if !t.changed {
		t.release(budget)
		return
	}
	t.keep(cur, newData, budget, locked, o.stableRead(cur))
}

// stableRead reports whether cur, read before the lock, was last changed
// well before it was read: then a file whose identity (inode, size, times)
// is the same under the lock holds the same bytes, and staging need not
// read it again. A file changed within the file system's timestamp slack
// of the read may have changed within one clock tick of it, keeping its
// identity (git calls such entries racily clean): it is read again.
func (o *op) stableRead(cur *fileInfo) bool {
	return cur.exists && !cur.readAt.IsZero() && cur.ident.Ctime < cur.readAt.Add(-o.w.racyWindow()).UnixNano()
}

// current is the file a task edits, as read: by a pattern_replace's walk
// already, or now (locked: under the lock the commit will hold). planned
// says the walk planned the task without keeping the bytes and it needs
// nothing more; a nil file, that reading it failed (t.fileErr says why).
func (o *op) current(t *task, dryRun bool, budget *atomic.Int64, locked bool) (cur *fileInfo, planned bool) {
	cur = t.cur // read already by a pattern_replace walk
	if cur != nil && t.pre != nil && (cur.data == nil || t.curLocked) {
		if !dryRun && cur.ident.Nlink <= 1 {
			// Planned by the walk: staging reads the bytes again, or
			// takes those the walk kept, under this lock, if the file
			// is still the one it read.
			t.out, t.pre = t.pre, nil
			if t.changed {
				t.res.Status = statusOf(t)
			}
			return nil, true
		}
		cur = nil // a preview needs the bytes
	}
	if cur == nil || cur.ident.Nlink > 1 {
		var err error
		t.release(budget)
		t.pre = nil // computed from other bytes
		if cur, err = o.readEntry(t.fo.Path, t.src, entryOps(t.fo)); err != nil {
			t.fileErr = err
			return nil, false
		}
		t.curLocked = locked
	}
	return cur, false
}

// checkDestination looks at the destination of a move or copy that
// exists: it is refused unless the edit overwrites it, or the move was
// made already (a retry: moved). ok false: t.fileErr says why not.
func (o *op) checkDestination(t *task, cur *fileInfo) (moved, ok bool) {
	if t.dst == "" {
		return false, true
	}
	if _, err := o.fsy.Lstat(t.dst); err != nil {
		return false, true
	}
	// A move whose source is gone may be a retry: the destination is
	// read to tell (retry.go).
	retry := !cur.exists && t.fo.Final.Command == plan.Move
	if !t.fo.Final.Overwrite && !retry {
		t.fileErr = editErr(plan.Errorf(plan.CodeConflict, t.dstNamed, "already exists: %s does not overwrite files", t.fo.Final.Command), t.fo.Final)
		return false, false
	}
	// Codex's Move to replaces the destination: it is read, and
	// journaled like any file the transaction changes.
	var err error
	if t.dstCur, err = o.readEntry(t.dstNamed, t.dst, entryOps(t.fo)); err != nil {
		t.fileErr = editErr(err, t.fo.Final)
		return false, false
	}
	if moved = retry && o.movedAlready(t); !t.fo.Final.Overwrite && !moved {
		t.fileErr = editErr(plan.Errorf(plan.CodeConflict, t.dstNamed, "already exists: %s does not overwrite files (and nothing shows this is a retry of a move already made)", t.fo.Final.Command), t.fo.Final)
		return false, false
	}
	return moved, true
}

// outcome sets t.out, the task's edits applied to cur (or what the walk
// computed, or a retry the journal proves), and returns the
// substitutions the pattern made.
func (o *op) outcome(t *task, cur *fileInfo) (sedN int) {
	if t.pre != nil {
		t.out, sedN = t.pre, t.pre.Replacements
		t.pre = nil
	} else {
		t.out, sedN = t.produce(cur.data, cur.exists)
	}
	if out, id, ok := o.journalRetry(t, cur); ok {
		t.out = out // a retry the journal proves (retry.go)
		t.res.AppliedBy = id
	}
	if t.out.AlreadyApplied {
		t.res.Status = "already_applied"
	}
	return sedN
}

// noteChange records whether the task changes its file (cur, to become
// newData), the new bytes' hash and size, and its status.
func (t *task) noteChange(cur *fileInfo, newData []byte) {
	final := t.fo.Final
	t.changed = !cur.exists || !bytes.Equal(newData, cur.data) || final != nil || newIsLink(t.fo, cur) != cur.link ||
		(t.fo.Mode != nil && !t.fo.IsLink() && cur.mode.Perm() != *t.fo.Mode)
	if final != nil && final.Command == plan.Delete && !cur.exists {
		t.changed = false
	}
	t.newSum, t.newSize = hash.Of(newData), int64(len(newData))
	t.old = stateOf(cur)
	if t.changed {
		t.res.Status = statusOf(t)
	} else if c := t.fo.Create; c != nil && c.Command == plan.Write && cur.exists && !t.fo.TextEdits() && t.fo.Final == nil {
		t.res.Status = "already_applied" // an Add File retried: the file already holds it
	}
}

// keep holds on to a changed task's bytes for staging, as far as the
// memory budget allows.
func (t *task) keep(cur *fileInfo, newData []byte, budget *atomic.Int64, locked, stable bool) {
	if locked && t.curLocked {
		// The bytes were read under the commit's lock: keep them and
		// the new ones, and staging reads nothing again.
		if t.charged == 0 {
			need := int64(len(cur.data) + len(newData))
			if !reserve(budget, need) {
				t.release(budget)
				return
			}
			t.charged = need
		}
		t.kept = newData
		return
	}
	// Staging reads the file again under the lock and verifies it: keep
	// the new bytes only, if the budget allows; with the file's own bytes
	// too, if they are stable (stableRead), and staging reads nothing
	// again unless the file's identity changed.
	t.release(budget)
	if stable {
		need := int64(len(cur.data) + len(newData))
		if reserve(budget, need) {
			t.cur = cur
			t.kept, t.out.Content, t.charged, t.curStable = newData, newData, need, true
			return
		}
	}
	// A replaced destination (overwriteUnit) takes its bytes from here:
	// they are kept whatever the budget says.
	if budget.Add(-int64(len(newData))) >= 0 || t.dstCur != nil {
		t.kept, t.out.Content, t.charged = newData, newData, int64(len(newData))
	} else {
		budget.Add(int64(len(newData)))
	}
}

// reserve takes n bytes from the memory budget if it has that many left,
// and reports whether it did.
func reserve(budget *atomic.Int64, n int64) bool {
	if budget.Add(-n) >= 0 {
		return true
	}
	budget.Add(n)
	return false
}

// release drops the bytes a task holds (the file's and the new ones) and
// gives their share of the memory budget back (budget nil: not needed
// any more). Only what a commit would compute again is dropped: a copy's
// source bytes stay (the session notes whether the copy changed them).
func (t *task) release(budget *atomic.Int64) {
	if t.cur != nil && t.cur.data != nil && !(t.fo.Final != nil && t.fo.Final.Command == plan.Copy) {
		c := *t.cur
		c.data = nil
		t.cur = &c
		t.curLocked, t.curStable = false, false
	}
	if t.out != nil {
		t.out.Content = nil
	}
	t.kept = nil
	if t.charged > 0 && budget != nil {
		budget.Add(t.charged)
	}
	t.charged = 0
}

// movedAlready reports, for a move whose source is gone, whether the
// destination already holds what the move would put there (a retried
// patch): the move's hunks proven in it by content, or the journal showing
// the move made (a pure rename has only that proof; retry.go).
func (o *op) movedAlready(t *task) bool {
	f := t.fo.Final
	if f == nil || f.Command != plan.Move || t.fo.Create != nil || t.dst == "" || t.dstCur == nil {
		return false
	}
	if len(t.fo.Patches) > 0 {
		rest := *t.fo
		rest.Final = nil
		if apply.Edit(&rest, t.dstCur.data, true).AlreadyApplied {
			return true
		}
	}
	return o.movedByJournal(t, t.dstCur)
}

// testHookEdit, set only by tests, runs as pass 1 begins on a file.
var testHookEdit func(path string)

// testHookBeforeCommit, set only by tests, runs between planning and the
// commit: where another writer's change makes a commit plan again.
var testHookBeforeCommit func()

// statusOf says what a changed task does to its file.
func statusOf(t *task) plan.Status {
	switch f := t.fo.Final; {
	case f == nil && t.cur.exists:
		return plan.StatusModified
	case f == nil:
		return plan.StatusCreated
	case f.Command == plan.Delete:
		return plan.StatusDeleted
	case f.Command == plan.Move:
		return plan.StatusMoved
	}
	return plan.StatusCopied
}

// renderDiff renders a task's change with root-relative paths.
func renderDiff(t *task, old, new []byte) (string, apply.Stat) {
	mode := createMode()
	if t.cur != nil && t.cur.exists {
		mode = t.cur.mode
	}
	newMode := mode
	if t.fo.Mode != nil {
		newMode = *t.fo.Mode
	}
	if newIsLink(t.fo, t.cur) != (mode&fs.ModeSymlink != 0) && !newIsLink(t.fo, t.cur) {
		newMode = createMode() // a link replaced by a file
	}
	c := apply.Change{OldPath: t.src, NewPath: t.src, Old: old, New: new, OldMode: mode, NewMode: newMode}
	if t.out != nil {
		// Where the hunks went: the diff is computed there only (Render
		// checks that the rest is the same).
		c.Spans = t.out.Spans
	}
	if t.cur == nil || !t.cur.exists {
		c.OldPath = ""
	}
	switch f := t.fo.Final; {
	case f == nil:
	case f.Command == plan.Delete:
		c.NewPath, c.New = "", nil
	case f.Command == plan.Move:
		c.NewPath = t.dst
		if c.OldPath == "" { // created and moved in one go
			c.NewPath = t.dst
		}
	case f.Command == plan.Copy:
		src, st := "", apply.Stat{}
		if !bytes.Equal(old, new) || c.OldPath == "" {
			src, st = apply.Render(c)
		}
		dst, st2 := apply.Render(apply.Change{NewPath: t.dst, New: new, NewMode: mode})
		return src + dst, apply.Stat{Added: st.Added + st2.Added, Removed: st.Removed + st2.Removed, Binary: st.Binary || st2.Binary}
	}
	return apply.Render(c)
}

// summarize fills a task's FileResult from its outcome.
func summarize(t *task) {
	r := t.res
	if t.fileErr != nil {
		pe := plan.As(t.fileErr)
		r.Success = false
		r.Code, r.Error = pe.Code, pe.Error()
		if pe.Delta != nil {
			r.Delta = pe.Delta
		}
		r.EditsFailed = t.fo.NumEdits
		if _, ok := pe.Edit(); ok {
			r.FailedEdits = append(r.FailedEdits, failedEdit(pe))
		} else {
			for _, op := range t.fo.AllOps() {
				r.FailedEdits = append(r.FailedEdits, &plan.FailedEdit{Index: op.Index, Command: string(op.Command), Code: pe.Code, Error: pe.Error()})
			}
			for _, e := range t.fo.Invalid {
				if _, ok := e.Edit(); ok {
					r.FailedEdits = append(r.FailedEdits, failedEdit(e))
				}
			}
			sort.Slice(r.FailedEdits, func(i, j int) bool { return r.FailedEdits[i].Index < r.FailedEdits[j].Index })
		}
		return
	}
	r.EditsApplied = t.out.Applied
	r.Replacements, r.Occurrences = t.out.Replacements, t.out.Occurrences
	if len(t.out.Hunks) > 0 {
		r.Hunks, r.Match = t.out.Hunks, plan.LoosestRung(t.out.Hunks)
	}
	for _, e := range t.out.Failed {
		if _, ok := e.Edit(); !ok {
			r.Code, r.Error = e.Code, e.Error()
			continue
		}
		r.FailedEdits = append(r.FailedEdits, failedEdit(e))
	}
	r.EditsFailed = len(r.FailedEdits)
	if r.EditsFailed == 0 && r.Code != "" {
		r.EditsFailed = t.fo.NumEdits
	}
	r.Success = r.EditsFailed == 0 && r.Code == ""
	if r.Success && r.Code == "" && len(t.out.Failed) > 0 {
		r.Code, r.Error = t.out.Failed[0].Code, t.out.Failed[0].Error()
	}
	if !r.Success && r.Code == "" && len(r.FailedEdits) > 0 {
		r.Code, r.Error = r.FailedEdits[0].Code, r.FailedEdits[0].Error
	}
	wm := t.changed
	r.WouldModify = &wm
	if (t.out.Applied > 0 || t.changed) && !(t.fo.Final != nil && t.fo.Final.Command == plan.Delete) {
		r.ContentHash = t.newSum.String()
	}
	if t.dst != "" {
		r.NewPath = t.dstNamed
	}
}

func failedEdit(e *plan.Error) *plan.FailedEdit {
	return &plan.FailedEdit{Index: e.Index, Command: e.Command, Code: e.Code, Error: e.Error(), CurrentHash: e.Current}
}

func firstFailure(t *task) error {
	if t.fileErr != nil {
		return t.fileErr
	}
	for _, e := range t.out.Failed {
		return e
	}
	return plan.Errorf(plan.CodeIOError, t.fo.Path, "failed")
}

// unitsFor turns the changed tasks into commit units and a manifest.
func (o *op) unitsFor(tasks []*task, p *plan.Plan, c *caller) ([]*unit, *journal.Manifest) {
	m := &journal.Manifest{Command: "apply", Summary: p.Summary, Agent: c.agentName(""), Session: c.sessionID()}
	var units []*unit
	var names []string
	for _, t := range tasks {
		if !t.changed || t.out == nil {
			continue
		}
		t := t
		names = append(names, t.fo.Path)
		old := t.old
		mode, uid, gid := createMode(), 0, 0
		if old != nil && !old.IsLink() {
			mode, uid, gid = old.Mode, old.Uid, old.Gid
		}
		if t.fo.Mode != nil && !t.fo.IsLink() {
			mode = mode&^fs.ModePerm | *t.fo.Mode
		}
		if newIsLink(t.fo, t.cur) {
			mode = linkMode
		}
		newState := &journal.State{Hash: t.newSum, Size: t.newSize, Mode: mode, Uid: uid, Gid: gid}
		u := &unit{src: t.src, old: old, newSum: t.newSum, newSize: t.newSize, kept: t.kept, res: t.res, link: entryOps(t.fo),
			content: func(cur []byte, exists bool) []byte { out, _ := t.produce(cur, exists); return out.Content },
			render:  func(old, new []byte) (string, apply.Stat) { return renderDiff(t, old, new) },
			done:    func() { t.release(nil) }}
		if t.fo.Entry < 0 && t.sed != nil && t.rb == nil {
			// A file the pattern's walk found: no edits of its own, the
			// substitution alone (patternScan.planFile).
			// Its diff is written from the lines the substitution changed
			// (apply.Change.Spans), not found by comparing both texts.
			u.fill = func(dst, cur []byte) []byte {
				out, _, spans := t.sed.AppendApplySpans(dst, cur, nil)
				if t.out != nil {
					t.out.Spans = spans
				}
				return out
			}
			u.done = func() {
				if t.out != nil {
					t.out.Spans = nil // the diff is rendered: not kept to the end
				}
				t.release(nil)
			}
		}
		if (t.curLocked || t.curStable) && t.cur.data != nil {
			u.cur = t.cur
		}
		if c.session != nil && t.fo.Entry >= 0 && t.fo.Final == nil && len(units) < maxNotedWrites {
			u.wrote = func(b []byte) { t.wrote = b }
		}
		if len(t.out.Failed) == 0 && !t.fo.Positional() {
			u.replan = func(cur *fileInfo) error { return o.replanTask(t, u, cur, c) }
		}
		add := func(op *journal.Op) {
			u.ops = append(u.ops, len(m.Ops))
			m.Ops = append(m.Ops, op)
		}
		inPlace := journal.Modify
		if old == nil {
			inPlace = journal.Create
		}
		switch f := t.fo.Final; {
		case f == nil:
			add(&journal.Op{Path: t.src, Kind: inPlace, Old: old, New: newState})
		case f.Command == plan.Delete:
			add(&journal.Op{Path: t.src, Kind: journal.Delete, Old: old})
		case f.Command == plan.Move:
			if t.dstCur == nil {
				add(&journal.Op{Path: t.dst, Kind: journal.Create, New: newState, Note: "moved from " + t.src})
			}
			if old != nil {
				add(&journal.Op{Path: t.src, Kind: journal.Delete, Old: old, Note: "moved to " + t.dst})
			}
		case f.Command == plan.Copy:
			if old == nil || old.Hash != t.newSum {
				add(&journal.Op{Path: t.src, Kind: inPlace, Old: old, New: newState})
			}
			if t.dstCur == nil {
				add(&journal.Op{Path: t.dst, Kind: journal.Create, New: newState, Note: "copied from " + t.src})
			}
		}
		units = append(units, u)
		if t.dstCur != nil {
			units = append(units, overwriteUnit(t, m, newState))
		}
	}
	if m.Summary == "" {
		m.Summary = summaryOf("edit", names)
	}
	return units, m
}

// overwriteUnit is the unit of a move or copy's destination that exists
// and is replaced (overwrite): its bytes are verified under the lock and
// journaled (undo brings them back), like any file a transaction changes.
func overwriteUnit(t *task, m *journal.Manifest, newState *journal.State) *unit {
	content := t.out.Content
	verb := "moved"
	if t.fo.Final.Command == plan.Copy {
		verb = "copied"
	}
	u := &unit{src: t.dst, old: stateOf(t.dstCur), newSum: t.newSum, newSize: int64(len(content)), kept: content, link: entryOps(t.fo),
		content: func([]byte, bool) []byte { return content },
		render:  func(old, new []byte) (string, apply.Stat) { return "", apply.Stat{} }}
	u.ops = []int{len(m.Ops)}
	m.Ops = append(m.Ops, &journal.Op{Path: t.dst, Kind: journal.Modify, Old: u.old, New: newState, Note: verb + " from " + t.src + ", replacing it"})
	return u
}

// stateOf is the journal state of a file as read (nil: absent).
func stateOf(cur *fileInfo) *journal.State {
	if !cur.exists {
		return nil
	}
	mode := cur.mode.Perm() | cur.mode&modeExtra
	if cur.link {
		mode = linkMode
	}
	return &journal.State{Hash: hash.Of(cur.data), Size: int64(len(cur.data)), Mode: mode, Uid: cur.ident.Uid, Gid: cur.ident.Gid}
}

// replanTask plans task t again on cur, its file's bytes under the lock:
// the session's rule and the edits (with their own hashes) are checked on
// cur, and the unit takes the new bytes. A file that appeared or vanished
// meanwhile is not planned again.
func (o *op) replanTask(t *task, u *unit, cur *fileInfo, c *caller) error {
	switch {
	case cur.exists && !t.cur.exists:
		return plan.Errorf(plan.CodeConflict, t.fo.Path, "was created by someone else while this request was being applied; nothing was written")
	case !cur.exists && t.cur.exists:
		return plan.Errorf(plan.CodeStaleHash, t.fo.Path, "was removed while this request was being applied; nothing was written")
	}
	if err := o.readCheck(t, cur, c); err != nil {
		return err
	}
	out, _ := t.produce(cur.data, cur.exists)
	if len(out.Failed) > 0 {
		e := *out.Failed[0]
		e.Msg = "the file changed while this request was being applied, and on its new content: " + e.Msg
		return &e
	}
	t.cur, t.out, t.old = cur, out, stateOf(cur)
	t.newSum, t.newSize, t.kept = hash.Of(out.Content), int64(len(out.Content)), out.Content
	u.old, u.newSum, u.newSize, u.kept = t.old, t.newSum, t.newSize, out.Content
	t.res.ContentHash = t.newSum.String()
	t.res.EditsApplied, t.res.Replacements, t.res.Occurrences = out.Applied, out.Replacements, out.Occurrences
	return nil
}

func summaryOf(verb string, names []string) string {
	switch n := len(names); {
	case n == 0:
		return verb
	case n <= 3:
		return verb + " " + strings.Join(names, ", ")
	default:
		return fmt.Sprintf("%s %s (+%d more)", verb, strings.Join(names[:3], ", "), n-3)
	}
}
