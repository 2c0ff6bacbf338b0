package engine

import (
	"context"
	"errors"
	"fmt"

	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/internal/ignore"
	"github.com/txedit/txedit/journal"
	"github.com/txedit/txedit/plan"
)

// Options configure a Workspace. A nil *Options means the defaults.
type Options struct {
	// FS replaces the operating system's file system, rooted at the
	// workspace root: an in-memory one (fsys/memfs) for agent state that
	// lives in memory, a fault-injecting one in tests.
	FS fsys.FS
	// ReadOnly refuses every write (denied) and skips crash recovery,
	// which writes: the workspace is looked at, never changed.
	ReadOnly bool
	// Durability chooses how commits are made durable (default: the
	// journal's barrier).
	Durability Durability
	// LockTimeout bounds the wait for another process's commit (default 30s).
	LockTimeout time.Duration
	// Workers bounds the files processed at once (default 2×CPUs, min 4).
	Workers int
	// MaxFileSize refuses bigger files with too_large (default 64 MiB).
	MaxFileSize int64
	// TimestampSlack is how far behind the clock the root's file system
	// may stamp a change time (0: fsys.TimestampSlack's guess for it). A
	// file changed within it of a read may have changed again within one
	// clock tick, keeping its identity, so it is read again before a
	// commit relies on what was read; one changed earlier is trusted by
	// its identity. Negative trusts every identity (the kill tests, whose
	// files are written just before: their call counts must not depend on
	// how fast the machine is).
	TimestampSlack time.Duration
	// MemoryBudget bounds the file contents (as read, and as edited)
	// held between planning and commit; beyond it files are read again
	// and their edits computed again when they are staged (default 4
	// MiB: a request of a few files, or a release's diff of a hundred,
	// reads and patches each once, and a big one re-reads from the page
	// cache rather than grow the heap by twice what it changes, which
	// costs more in page faults than the reads). A pattern_replace's walk
	// may keep 8 times as much beside it (patternBudget).
	MemoryBudget int64
	// DenyRead and DenyWrite are globs (gitignore-like: without a "/" they
	// match a base name at any depth; "**" crosses directories) of paths
	// that may not be read or written.
	DenyRead, DenyWrite []string
	// AllowGit permits writes inside .git directories.
	AllowGit bool
	// Keys is the store of this user's journal keys, which says whether
	// the workspace's journal is this user's (docs/design.md, "What makes
	// a journal trusted"). Default: journal.UserKeys() ($XDG_STATE_HOME/
	// txedit/journals) for the operating system's file system (FS nil or
	// an *fsys.OS), journal.MemoryKeys() (this process's) for any other.
	// Tests give each test a store of its own.
	Keys *journal.Keys
	// Dir is the directory, relative to the root, that relative paths
	// start from (default: the root). The command line sets it when it
	// found the workspace above the current directory, as git finds its
	// repository, so that a path given in a subdirectory means what it
	// says there (docs/cli.md, "Which workspace").
	Dir string
	// Keep and KeepBytes are the journal's retention (default 200
	// transactions within 1 GiB of before-images).
	Keep      int
	KeepBytes int64
	// Progress, if set, is told how far long operations have come: phase
	// "scan" (files looked at by a walk; total unknown, 0) and "stage"
	// (files staged of a commit). It is called from worker goroutines,
	// at most every 100 ms per phase, and once when a phase ends.
	Progress func(phase string, done, total int)
	// Agent names who works through the workspace when no Session does
	// (the CLI passes --agent, TXEDIT_AGENT or "cli"); it is recorded with
	// every transaction.
	Agent string
	// Timings, if set, is told how long each phase of a write took
	// ("edit": the edits computed before the lock; "lock": taking it;
	// "plan"; "recheck": the files checked, or planned again, under it;
	// "begin": the transaction's first record and round; "stage";
	// "commit"; "gc": TimingPhases), each once per write: for benchmarks and
	// diagnostics. With BackgroundGC a batch's "gc" is told again by the
	// goroutine that runs it, after the write: Timings must then be safe
	// for concurrent use.
	Timings func(phase string, d time.Duration)
	// BackgroundGC runs the journal's retention after a write has
	// returned, in a goroutine that takes the lock again, instead of
	// inside the write: for a long-lived server (txedit mcp), whose
	// answer then does not wait for a batch of retirements. Close waits
	// for a batch under way. A batch's failure is told, as a warning, to
	// the next write.
	BackgroundGC bool
	// RebaseMemory bounds the bytes sessions keep of the versions of
	// files they read or wrote, so that an edit made against one can be
	// rebased after someone else changed the file (docs/design.md,
	// "Concurrency"): at most this much for all sessions of the
	// workspace (default 64 MiB), a quarter of it per session, and no
	// file over 4 MiB; the least recently used go first. Versions txedit
	// itself replaced are found in the journal's before-images instead.
	// Negative keeps nothing.
	RebaseMemory int64
}

