package engine

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/txedit/txedit/apply"
	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/hash"
	"github.com/txedit/txedit/internal/grep"
	"github.com/txedit/txedit/internal/ignore"
	"github.com/txedit/txedit/internal/walk"
	"github.com/txedit/txedit/plan"
)

// Read runs an fs_read request and returns one result per path, in
// request order; a failure of one path does not stop the others.
func (w *Workspace) Read(ctx context.Context, req *plan.ReadRequest) ([]*plan.ReadResult, error) {
	var out []*plan.ReadResult
	err := w.ReadEach(ctx, req, func(r *plan.ReadResult) error {
		out = append(out, r)
		return nil
	})
	return out, err
}

// ReadEach is Read delivering each result to fn as soon as it and all
// before it are ready, in request order, from the calling goroutine. The
// paths are read in parallel, but only a bounded window ahead of fn, so a
// batch read of a whole tree holds a few files in memory, not the tree.
func (w *Workspace) ReadEach(ctx context.Context, req *plan.ReadRequest, fn func(*plan.ReadResult) error) error {
	return ReadEachMapped(ctx, w, req, func(r *plan.ReadResult) *plan.ReadResult { return r }, fn)
}

// ReadEachMapped is ReadEach with a step run on the reading goroutines
// before delivery, such as encoding each result, so that step runs in
// parallel too.
func ReadEachMapped[T any](ctx context.Context, w *Workspace, req *plan.ReadRequest, mapFn func(*plan.ReadResult) T, fn func(T) error) error {
	o := w.begin()
	defer o.end()
	return readEach(ctx, o, req, mapFn, fn)
}

func readEach[T any](ctx context.Context, o *op, req *plan.ReadRequest, mapFn func(*plan.ReadResult) T, fn func(T) error) error {
	o.charge = chargeOf(ctx)
	mode := strings.ToLower(req.Mode)
	paths := req.Paths
	if req.Path != "" {
		paths = append([]string{req.Path}, paths...)
	}
	if mode == "image" {
		paths = append(paths, req.ImagePaths...)
	}
	switch mode {
	case "line", "directory", "search", "image":
	case "":
		return plan.Errorf(plan.CodeInvalidRequest, "", "missing mode: Line, Directory, Search or Image")
	default:
		return plan.Errorf(plan.CodeInvalidRequest, "", "unknown mode %q: want Line, Directory, Search or Image", req.Mode)
	}
	if len(paths) == 0 {
		return plan.Errorf(plan.CodeInvalidRequest, "", "fs_read needs path or paths")
	}
	if mode == "search" && req.Pattern == "" {
		return plan.Errorf(plan.CodeInvalidRequest, "", "Search mode needs a pattern")
	}
	one := func(p string) *plan.ReadResult {
		r := &plan.ReadResult{Path: p}
		var err error
		switch mode {
		case "line":
			err = o.readLines(r, req, true)
		case "directory":
			depth := 0
			if req.Depth != nil {
				depth = *req.Depth
			}
			err = o.readDirectory(ctx, r, depth)
		case "search":
			err = o.readSearch(r, req)
		case "image":
			err = o.readImage(r)
		}
		if err != nil {
			pe := plan.As(err)
			r.Success, r.Code, r.Error = false, pe.Code, pe.Error()
		} else {
			r.Success = true
		}
		return r
	}
	return ordered(ctx, len(paths), o.w.opts.Workers, func(i int) T { return mapFn(one(paths[i])) }, fn)
}

// ordered runs produce(0..n-1) on workers goroutines, at most a window of
// 4×workers results ahead of the consumer, and hands the results to
// consume in index order on the calling goroutine.
func ordered[T any](ctx context.Context, n, workers int, produce func(int) T, consume func(T) error) error {
	window := 4 * workers
	slots := make([]chan T, n)
	for i := range slots {
		slots[i] = make(chan T, 1)
	}
	sem := make(chan struct{}, window)
	next := make(chan int)
	done := make(chan struct{})
	defer close(done)
	go func() {
		defer close(next)
		for i := 0; i < n; i++ {
			select {
			case sem <- struct{}{}:
			case <-done:
				return
			}
			select {
			case next <- i:
			case <-done:
				return
			}
		}
	}()
	for k := 0; k < workers; k++ {
		go func() {
			for i := range next {
				slots[i] <- produce(i)
			}
		}()
	}
	for i := 0; i < n; i++ {
		var r T
		select {
		case r = <-slots[i]:
		case <-ctx.Done():
			return ctx.Err()
		}
		<-sem
		if err := consume(r); err != nil {
			return err
		}
	}
	return nil
}

