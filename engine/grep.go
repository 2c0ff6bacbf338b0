package engine

import (
	"context"
	"errors"
	"io/fs"
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
// path and, with HeadLimit, cut to that many entries (Truncated says so).
func (w *Workspace) Grep(ctx context.Context, req *plan.GrepRequest) (*plan.GrepResult, error) {
	v, release := w.view()
	defer release()
	return v.grep(ctx, req)
}

func (w *Workspace) grep(ctx context.Context, req *plan.GrepRequest) (*plan.GrepResult, error) {
	res := &plan.GrepResult{Mode: req.OutputMode, Files: []string{}, Counts: []*plan.Count{}, Matches: []*plan.Match{}}
	if res.Mode == "" {
		res.Mode = "files_with_matches"
	}
	fail := func(err error) (*plan.GrepResult, error) {
		res.Code, res.Error = plan.CodeOf(err), err.Error()
		return res, err
	}
	switch res.Mode {
	case "files_with_matches", "content", "count":
	default:
		return fail(plan.Errorf(plan.CodeInvalidRequest, "", "output_mode %q: want files_with_matches, content or count", req.OutputMode))
	}
	if req.Pattern == "" {
		return fail(plan.Errorf(plan.CodeInvalidRequest, "", "grep needs a pattern"))
	}
	s, err := grep.Compile(req.Pattern, grep.Options{IgnoreCase: req.IgnoreCase, Multiline: req.Multiline, Literal: req.Literal})
	if err != nil {
		return fail(err)
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
		return fail(plan.Errorf(plan.CodeInvalidRequest, "", "context and head_limit must not be negative"))
	}
	globs := append([]string{}, req.Globs...)
	if req.Glob != "" {
		globs = append(globs, req.Glob)
	}
	overrides, err := ignore.ParseOverrides(globs)
	if err != nil {
		return fail(plan.Errorf(plan.CodeInvalidRequest, "", "%v", err))
	}
	types, err := ignore.ParseTypes(req.Type)
	if err != nil {
		return fail(plan.Errorf(plan.CodeInvalidRequest, "", "%v", err))
	}
	start, isDir, err := w.readTarget(req.Path)
	if err != nil {
		return fail(err)
	}

	type fileHit struct {
		path    string
		count   int
		matches []*plan.Match
	}
	var (
		mu   sync.Mutex
		hits []*fileHit
	)
	wantContent := res.Mode == "content"
	searchOne := func(rel string, buf []byte) {
		h := &fileHit{path: rel}
		if req.Invert {
			h.count = s.Invert(buf, func(b grep.Block) bool {
				if wantContent {
					h.matches = append(h.matches, &plan.Match{Path: rel, Line: b.Line, Text: grep.TrimEOL(buf[b.Start:b.End])})
				}
				return res.Mode != "files_with_matches"
			})
			if h.count > 0 {
				mu.Lock()
				hits = append(hits, h)
				mu.Unlock()
			}
			return
		}
		h.count = s.Search(buf, func(b grep.Block) bool {
			if wantContent {
				m := &plan.Match{Path: rel, Line: b.Line, Text: grep.TrimEOL(buf[b.Start:b.End])}
				if before > 0 {
					m.Before = grep.LinesBefore(buf, b.Start, before)
				}
				if after > 0 {
					m.After = grep.LinesAfter(buf, b.End, after)
				}
				h.matches = append(h.matches, m)
			}
			return res.Mode != "files_with_matches" // one match decides a file
		})
		if h.count > 0 {
			mu.Lock()
			hits = append(hits, h)
			mu.Unlock()
		}
	}
	if !isDir {
		// A file named explicitly is searched whole, binary or not.
		fi, err := w.readFile(req.Path, start, false)
		if err != nil {
			return fail(err)
		}
		if fi.exists {
			searchOne(start, fi.data)
		}
	} else {
		err := walk.Walk(ctx, w.fsy, walk.Options{Skip: skipJournal, Dir: start, Hidden: req.Hidden, NoIgnore: req.NoIgnore, Workers: w.opts.Workers,
			Override: func(rel string, isDir bool) (bool, bool) { return overrides.Decide(relTo(start, rel), isDir) },
			Prune:    func(rel string) bool { return w.checkPolicy(rel, rel, false) != nil }},
			func(e *walk.Entry) error {
				if !types.Keep(e.Name) || w.checkPolicy(e.Path, e.Path, false) != nil {
					return nil
				}
				bp := bufPool.Get().(*[]byte)
				defer bufPool.Put(bp)
				data, err := e.ReadInto(*bp, 1<<40)
				if err != nil {
					return nil // unreadable files are skipped, as rg does
				}
				*bp = data
				if data, ok := grep.Searchable(data); ok {
					searchOne(e.Path, data)
				}
				return nil
			})
		if err != nil {
			return fail(err)
		}
	}
	sort.Slice(hits, func(i, j int) bool { return hits[i].path < hits[j].path })
	limit := req.HeadLimit
	for _, h := range hits {
		switch res.Mode {
		case "files_with_matches":
			res.Files = append(res.Files, h.path)
		case "count":
			res.Counts = append(res.Counts, &plan.Count{Path: h.path, Count: h.count})
		case "content":
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
	res.Success = true
	return res, nil
}

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

// readTarget resolves the path a read-side tool works on (default: the
// root) and reports whether it is a directory.
func (w *Workspace) readTarget(p string) (string, bool, error) {
	if p == "" {
		p = "."
	}
	rel, err := w.resolve(p)
	if err != nil {
		return "", false, err
	}
	if rel != "." {
		if err := w.checkPolicy(p, rel, false); err != nil {
			return "", false, err
		}
	}
	fi, err := w.fsy.Lstat(rel)
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
	_, isDir, err := w.readTarget(p)
	return isDir, err
}
