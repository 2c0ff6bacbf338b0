package engine

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/txedit/txedit/apply"
	"github.com/txedit/txedit/hash"
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
	out     *apply.Outcome
	newSum  hash.Sum
	kept    []byte // new content, if the memory budget allowed keeping it
	changed bool   // the transaction must touch this file

	// sed is the request's pattern_replace, applied after the file's own
	// edits when the pattern's walk found this file.
	sed *apply.Sed
}

// produce computes a task's new content from the file's current bytes:
// its edits, then the pattern. It is pure, so pass 2 can repeat it.
func (t *task) produce(cur []byte, exists bool) (*apply.Outcome, int) {
	out := apply.Edit(t.fo, cur, exists)
	n := 0
	if t.sed != nil && !(t.fo.Final != nil && t.fo.Final.Command == plan.Delete) && !apply.IsBinary(out.Content) {
		out.Content, n = t.sed.Apply(out.Content)
		out.Replacements += n
	}
	return out, n
}

// Apply runs a write request: plan, read and verify, edit (in parallel),
// diff, and — unless it is a dry run — commit all-or-nothing through the
// journal. The result is never nil; when Success is false the returned
// error is the *plan.Error behind result.Code.
func (w *Workspace) Apply(ctx context.Context, req *plan.Request) (*plan.Result, error) {
	v, release := w.view()
	defer release()
	return v.apply(ctx, req)
}

func (w *Workspace) apply(ctx context.Context, req *plan.Request) (*plan.Result, error) {
	res := &plan.Result{DryRun: req.DryRun, Files: []*plan.FileResult{}}
	clock := time.Now()
	p, err := plan.Compile(req)
	if err != nil {
		return failResult(res, err)
	}
	if !p.DryRun {
		if err := w.approve(ctx, "fs_write", req); err != nil {
			return failResult(res, err)
		}
	}
	tasks := w.prepare(p)
	if p.Pattern != nil {
		more, skipped, err := w.patternTasks(ctx, p.Pattern, tasks)
		if err != nil {
			return failResult(res, err)
		}
		tasks = append(tasks, more...)
		res.FilesSkipped = skipped
		if p.Summary == "" {
			p.Summary = fmt.Sprintf("replace %s in %s", p.Pattern.SedPattern, orRoot(p.Pattern.Directory))
		}
	}
	w.phase("plan", &clock)
	for _, t := range tasks {
		res.Files = append(res.Files, t.res)
	}
	var budget atomic.Int64
	budget.Store(w.opts.MemoryBudget)
	err = w.forEach(ctx, len(tasks), func(i int) error {
		w.edit(tasks[i], p.DryRun, &budget)
		return nil
	})
	if err != nil {
		return failResult(res, err)
	}
	w.phase("edit", &clock)
	failures, firstErr := 0, error(nil)
	for _, t := range tasks {
		summarize(t)
		if !t.res.Success {
			failures++
			if firstErr == nil {
				firstErr = firstFailure(t)
			}
		}
	}
	if p.DryRun {
		var diff strings.Builder
		for _, t := range tasks {
			diff.WriteString(t.res.Preview)
			if t.changed {
				res.FilesModified++
			}
		}
		res.Diff = diff.String()
	}
	if failures > 0 && p.Atomic {
		for _, t := range tasks {
			if !p.DryRun {
				t.res.ContentHash = ""
			}
		}
		res.FilesModified = 0
		return failResult(res, &plan.Error{Code: plan.CodeOf(firstErr), Index: -1,
			Msg: fmt.Sprintf("%d of %d files had failing edits; nothing was written (atomic). First: %v", failures, len(tasks), firstErr), Err: firstErr})
	}
	if p.DryRun {
		res.Success = failures == 0
		if !res.Success {
			return failResult(res, firstErr)
		}
		return res, nil
	}
	units, m := w.unitsFor(tasks, p)
	if len(units) > 0 {
		if err := w.commit(ctx, m, units); err != nil {
			for _, t := range tasks {
				t.res.ContentHash = ""
				if t.changed {
					t.res.Success = false
				}
			}
			return failResult(res, err)
		}
		res.TransactionID = m.ID
		for _, t := range tasks {
			if t.changed {
				res.FilesModified++
			}
		}
	}
	res.Success = failures == 0
	if !res.Success {
		res.Code = plan.CodeOf(firstErr)
		res.Error = fmt.Sprintf("%d of %d files had failing edits; the rest were written (atomic: false). First: %v", failures, len(tasks), firstErr)
		return res, firstErr
	}
	return res, nil
}