// TimingPhases returns the phases Options.Timings is told of, in the
// order a write goes through them.
func TimingPhases() []string {
	return []string{"edit", "lock", "plan", "recheck", "begin", "stage", "commit", "gc"}
}

// Durability chooses how a commit makes its phases durable.
type Durability int

// The durability settings.
const (
	// DurableAuto is the default barrier: an fdatasync of each file the
	// commit writes, many at once, and an fsync of each directory whose
	// entries it changed, so its cost is the transaction's own files,
	// whatever else is being written. On the real file system, a commit
	// of 64 files or more that begins while the system has under 32 MiB
	// of unwritten data uses one syncfs(2) per phase instead, which then
	// costs less.
	DurableAuto Durability = iota
	// DurableFsync fsyncs every file and directory a commit writes.
	DurableFsync
	// DurableSyncFS makes each phase durable with one syncfs(2), which
	// flushes everything dirty on the file system, other processes'
	// data too.
	DurableSyncFS
	// NotDurable skips fsync: a commit stays atomic across a process
	// crash (the page cache survives it), not across a power loss. For
	// tmpfs and throwaway trees.
	NotDurable
)

func (d Durability) journal() journal.SyncMode {
	switch d {
	case DurableFsync:
		return journal.SyncFile
	case DurableSyncFS:
		return journal.SyncFilesystem
	case NotDurable:
		return journal.SyncNone
	}
	return journal.SyncAuto
}

// Workspace is a directory tree that txedit reads and edits. All access
// is confined to the root. A Workspace is safe for concurrent use; commits
// are serialised by the journal's lock, across processes too.
type Workspace struct {
	root      string  // absolute, as given
	rootReal  string  // with symlinks resolved
	base      fsys.FS // the file system operations' views are made from
	closer    func() error
	j         *journal.Journal // on base; an operation has its own over its view
	opts      Options
	denyR     []*ignore.Glob
	denyW     []*ignore.Glob
	recovered []*journal.Report
	slack     time.Duration // fsys.TimestampSlack of the root
	bg        bgGC          // Options.BackgroundGC's state (bggc.go)
	early     earlyJournal  // a journal StartJournal is making (bggc.go)
	bases     *baseCache    // what sessions read, for rebases (basecache.go)
}

// Open opens the workspace rooted at dir. Unless it is read-only, it
// first recovers transactions whose owners died before their commit point
// ([Workspace.Recovered] says what that did).
func Open(dir string, opts *Options) (*Workspace, error) {
	w := &Workspace{}
	if opts != nil {
		w.opts = *opts
	}
	o := &w.opts
	if o.Workers <= 0 {
		o.Workers = max(4, 2*runtime.NumCPU())
	}
	if o.MaxFileSize <= 0 {
		o.MaxFileSize = 64 << 20
	}
	w.bases = newBaseCache(o.RebaseMemory)
	if o.MemoryBudget <= 0 {
		o.MemoryBudget = 4 << 20
	}
	abs, err := filepath.Abs(expandHome(dir))
	if err != nil {
		return nil, err
	}
	w.root = abs
	w.rootReal = abs
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		w.rootReal = r
	}
	// A root that is, or lies inside, a journal would hand the journal's
	// files to the agent as workspace files (docs/design.md, "Threat
	// model"): refused, however the path spells it or a symlink leads
	// there.
	for _, p := range []string{abs, w.rootReal} {
		if j, ok := inJournal(p); ok {
			return nil, plan.Errorf(plan.CodeDenied, dir, "workspace root %s is inside the txedit journal %s: no tool reads or writes inside one; open the directory that holds it", dir, j)
		}
	}
	w.slack = o.TimestampSlack
	if w.slack == 0 {
		w.slack = fsys.TimestampSlack(w.rootReal)
	}
	if o.FS != nil {
		w.base = o.FS
	} else {
		fi, err := os.Stat(abs)
		if err != nil {
			code := codeOf(err) // a root it may not look at is denied
			if fsys.Gone(err) {
				code = plan.CodeFileNotFound
			}
			return nil, plan.Wrapf(code, dir, err, "workspace root: %s", errText(err))
		}
		if !fi.IsDir() {
			return nil, plan.Errorf(plan.CodeInvalidRequest, dir, "workspace root is not a directory")
		}
		osfs, err := fsys.NewOS(abs)
		if err != nil {
			return nil, plan.Wrapf(codeOf(err), dir, err, "workspace root: %s", errText(err))
		}
		w.base, w.closer = osfs, osfs.Close
	}
	if w.denyR, err = ignore.CompileGlobs(o.DenyRead); err != nil {
		return nil, plan.Wrapf(plan.CodeInvalidRequest, "", err, "deny list: %v", err)
	}
	if w.denyW, err = ignore.CompileGlobs(o.DenyWrite); err != nil {
		return nil, plan.Wrapf(plan.CodeInvalidRequest, "", err, "deny list: %v", err)
	}
	jo := &journal.Options{Sync: o.Durability.journal(), LockTimeout: o.LockTimeout, Keep: o.Keep, KeepBytes: o.KeepBytes, Workers: o.Workers,
		Keys: o.Keys, Path: w.rootReal}
	if _, isOS := w.base.(*fsys.OS); isOS && jo.Keys == nil {
		jo.Keys = journal.UserKeys()
	}
	if o.FS == nil {
		// The real file system: a commit that begins while the system
		// has little unwritten data uses one syncfs per phase (cheapest
		// then); otherwise it syncs its own files (bench/README.md).
		jo.Quiet = fsys.Quiet
		// A commit of 16 to 63 files, whose own syncs cost a few
		// milliseconds, uses syncfs barriers only while less is
		// unwritten (quietFewBytes).
		jo.QuietFew = func() bool { return fsys.QuietBelow(quietFewBytes) }
		// A tree all on a tmpfs keeps nothing across a power loss:
		// a big commit there skips syncs, which do nothing there but
		// cost their calls (fsys.Volatile).
		root := w.rootReal
		jo.Volatile = func() bool { return fsys.Volatile(root) }
		jo.InMemory = func() bool { return fsys.InMemory(root) }
	}
	w.j = journal.New(w.base, jo)
	if !o.ReadOnly {
		reports, err := w.j.RecoverIfNeeded()
		if err != nil {
			w.Close()
			return nil, wrapJournalErr(err)
		}
		w.recovered = reports
	}
	return w, nil
}