// openForRead resolves, checks policy and reads a file for a read tool.
func (o *op) openForRead(p string) (string, *fileInfo, error) {
	rel, err := o.resolve(p)
	if err != nil {
		return "", nil, err
	}
	if err := o.w.checkPolicy(p, rel, false); err != nil {
		return "", nil, err
	}
	fi, err := o.readFile(p, rel, false)
	if err != nil {
		return "", nil, err
	}
	if !fi.exists {
		return "", nil, plan.Errorf(plan.CodeFileNotFound, p, "no such file")
	}
	return rel, fi, nil
}

// fileStatReader is a directory that reads a regular file whole and says
// what it read (fsys's Linux directories).
type fileStatReader interface {
	ReadFileStat(name string, max int64) ([]byte, fs.FileInfo, error)
}

// quickRead reads p as openForRead would, on the fast path: a plain
// relative path, the policy allowing it, its directory held from the
// operation's view (fsys.FS.HoldDir: opened one component at a time from
// the root without following a symlink, so p is its own resolved path,
// and cached, so a batch read of a tree costs openat, fstat, read and
// close per file), a regular file of allowed size. Anything else (a
// symlink, an error, a FIFO, a file system without such directories)
// returns false, and the caller takes the full path, which gives the same
// result or the same error.
func (o *op) quickRead(p string) (*fileInfo, bool) {
	w := o.w
	if p == "" || p[0] == '/' || p[0] == '~' || path.Clean(p) != p || p == ".." || strings.HasPrefix(p, "../") || strings.IndexByte(p, 0) >= 0 {
		return nil, false
	}
	if w.checkPolicy(p, p, false) != nil || o.charge.waits() {
		// A call's first file under a budget is charged before it is
		// read (readFileOnce), which may wait: the full path.
		return nil, false
	}
	dir, base := path.Split(p)
	if dir = strings.TrimSuffix(dir, "/"); dir == "" {
		dir = "."
	}
	d, release, err := o.fsy.HoldDir(dir)
	if err != nil {
		return nil, false
	}
	defer release()
	rd, ok := d.(fileStatReader)
	if !ok {
		return nil, false
	}
	data, fi, err := rd.ReadFileStat(base, w.opts.MaxFileSize)
	if err != nil || int64(len(data)) != fi.Size() || o.charge.take(fi.Size()) != nil {
		return nil, false
	}
	return &fileInfo{exists: true, data: data, ident: fsys.IdentityOf(fi), mode: fi.Mode()}, true
}

func stamp(fi *fileInfo) string {
	return time.Unix(0, fi.ident.Mtime).UTC().Format(time.RFC3339Nano)
}

// readLines reads r.Path's lines; fast: try quickRead first.
func (o *op) readLines(r *plan.ReadResult, req *plan.ReadRequest, fast bool) error {
	var fi *fileInfo
	ok := false
	if fast {
		fi, ok = o.quickRead(r.Path)
	}
	if !ok {
		var err error
		if _, fi, err = o.openForRead(r.Path); err != nil {
			return err
		}
	}
	if apply.IsBinary(fi.data) {
		// The file's hash goes with the refusal: the session has seen
		// these bytes, and may then replace, move or delete them.
		r.FileHash = hash.Of(fi.data).String()
		return plan.Errorf(plan.CodeBinaryFile, r.Path, "is binary (a NUL byte in its first 8000 bytes); use Image mode for images")
	}
	n := countLines(fi.data)
	start, end := 1, -1
	if req.StartLine != nil {
		start = *req.StartLine
	}
	if req.EndLine != nil {
		end = *req.EndLine
	}
	if start < 0 {
		start = n + 1 + start
	}
	if end < 0 {
		end = n + 1 + end
	}
	switch {
	case req.StartLine != nil && *req.StartLine == 0, req.EndLine != nil && *req.EndLine == 0:
		return plan.Errorf(plan.CodeInvalidRequest, r.Path, "line numbers are 1-based (negative counts from the end); 0 is not a line")
	case start < 1:
		start = 1
	}
	if end > n {
		end = n
	}
	r.FileHash = hash.Of(fi.data).String()
	r.LastModified = stamp(fi)
	r.TotalLines = n
	if n == 0 {
		r.ContentHash = r.FileHash
		return nil
	}
	if start > n {
		return plan.Errorf(plan.CodeLineOutOfRange, r.Path, "start_line %d is past the end: the file has %d lines", start, n)
	}
	if end < start {
		return plan.Errorf(plan.CodeInvalidRequest, r.Path, "end_line %d is before start_line %d", end, start)
	}
	r.StartLine, r.EndLine = start, end
	// fi.data is this read's own buffer and is never written again, so
	// the content can share it instead of copying it.
	if start == 1 && end == n {
		r.Content, r.ContentHash = unsafe.String(&fi.data[0], len(fi.data)), r.FileHash
	} else {
		lo, hi, _ := hash.LineSpan(fi.data, start, end)
		r.Content = unsafe.String(&fi.data[lo], hi-lo)
		r.ContentHash = hash.Token{Sum: hash.Of(fi.data[lo:hi]), Start: start, End: end}.String()
	}
	if !utf8.ValidString(r.Content) {
		r.Warning = "the file is not valid UTF-8: invalid bytes show as U+FFFD here and cannot be matched by str_replace; edit such lines with replace_lines"
	}
	return nil
}

