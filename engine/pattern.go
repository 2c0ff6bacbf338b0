package engine

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/txedit/txedit/apply"
	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/hash"
	"github.com/txedit/txedit/internal/fdtable"
	"github.com/txedit/txedit/internal/ignore"
	"github.com/txedit/txedit/internal/walk"
	"github.com/txedit/txedit/journal"
	"github.com/txedit/txedit/plan"
)

// scanned is what a pattern_replace's walk found.
type scanned struct {
	// found are the files the substitution changes, sorted by path.
	found []*task
	// binary are the binary files it passed over (docs/cli.md, "Replacing across a tree").
	binary []*plan.SkippedFile
	// unreadable are files (and directories) it could not read or could
	// not change, as tasks that failed: a request that is atomic fails
	// with them, one that is not lists them as skipped.
	unreadable []*task
}

// racyWindow: a file whose ctime is this recent when the walk read it may
// have been written during the read, and then the identity the walk takes
// after reading does not prove which version it read (timestamps are
// coarse: a clock tick on ext4, 2 s on FAT). Such a file is read again the
// careful way (open, fstat, read) before anything relies on its identity.
// git calls these entries racily clean. The window is how far behind the
// clock the root's file system may stamp a ctime ([fsys.TimestampSlack]);
// racyWindow, when not zero, overrides it (tests).
var racyWindow time.Duration

func (w *Workspace) racyWindow() time.Duration {
	if racyWindow != 0 {
		return racyWindow
	}
	return w.slack
}

// patternTasks walks a pattern_replace's directory and returns a task for
// every file the substitution changes, the binary files it skipped and the
// files it could not read. Files that tasks (the request's fileEdits that
// prepare let through) already name get the pattern applied after their
// own edits instead.
//
// A file that changes is planned from the walk's read: its hashes, sizes
// and identity are kept, and its bytes as far as the memory budget allows
// (planFile); staging reads one whose bytes were not kept again (and a
// dry run's pass 1, for the preview).
func (o *op) patternTasks(ctx context.Context, pat *plan.Pattern, tasks []*task, budget *atomic.Int64, locked bool) (*scanned, error) {
	sed, err := apply.ParseSed(pat.SedPattern, pat.Literal)
	if err != nil {
		return nil, err
	}
	dir := pat.Directory
	start, isDir, err := o.readTarget(dir)
	if err != nil {
		return nil, err
	}
	if !isDir {
		return nil, plan.Errorf(plan.CodeNotRegular, dir, "directory of pattern_replace is not a directory")
	}
	s := &patternScan{o: o, sed: sed, start: start, named: map[string]*task{}, budget: budget, locked: locked}
	if err := s.compile(pat); err != nil {
		return nil, err
	}
	for _, t := range tasks {
		s.named[t.src] = t
	}
	depth := 0
	if !pat.Recursive {
		depth = 1
	}
	s.prog = o.w.progress(ctx, "scan", 0)
	defer s.prog.end()
	err = walk.Walk(ctx, o.fsy, walk.Options{Skip: skipJournal, Dir: start, Hidden: pat.Hidden, NoIgnore: pat.NoIgnore, MaxDepth: depth, Workers: o.w.opts.Workers,
		Prune: s.prune, OnError: s.onError}, s.visit)
	if err != nil {
		return nil, err
	}
	out := &s.out
	sort.Slice(out.found, func(i, j int) bool { return out.found[i].src < out.found[j].src })
	sort.Slice(out.unreadable, func(i, j int) bool { return out.unreadable[i].src < out.unreadable[j].src })
	sort.Slice(out.binary, func(i, j int) bool { return out.binary[i].Path < out.binary[j].Path })
	return out, nil
}

// patternScan is the state of a pattern_replace's walk (patternTasks),
// shared by the walk's goroutines.
type patternScan struct {
	o        *op
	sed      *apply.Sed
	start    string // the directory walked
	match    *ignore.Glob
	excludes []*ignore.Glob
	named    map[string]*task // the request's own tasks, by resolved path
	prog     *progress
	// budget bounds the bytes the walk keeps of the files it plans
	// (planFile); locked: the walk runs under the lock the commit holds.
	budget *atomic.Int64
	locked bool

	mu  sync.Mutex // guards out
	out scanned
}

