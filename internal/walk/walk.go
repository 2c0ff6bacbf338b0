// Package walk is the one tree walker of txedit: grep, glob, find and
// pattern_replace all use it. It walks in parallel with a bounded number
// of workers, honours .gitignore, .ignore and .git/info/exclude the way
// ripgrep does (a .ignore beats a .gitignore, a nearer file beats a
// farther one, the last matching line of a file wins), skips dot-files
// unless asked, never enters .git (nor what the caller's Skip names), and
// does not follow symlinks.
// Entries arrive in no particular order: callers sort.
package walk

import (
	"context"
	"io"
	"io/fs"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/sourcegraph/conc/panics"
	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/internal/ignore"
	"github.com/txedit/txedit/internal/par"
)

// Options configure a walk.
type Options struct {
	// Dir is the root-relative directory to walk ("" or "." for the root).
	Dir string
	// Hidden includes names that start with a dot.
	Hidden bool
	// NoIgnore disregards .gitignore, .ignore and .git/info/exclude.
	NoIgnore bool
	// RequireGit applies a .gitignore only inside a git repository (a
	// directory with a .git at or above it), as ripgrep does; .ignore
	// files apply everywhere. InRepo says the walked tree's root is
	// itself inside a repository (a .git above it).
	RequireGit, InRepo bool
	// MaxDepth limits the depth: 1 reports only Dir's own entries; 0 is
	// unlimited.
	MaxDepth int
	// Workers bounds the goroutines (default 4).
	Workers int
	// Dirs makes the walk report directories as well as files.
	Dirs bool
	// Prune, if set, is asked about each directory that is not ignored;
	// true skips it and everything below.
	Prune func(rel string) bool
	// Override, if set, decides before the ignore files do (ripgrep's -g
	// globs): decided means its answer stands, even against .gitignore.
	Override func(rel string, isDir bool) (ignored, decided bool)
	// Skip, if set, names entries that are never reported nor entered,
	// whatever the other options say (the journal's directory and
	// staging files, say).
	Skip func(name string) bool
	// OnError, if set, is told about each directory that could not be
	// read; the walk skips it and goes on.
	OnError func(rel string, err error)
}

// Entry is a regular file (or, with Options.Dirs, a directory) found by a
// walk. The walk may reuse an Entry once fn returns: fn keeps its fields,
// never the pointer.
type Entry struct {
	Path  string // root-relative, "/"-separated
	Name  string
	IsDir bool
	Depth int // 1 for entries of the walked directory itself
	Info  fs.DirEntry
	// Worker numbers the goroutine fn runs on, from 0 to
	// Options.Workers-1: state indexed by it needs no lock.
	Worker int
	dir    *handle
}

// Open opens the file for reading, relative to its directory's handle.
func (e *Entry) Open() (fsys.File, error) { return e.dir.d.Open(e.Name) }

// readerDir is a directory that opens files for plain sequential reads,
// without what an fsys.File carries.
type readerDir interface {
	OpenReader(name string) (io.ReadCloser, error)
}

// OpenReader opens the file for sequential reading, relative to its
// directory's handle, by the cheapest means the file system has.
func (e *Entry) OpenReader() (io.ReadCloser, error) {
	if r, ok := e.dir.d.(readerDir); ok {
		return r.OpenReader(e.Name)
	}
	return e.dir.d.Open(e.Name)
}

// ReadInto reads the whole file into buf (reused, grown as needed): one
// openat, read and close on the OS file system. Files longer than max are
// an error satisfying errors.Is(err, fsys.ErrTooLarge).
func (e *Entry) ReadInto(buf []byte, max int64) ([]byte, error) {
	return e.dir.d.ReadFile(e.Name, buf, max)
}