// Recovered lists what recovery did when the workspace was opened: the
// transactions it rolled back, with the files it would not overwrite.
func (w *Workspace) Recovered() []*journal.Report { return w.recovered }

// readOnly refuses a write in a read-only workspace.
func (w *Workspace) readOnly(op string) error {
	if w.opts.ReadOnly {
		return plan.Errorf(plan.CodeDenied, "", "the workspace is read-only: %s is refused", op)
	}
	return nil
}

// progress is a throttled reporter for one phase of one operation.
type progress struct {
	fn    func(phase string, done, total int)
	phase string
	total int
	done  atomic.Int64
	last  atomic.Int64 // unix nanos of the last report
}

func (w *Workspace) progress(ctx context.Context, phase string, total int) *progress {
	fn := w.opts.Progress
	if f, ok := ctx.Value(progressKey{}).(func(string, int, int)); ok && f != nil {
		fn = f
	}
	return &progress{fn: fn, phase: phase, total: total}
}

type progressKey struct{}

// WithProgress returns a context whose operations report their progress
// to fn instead of Options.Progress: for a server that relays progress to
// the client of each call.
func WithProgress(ctx context.Context, fn func(phase string, done, total int)) context.Context {
	return context.WithValue(ctx, progressKey{}, fn)
}

// add counts n more and reports if 100 ms passed since the last report.
func (p *progress) add(n int) {
	if p == nil || p.fn == nil {
		return
	}
	done := p.done.Add(int64(n))
	now := time.Now().UnixNano()
	if last := p.last.Load(); now-last >= int64(100*time.Millisecond) && p.last.CompareAndSwap(last, now) {
		p.fn(p.phase, int(done), p.total)
	}
}

// end reports the final count.
func (p *progress) end() {
	if p != nil && p.fn != nil && p.last.Load() != 0 {
		p.fn(p.phase, int(p.done.Load()), p.total)
	}
}

// phase reports a phase's duration to Options.Timings and starts the next
// once the report is made: what the report costs (txedit mcp prints a line
// to stderr) is no phase's.
func (w *Workspace) phase(name string, start *time.Time) {
	if w.opts.Timings != nil {
		w.opts.Timings(name, time.Since(*start))
		*start = time.Now()
	}
}

// quietFewBytes is the most unwritten data (Dirty plus Writeback, system
// wide) at which a commit of 16 to 63 files uses syncfs barriers
// (journal.Options.QuietFew): a syncfs that flushes 4 MiB that is not the
// commit's took 6-7 ms on this machine's ext4, about what such a commit's
// own syncs cost, against 17 ms for the 32 MiB a commit of 64 files or more
// allows (fsys.Quiet); bench/README.md, round 5 (c60b).
const quietFewBytes = 4 << 20

