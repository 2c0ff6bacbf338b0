package engine

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/txedit/txedit/internal/grep"
	"github.com/txedit/txedit/internal/ignore"
	"github.com/txedit/txedit/internal/walk"
	"github.com/txedit/txedit/plan"
)

// Grep searches file contents with ripgrep's semantics: RE2 syntax, line
// by line unless Multiline, .gitignore and .ignore honoured, hidden and
// binary files skipped (a NUL in the first 64 KiB). Results are sorted by
// path (Sort "modified": newest first) and, with HeadLimit, cut to that
// many entries (Truncated says so).
func (w *Workspace) Grep(ctx context.Context, req *plan.GrepRequest) (*plan.GrepResult, error) {
	o := w.begin()
	defer o.end()
	return o.grep(ctx, req)
}

func (o *op) grep(ctx context.Context, req *plan.GrepRequest) (*plan.GrepResult, error) {
	o.charge = chargeOf(ctx)
	res := &plan.GrepResult{Mode: req.OutputMode, Files: []string{}, Counts: []*plan.Count{}, Matches: []*plan.Match{}}
	if res.Mode == "" {
		res.Mode = plan.OutputFiles
	}
	fail := func(err error) (*plan.GrepResult, error) {
		res.Code, res.Error = plan.CodeOf(err), err.Error()
		return res, err
	}
	q, byTime, err := grepQuery(req, res.Mode)
	if err != nil {
		return fail(err)
	}
	globs := append([]string{}, req.Globs...)
	if req.Glob != "" {
		globs = append(globs, req.Glob)
	}
	overrides, err := ignore.ParseOverrides(globs)
	if err != nil {
		return fail(plan.Wrapf(plan.CodeInvalidRequest, "", err, "%v", err))
	}
	types, err := ignore.ParseTypes(req.Type)
	if err != nil {
		return fail(plan.Wrapf(plan.CodeInvalidRequest, "", err, "%v", err))
	}
	start, isDir, err := o.readTarget(req.Path)
	if err != nil {
		return fail(err)
	}
	h := &grepHits{byTime: byTime}
	if !isDir {
		// A file named explicitly is searched whole, binary or not.
		err = o.grepFile(req.Path, start, q, h)
	} else {
		err = o.grepTree(ctx, req, start, q, overrides, types, h)
	}
	if err != nil {
		return fail(err)
	}
	h.report(res, req.HeadLimit)
	res.Success = true
	return res, nil
}

// grepQuery checks a grep request's mode, pattern, sort and context, and
// compiles its query; byTime says the files are sorted by modification
// time.
func grepQuery(req *plan.GrepRequest, mode plan.OutputMode) (q *grep.Query, byTime bool, err error) {
	switch mode {
	case plan.OutputFiles, plan.OutputContent, plan.OutputCount:
	default:
		return nil, false, plan.Errorf(plan.CodeInvalidRequest, "", "output_mode %q: want files_with_matches, content or count", req.OutputMode)
	}
	if req.Pattern == "" {
		return nil, false, plan.Errorf(plan.CodeInvalidRequest, "", "grep needs a pattern")
	}
	switch req.Sort {
	case "", "path":
	case "modified":
		byTime = true
	default:
		return nil, false, plan.Errorf(plan.CodeInvalidRequest, "", "sort %q: want path or modified", req.Sort)
	}
	s, err := grep.Compile(req.Pattern, grep.Options{IgnoreCase: req.IgnoreCase, Multiline: req.Multiline, Literal: req.Literal})
	if err != nil {
		return nil, false, err
	}
	before, after := req.Before, req.After
	if req.Context > 0 {
		if before == 0 {
			before = req.Context
		}
		if after == 0 {
			after = req.Context
		}
	}
	if before < 0 || after < 0 || req.HeadLimit < 0 {
		return nil, false, plan.Errorf(plan.CodeInvalidRequest, "", "context and head_limit must not be negative")
	}
	q = &grep.Query{M: s, Invert: req.Invert, Before: before, After: after}
	switch mode {
	case plan.OutputFiles:
		q.Want = grep.WantAny
	case plan.OutputCount:
		q.Want = grep.WantCount
	default:
		q.Want = grep.WantLines
	}
	if req.Invert {
		q.Before, q.After = 0, 0
	}
	return q, byTime, nil
}

// grepFile searches one file, named explicitly (rel, resolved), whole.
func (o *op) grepFile(named, rel string, q *grep.Query, h *grepHits) error {
	fi, err := o.readFile(named, rel, false)
	if err != nil {
		return err
	}
	if fi.exists {
		var ms []*plan.Match
		n := grep.SearchLines(q, fi.data, func(m *plan.Match) { ms = append(ms, m) })
		h.found(rel, n, ms, 0)
	}
	return nil
}