// compile compiles the pattern's file pattern and excludes.
func (s *patternScan) compile(pat *plan.Pattern) error {
	fp := pat.FilePattern
	if fp == "" {
		fp = "*"
	}
	var err error
	if s.match, err = ignore.CompileGlob(fp); err != nil {
		return plan.Wrapf(plan.CodeInvalidRequest, "", err, "%v", err)
	}
	var xs []string
	for _, x := range pat.ExcludePatterns {
		xs = append(xs, strings.TrimSuffix(x, "/"))
	}
	if s.excludes, err = ignore.CompileGlobs(xs); err != nil {
		return plan.Wrapf(plan.CodeInvalidRequest, "", err, "%v", err)
	}
	return nil
}

// excluded reports whether the excludes leave rel (relative to the
// directory walked) out.
func (s *patternScan) excluded(rel string, isDir bool) bool {
	// "dir/**" prunes dir itself: its whole subtree is excluded.
	return ignore.AnyMatch(s.excludes, rel) || (isDir && ignore.AnyMatch(s.excludes, rel+"/"))
}

// prune is the walk's Prune: excluded directories, and those the policy
// denies writing in.
func (s *patternScan) prune(rel string) bool {
	return s.excluded(relTo(s.start, rel), true) || s.o.w.checkPolicy(rel, rel, true) != nil
}

// onError is the walk's OnError: a directory it could not read.
func (s *patternScan) onError(rel string, err error) {
	if fsys.Gone(err) {
		return // removed while the walk ran: nothing in it to change
	}
	s.fail(rel, unreadable(rel, err, "directory could not be read, so the files in it could not be searched"))
}

// fail records a file (or directory) that could not be read or changed.
func (s *patternScan) fail(p string, err error) {
	t := &task{fo: &plan.FileOps{Entry: -1, Path: p}, src: p, res: &plan.FileResult{Path: p}, fileErr: err}
	s.mu.Lock()
	s.out.unreadable = append(s.out.unreadable, t)
	s.mu.Unlock()
}

// skipBinary records a binary file passed over.
func (s *patternScan) skipBinary(p string) {
	s.mu.Lock()
	s.out.binary = append(s.out.binary, skippedBinary(p))
	s.mu.Unlock()
}

// visit is the walk's function: a file the pattern selects is read,
// substituted, and planned if it changes. The substitution runs while the
// file is still open, so that the status of a file it changes is taken
// from the descriptor read (planFile says why).
func (s *patternScan) visit(e *walk.Entry) error {
	s.prog.add(1)
	rel := relTo(s.start, e.Path)
	if !s.match.Match(rel) || s.excluded(rel, false) || s.o.w.checkPolicy(e.Path, e.Path, true) != nil {
		return nil
	}
	if t := s.named[e.Path]; t != nil {
		t.sed = s.sed // after the file's own edits, in its task
		return nil
	}
	maxSize := s.o.w.opts.MaxFileSize
	bp := bufPool.Get().(*[]byte)
	defer putReadBuf(bp)
	nb := bufPool.Get().(*[]byte)
	newData, n, binary := (*nb)[:0], 0, false
	defer func() { putSedBuf(nb, newData) }()
	readAt := time.Now()
	want := func(data []byte) bool {
		if int64(len(data)) > maxSize {
			return false
		}
		if binary = apply.IsBinary(data); binary {
			return false
		}
		newData, n = s.sed.AppendApply(newData, data)
		return n > 0
	}
	var data []byte
	var opened fs.FileInfo
	var err error
	if needle := s.sed.Needle(); needle != nil {
		// A file larger than the buffer is read whole only if a piece of
		// it holds the needle: most of a tree's big files are not
		// changed, and each whole read of one took a buffer of its size,
		// a page fault each 4 KiB (GOROOT/src: 40 MB in 205 files over 64
		// KiB; bench/README.md, round 5 (repl5)).
		data, opened, err = e.ReadIntoScan(*bp, maxSize, len(needle)-1, func(piece []byte, first bool) (hit, stop bool) {
			if first && apply.IsBinary(piece) {
				binary = true
				return false, true
			}
			return s.sed.Holds(piece), false
		}, want)
		if err == nil && data == nil {
			if binary {
				s.skipBinary(e.Path)
			}
			return nil // passed over: no piece holds the needle
		}
	} else {
		data, opened, err = e.ReadIntoStat(*bp, maxSize, want)
	}
	if err == nil && int64(len(data)) > maxSize {
		*bp = data
		err = fsys.ErrTooLarge
	}
	if err != nil {
		s.unread(e, err)
		return nil
	}
	*bp = data
	if binary {
		s.skipBinary(e.Path)
		return nil
	}
	if n == 0 {
		return nil
	}
	s.planFile(e, data, newData, n, readAt, opened)
	return nil
}