func countLines(data []byte) int {
	n := bytes.Count(data, []byte{'\n'})
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}

func (o *op) readDirectory(ctx context.Context, r *plan.ReadResult, depth int) error {
	ents, err := o.list(ctx, r.Path, ListOptions{Depth: depth})
	if err != nil {
		return err
	}
	r.Entries = ents
	var b strings.Builder
	for _, e := range ents {
		name := e.Path
		if e.Target != "" {
			name += " -> " + e.Target
		}
		fmt.Fprintf(&b, "%s %10d %s %s\n", e.Mode, e.Size, e.Modified[:19], name)
	}
	r.Content = b.String()
	return nil
}

func (o *op) readSearch(r *plan.ReadResult, req *plan.ReadRequest) error {
	rel, fi, err := o.openForRead(r.Path)
	if err != nil {
		return err
	}
	if apply.IsBinary(fi.data) {
		return plan.Errorf(plan.CodeBinaryFile, r.Path, "is binary; Search mode reads text")
	}
	ctxLines := 2
	if req.ContextLines != nil {
		ctxLines = *req.ContextLines
	}
	s, err := grep.Compile(req.Pattern, grep.Options{IgnoreCase: true, Literal: true})
	if err != nil {
		return err
	}
	s.Search(fi.data, func(bl grep.Block) bool {
		r.Matches = append(r.Matches, &plan.Match{Path: rel, Line: bl.Line, Text: grep.TrimEOL(fi.data[bl.Start:bl.End]),
			Before: grep.LinesBefore(fi.data, bl.Start, ctxLines), After: grep.LinesAfter(fi.data, bl.End, ctxLines)})
		return true
	})
	// Each line once, however the contexts overlap; "--" between groups
	// that do not touch (grep -C's rendering, as ripgrep's printer does).
	var b strings.Builder
	for _, l := range grep.Lines(r.Matches) {
		if l.Gap {
			b.WriteString("--\n")
		}
		fmt.Fprintf(&b, "Line %d: %s\n", l.N, l.Text)
	}
	r.Content = b.String()
	r.FileHash, r.ContentHash, r.LastModified = hash.Of(fi.data).String(), hash.Of(fi.data).String(), stamp(fi)
	return nil
}

// maxImage bounds images returned inline.
const maxImage = 20 << 20

func (o *op) readImage(r *plan.ReadResult) error {
	rel, fi, err := o.openForRead(r.Path)
	if err != nil {
		return err
	}
	if len(fi.data) > maxImage {
		return plan.Errorf(plan.CodeTooLarge, r.Path, "is %d bytes; images are returned up to %d", len(fi.data), maxImage)
	}
	mt := imageType(fi.data)
	if mt == "" {
		return plan.Errorf(plan.CodeInvalidRequest, r.Path, "is not an image txedit recognises (PNG, JPEG, GIF, WebP, BMP, TIFF, ICO, SVG)")
	}
	r.Images = []*plan.Image{{Path: rel, Data: base64.StdEncoding.EncodeToString(fi.data), MediaType: mt}}
	r.FileHash, r.ContentHash, r.LastModified = hash.Of(fi.data).String(), hash.Of(fi.data).String(), stamp(fi)
	return nil
}