// Close releases the workspace.
func (w *Workspace) Close() error {
	w.stopGC()
	if wait := w.early.take(); wait != nil {
		wait()
	}
	if w.closer != nil {
		return w.closer()
	}
	return nil
}

// op is one operation on a workspace (a read, a search, a write, an
// undo): the short-lived value that owns the state of that operation, as
// a bbolt Tx does for its DB (docs/design.md, "The handle and the
// operation"). It is made by begin and ended by end; the Workspace is
// the long-lived handle it works on.
type op struct {
	w *Workspace
	// fsy is the operation's view of the file system, which may keep
	// directory handles open until end.
	fsy fsys.FS
	// dirs caches directories known to hold no symlink on the way from
	// the root (see resolve); nil: no cache.
	dirs *sync.Map
	// j is the journal working through fsy.
	j       *journal.Journal
	release func()
	// charge, if set, is the call's share of a server's budget for file
	// contents (WithBudget): every whole file read is charged to it.
	charge *charge
}

// begin starts an operation: a fresh file-system view, an empty
// directory cache, and the journal over that view. A write that takes
// the workspace lock begins another one under it (apply, commitWith):
// directory handles made before the lock are not trusted under it.
func (w *Workspace) begin() *op {
	fsy, release := w.base.View()
	return &op{w: w, fsy: fsy, dirs: &sync.Map{}, j: w.j.WithFS(fsy), release: release}
}

// beginLocked takes the workspace lock and begins an operation under it:
// a fresh view, whose directory handles are made under the lock.
func (w *Workspace) beginLocked() (*op, *journal.Locked, error) {
	o := w.begin()
	l, err := w.lockJournal(o.j)
	if err != nil {
		o.end()
		return nil, nil, err
	}
	return o, l, nil
}

// direct is an operation straight on the workspace's file system, with no
// view and no directory cache: for the calls that look at one path
// outside any operation (Stat, IsDir, List, Diff, a session's notes of
// what it read). It needs no end.
func (w *Workspace) direct() *op {
	return &op{w: w, fsy: w.base, j: w.j}
}

// end ends the operation, closing what its view holds open.
func (o *op) end() {
	if o.release != nil {
		o.release()
	}
}

// Root returns the workspace's absolute root directory.
func (w *Workspace) Root() string { return w.root }

// OnDisk reports whether the workspace is Root on the operating system's
// file system (Options.FS nil or an *fsys.OS), so that commands can run
// in it; an in-memory workspace is not.
func (w *Workspace) OnDisk() bool {
	_, isOS := w.base.(*fsys.OS)
	return isOS
}

func expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[1:])
		}
	}
	return p
}

// maxHops bounds symlink chains, as the kernel's ELOOP limit does.
const maxHops = 40

// resolve turns a request path into a clean root-relative path with every
// symlink resolved, so edits go to the link's target and the link stays a
// link. It refuses, with outside_root, paths that leave the root through
// "..", an absolute path or a symlink (including absolute symlinks). The
// file system then opens the resolved path following no symlink at all
// (docs/design.md, "Resolution"). The last components may be missing
// (for creates); a dangling symlink there is refused for create.
func (o *op) resolve(p string) (string, error) {
	rel, _, err := o.resolveLinks(p)
	return rel, err
}

// resolveLinks is resolve that also reports whether the path is a dangling
// symlink: a link was followed and its target does not exist.
func (o *op) resolveLinks(p string) (rel string, dangling bool, err error) {
	rel, dangling, _, err = o.resolveStat(p)
	return
}

// resolveStat is resolveLinks that also returns the Lstat of the file the
// path resolved to, where the walk made it (nil where it did not: a
// missing file, say), so that a caller that needs it does not ask again.
func (o *op) resolveStat(p string) (rel string, dangling bool, fi fs.FileInfo, err error) {
	r, rel, dangling, err := o.resolve1(p)
	if err == nil && r != nil && r.fi != nil && r.fiPath == rel {
		fi = r.fi
	}
	return rel, dangling, fi, err
}

func (o *op) resolve1(p string) (*resolver, string, bool, error) {
	name, slashed, err := o.spelled(p)
	if err != nil {
		return nil, "", false, err
	}
	r := resolver{o: o, p: p, slashed: slashed, lastDir: true, rest: strings.Split(filepath.ToSlash(name), "/")}
	r.skipKnownDirs()
	// The last orig components of rest are the path's own; the others
	// come from symlinks' targets. A missing component of the path's own
	// is a create (ld/new.txt through a link ld to a directory); one that
	// a link named is a dangling link (the first used to be refused as a
	// dangling symlink).
	r.orig = len(r.rest)
	for len(r.rest) > 0 {
		rel, dangling, end, err := r.step()
		if err != nil {
			return nil, "", false, err
		}
		if end {
			return &r, rel, dangling, nil
		}
	}
	rel, dangling, err := r.finish()
	return &r, rel, dangling, err
}

