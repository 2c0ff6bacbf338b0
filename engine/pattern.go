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
	"time"

	"github.com/txedit/txedit/apply"
	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/hash"
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
// and identity are kept, not its bytes; staging reads it again (and a
// dry run's pass 1, for the preview).
func (o *op) patternTasks(ctx context.Context, pat *plan.Pattern, tasks []*task) (*scanned, error) {
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
	fp := pat.FilePattern
	if fp == "" {
		fp = "*"
	}
	match, err := ignore.CompileGlob(fp)
	if err != nil {
		return nil, plan.Errorf(plan.CodeInvalidRequest, "", "%v", err)
	}
	var xs []string
	for _, x := range pat.ExcludePatterns {
		xs = append(xs, strings.TrimSuffix(x, "/"))
	}
	excludes, err := ignore.CompileGlobs(xs)
	if err != nil {
		return nil, plan.Errorf(plan.CodeInvalidRequest, "", "%v", err)
	}
	excluded := func(rel string, isDir bool) bool {
		// "dir/**" prunes dir itself: its whole subtree is excluded.
		return ignore.AnyMatch(excludes, rel) || (isDir && ignore.AnyMatch(excludes, rel+"/"))
	}
	named := map[string]*task{}
	for _, t := range tasks {
		named[t.src] = t
	}
	depth := 0
	if !pat.Recursive {
		depth = 1
	}
	var (
		mu  sync.Mutex
		out = &scanned{}
	)
	fail := func(p string, err error) {
		t := &task{fo: &plan.FileOps{Entry: -1, Path: p}, src: p, res: &plan.FileResult{Path: p}, fileErr: err}
		mu.Lock()
		out.unreadable = append(out.unreadable, t)
		mu.Unlock()
	}
	prog := o.w.progress(ctx, "scan", 0)
	defer prog.end()
	err = walk.Walk(ctx, o.fsy, walk.Options{Skip: skipJournal, Dir: start, Hidden: pat.Hidden, NoIgnore: pat.NoIgnore, MaxDepth: depth, Workers: o.w.opts.Workers,
		Prune: func(rel string) bool {
			return excluded(relTo(start, rel), true) || o.w.checkPolicy(rel, rel, true) != nil
		},
		OnError: func(rel string, err error) {
			if fsys.Gone(err) {
				return // removed while the walk ran: nothing in it to change
			}
			fail(rel, unreadable(rel, err, "directory could not be read, so the files in it could not be searched"))
		}},
		func(e *walk.Entry) error {
			prog.add(1)
			rel := relTo(start, e.Path)
			if !match.Match(rel) || excluded(rel, false) || o.w.checkPolicy(e.Path, e.Path, true) != nil {
				return nil
			}
			if t := named[e.Path]; t != nil {
				t.sed = sed // after the file's own edits, in its task
				return nil
			}
			bp := bufPool.Get().(*[]byte)
			defer func() {
				if cap(*bp) > 4<<20 {
					*bp = (*bp)[:0:0] // a huge file's buffer is not worth keeping
				}
				bufPool.Put(bp)
			}()
			readAt := time.Now()
			data, err := e.ReadInto(*bp, o.w.opts.MaxFileSize)
			if err == nil && int64(len(data)) > o.w.opts.MaxFileSize {
				*bp = data
				err = fsys.ErrTooLarge
			}
			switch {
			case errors.Is(err, fsys.ErrTooLarge):
				// Too large to change; whether that matters depends on
				// whether the pattern occurs in it.
				matches, binary, err := largeMatches(e, sed)
				switch {
				case err != nil:
					fail(e.Path, unreadable(e.Path, err, "could not be read"))
				case binary:
					mu.Lock()
					out.binary = append(out.binary, skippedBinary(e.Path))
					mu.Unlock()
				case matches:
					fail(e.Path, plan.Errorf(plan.CodeTooLarge, e.Path, "matches, but is over the %d-byte limit of a file txedit changes", o.w.opts.MaxFileSize))
				}
				return nil
			case fsys.Gone(err):
				return nil // removed while the walk ran
			case err != nil:
				fail(e.Path, unreadable(e.Path, err, "could not be read"))
				return nil
			}
			*bp = data
			if apply.IsBinary(data) {
				mu.Lock()
				out.binary = append(out.binary, skippedBinary(e.Path))
				mu.Unlock()
				return nil
			}
			nb := bufPool.Get().(*[]byte)
			newData, n := sed.AppendApply((*nb)[:0], data)
			defer func() {
				if *nb = newData[:0]; cap(*nb) <= 4<<20 {
					bufPool.Put(nb)
				}
			}()
			if n == 0 {
				return nil
			}
			fo := &plan.FileOps{Entry: -1, Path: e.Path}
			t := &task{fo: fo, src: e.Path, res: &plan.FileResult{Path: e.Path}, sed: sed}
			// Keep what it was planned from (hashes, sizes), not the
			// bytes: staging reads the file again and checks them.
			// Holding every changed file's bytes (and the new ones)
			// from the walk to staging costs more than reading them
			// again from the page cache: the heap grows by twice the
			// changed bytes, and on this kind of machine a page the
			// heap touches for the first time costs ~15 µs (bench/README.md).
			// The identity comes from the directory handle, after
			// the read: a file written since just before the read is
			// left for pass 1 to read the careful way.
			fi, err := e.Info.Info()
			if err != nil || !fi.Mode().IsRegular() || fi.Size() != int64(len(data)) {
				fi = nil
			}
			if fi != nil {
				if id := fsys.IdentityOf(fi); id.Ctime < readAt.Add(-o.w.racyWindow()).UnixNano() {
					t.cur = &fileInfo{exists: true, ident: id, mode: fi.Mode()}
					t.pre = &apply.Outcome{Replacements: n}
					t.old = &journal.State{Hash: hash.Of(data), Size: int64(len(data)), Mode: fi.Mode().Perm() | fi.Mode()&modeExtra, Uid: id.Uid, Gid: id.Gid}
					t.newSum, t.newSize, t.changed = hash.Of(newData), int64(len(newData)), !bytes.Equal(newData, data)
				}
			}
			mu.Lock()
			out.found = append(out.found, t)
			mu.Unlock()
			return nil
		})
	if err != nil {
		return nil, err
	}
	sort.Slice(out.found, func(i, j int) bool { return out.found[i].src < out.found[j].src })
	sort.Slice(out.unreadable, func(i, j int) bool { return out.unreadable[i].src < out.unreadable[j].src })
	sort.Slice(out.binary, func(i, j int) bool { return out.binary[i].Path < out.binary[j].Path })
	return out, nil
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