// putReadBuf gives a read buffer back to the pool: a huge file's buffer
// is not worth keeping.
func putReadBuf(bp *[]byte) {
	if cap(*bp) > 4<<20 {
		*bp = (*bp)[:0:0]
	}
	bufPool.Put(bp)
}

// putSedBuf gives the buffer of a substitution's output back to the
// pool, unless it grew huge.
func putSedBuf(nb *[]byte, newData []byte) {
	if *nb = newData[:0]; cap(*nb) <= 4<<20 {
		bufPool.Put(nb)
	}
}

// unread deals with a file the walk could not read whole (err): one too
// large to change matters only if the pattern occurs in it; one removed
// while the walk ran has nothing to change.
func (s *patternScan) unread(e *walk.Entry, err error) {
	switch {
	case errors.Is(err, fsys.ErrTooLarge):
		matches, binary, err := largeMatches(e, s.sed)
		switch {
		case err != nil:
			s.fail(e.Path, unreadable(e.Path, err, "could not be read"))
		case binary:
			s.skipBinary(e.Path)
		case matches:
			s.fail(e.Path, plan.Errorf(plan.CodeTooLarge, e.Path, "matches, but is over the %d-byte limit of a file txedit changes", s.o.w.opts.MaxFileSize))
		}
	case fsys.Gone(err):
		// removed while the walk ran
	default:
		s.fail(e.Path, unreadable(e.Path, err, "could not be read"))
	}
}

// planFile records the task of a file the substitution changes (data read at
// readAt, newData with n replacements; opened, if not nil, the status of
// the file data was read from).
//
// It keeps what the file was planned from (hashes, sizes, identity), and
// its bytes as far as the request's memory budget allows (patternBudget):
// staging then takes them instead of reading the file again, unless the
// file's identity changed since. A walk under the commit's lock keeps the
// file's bytes only: staging substitutes again, into a buffer it reuses
// (unit.fill), and checks the result against newSum; the new bytes kept
// as well took a first-touched page each 4 KiB of them (GOROOT/src: 585
// files, 13 MB, ~3,000 page faults, ~5 ms of CPU; bench/README.md, round
// 5 (repl5)). A dry run's walk, not locked, keeps both: its preview is
// rendered from them.
// That needs an identity that is the bytes' own: opened, the fstat of the
// descriptor they were read from, of a file whose change time is older
// than the read by more than the file system's timestamp slack
// (racyWindow: a write in place within it might keep the identity). An
// identity looked up by name after the read (Info, where the directory
// cannot take a descriptor's status) may be another file's, renamed over
// the name meanwhile: such a file's bytes are not kept, and staging reads
// it again and checks it against the hashes. A file written since just
// before the read is left for pass 1 to read the careful way.
func (s *patternScan) planFile(e *walk.Entry, data, newData []byte, n int, readAt time.Time, opened fs.FileInfo) {
	fo := &plan.FileOps{Entry: -1, Path: e.Path}
	t := &task{fo: fo, src: e.Path, res: &plan.FileResult{Path: e.Path}, sed: s.sed}
	fi, err := opened, error(nil)
	if fi == nil {
		fi, err = e.Info.Info()
	}
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != int64(len(data)) {
		fi = nil
	}
	if fi != nil {
		if id := fsys.IdentityOf(fi); id.Ctime < readAt.Add(-s.o.w.racyWindow()).UnixNano() {
			t.cur = &fileInfo{exists: true, ident: id, mode: fi.Mode()}
			t.pre = &apply.Outcome{Replacements: n}
			t.old = &journal.State{Hash: hash.Of(data), Size: int64(len(data)), Mode: fi.Mode().Perm() | fi.Mode()&modeExtra, Uid: id.Uid, Gid: id.Gid}
			t.newSum, t.newSize, t.changed = hash.Of(newData), int64(len(newData)), !bytes.Equal(newData, data)
			if s.locked {
				if need := int64(len(data)); opened != nil && t.changed && s.budget != nil && reserve(s.budget, need) {
					t.cur.data, t.charged, t.curLocked = bytes.Clone(data), need, true // pre.Content: none
				}
			} else if need := int64(len(data) + len(newData)); opened != nil && t.changed && s.budget != nil && reserve(s.budget, need) {
				t.cur.data, t.kept, t.charged = bytes.Clone(data), bytes.Clone(newData), need
				t.pre.Content = t.kept
			}
		}
	}
	s.mu.Lock()
	s.out.found = append(s.out.found, t)
	found := len(s.out.found)
	s.mu.Unlock()
	if found == manyFiles && s.locked {
		reserveDescriptors() // while the walk goes on (manyFiles)
	}
}