// ReadIntoStat is ReadInto, then want of the bytes read; when want returns
// true, also the status of the file read, taken from its descriptor
// before it is closed ([fsys.StatReader]: one fstat more, on the OS file
// system). The status is nil where the directory cannot take it (or want
// returned false): Info, a look-up by name, does not prove which file the
// bytes came from.
func (e *Entry) ReadIntoStat(buf []byte, max int64, want func(data []byte) bool) ([]byte, fs.FileInfo, error) {
	if sr, ok := e.dir.d.(fsys.StatReader); ok {
		return sr.ReadFileStatIf(e.Name, buf, max, want)
	}
	data, err := e.dir.d.ReadFile(e.Name, buf, max)
	if err == nil {
		want(data)
	}
	return data, nil, err
}

// ReadIntoScan is ReadIntoStat through [fsys.ScanReader] where the
// directory is one: a file larger than buf is read whole only once may
// says a piece of it may hold what the caller looks for (data nil, err
// nil: it never did). Elsewhere it is ReadIntoStat (may is not asked).
func (e *Entry) ReadIntoScan(buf []byte, max int64, overlap int, may func(piece []byte, first bool) (hit, stop bool), want func(data []byte) bool) ([]byte, fs.FileInfo, error) {
	if sr, ok := e.dir.d.(fsys.ScanReader); ok {
		return sr.ReadFileStatScan(e.Name, buf, max, overlap, may, want)
	}
	return e.ReadIntoStat(buf, max, want)
}

type handle struct {
	d    fsys.Dir
	refs atomic.Int32
}

func (h *handle) release() {
	if h.refs.Add(-1) == 0 {
		h.d.Close()
	}
}

// rules is the chain of ignore files that apply in a directory.
type rules struct {
	parent    *rules
	gitignore *ignore.List
	dotignore *ignore.List
	exclude   *ignore.List // .git/info/exclude of a repository root
	repoRoot  bool
	inRepo    bool // a repository root is here or above
}

// ignored applies ripgrep's precedence: .ignore files nearest first, then
// .gitignore files nearest first up to the repository root, then the
// repository's info/exclude.
func (r *rules) ignored(p string, isDir bool) bool {
	for x := r; x != nil; x = x.parent {
		if x.dotignore != nil {
			if ig, ok := x.dotignore.Match(p, isDir); ok {
				return ig
			}
		}
	}
	for x := r; x != nil; x = x.parent {
		if x.gitignore != nil {
			if ig, ok := x.gitignore.Match(p, isDir); ok {
				return ig
			}
		}
		if x.repoRoot {
			break
		}
	}
	for x := r; x != nil; x = x.parent {
		if x.repoRoot {
			if x.exclude != nil {
				if ig, ok := x.exclude.Match(p, isDir); ok {
					return ig
				}
			}
			break
		}
	}
	return false
}

type job struct {
	dir   string // root-relative, "" for the root
	depth int    // depth of the directory itself (the walked dir is 0)
	rules *rules
	// h is the directory's parent, held open until the directory is
	// opened through it (nil for the walked directory); for a file
	// batch, the directory itself.
	h *handle
	// A file batch: entries of an open directory.
	files []fs.DirEntry
}

type walker struct {
	ctx   context.Context
	fsys  fsys.FS
	opts  Options
	fn    func(*Entry) error
	mu    sync.Mutex
	cond  *sync.Cond
	queue []job
	open  int // jobs queued or running
	err   error
}

// fileBatch is how many files of one directory one job handles, so that a
// huge directory is shared among the workers.
const fileBatch = 64