// spelled checks a request path's spelling and turns it into a path
// relative to the root, before anything is looked up: the options' Dir
// prepended, an absolute path inside the root made relative, and a path
// that leaves the root by its spelling alone refused. slashed says that
// it ends in "/" (or "/."): it names a directory.
func (o *op) spelled(p string) (name string, slashed bool, err error) {
	if p == "" {
		return "", false, plan.Errorf(plan.CodeInvalidRequest, p, "empty path")
	}
	if strings.ContainsRune(p, 0) {
		return "", false, plan.Errorf(plan.CodeInvalidRequest, p, "path contains a NUL byte")
	}
	name = expandHome(p)
	// A name ending in "/" (or "/.") names a directory: "a/f.txt/" is
	// not a/f.txt, as the kernel says (ENOTDIR).
	slashed = strings.HasSuffix(name, "/") || strings.HasSuffix(name, "/.")
	if d := o.w.opts.Dir; d != "" && d != "." && !filepath.IsAbs(name) {
		name = d + "/" + name
	}
	if filepath.IsAbs(name) {
		rel, ok := o.w.relToRoot(filepath.Clean(name))
		if !ok {
			return "", false, plan.Errorf(plan.CodeOutsideRoot, p, "path is outside the workspace root %s", o.w.root)
		}
		name = rel
	}
	// A path that leaves the root by its spelling alone is refused before
	// anything is looked up (the walk below resolves ".." physically).
	if c := path.Clean(filepath.ToSlash(name)); c == ".." || strings.HasPrefix(c, "../") {
		return "", false, plan.Errorf(plan.CodeOutsideRoot, p, "path leads outside the workspace root")
	}
	return name, slashed, nil
}

// resolver is the state of resolve1's walk down a path, one component at
// a time from the root, following symlinks.
type resolver struct {
	o       *op
	p       string // the path as the request gave it
	slashed bool   // p names a directory
	rest    []string
	orig    int      // the last orig components of rest are p's own
	done    []string // the components walked, symlinks resolved
	hops    int      // symlinks followed
	lastDir bool     // the last component walked is a directory
	// fi is the Lstat of fiPath, the last entry walked that is not a
	// symlink.
	fi     fs.FileInfo
	fiPath string
}

// skipKnownDirs starts the walk at the path's directory when this
// operation already walked it and found it free of symlinks.
func (r *resolver) skipKnownDirs() {
	rest := r.rest
	if r.o.dirs != nil && len(rest) > 1 && !slices.Contains(rest, "..") && !slices.Contains(rest, ".") && !slices.Contains(rest, "") {
		dir := strings.Join(rest[:len(rest)-1], "/")
		if _, ok := r.o.dirs.Load(dir); ok {
			r.done = strings.Split(dir, "/")
			r.rest = rest[len(rest)-1:]
		}
	}
}

// step walks the next component. end says the walk is over: a missing
// component ends it, with the path it names (dangling: a link named it).
func (r *resolver) step() (rel string, dangling, end bool, err error) {
	p := r.p
	c := r.rest[0]
	fromLink := len(r.rest) > r.orig
	r.rest = r.rest[1:]
	if !fromLink {
		r.orig--
	}
	switch c {
	case "", ".":
		return "", false, false, nil
	case "..":
		if len(r.done) == 0 {
			return "", false, false, plan.Errorf(plan.CodeOutsideRoot, p, "path leads outside the workspace root")
		}
		r.done = r.done[:len(r.done)-1]
		return "", false, false, nil
	}
	// The components walked are clean (no "", "." or ".."; no "/"):
	// joined as they are, not cleaned again for every step.
	cur := strings.Join(append(r.done, c), "/")
	fi, err := r.o.fsy.Lstat(cur)
	if errors.Is(err, fs.ErrNotExist) {
		rel, err := r.missing(c, cur)
		return rel, fromLink, true, err
	}
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || isENOTDIR(err) {
			return "", false, false, plan.Errorf(plan.CodeFileNotFound, p, "%s is not a directory", path.Join(r.done...))
		}
		if fsys.IsEscape(err) {
			return "", false, false, plan.Errorf(plan.CodeOutsideRoot, p, "path leads outside the workspace root")
		}
		return "", false, false, ioErr(p, err)
	}
	if fi.Mode()&fs.ModeSymlink == 0 {
		if len(r.rest) > 0 && !fi.IsDir() {
			return "", false, false, plan.Errorf(plan.CodeFileNotFound, p, "%s is not a directory", cur)
		}
		r.lastDir = fi.IsDir()
		r.done = append(r.done, c)
		r.fi, r.fiPath = fi, cur
		return "", false, false, nil
	}
	return "", false, false, r.follow(cur)
}