// Preview is Apply as a dry run: nothing is written, no journal entry is
// made, no lock is taken.
func (w *Workspace) Preview(ctx context.Context, req *plan.Request) (*plan.Result, error) {
	r := *req
	r.DryRun = true
	return w.Apply(ctx, &r)
}

func failResult(res *plan.Result, err error) (*plan.Result, error) {
	res.Success = false
	res.Code = plan.CodeOf(err)
	res.Error = err.Error()
	var pe *plan.Error
	if !asPlanError(err, &pe) {
		err = &plan.Error{Code: res.Code, Index: -1, Msg: err.Error(), Err: err}
	}
	return res, err
}

// Authorize applies the permission mode and the approval callback to a
// tool call that writes (execute false) or runs a command (execute true):
// plan mode refuses both; default mode asks Approve before either;
// acceptEdits asks only before commands; bypassPermissions asks nothing.
// It returns a denied *plan.Error when the call may not go ahead.
func (w *Workspace) Authorize(ctx context.Context, tool string, args any, execute bool) error {
	what := "writes"
	if execute {
		what = "commands"
	}
	switch w.opts.Mode {
	case ModePlan:
		return plan.Errorf(plan.CodeDenied, "", "the workspace is read-only (permission mode plan): %s are refused", what)
	case ModeBypass:
		return nil
	case ModeAcceptEdits:
		if !execute {
			return nil
		}
	}
	if w.opts.Approve == nil {
		return nil
	}
	ok, err := w.opts.Approve(ctx, tool, args)
	if err != nil {
		return &plan.Error{Code: plan.CodeDenied, Index: -1, Msg: "approval failed: " + err.Error(), Err: err}
	}
	if !ok {
		return plan.Errorf(plan.CodeDenied, "", "%s was not approved", tool)
	}
	return nil
}

func (w *Workspace) approve(ctx context.Context, tool string, args any) error {
	return w.Authorize(ctx, tool, args, false)
}

// prepare resolves every file's paths, applies policy, and refuses requests
// in which two entries would decide the fate of the same file.
func (w *Workspace) prepare(p *plan.Plan) []*task {
	tasks := make([]*task, len(p.Files))
	claims := map[string]int{}
	claim := func(t *task, i int, rel, named string) {
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
		rel, dangling, err := w.resolveLinks(fo.Path)
		if err == nil && rel == "." {
			err = plan.Errorf(plan.CodeNotRegular, fo.Path, "is the workspace root, a directory")
		}
		if err == nil && dangling {
			err = plan.Errorf(plan.CodeDenied, fo.Path, "is a dangling symlink (its target %s does not exist); refusing to write through it", rel)
		}
		if err == nil {
			err = w.checkPolicy(fo.Path, rel, true)
		}
		if err != nil {
			t.fileErr = err
			continue
		}
		t.src = rel
		claim(t, i, rel, fo.Path)
		if f := fo.Final; f != nil && (f.Command == plan.Move || f.Command == plan.Copy) {
			t.dstNamed = f.NewPath
			dst, dangling, err := w.resolveLinks(f.NewPath)
			if err == nil && dangling {
				err = plan.Errorf(plan.CodeDenied, f.NewPath, "is a dangling symlink; refusing to write through it")
			}
			if err == nil && (dst == "." || dst == rel) {
				err = plan.Errorf(plan.CodeInvalidRequest, f.NewPath, "new_path must name another file than %s", fo.Path)
			}
			if err == nil {
				err = w.checkPolicy(f.NewPath, dst, true)
			}
			if err != nil {
				t.fileErr = editErr(err, f)
				continue
			}
			t.dst = dst
			claim(t, i, dst, f.NewPath)
		}
	}
	return tasks
}

// editErr pins a file-level error on the edit that caused it.
func editErr(err error, op *plan.Op) error {
	var pe *plan.Error
	if asPlanError(err, &pe) {
		c := *pe
		c.Index, c.Command = op.Index, string(op.Command)
		return &c
	}
	return err
}

// edit is pass 1 for one file: read, verify, edit, and (dry run) diff.
func (w *Workspace) edit(t *task, dryRun bool, budget *atomic.Int64) {
	if t.fileErr != nil {
		return
	}
	cur := t.cur // read already by a pattern_replace walk
	if cur == nil || cur.ident.Nlink > 1 {
		var err error
		if cur, err = w.readFile(t.fo.Path, t.src, true); err != nil {
			t.fileErr = err
			return
		}
	}
	t.cur = cur
	if t.dst != "" {
		if _, err := w.fsy.Lstat(t.dst); err == nil {
			t.fileErr = editErr(plan.Errorf(plan.CodeConflict, t.dstNamed, "already exists: %s does not overwrite files", t.fo.Final.Command), t.fo.Final)
			return
		}
	}
	var sedN int
	t.out, sedN = t.produce(cur.data, cur.exists)
	if t.out.Applied == 0 && sedN == 0 {
		return
	}
	newData := t.out.Content
	final := t.fo.Final
	t.changed = !cur.exists || !bytes.Equal(newData, cur.data) || final != nil
	if final != nil && final.Command == plan.Delete && !cur.exists {
		t.changed = false
	}
	t.newSum = hash.Of(newData)
	if dryRun {
		t.res.Preview = w.renderDiff(t, cur.data, newData)
		return
	}
	if t.changed && budget.Add(-int64(len(newData))) >= 0 {
		t.kept = newData
	}
}