// imageType names an image's media type from its first bytes.
func imageType(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(b, []byte{0xFF, 0xD8, 0xFF}):
		return "image/jpeg"
	case bytes.HasPrefix(b, []byte("GIF87a")), bytes.HasPrefix(b, []byte("GIF89a")):
		return "image/gif"
	case len(b) >= 12 && bytes.Equal(b[:4], []byte("RIFF")) && bytes.Equal(b[8:12], []byte("WEBP")):
		return "image/webp"
	case bytes.HasPrefix(b, []byte("BM")) && len(b) > 14:
		return "image/bmp"
	case bytes.HasPrefix(b, []byte("II*\x00")), bytes.HasPrefix(b, []byte("MM\x00*")):
		return "image/tiff"
	case bytes.HasPrefix(b, []byte{0, 0, 1, 0}):
		return "image/x-icon"
	}
	head := b
	if len(head) > 1024 {
		head = head[:1024]
	}
	if t := bytes.TrimSpace(head); bytes.HasPrefix(t, []byte("<svg")) || (bytes.HasPrefix(t, []byte("<?xml")) && bytes.Contains(t, []byte("<svg"))) {
		return "image/svg+xml"
	}
	return ""
}

// ListOptions configure List.
type ListOptions struct {
	// Depth is how many levels below the directory to include (0: its
	// own entries).
	Depth int
	// Ignore holds globs of entries to leave out (a glob without "/"
	// matches the name at any depth).
	Ignore []string
	// Each, if set, is called with every entry listed and its file
	// information, whose Sys() holds the platform's stat data (links,
	// owner, blocks: what an ls -l listing shows).
	Each func(*plan.DirEntry, fs.FileInfo)
}

// List lists a directory like ls -la: every entry (dot-files too) but
// txedit's journal and what the deny lists refuse to read, sorted by
// path, with kind, size, mode and time.
// Subdirectories are listed down to Depth; .git is listed, not entered.
func (w *Workspace) List(ctx context.Context, p string, lo ListOptions) ([]*plan.DirEntry, error) {
	return w.direct().list(ctx, p, lo)
}