// Walk walks opts.Dir and calls fn for every file (and directory, with
// Options.Dirs) that is not skipped. fn is called from several goroutines
// at once. An error from fn, or the context's end, stops the walk and is
// returned; unreadable directories are skipped and told to Options.OnError.
// A panic in fn is returned as a *par.PanicError.
func Walk(ctx context.Context, fsy fsys.FS, opts Options, fn func(*Entry) error) error {
	start := strings.Trim(path.Clean("/"+opts.Dir), "/")
	if opts.Workers <= 0 {
		opts.Workers = 4
	}
	w := &walker{ctx: ctx, fsys: fsy, opts: opts, fn: fn}
	w.cond = sync.NewCond(&w.mu)
	var r *rules
	if !opts.NoIgnore {
		// Ignore files above the walked directory apply too (within the
		// workspace root; nothing outside it is read).
		var dirs []string
		if start != "" {
			dirs = append(dirs, "")
			parts := strings.Split(start, "/")
			for i := 1; i < len(parts); i++ {
				dirs = append(dirs, strings.Join(parts[:i], "/"))
			}
		}
		for _, d := range dirs {
			r = w.loadRules(r, d, nil)
		}
	}
	w.push(job{dir: start, depth: 0, rules: r})
	var wg sync.WaitGroup
	for i := 0; i < opts.Workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				j, ok := w.pop()
				if !ok {
					return
				}
				// A panic in fn or below is the walk's error: the
				// caller cleans up, the process goes on.
				var c panics.Catcher
				c.Try(func() { w.do(j, i) })
				if r := c.Recovered(); r != nil {
					w.fail(&par.PanicError{Value: r.Value, Stack: r.Stack})
				}
				w.done()
			}
		}()
	}
	wg.Wait()
	// After a failure, jobs left in the queue still hold directories.
	for _, j := range w.queue {
		if j.h != nil {
			j.h.release()
		}
	}
	return w.err
}

func (w *walker) push(j job) {
	w.mu.Lock()
	w.queue = append(w.queue, j)
	w.open++
	w.mu.Unlock()
	w.cond.Signal()
}

func (w *walker) pop() (job, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for len(w.queue) == 0 && w.open > 0 && w.err == nil {
		w.cond.Wait()
	}
	if w.err != nil || len(w.queue) == 0 {
		return job{}, false
	}
	j := w.queue[len(w.queue)-1]
	w.queue = w.queue[:len(w.queue)-1]
	return j, true
}

func (w *walker) done() {
	w.mu.Lock()
	w.open--
	if w.open == 0 {
		w.cond.Broadcast()
	}
	w.mu.Unlock()
}

func (w *walker) fail(err error) {
	w.mu.Lock()
	if w.err == nil {
		w.err = err
	}
	w.mu.Unlock()
	w.cond.Broadcast()
}

func (w *walker) failed() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err != nil
}