// renderDiff renders a task's change with root-relative paths.
func (w *Workspace) renderDiff(t *task, old, new []byte) string {
	mode := createMode()
	if t.cur != nil && t.cur.exists {
		mode = t.cur.mode
	}
	c := apply.Change{OldPath: t.src, NewPath: t.src, Old: old, New: new, OldMode: mode, NewMode: mode}
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
		src := ""
		if !bytes.Equal(old, new) || c.OldPath == "" {
			src = apply.Unified(c)
		}
		return src + apply.Unified(apply.Change{NewPath: t.dst, New: new, NewMode: mode})
	}
	return apply.Unified(c)
}

// summarize fills a task's FileResult from its outcome.
func summarize(t *task) {
	r := t.res
	if t.fileErr != nil {
		pe := asPlanErr(t.fileErr)
		r.Success = false
		r.Code, r.Error = pe.Code, pe.Error()
		r.EditsFailed = t.fo.NumEdits
		if pe.Index >= 0 {
			r.FailedEdits = append(r.FailedEdits, failedEdit(pe))
		} else {
			for _, op := range t.fo.AllOps() {
				r.FailedEdits = append(r.FailedEdits, &plan.FailedEdit{Index: op.Index, Command: string(op.Command), Code: pe.Code, Error: pe.Error()})
			}
			for _, e := range t.fo.Invalid {
				if e.Index >= 0 {
					r.FailedEdits = append(r.FailedEdits, failedEdit(e))
				}
			}
			sort.Slice(r.FailedEdits, func(i, j int) bool { return r.FailedEdits[i].Index < r.FailedEdits[j].Index })
		}
		return
	}
	r.EditsApplied = t.out.Applied
	r.Replacements = t.out.Replacements
	for _, e := range t.out.Failed {
		if e.Index < 0 {
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

func asPlanErr(err error) *plan.Error {
	var pe *plan.Error
	if asPlanError(err, &pe) {
		return pe
	}
	return &plan.Error{Code: plan.CodeOf(err), Index: -1, Msg: err.Error(), Err: err}
}

// unitsFor turns the changed tasks into commit units and a manifest.
func (w *Workspace) unitsFor(tasks []*task, p *plan.Plan) ([]*unit, *journal.Manifest) {
	m := &journal.Manifest{Command: "apply", Summary: p.Summary}
	var units []*unit
	var names []string
	for _, t := range tasks {
		if !t.changed || t.out == nil {
			continue
		}
		t := t
		names = append(names, t.fo.Path)
		cur := t.cur
		mode, uid, gid := createMode(), 0, 0
		var old *journal.State
		if cur.exists {
			mode, uid, gid = cur.mode.Perm()|cur.mode&modeExtra, cur.ident.Uid, cur.ident.Gid
			old = &journal.State{Hash: hash.Of(cur.data), Size: int64(len(cur.data)), Mode: mode, Uid: uid, Gid: gid}
		}
		newState := &journal.State{Hash: t.newSum, Size: int64(len(t.out.Content)), Mode: mode, Uid: uid, Gid: gid}
		u := &unit{src: t.src, old: old, newSum: t.newSum, kept: t.kept,
			content: func(cur []byte, exists bool) []byte { out, _ := t.produce(cur, exists); return out.Content },
			render:  func(old, new []byte) string { return w.renderDiff(t, old, new) }}
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
			add(&journal.Op{Path: t.dst, Kind: journal.Create, New: newState, Note: "moved from " + t.src})
			if old != nil {
				add(&journal.Op{Path: t.src, Kind: journal.Delete, Old: old, Note: "moved to " + t.dst})
			}
		case f.Command == plan.Copy:
			if old == nil || old.Hash != t.newSum {
				add(&journal.Op{Path: t.src, Kind: inPlace, Old: old, New: newState})
			}
			add(&journal.Op{Path: t.dst, Kind: journal.Create, New: newState, Note: "copied from " + t.src})
		}
		units = append(units, u)
	}
	if m.Summary == "" {
		m.Summary = summaryOf("edit", names)
	}
	return units, m
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