func (o *op) list(ctx context.Context, p string, lo ListOptions) ([]*plan.DirEntry, error) {
	start, isDir, err := o.readTarget(p)
	if err != nil {
		return nil, err
	}
	if !isDir {
		return nil, plan.Errorf(plan.CodeNotRegular, p, "is not a directory")
	}
	ignores, err := ignore.CompileGlobs(lo.Ignore)
	if err != nil {
		return nil, plan.Wrapf(plan.CodeInvalidRequest, "", err, "%v", err)
	}
	var out []*plan.DirEntry
	var visit func(dir string, depth int) error
	visit = func(dir string, depth int) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		name := dir
		if name == "" {
			name = "."
		}
		ents, err := o.fsy.ReadDir(name)
		if err != nil {
			return ioErr(name, err)
		}
	entries:
		for _, e := range ents {
			rel := join(dir, e.Name())
			if skipJournal(e.Name()) {
				continue
			}
			// A name the deny lists cover is not listed (nor entered):
			// its name is what a read of it would begin with.
			if o.w.readDenied(rel) {
				continue
			}
			if ignore.AnyMatch(ignores, relTo(start, rel)) {
				continue entries
			}
			info, err := e.Info()
			if err != nil {
				continue
			}
			de := &plan.DirEntry{Path: rel, Name: e.Name(), Size: info.Size(), Mode: info.Mode().String(),
				Modified: info.ModTime().UTC().Format(time.RFC3339Nano), Kind: kindOf(info.Mode())}
			if de.Kind == plan.KindSymlink {
				de.Target, _ = o.fsy.Readlink(rel)
			}
			if lo.Each != nil {
				lo.Each(de, info)
			}
			out = append(out, de)
			if de.Kind == plan.KindDir && depth < lo.Depth && e.Name() != ".git" {
				if err := visit(rel, depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := visit(start, 0); err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

func kindOf(m fs.FileMode) plan.EntryKind {
	switch {
	case m.IsDir():
		return plan.KindDir
	case m&fs.ModeSymlink != 0:
		return plan.KindSymlink
	case m.IsRegular():
		return plan.KindFile
	}
	return plan.KindOther
}

func join(dir, name string) string {
	if dir == "" || dir == "." {
		return name
	}
	return dir + "/" + name
}

// GlobOptions configure Glob.
type GlobOptions struct {
	Pattern  string // relative to Path; without "/" it matches base names at any depth
	Path     string // directory to search (default: the root)
	Hidden   bool   // include dot-files
	NoIgnore bool   // do not honour .gitignore / .ignore
	Limit    int    // at most this many entries (0: all)
	// Dirs lists directories too; OnlyDirs lists nothing else.
	Dirs, OnlyDirs bool
	// Relative makes the paths relative to Path instead of the root.
	Relative bool
	// NewestFirst sorts by modification time, newest first (ties by
	// path), before Limit cuts: what Claude Code's Glob returns.
	NewestFirst bool
	// Exclude holds globs, relative to Path, of entries to leave out (a
	// glob without "/" matches names at any depth; an excluded directory
	// is not entered).
	Exclude []string
}

// Glob returns the files (and, if asked, directories) under Path matching
// Pattern ("**" crosses directories, braces and classes work), sorted by
// path (or, with NewestFirst, by modification time), root-relative.
func (w *Workspace) Glob(ctx context.Context, o GlobOptions) (*plan.GlobResult, error) {
	res := &plan.GlobResult{Files: []string{}}
	fail := func(err error) (*plan.GlobResult, error) {
		res.Code, res.Error = plan.CodeOf(err), err.Error()
		return res, err
	}
	if o.Pattern == "" {
		return fail(plan.Errorf(plan.CodeInvalidRequest, "", "glob needs a pattern"))
	}
	g, err := ignore.CompileGlob(o.Pattern)
	if err != nil {
		return fail(plan.Wrapf(plan.CodeInvalidRequest, "", err, "%v", err))
	}
	excl, err := ignore.CompileGlobs(o.Exclude)
	if err != nil {
		return fail(plan.Wrapf(plan.CodeInvalidRequest, "", err, "exclude: %v", err))
	}
	v := w.begin()
	defer v.end()
	start, isDir, err := v.readTarget(o.Path)
	if err != nil {
		return fail(err)
	}
	if !isDir {
		return fail(plan.Errorf(plan.CodeNotRegular, o.Path, "is not a directory"))
	}
	var mu sync.Mutex
	mtime := map[string]int64{}
	err = walk.Walk(ctx, v.fsy, walk.Options{Skip: skipJournal, Dir: start, Hidden: o.Hidden, NoIgnore: o.NoIgnore, Workers: v.w.opts.Workers,
		Dirs: o.Dirs || o.OnlyDirs,
		Prune: func(rel string) bool {
			return v.w.checkPolicy(rel, rel, false) != nil || ignore.AnyMatch(excl, relTo(start, rel))
		}},
		func(e *walk.Entry) error {
			if o.OnlyDirs && !e.IsDir || ignore.AnyMatch(excl, relTo(start, e.Path)) {
				return nil
			}
			if rel := relTo(start, e.Path); g.Match(rel) && (e.IsDir && v.w.checkPolicy(e.Path, e.Path, false) == nil || !e.IsDir && !v.w.readDenied(e.Path)) {
				p := e.Path
				if o.Relative {
					p = rel
				}
				var t int64
				if o.NewestFirst {
					if info, err := e.Info.Info(); err == nil {
						t = info.ModTime().UnixNano()
					}
				}
				mu.Lock()
				res.Files = append(res.Files, p)
				if o.NewestFirst {
					mtime[p] = t
				}
				mu.Unlock()
			}
			return nil
		})
	if err != nil {
		return fail(err)
	}
	sort.Strings(res.Files)
	if o.NewestFirst {
		sort.SliceStable(res.Files, func(i, j int) bool { return mtime[res.Files[i]] > mtime[res.Files[j]] })
	}
	if o.Limit > 0 && len(res.Files) > o.Limit {
		res.Files, res.Truncated = res.Files[:o.Limit], true
	}
	res.Success = true
	return res, nil
}

// Diff compares two files as diff -u does, through the same renderer as
// dry runs; it returns "" when they are the same.
func (w *Workspace) Diff(ctx context.Context, a, b string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	o := w.direct()
	o.charge = chargeOf(ctx)
	ra, fa, err := o.openForRead(a)
	if err != nil {
		return "", err
	}
	rb, fb, err := o.openForRead(b)
	if err != nil {
		return "", err
	}
	if bytes.Equal(fa.data, fb.data) {
		return "", nil
	}
	if apply.IsBinary(fa.data) || apply.IsBinary(fb.data) {
		return fmt.Sprintf("Binary files %s and %s differ\n", ra, rb), nil
	}
	return apply.Plain(ra, rb, fa.data, fb.data), nil
}
