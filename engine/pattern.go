package engine

import (
	"context"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/txedit/txedit/apply"
	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/internal/ignore"
	"github.com/txedit/txedit/internal/walk"
	"github.com/txedit/txedit/plan"
)

// patternTasks walks a pattern_replace's directory and returns a task for
// every file the substitution changes, and the number of binary files it
// skipped. Files that tasks (the request's fileEdits) already name get the
// pattern applied after their own edits instead.
func (w *Workspace) patternTasks(ctx context.Context, pat *plan.Pattern, tasks []*task) ([]*task, int, error) {
	sed, err := apply.ParseSed(pat.SedPattern, pat.Literal)
	if err != nil {
		return nil, 0, err
	}
	dir := pat.Directory
	start, isDir, err := w.readTarget(dir)
	if err != nil {
		return nil, 0, err
	}
	if !isDir {
		return nil, 0, plan.Errorf(plan.CodeNotRegular, dir, "directory of pattern_replace is not a directory")
	}
	fp := pat.FilePattern
	if fp == "" {
		fp = "*"
	}
	match, err := ignore.CompileGlob(fp)
	if err != nil {
		return nil, 0, plan.Errorf(plan.CodeInvalidRequest, "", "%v", err)
	}
	var xs []string
	for _, x := range pat.ExcludePatterns {
		xs = append(xs, strings.TrimSuffix(x, "/"))
	}
	excludes, err := ignore.CompileGlobs(xs)
	if err != nil {
		return nil, 0, plan.Errorf(plan.CodeInvalidRequest, "", "%v", err)
	}
	excluded := func(rel string, isDir bool) bool {
		// "dir/**" prunes dir itself: its whole subtree is excluded.
		return ignore.AnyMatch(excludes, rel) || (isDir && ignore.AnyMatch(excludes, rel+"/"))
	}
	named := map[string]*task{}
	for _, t := range tasks {
		if t.fileErr == nil {
			named[t.src] = t
		}
	}
	depth := 0
	if !pat.Recursive {
		depth = 1
	}
	var (
		mu      sync.Mutex
		found   []*task
		skipped atomic.Int64
		budget  atomic.Int64
	)
	budget.Store(w.opts.MemoryBudget / 2)
	prog := w.progress(ctx, "scan", 0)
	defer prog.end()
	err = walk.Walk(ctx, w.fsy, walk.Options{Skip: skipJournal, Dir: start, Hidden: pat.Hidden, NoIgnore: pat.NoIgnore, MaxDepth: depth, Workers: w.opts.Workers,
		Prune: func(rel string) bool {
			return excluded(relTo(start, rel), true) || w.checkPolicy(rel, rel, true) != nil
		}},
		func(e *walk.Entry) error {
			prog.add(1)
			rel := relTo(start, e.Path)
			if !match.Match(rel) || excluded(rel, false) || w.checkPolicy(e.Path, e.Path, true) != nil {
				return nil
			}
			if t := named[e.Path]; t != nil {
				t.sed = sed // after the file's own edits, in its task
				return nil
			}
			bp := bufPool.Get().(*[]byte)
			defer bufPool.Put(bp)
			data, err := e.ReadInto(*bp, w.opts.MaxFileSize)
			if err != nil {
				return nil
			}
			*bp = data
			if apply.IsBinary(data) {
				skipped.Add(1)
				return nil
			}
			if _, n := sed.Apply(data); n > 0 {
				fo := &plan.FileOps{Entry: -1, Path: e.Path}
				t := &task{fo: fo, src: e.Path, res: &plan.FileResult{Path: e.Path}, sed: sed}
				// Keep what the walk read, so pass 1 need not read it
				// again; its identity comes from the directory handle.
				if budget.Add(-int64(len(data))) >= 0 {
					if fi, err := e.Info.Info(); err == nil && fi.Mode().IsRegular() && fi.Size() == int64(len(data)) {
						t.cur = &fileInfo{exists: true, data: append([]byte(nil), data...), ident: fsys.IdentityOf(fi), mode: fi.Mode()}
					}
				}
				mu.Lock()
				found = append(found, t)
				mu.Unlock()
			}
			return nil
		})
	if err != nil {
		return nil, 0, err
	}
	sort.Slice(found, func(i, j int) bool { return found[i].src < found[j].src })
	return found, int(skipped.Load()), nil
}

func orRoot(dir string) string {
	if dir == "" || dir == "." {
		return "the root"
	}
	return dir
}