// missing ends the walk at component c (at cur), which does not exist:
// the path names what would be created there, if nothing after it
// climbs back out of the missing directory.
func (r *resolver) missing(c, cur string) (string, error) {
	if r.slashed {
		return "", plan.Errorf(plan.CodeFileNotFound, r.p, "directory %s does not exist (a path ending in / names a directory)", cur)
	}
	done := append(r.done, c)
	for _, x := range r.rest {
		if x == ".." {
			return "", plan.Errorf(plan.CodeFileNotFound, r.p, "directory %s does not exist", cur)
		}
		if x != "" && x != "." {
			done = append(done, x)
		}
	}
	return path.Join(done...), nil
}

// follow puts the target of the symlink at cur in front of what is left
// to walk: relative links only, at most maxHops of them.
func (r *resolver) follow(cur string) error {
	p := r.p
	r.hops++
	if r.hops > maxHops {
		return plan.Errorf(plan.CodeInvalidRequest, p, "too many levels of symbolic links")
	}
	target, err := r.o.fsy.Readlink(cur)
	if err != nil {
		if errors.Is(err, syscall.EINVAL) || fsys.Gone(err) {
			// It was a symlink a moment ago: someone is changing the
			// path under us.
			return plan.Wrapf(plan.CodeConflict, p, err, "%s changed while the path was being resolved; try again", cur)
		}
		return plan.Wrapf(plan.CodeIOError, p, err, "%s", errText(err))
	}
	if strings.HasPrefix(target, "/") {
		return plan.Errorf(plan.CodeOutsideRoot, p, "%s is an absolute symlink (to %s); txedit follows only relative links that stay inside the root", cur, target)
	}
	r.rest = append(strings.Split(target, "/"), r.rest...)
	return nil
}

// finish is the path walked to its end: a directory the request spelled
// as one must be one, and the path's directory, reached without a
// symlink, is remembered for the operation's next paths.
func (r *resolver) finish() (string, bool, error) {
	if len(r.done) == 0 {
		return ".", false, nil
	}
	if r.slashed && !r.lastDir {
		return "", false, plan.Errorf(plan.CodeFileNotFound, r.p, "%s is not a directory", path.Join(r.done...))
	}
	if r.o.dirs != nil && r.hops == 0 && len(r.done) > 1 {
		r.o.dirs.Store(strings.Join(r.done[:len(r.done)-1], "/"), true)
	}
	return strings.Join(r.done, "/"), false, nil
}

// relToRoot maps an absolute path inside the root to a relative one. It
// is only a translation: every access then goes through the workspace's
// fsys.FS, which is what confines it.
func (w *Workspace) relToRoot(abs string) (string, bool) {
	for _, root := range []string{w.root, w.rootReal} {
		rel, err := filepath.Rel(root, abs)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			return rel, true
		}
	}
	return "", false
}

// inJournal reports whether the absolute path p is, or lies inside, a
// journal directory (a component that is journal.Dir as fsys.SameName
// compares names), and returns that directory.
func inJournal(p string) (string, bool) {
	parts := strings.Split(filepath.ToSlash(p), "/")
	for i, c := range parts {
		if fsys.SameName(c, journal.Dir) {
			return filepath.FromSlash(strings.Join(parts[:i+1], "/")), true
		}
	}
	return "", false
}

// skipJournal is the walks' Skip: txedit's journals (this workspace's and
// any nested one's) and staging files are never listed, searched or
// replaced in.
func skipJournal(name string) bool { return fsys.SameName(name, journal.Dir) || journal.IsTemp(name) }

// checkPolicy refuses paths txedit never touches and paths the options
// deny. rel is resolved; named is as the request gave it.
func (w *Workspace) checkPolicy(named, rel string, write bool) error {
	// Each component of rel (as strings.Split would cut it; a walk asks
	// this of every file it passes, so without an iterator's calls).
	for rest := rel; ; {
		c, tail, more := strings.Cut(rest, "/")
		// A journal at any depth: a nested workspace's is as private as
		// this one's (docs/design.md, "Threat model").
		if fsys.SameName(c, journal.Dir) {
			return plan.Errorf(plan.CodeDenied, named, "%s is a txedit journal (%s/); no tool reads or writes inside one", rel, journal.Dir)
		}
		if write && !w.opts.AllowGit && fsys.SameName(c, ".git") {
			return plan.Errorf(plan.CodeDenied, named, "writes inside .git/ are refused (set AllowGit to permit them)")
		}
		if !more {
			break
		}
		rest = tail
	}
	if journal.IsTemp(path.Base(rel)) {
		return plan.Errorf(plan.CodeDenied, named, "%s is a txedit staging file", rel)
	}
	if ignore.AnyMatch(w.denyR, rel) || (write && ignore.AnyMatch(w.denyW, rel)) {
		what := "reading"
		if write {
			what = "writing"
		}
		return plan.Errorf(plan.CodeDenied, named, "%s %s is denied by policy", what, rel)
	}
	return nil
}