// bufStack is a free list of buffers that, unlike a sync.Pool, a
// collection does not empty: staging computes a pattern_replace's new
// bytes into the same few buffers from its first file to its last
// (unit.fill), instead of taking fresh memory, a page fault each 4 KiB,
// after each collection.
type bufStack struct {
	mu   sync.Mutex
	bufs []*[]byte
}

// maxStackedBufs bounds the buffers a bufStack keeps (one for each of
// staging's workers, with room), and maxStackedBuf the size of one.
const (
	maxStackedBufs = 16
	maxStackedBuf  = 4 << 20
)

// stageBufs are staging's buffers for new bytes (unit.fill).
var stageBufs bufStack

func (s *bufStack) get() *[]byte {
	s.mu.Lock()
	if n := len(s.bufs); n > 0 {
		b := s.bufs[n-1]
		s.bufs = s.bufs[:n-1]
		s.mu.Unlock()
		return b
	}
	s.mu.Unlock()
	b := make([]byte, 0, 64<<10)
	return &b
}

func (s *bufStack) put(b *[]byte) {
	if cap(*b) > maxStackedBuf {
		return
	}
	*b = (*b)[:0]
	s.mu.Lock()
	if len(s.bufs) < maxStackedBufs {
		s.bufs = append(s.bufs, b)
	}
	s.mu.Unlock()
}

// unreadable is the error of a file or directory a pattern_replace could
// not read.
func unreadable(p string, err error, what string) error {
	code := plan.CodeIOError
	if errors.Is(err, fs.ErrPermission) {
		code = plan.CodeDenied
	}
	return plan.Wrapf(code, p, err, "%s (%s); pattern_replace cannot tell whether it should change", what, errText(err))
}

func skippedBinary(p string) *plan.SkippedFile {
	return &plan.SkippedFile{Path: p, Code: plan.CodeBinaryFile, Reason: "binary (a NUL byte in its first 8000 bytes): never edited as text"}
}

// skippedOf lists an unreadable file's task as skipped.
func skippedOf(t *task) *plan.SkippedFile {
	pe := plan.As(t.fileErr)
	return &plan.SkippedFile{Path: t.src, Code: pe.Code, Reason: pe.Msg}
}

// largeMatches reports whether the pattern occurs in a file over the size
// limit, reading it in chunks of whole lines (a line longer than a chunk
// is looked at in pieces), and whether the file is binary.
func largeMatches(e *walk.Entry, sed *apply.Sed) (matches, binary bool, err error) {
	f, err := e.Open()
	if err != nil {
		return false, false, err
	}
	defer f.Close()
	return sedMatchesIn(f, sed, 4<<20)
}

func sedMatchesIn(r io.Reader, sed *apply.Sed, chunk int) (matches, binary bool, err error) {
	buf := make([]byte, 0, chunk)
	for first := true; ; first = false {
		n, err := io.ReadFull(r, buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		end := err == io.EOF || err == io.ErrUnexpectedEOF
		if err != nil && !end {
			return false, false, err
		}
		if first && apply.IsBinary(buf) {
			return false, true, nil
		}
		cut := len(buf)
		if i := bytes.LastIndexByte(buf, '\n'); !end && i >= 0 {
			cut = i + 1
		}
		if _, k := sed.Apply(buf[:cut]); k > 0 {
			return true, false, nil
		}
		if end {
			return false, false, nil
		}
		buf = buf[:copy(buf, buf[cut:])]
	}
}

func orRoot(dir string) string {
	if dir == "" || dir == "." {
		return "the root"
	}
	return dir
}

// manyFiles is the size of a write, in files, from which it reserves the
// process's descriptor table ahead of its commit (internal/fdtable): a
// commit of this many files holds a read lease on each and the handles of
// their directories, past the table's first 64 slots, and each step the
// kernel grows the table by stopped every thread that needed one for a
// grace period (8-35 ms). The reservation takes its one step while the
// walk (or the request's reads) goes on with the descriptors below 64; a
// smaller write does not reserve, because a process exits only when the
// step's grace period has ended (bench/README.md, "round 4 (replcpu: the
// descriptor table)").
const manyFiles = 64

// reserveDescriptors is fdtable.Reserve (a variable: tests count the calls).
var reserveDescriptors = fdtable.Reserve

// reserveFor reserves the descriptor table for a write of files files
// that commits (manyFiles).
func reserveFor(dryRun bool, files int) {
	if !dryRun && files >= manyFiles {
		reserveDescriptors()
	}
}
