package engine

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/gobwas/glob"

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
	s, err := newSearcher(req.Pattern, req.IgnoreCase, req.Multiline, req.Literal)
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
	filter, err := newFileFilter(req)
	if err != nil {
		return fail(err)
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
			h.count = invertSearch(s, buf, func(b block) bool {
				if wantContent {
					h.matches = append(h.matches, &plan.Match{Path: rel, Line: b.Line, Text: trimEOL(buf[b.Start:b.End])})
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
		h.count = s.search(buf, func(b block) bool {
			if wantContent {
				m := &plan.Match{Path: rel, Line: b.Line, Text: trimEOL(buf[b.Start:b.End])}
				if before > 0 {
					m.Before = linesBefore(buf, b.Start, before)
				}
				if after > 0 {
					m.After = linesAfter(buf, b.End, after)
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
		_, err := walk.Walk(ctx, w.fsys, walk.Options{Dir: start, Hidden: req.Hidden, NoIgnore: req.NoIgnore, Workers: w.opts.Workers,
			Override: func(rel string, isDir bool) (bool, bool) { return filter.override(relTo(start, rel), isDir) },
			Prune:    func(rel string) bool { return w.checkPolicy(rel, rel, false) != nil }},
			func(e *walk.Entry) error {
				if !filter.keepType(e.Name) || w.checkPolicy(e.Path, e.Path, false) != nil {
					return nil
				}
				bp := bufPool.Get().(*[]byte)
				defer bufPool.Put(bp)
				data, err := e.ReadInto(*bp, 1<<40)
				if err != nil {
					return nil // unreadable files are skipped, as rg does
				}
				*bp = data
				if data, ok := searchable(data); ok {
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

// invertSearch emits, as one-line blocks, the lines of buf that no match
// touches (grep -v).
func invertSearch(s *searcher, buf []byte, emit func(block) bool) int {
	n, pos, line := 0, 0, 1
	stop := false
	emitUpTo := func(end int) {
		for pos < end && !stop {
			le := len(buf)
			if i := bytes.IndexByte(buf[pos:], '\n'); i >= 0 {
				le = pos + i + 1
			}
			n++
			if !emit(block{Start: pos, End: le, Line: line}) {
				stop = true
			}
			pos = le
			line++
		}
	}
	s.search(buf, func(b block) bool {
		emitUpTo(b.Start)
		line += bytes.Count(buf[b.Start:b.End], []byte{'\n'})
		if b.End == len(buf) && (len(buf) == 0 || buf[len(buf)-1] != '\n') {
			line++
		}
		pos = b.End
		return !stop
	})
	emitUpTo(len(buf))
	return n
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
	fi, err := w.fsys.Lstat(rel)
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

// fileFilter applies grep's glob and type filters. Globs follow ripgrep's
// -g: gitignore-like ("!" excludes, a glob without "/" matches the base
// name, one with "/" the path below the searched directory), with braces;
// when any glob includes, only files it matches are searched.
type fileFilter struct {
	globs    []overrideGlob
	includes bool
	types    []*glob.Pattern
}

type overrideGlob struct {
	g        *glob.Pattern
	exclude  bool
	dirOnly  bool
	anchored bool
}

var globCompiler = glob.Compiler{Separators: []rune{'/'}, Globstar: true}

func newFileFilter(req *plan.GrepRequest) (*fileFilter, error) {
	f := &fileFilter{}
	globs := append([]string{}, req.Globs...)
	if req.Glob != "" {
		globs = append(globs, req.Glob)
	}
	for _, g := range globs {
		o := overrideGlob{}
		if strings.HasPrefix(g, "!") {
			o.exclude, g = true, g[1:]
		} else {
			f.includes = true
		}
		if strings.HasSuffix(g, "/") {
			o.dirOnly, g = true, strings.TrimRight(g, "/")
		}
		if strings.Contains(g, "/") {
			o.anchored, g = true, strings.TrimPrefix(g, "/")
		}
		p, err := globCompiler.Compile(g)
		if err != nil {
			return nil, plan.Errorf(plan.CodeInvalidRequest, "", "bad glob %q: %v", g, err)
		}
		o.g = p
		f.globs = append(f.globs, o)
	}
	for _, t := range strings.FieldsFunc(req.Type, func(r rune) bool { return r == ',' || r == ' ' }) {
		defs, ok := fileTypes[t]
		if !ok {
			return nil, plan.Errorf(plan.CodeInvalidRequest, "", "unknown type %q (known: %s)", t, typeNames())
		}
		for _, d := range defs {
			p, err := globCompiler.Compile(d)
			if err != nil {
				return nil, err
			}
			f.types = append(f.types, p)
		}
	}
	return f, nil
}

// match returns the last glob matching rel, as gitignore does.
func (f *fileFilter) match(rel string, isDir bool) *overrideGlob {
	base := path.Base(rel)
	for i := len(f.globs) - 1; i >= 0; i-- {
		o := &f.globs[i]
		if o.dirOnly && !isDir {
			continue
		}
		subject := base
		if o.anchored {
			subject = rel
		}
		if o.g.Match(subject) {
			return o
		}
	}
	return nil
}

// override is ripgrep's override decision for a path below the searched
// directory: the last matching glob decides (an include beats .gitignore,
// an exclude prunes); a file that no glob matches is left out when there
// are include globs; otherwise the ignore files decide.
func (f *fileFilter) override(rel string, isDir bool) (ignored, decided bool) {
	if o := f.match(rel, isDir); o != nil {
		return o.exclude, true
	}
	if f.includes && !isDir {
		return true, true
	}
	return false, false
}

// keepType applies the type filter to a file name.
func (f *fileFilter) keepType(name string) bool {
	if len(f.types) == 0 {
		return true
	}
	for _, t := range f.types {
		if t.Match(name) {
			return true
		}
	}
	return false
}

// IsDir reports whether p (resolved and confined like any path) is a
// directory.
func (w *Workspace) IsDir(p string) (bool, error) {
	_, isDir, err := w.readTarget(p)
	return isDir, err
}