// fileInfo describes a file as read for editing.
type fileInfo struct {
	exists bool
	data   []byte
	ident  fsys.Identity
	mode   fs.FileMode
	// readAt is when the read began (readFile), for stableRead; zero
	// when not known.
	readAt time.Time
	link   bool // a symbolic link read as an entry: data is its target (links.go)
}

// readFile reads a resolved path for editing: only regular files with one
// link, at most MaxFileSize, and the file opened must be the file that was
// stat'ed (a swap in between is refused). A file replaced while it was
// being opened (another writer's rename) is read again, a few times,
// before that is reported.
func (o *op) readFile(named, rel string, forEdit bool) (*fileInfo, error) {
	return o.readFileStat(named, rel, forEdit, time.Time{}, nil, nil)
}

// readFileStat is readFile given, for its first try, the Lstat of rel
// (fi, or its error lerr) made at readAt by a caller that needed it too
// (readEntry): the file is not stat'ed twice in a row. fi and lerr nil:
// readFile.
func (o *op) readFileStat(named, rel string, forEdit bool, readAt time.Time, fi fs.FileInfo, lerr error) (*fileInfo, error) {
	for try := 0; ; try++ {
		f, err := o.readFileOnce(named, rel, forEdit, readAt, fi, lerr)
		if !errors.Is(err, errSwapped) || try == 3 {
			return f, err
		}
		fi, lerr = nil, nil
	}
}

// errSwapped marks a file replaced between its stat and its open.
var errSwapped = errors.New("file was replaced while it was being opened")

func (o *op) readFileOnce(named, rel string, forEdit bool, readAt time.Time, fi fs.FileInfo, err error) (*fileInfo, error) {
	if fi == nil && err == nil {
		readAt = time.Now()
		fi, err = o.fsy.Lstat(rel)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return &fileInfo{}, nil
	}
	if err != nil {
		return nil, ioErr(named, err)
	}
	if err := o.w.checkRegular(named, fi, forEdit); err != nil {
		return nil, err
	}
	if err := o.charge.take(fi.Size()); err != nil {
		return nil, err // the call ended while it waited for the budget
	}
	f, err := o.fsy.Open(rel)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || isENOTDIR(err) {
			return nil, plan.Wrapf(plan.CodeConflict, named, err, "file was removed or replaced while it was being opened; try again")
		}
		return nil, ioErr(named, err)
	}
	defer f.Close()
	ofi, err := f.Stat()
	if err != nil {
		return nil, ioErr(named, err)
	}
	id, oid := fsys.IdentityOf(fi), fsys.IdentityOf(ofi)
	if id.Dev != oid.Dev || id.Ino != oid.Ino || !ofi.Mode().IsRegular() {
		return nil, plan.Wrapf(plan.CodeConflict, named, errSwapped, "file was replaced while it was being opened; try again")
	}
	data, err := fsys.ReadAll(f, make([]byte, 0, ofi.Size()+1), ofi.Size())
	if errors.Is(err, fsys.ErrTooLarge) || (err == nil && int64(len(data)) != ofi.Size()) {
		return nil, plan.Wrapf(plan.CodeConflict, named, errSwapped, "file changed size while it was read; try again")
	}
	if err != nil {
		return nil, ioErr(named, err)
	}
	return &fileInfo{exists: true, data: data, ident: oid, mode: ofi.Mode(), readAt: readAt}, nil
}

func (w *Workspace) checkRegular(named string, fi fs.FileInfo, forEdit bool) error {
	switch m := fi.Mode(); {
	case m.IsDir():
		return plan.Errorf(plan.CodeNotRegular, named, "is a directory")
	case !m.IsRegular():
		return plan.Errorf(plan.CodeNotRegular, named, "is not a regular file (%v); only regular files are read or edited", m.Type())
	}
	if id := fsys.IdentityOf(fi); forEdit && id.Nlink > 1 {
		return plan.Errorf(plan.CodeDenied, named, "has %d hard links: replacing it would split them, so edits are refused", id.Nlink)
	}
	if fi.Size() > w.opts.MaxFileSize {
		return plan.Errorf(plan.CodeTooLarge, named, "is %d bytes, over the %d-byte limit", fi.Size(), w.opts.MaxFileSize)
	}
	return nil
}