// grepTree searches the files of a walk from start, as rg does: ignore
// files, overrides and types decide which, unreadable files and those
// that fail half-way are skipped.
func (o *op) grepTree(ctx context.Context, req *plan.GrepRequest, start string, q *grep.Query, overrides *ignore.Overrides, types *ignore.Types, h *grepHits) error {
	// As many walkers as there are processors to run them (as
	// ripgrep has threads), within the workspace's bound: the search
	// is CPU work once files are cached, and each walker holds a
	// buffer and a thread.
	workers := min(o.w.opts.Workers, max(2, runtime.GOMAXPROCS(0)))
	// One scanner (a 64 KiB buffer) and one list of matches per
	// walker goroutine: no locks, no allocation per file.
	scanners := make([]grep.Scanner, workers)
	pending := make([][]*plan.Match, workers)
	return walk.Walk(ctx, o.fsy, walk.Options{Skip: skipJournal, Dir: start, Hidden: req.Hidden, NoIgnore: req.NoIgnore, Workers: workers,
		RequireGit: req.RequireGit, InRepo: req.RequireGit && o.w.rootInRepo(),
		Override: func(rel string, isDir bool) (bool, bool) { return overrides.Decide(relTo(start, rel), isDir) },
		Prune:    func(rel string) bool { return o.w.checkPolicy(rel, rel, false) != nil }},
		func(e *walk.Entry) error {
			if !types.Keep(e.Name) || o.w.readDenied(e.Path) {
				return nil
			}
			r, err := e.OpenReader()
			if err != nil {
				return nil // unreadable files are skipped, as rg does
			}
			ms := pending[e.Worker][:0]
			n, _, err := scanners[e.Worker].Search(r, q, func(m *plan.Match) { ms = append(ms, m) })
			r.Close()
			if err != nil {
				n = 0 // nor are files that fail half-way
			}
			var mt int64
			if n > 0 {
				mt = h.modTime(e)
			}
			if n > 0 && len(ms) > 0 {
				h.found(e.Path, n, append([]*plan.Match(nil), ms...), mt)
			} else {
				h.found(e.Path, n, nil, mt)
			}
			clear(ms)
			pending[e.Worker] = ms[:0]
			return nil
		})
}

// grepHits collects the files a grep found, from the walk's goroutines.
type grepHits struct {
	byTime bool
	mu     sync.Mutex
	hits   []*fileHit
}

// fileHit is a file a grep found.
type fileHit struct {
	path    string
	count   int
	matches []*plan.Match
	mtime   int64 // with byTime
}

// found records a file's result; ms are its matches (content mode).
func (h *grepHits) found(rel string, n int, ms []*plan.Match, mtime int64) {
	if n == 0 {
		return
	}
	for _, m := range ms {
		m.Path = rel
	}
	h.mu.Lock()
	h.hits = append(h.hits, &fileHit{path: rel, count: n, matches: ms, mtime: mtime})
	h.mu.Unlock()
}

// modTime is a found file's modification time, from its directory's
// handle (the walk's entry), when the files are sorted by it.
func (h *grepHits) modTime(e *walk.Entry) int64 {
	if !h.byTime {
		return 0
	}
	fi, err := e.Info.Info()
	if err != nil {
		return 0
	}
	return fi.ModTime().UnixNano()
}

// report sorts the hits into res (by path, or newest first), cut to
// limit entries (0: all).
func (h *grepHits) report(res *plan.GrepResult, limit int) {
	hits, byTime := h.hits, h.byTime
	sort.Slice(hits, func(i, j int) bool {
		if a, b := hits[i], hits[j]; byTime && a.mtime != b.mtime {
			return a.mtime > b.mtime
		}
		return hits[i].path < hits[j].path
	})
	for _, h := range hits {
		switch res.Mode {
		case plan.OutputFiles:
			res.Files = append(res.Files, h.path)
		case plan.OutputCount:
			res.Counts = append(res.Counts, &plan.Count{Path: h.path, Count: h.count})
		case plan.OutputContent:
			res.Matches = append(res.Matches, h.matches...)
		}
	}
	if limit > 0 {
		switch {
		case len(res.Files) > limit:
			res.Files, res.Truncated = res.Files[:limit], true
		case len(res.Counts) > limit:
			res.Counts, res.Truncated = res.Counts[:limit], true
		case len(res.Matches) > limit:
			res.Matches, res.Truncated = res.Matches[:limit], true
		}
	}
}

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

// readDenied is checkPolicy for a path found by a walk that skips the
// journal and staging files (skipJournal): only the policy's deny globs
// are left to ask.
func (w *Workspace) readDenied(rel string) bool {
	return len(w.denyR) > 0 && ignore.AnyMatch(w.denyR, rel)
}

// readTarget resolves the path a read-side tool works on (default: the
// root) and reports whether it is a directory.
func (o *op) readTarget(p string) (string, bool, error) {
	if p == "" {
		p = "."
	}
	rel, err := o.resolve(p)
	if err != nil {
		return "", false, err
	}
	if rel != "." {
		if err := o.w.checkPolicy(p, rel, false); err != nil {
			return "", false, err
		}
	}
	fi, err := o.fsy.Lstat(rel)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", false, plan.Errorf(plan.CodeFileNotFound, p, "no such file or directory")
		}
		return "", false, ioErr(p, err)
	}
	if rel == "." {
		rel = ""
	}
	return rel, fi.IsDir(), nil
}

// relTo returns p relative to dir (both root-relative).
func relTo(dir, p string) string {
	if dir == "" {
		return p
	}
	return strings.TrimPrefix(p, dir+"/")
}

// IsDir reports whether p (resolved and confined like any path) is a
// directory.
func (w *Workspace) IsDir(p string) (bool, error) {
	_, isDir, err := w.direct().readTarget(p)
	return isDir, err
}

// rootInRepo reports whether the workspace root lies inside a git
// repository whose .git is above it (on disk only: an in-memory workspace
// has nothing above its root).
func (w *Workspace) rootInRepo() bool {
	if !w.OnDisk() {
		return false
	}
	for dir := filepath.Dir(w.root); ; dir = filepath.Dir(dir) {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return true
		}
		if dir == filepath.Dir(dir) {
			return false
		}
	}
}