func join(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

func (w *walker) do(j job, worker int) {
	if err := w.ctx.Err(); err != nil {
		if j.h != nil {
			j.h.release()
		}
		w.fail(err)
		return
	}
	if j.files != nil {
		w.files(j, worker)
		return
	}
	name := j.dir
	if name == "" {
		name = "."
	}
	// A directory is opened through its parent's handle (one system
	// call, no path resolution) when its turn comes: the queue is LIFO,
	// so the parents held open are those along the paths being walked.
	var d fsys.Dir
	var err error
	if j.h != nil {
		d, err = j.h.d.OpenDir(path.Base(j.dir))
		j.h.release()
	} else {
		d, err = w.fsys.OpenDir(name)
	}
	if err != nil {
		w.skip(name, err)
		return
	}
	ents, err := d.ReadDir()
	if err != nil {
		d.Close()
		w.skip(name, err)
		return
	}
	r := j.rules
	if !w.opts.NoIgnore {
		r = w.loadRules(r, j.dir, &dirSource{d, ents})
	}
	h := &handle{d: d}
	h.refs.Store(1)
	defer h.release()
	files := make([]fs.DirEntry, 0, len(ents))
	for _, e := range ents {
		n := e.Name()
		if n == ".git" || (!w.opts.Hidden && n[0] == '.') || (w.opts.Skip != nil && w.opts.Skip(n)) {
			continue
		}
		p := join(j.dir, n)
		switch t := e.Type(); {
		case t.IsDir():
			if w.skipped(r, p, true) {
				continue
			}
			if w.opts.Prune != nil && w.opts.Prune(p) {
				continue
			}
			if w.opts.Dirs {
				if err := w.fn(&Entry{Path: p, Name: n, IsDir: true, Depth: j.depth + 1, Info: e, Worker: worker, dir: h}); err != nil {
					w.fail(err)
					return
				}
			}
			if w.opts.MaxDepth == 0 || j.depth+1 < w.opts.MaxDepth {
				h.refs.Add(1)
				w.push(job{dir: p, depth: j.depth + 1, rules: r, h: h})
			}
		case t.IsRegular():
			if w.skipped(r, p, false) {
				continue
			}
			files = append(files, e)
		}
	}
	for len(files) > 0 {
		n := min(fileBatch, len(files))
		h.refs.Add(1)
		w.push(job{dir: j.dir, depth: j.depth, files: files[:n], h: h})
		files = files[n:]
	}
}

func (w *walker) skipped(r *rules, p string, isDir bool) bool {
	if w.opts.Override != nil {
		if ig, ok := w.opts.Override(p, isDir); ok {
			return ig
		}
	}
	return r != nil && r.ignored(p, isDir)
}

func (w *walker) files(j job, worker int) {
	defer j.h.release()
	// The batch's paths are one string, and its entries one Entry: two
	// allocations per batch, not two per file.
	size := 0
	for _, e := range j.files {
		size += len(j.dir) + 1 + len(e.Name())
	}
	b := make([]byte, 0, size)
	for _, e := range j.files {
		if j.dir != "" {
			b = append(append(b, j.dir...), '/')
		}
		b = append(b, e.Name()...)
	}
	paths := unsafe.String(unsafe.SliceData(b), len(b)) // b is not written again
	ent := &Entry{Depth: j.depth + 1, Worker: worker, dir: j.h}
	off := 0
	for _, e := range j.files {
		if w.failed() {
			return
		}
		n := len(e.Name())
		if j.dir != "" {
			n += len(j.dir) + 1
		}
		ent.Path, ent.Name, ent.Info = paths[off:off+n], e.Name(), e
		off += n
		if err := w.fn(ent); err != nil {
			w.fail(err)
			return
		}
	}
}

func (w *walker) skip(dir string, err error) {
	if w.opts.OnError != nil {
		w.opts.OnError(dir, err)
	}
}

// dirSource lets loadRules read ignore files through an open directory.
type dirSource struct {
	d    fsys.Dir
	ents []fs.DirEntry
}

// loadRules adds the ignore files of directory dir (if any) to the chain.
func (w *walker) loadRules(parent *rules, dir string, src *dirSource) *rules {
	// The types of .gitignore, .ignore and .git, if present.
	var gitignore, dotignore fs.FileMode
	var found [3]bool
	note := func(name string, t fs.FileMode) {
		switch name {
		case ".gitignore":
			gitignore, found[0] = t, true
		case ".ignore":
			dotignore, found[1] = t, true
		case ".git":
			found[2] = true
		}
	}
	if src != nil {
		for _, e := range src.ents {
			if n := e.Name(); len(n) > 1 && n[0] == '.' {
				note(n, e.Type())
			}
		}
	} else {
		for _, n := range []string{".gitignore", ".ignore", ".git"} {
			if fi, err := w.fsys.Lstat(join(dir, n)); err == nil {
				note(n, fi.Mode().Type())
			}
		}
	}
	if found == [3]bool{} {
		return parent
	}
	inRepo := found[2] || w.opts.InRepo || parent != nil && parent.inRepo
	read := func(name string) []byte {
		var f fsys.File
		var err error
		if src != nil && !strings.Contains(name, "/") {
			f, err = src.d.Open(name)
		} else {
			f, err = w.fsys.Open(join(dir, name))
		}
		if err != nil {
			return nil
		}
		defer f.Close()
		// An ignore file over 1 MiB is read as far as that.
		buf, _ := fsys.ReadAll(io.LimitReader(f, 1<<20), nil, 1<<20)
		return buf
	}
	r := &rules{parent: parent, inRepo: inRepo}
	if found[0] && gitignore.IsRegular() && (inRepo || !w.opts.RequireGit) {
		r.gitignore = ignore.Parse(dir, read(".gitignore"))
	}
	if found[1] && dotignore.IsRegular() {
		r.dotignore = ignore.Parse(dir, read(".ignore"))
	}
	if found[2] {
		r.repoRoot = true
		if data := read(".git/info/exclude"); data != nil {
			r.exclude = ignore.Parse(dir, data)
		}
	}
	return r
}
