package engine

import (
	"context"
	"path"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/txedit/txedit/apply"
	"github.com/txedit/txedit/internal/walk"
	"github.com/txedit/txedit/journal"
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
	match, err := relGlob(pat.FilePattern)
	if err != nil {
		return nil, 0, err
	}
	var excludes []func(rel string) bool
	for _, x := range pat.ExcludePatterns {
		m, err := relGlob(strings.TrimSuffix(x, "/"))
		if err != nil {
			return nil, 0, err
		}
		excludes = append(excludes, m)
	}
	excluded := func(rel string, isDir bool) bool {
		for _, m := range excludes {
			// "dir/**" prunes dir itself: its whole subtree is excluded.
			if m(rel) || (isDir && m(rel+"/")) {
				return true
			}
		}
		return false
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
	_, err = walk.Walk(ctx, w.fsys, walk.Options{Dir: start, Hidden: pat.Hidden, NoIgnore: pat.NoIgnore, MaxDepth: depth, Workers: w.opts.Workers,
		Prune: func(rel string) bool {
			return excluded(relTo(start, rel), true) || w.checkPolicy(rel, rel, true) != nil
		}},
		func(e *walk.Entry) error {
			prog.add(1)
			rel := relTo(start, e.Path)
			if !match(rel) || excluded(rel, false) || w.checkPolicy(e.Path, e.Path, true) != nil {
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
						t.cur = &fileInfo{exists: true, data: append([]byte(nil), data...), ident: journal.IdentityOf(fi), mode: fi.Mode()}
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

// relGlob compiles a pattern_replace glob: without "/" it matches the base
// name at any depth, with "/" the path below the directory; "**" crosses
// directories and braces work.
func relGlob(pattern string) (func(rel string) bool, error) {
	if pattern == "" {
		pattern = "*"
	}
	anchored := strings.Contains(pattern, "/")
	g, err := globCompiler.Compile(strings.TrimPrefix(pattern, "/"))
	if err != nil {
		return nil, plan.Errorf(plan.CodeInvalidRequest, "", "bad glob %q: %v", pattern, err)
	}
	return func(rel string) bool {
		if anchored {
			return g.Match(rel)
		}
		return g.Match(path.Base(rel))
	}, nil
}

func orRoot(dir string) string {
	if dir == "" || dir == "." {
		return "the root"
	}
	return dir
}