func ioErr(named string, err error) error {
	if c := codeOf(err); c != plan.CodeIOError {
		msg := errText(err)
		switch c {
		case plan.CodeOutsideRoot:
			msg = "path leads outside the workspace root"
		case plan.CodeConflict:
			msg += ": a symlink on the way changed while it was followed; try again"
		}
		return plan.Wrapf(c, named, err, "%s", msg)
	}
	return plan.Wrapf(plan.CodeIOError, named, err, "%s", errText(err))
}

// codeOf is the code of an error of the file system: denied for a
// permission (EACCES, EPERM: an immutable or append-only file, a sticky
// directory) or a read-only file system, outside_root for a name that
// leads out, conflict for a symlink that loops (resolve follows links
// itself and refuses real loops, so the system's ELOOP means one changed
// meanwhile), else io_error.
func codeOf(err error) plan.Code {
	switch {
	case errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS):
		return plan.CodeDenied
	case fsys.IsEscape(err):
		return plan.CodeOutsideRoot
	case errors.Is(err, syscall.ELOOP):
		return plan.CodeConflict
	}
	return plan.CodeIOError
}

// errText strips the op and path from an *fs.PathError: messages already
// name the path.
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// wrapJournalErr gives an error of the journal its code. An error that
// carries another (a failure and the trouble rolling it back) is
// classified by the first: the rollback's trouble is not why the request
// failed.
func wrapJournalErr(err error) error {
	first := err
	for {
		m, ok := first.(interface{ Unwrap() []error })
		if !ok || len(m.Unwrap()) == 0 {
			break
		}
		first = m.Unwrap()[0]
	}
	if se := (*journal.StandingError)(nil); errors.As(first, &se) {
		return plan.Wrapf(plan.CodeUntrustedJournal, "", err, "%v", err)
	}
	if errors.Is(first, fsys.ErrBusy) {
		var be *fsys.BusyError
		if errors.As(first, &be) {
			// Another workspace's writer: one that contains this one or
			// is nested in it (the tree lock; docs/design.md).
			return plan.Wrapf(plan.CodeBusy, "", err, "%s; try again", be.Holder)
		}
		return plan.Wrapf(plan.CodeBusy, "", err, "another txedit process is committing in this workspace; try again")
	}
	var ce *fsys.ConflictError
	if errors.As(first, &ce) {
		return plan.Wrapf(plan.CodeConflict, ce.Path, err, "%s; nothing was written", ce.Msg)
	}
	var pe *plan.Error
	if errors.As(first, &pe) {
		if first == err {
			return err
		}
		e := *pe
		e.Msg, e.Err = pe.Msg+strings.TrimPrefix(err.Error(), first.Error()), err
		return &e
	}
	var rp *errReplan
	if errors.As(first, &rp) {
		return plan.Wrapf(plan.CodeStaleHash, rp.path, err, "%v; nothing was written", err)
	}
	if c := codeOf(first); c != plan.CodeIOError {
		return plan.Wrapf(c, pathOf(first), err, "%s; nothing was written", errText(first))
	}
	return plan.Wrap(plan.CodeIOError, "", err)
}

// pathOf is the root-relative path an error of the file system names.
func pathOf(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Path
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.New
	}
	return ""
}

// createMode is the mode of files txedit creates: 0666 less the umask, as
// any editor would give them.
func createMode() fs.FileMode { return 0o666 &^ fsys.Umask() }

// claimKey names the file a resolved path leads to, for the rule that a
// request names each file once: by its device and inode when it exists (two
// paths of one file, through a bind mount say, are one claim), else by its
// directory's device and inode and its name, else by the path.
//
// fi, if not nil, is rel's Lstat, made by the caller a moment ago.
func (o *op) claimKey(rel string, fi fs.FileInfo) string {
	if fi == nil {
		var err error
		if fi, err = o.fsy.Lstat(rel); err != nil {
			fi = nil
		}
	}
	if fi != nil {
		if id := fsys.IdentityOf(fi); id.Ino != 0 {
			return fmt.Sprintf("\x00%d:%d", id.Dev, id.Ino)
		}
	}
	if fi, err := o.fsy.Lstat(path.Dir(rel)); err == nil {
		if id := fsys.IdentityOf(fi); id.Ino != 0 {
			return fmt.Sprintf("\x00%d:%d/%s", id.Dev, id.Ino, path.Base(rel))
		}
	}
	return rel
}
