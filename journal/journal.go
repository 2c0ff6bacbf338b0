package journal

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/hash"
	"github.com/txedit/txedit/internal/par"
)

// Dir is the journal's directory, relative to the workspace root.
const Dir = ".txedit"

const (
	txnsDir  = Dir + "/txns"
	gcDir    = Dir + "/gc"
	lockName = Dir + "/LOCK"
)

// SyncMode chooses how the commit protocol makes its phases durable.
type SyncMode int

const (
	// SyncAuto is the default: SyncData, or SyncFilesystem for a
	// transaction that begins while the system is quiet (Options.Quiet).
	SyncAuto SyncMode = iota
	// SyncFile fsyncs every file and directory it writes, many at once
	// (Options.SyncWorkers).
	SyncFile
	// SyncFilesystem uses syncfs(2) barriers, falling back to SyncFile
	// where the platform has none. syncfs flushes everything dirty on the
	// file system, other processes' data too, so a commit's latency
	// depends on what else is being written.
	SyncFilesystem
	// SyncNone skips durability: atomicity survives a process crash
	// (the page cache does), not a power loss. For tests and tmpfs.
	SyncNone
	// SyncData makes exactly the transaction's own files durable: each
	// file it writes is fdatasynced as soon as it is written (fsynced if
	// its mode or owner was set after creation), many at once, and each
	// directory whose entries it changed is fsynced; each phase waits
	// for all of them. Its cost does not depend on other processes.
	SyncData
)

// quietMinOps is the smallest transaction for which the default mode
// considers a syncfs barrier by Options.Quiet; quietFewMinOps the
// smallest for which it does by Options.QuietFew. Measured on this
// machine's ext4 (commits of 1 to 60 files, journal in use, the two modes
// alternating, 20 commits each: bench/README.md, round 5, c60b), a
// transaction's own syncs cost less than two syncfs barriers up to 9
// files (syncfs 1.02-1.43x the time of 1 to 9 files' commits) and more
// from 16 (0.75-0.83x for 16, 32 and 60 files).
const (
	quietMinOps    = 64
	quietFewMinOps = 16
)

// Options configure a Journal. The zero value is usable.
type Options struct {
	Sync        SyncMode
	LockTimeout time.Duration // default 30s
	// SyncWorkers bounds the fsyncs and fdatasyncs in flight at once
	// (default 64; 1, every call in a fixed order, when Workers is 1).
	// A device serves many at once, and the file system commits them
	// together, so many in flight cost little more than one.
	SyncWorkers int
	// Keep and KeepBytes are the retention limits of GC: the newest Keep
	// transactions (default 200) within KeepBytes of packs (default 1 GiB).
	Keep      int
	KeepBytes int64
	// Workers bounds the renames and checks run at once (default 4).
	Workers int
	// Quiet, if set, lets the default mode pick syncfs barriers for a
	// transaction of 64 files or more when it reports that the system
	// has little unwritten data (then syncfs costs least and flushes
	// little that is not ours); otherwise the default is SyncData. Set it only for a real
	// file system whose dirty data the report describes.
	Quiet func() bool
	// QuietFew, if set, lets the default mode pick syncfs barriers for a
	// transaction of quietFewMinOps up to 63 files when it reports that
	// the system has very little unwritten data (the engine: under 4 MiB,
	// fsys.QuietBelow). Such a commit's own syncs cost a few
	// milliseconds, so what a syncfs may flush that is not ours is held
	// to less than Quiet's limit. Unset, such a transaction syncs its
	// own files.
	QuietFew func() bool
	// Volatile, if set, lets the default mode skip the syncs of a
	// transaction of 64 files or more when it reports that everything
	// the journal and its files are on keeps nothing across a power loss
	// (a tmpfs: fsys.Volatile), where no sync has any effect but its
	// system calls. Set it only for the real file system it describes.
	Volatile func() bool
	// InMemory, if set, reports whether the journal's root is on a file
	// system in memory (a tmpfs: fsys.InMemory), where a sync waits for
	// no device: a transaction widens its Ps (Tx.widen) only where it
	// reports false. Unset, a transaction widens as on a disk.
	InMemory func() bool
	// Keys is this user's store of journal keys (docs/design.md, "What
	// makes a journal trusted"); default [MemoryKeys]. Path is the
	// workspace root's absolute path, recorded in the journal's entry
	// there for people.
	Keys *Keys
	Path string
}

// Journal is the on-disk transaction log of one workspace. It is safe for
// concurrent use; transactions are serialised by the workspace lock.
type Journal struct {
	fs   fsys.FS
	opts Options
	keys *Keys
	*shared
}

// shared is what a journal learns once and its views (WithFS) share.
type shared struct {
	// tr caches what manifests are verified with, once the key exists
	// (it never changes then); nil until loaded. Shared, so that each
	// lock, which goes through a fresh view, does not read the key again.
	tr atomic.Pointer[trust]
	// noUnnamed is set once a staged file could not be made unnamed
	// (unnamed.go).
	noUnnamed atomic.Bool
	// swept is set once a lock found .gitignore right and removed a
	// temporary file an interrupted rewrite of it may have left
	// (ensureGitignore).
	swept atomic.Bool
	// home is this user's directory in a shared journal, "" in a
	// journal of one user (shared.go).
	home string
}

// WithFS returns the same journal working through another view of its file
// system (one that caches directory handles, say).
func (j *Journal) WithFS(fsy fsys.FS) *Journal {
	if j.home != "" {
		fsy = sharedFS{fsy, j.home}
	}
	return &Journal{fs: fsy, opts: j.opts, keys: j.keys, shared: j.shared}
}

// trust returns what manifests are verified with: nil where there is no
// journal, a trust that refuses everything for a journal that is not this
// user's (trust.go). This user's key is read again only when the
// journal's id file is not the one it was found through (the journal
// removed and made again, by another process say): one stat instead of
// reading the id and the key store's entry.
func (j *Journal) trust() (*trust, error) {
	if t := j.tr.Load(); t != nil {
		if fi, err := j.fs.Lstat(idName); err == nil && fsys.SameVersion(fsys.IdentityOf(fi), t.idf) {
			return t, nil
		}
	}
	t, err := j.loadTrust()
	if t != nil && t.foreign == nil {
		j.tr.Store(t)
	}
	return t, err
}

// New returns the journal of the workspace fsy is rooted at. Nothing is
// written until the first Lock.
func New(fsy fsys.FS, opts *Options) *Journal {
	j := &Journal{fs: fsy, shared: &shared{}}
	if opts != nil {
		j.opts = *opts
	}
	if j.opts.LockTimeout == 0 {
		j.opts.LockTimeout = 30 * time.Second
	}
	if j.opts.Keep == 0 {
		j.opts.Keep = 200
	}
	if j.opts.KeepBytes == 0 {
		j.opts.KeepBytes = 1 << 30
	}
	if j.opts.Workers <= 0 {
		j.opts.Workers = 4
	}
	if j.opts.SyncWorkers <= 0 {
		j.opts.SyncWorkers = defaultSyncWorkers
		if j.opts.Workers == 1 {
			j.opts.SyncWorkers = 1
		}
	}
	if j.opts.Sync == SyncAuto && j.opts.Quiet == nil {
		j.opts.Sync = SyncData
	}
	if j.opts.Keys == nil {
		j.opts.Keys = MemoryKeys()
	}
	j.keys = j.opts.Keys
	if j.home = sharedHome(fsy); j.home != "" {
		j.fs = sharedFS{fsy, j.home}
	}
	return j
}

// Locked is a held workspace lock.
type Locked struct {
	j      *Journal
	unlock func() error
	tr     *trust    // this user's key for the journal, made under the lock for a new one
	lastID string    // the newest transaction id seen under the lock
	listed *listing  // the transactions recovery looked at (pending.go)
	tail   indexTail // the index's last line, kept current by ended
	// stale lists ended transactions whose pending entries wait for a
	// sync of the transactions directory (forward.go).
	stale []string
	// after runs once the lock is released (AfterUnlock).
	after []func()
	// Recovered lists transactions that recovery rolled back when the lock
	// was taken: their owners died mid-commit.
	Recovered []*Report
}

// Lock takes the workspace lock, creating the journal on first use, and
// recovers transactions whose owners died. It returns ErrBusy if another
// process holds the lock past the timeout.
func (j *Journal) Lock() (*Locked, error) { return j.LockWithin(j.opts.LockTimeout) }

// LockWithin is Lock waiting at most timeout for another holder (not
// Options.LockTimeout): for work that can as well be done later, such as
// retention after a write (engine.Options.BackgroundGC).
func (j *Journal) LockWithin(timeout time.Duration) (*Locked, error) {
	// A journal that is not this user's is never written into, nor is
	// anything in it recovered (trust.go).
	// (Once it was found this user's, the check under the lock suffices.)
	if j.tr.Load() == nil {
		if t, err := j.trust(); err != nil {
			return nil, err
		} else if t != nil && t.foreign != nil && !t.foreign.Fresh {
			return nil, t.foreign.Err()
		}
	}
	// New directories are made durable under the lock: by the claim of
	// the journal, in its first wait (the root's entry for .txedit) and
	// its second (.txedit, with the id), or, where another writer
	// claimed it meanwhile, before anything else is written into it.
	fresh, err := j.makeDirs()
	if err != nil {
		return nil, err
	}
	unlock, err := j.fs.Lock(lockName, timeout)
	if err != nil {
		if fi, lerr := j.fs.Lstat(lockName); lerr == nil && !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("%w: %s is not a regular file (%v); run txedit recover", ErrCorrupt, lockName, fi.Mode().Type())
		}
		return nil, err
	}
	l := &Locked{j: j, unlock: unlock}
	ok := false
	defer func() {
		if !ok {
			unlock() // recovery failed or panicked: do not keep the lock
		}
	}()
	// A journal this call made writes its first files (.gitignore, its
	// id) in one round (freshFiles, claim), not in two rounds each.
	var batch []atomicWrite
	if fresh && j.home == "" {
		// (In a shared journal the .gitignore is everyone's: written
		// only where it is missing or wrong, by ensureGitignore.)
		batch = j.freshFiles()
	}
	// Again under the lock, which another process may have held to claim
	// or remove the journal; a fresh one (made here, or by a write that
	// died before it claimed it) is claimed now.
	if l.tr, err = j.trust(); err == nil && (l.tr == nil || l.tr.foreign != nil) {
		if l.tr != nil && !l.tr.foreign.Fresh {
			return nil, l.tr.foreign.Err()
		}
		var dirs []string
		if fresh {
			dirs = []string{"."} // .txedit itself is synced with the id
		}
		l.tr, err = j.claim(nil, batch, dirs...)
		batch = nil
	} else if err == nil && fresh && j.opts.Sync != SyncNone {
		// Made here but claimed by another writer: the directories
		// durable before any file is made in them, both syncs at once.
		err = j.each(2, func(i int) error { return j.fs.SyncDir([]string{Dir, "."}[i]) })
	}
	if err == nil && len(batch) > 0 {
		err = j.writeFilesAtomic(batch, nil)
	} else if err == nil && (!fresh || j.home != "") {
		err = j.ensureGitignore()
	}
	if err != nil {
		return nil, err
	}
	// The transactions that may need recovery: those pending/ names, or,
	// in a journal that has no pending/ yet (an older txedit's), every
	// one (pending.go).
	ls, fast, err := j.pendingListing()
	if err != nil {
		return nil, err
	}
	if !fast {
		if ls, err = j.scan(); err != nil {
			return nil, err
		}
	} else if fi, err := j.fs.Lstat(txnsDir); err == nil && !fi.IsDir() {
		return nil, fmt.Errorf("%w: %s is not a directory (run txedit recover)", ErrCorrupt, txnsDir)
	}
	j.tr.Store(l.tr)
	l.tail = j.readIndexTail()
	l.listed = ls
	reports, err := j.recoverLocked(l, ls)
	l.Recovered = reports
	if err != nil {
		return nil, err
	}
	if !fast {
		if err := j.makePending(); err != nil {
			return nil, err
		}
	}
	l.lastID = max(ls.last(), l.tail.last)
	ok = true
	return l, nil
}

// Made reports whether the journal's directories exist (it was made, or
// half made: the next Lock makes it whole). It reads one name.
func (j *Journal) Made() bool {
	_, err := j.fs.Lstat(txnsDir)
	return !errors.Is(err, fs.ErrNotExist)
}

// Unlock releases the lock.
func (l *Locked) Unlock() error {
	err := l.unlock()
	after := l.after
	l.after = nil
	for _, fn := range after {
		fn()
	}
	return err
}

// AfterUnlock has fn run right after Unlock has released the lock: work
// that needs the lock again, started the moment it is free.
func (l *Locked) AfterUnlock(fn func()) { l.after = append(l.after, fn) }

// init creates the journal's directories on first use, durably.
func (j *Journal) init() error {
	fresh, err := j.makeDirs()
	if err != nil || !fresh || j.opts.Sync == SyncNone {
		return err
	}
	if err := j.fs.SyncDir(Dir); err != nil {
		return err
	}
	return j.fs.SyncDir(".")
}

// makeDirs creates the journal's directories on first use (the lock file
// lives in them, so this runs before the lock is taken; Mkdir is atomic,
// so racing processes are harmless). fresh reports that it made them (or
// found them half made): they are not durable yet.
func (j *Journal) makeDirs() (fresh bool, err error) {
	if _, err := j.fs.Lstat(txnsDir); err == nil {
		return false, nil
	}
	if j.home != "" {
		if err := j.initShared(); err != nil {
			return false, err
		}
	}
	if err := j.fs.Mkdir(Dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return false, err
	}
	if err := j.fs.Mkdir(txnsDir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return false, err
	}
	// A new journal has nothing pending to find by listing: it starts
	// with pending/ (an older one is given it under the lock).
	if err := j.fs.Mkdir(pendingDir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return false, err
	}
	// The file marks are links to (marks.go), durable with the rest.
	if f, err := j.fs.Create(markName, 0o600); err == nil {
		f.Close()
	} else if !errors.Is(err, fs.ErrExist) {
		return false, err
	}
	return true, nil
}

// freshFiles is what a journal just made writes with its directories'
// syncs: its .gitignore (written again if it exists: a half-made journal
// a crash left may hold its temporary file, which the write removes).
func (j *Journal) freshFiles() []atomicWrite {
	return []atomicWrite{{name: Dir + "/.gitignore", data: []byte(gitignore), perm: 0o644}}
}

// gitignore is the journal's own .gitignore: the journal ignores itself,
// so it never shows up in git status and the user's .gitignore is never
// edited.
const gitignore = "*\n"

// ensureGitignore writes .txedit/.gitignore unless it already holds what
// it should. It runs under the lock and writes atomically, so a crash
// cannot leave it empty (an empty one is repaired here).
func (j *Journal) ensureGitignore() error {
	name := Dir + "/.gitignore"
	if data, _, err := fsys.ReadFile(j.fs, name, 1<<10); err == nil && string(data) == gitignore {
		// A crash of an earlier write may have left its temporary file
		// (a rewrite removes it first): looked for once per Journal. So
		// is the id's: a new journal writes both in one round
		// (freshFiles, claim), so a power loss may keep the id and a
		// temporary file of the .gitignore, or the other way round.
		if j.swept.Load() {
			return nil
		}
		for _, tmp := range []string{name + ".tmp", idName + ".tmp"} {
			if err := j.fs.Remove(tmp); err != nil && !fsys.Gone(err) {
				return err
			}
		}
		j.swept.Store(true)
		return nil
	}
	err := fsys.WriteFileAtomic(j.fs, name, []byte(gitignore), 0o644, j.opts.Sync != SyncNone)
	if j.home != "" && errors.Is(err, fs.ErrPermission) {
		return nil // another member's, in the sticky shared directory: theirs to mend
	}
	return err
}

// newID returns a time-ordered transaction id: UTC time to the microsecond
// and a random suffix, e.g. 20261121-075700-123456-3f9a.
// The id sorts after every id in the journal (after, itself an id or ""),
// so the log order is the commit order even if the clock steps back.
func newID(after string) string {
	var r [2]byte
	rand.Read(r[:])
	t := time.Now().UTC()
	if last, ok := idTime(after); ok && !last.Before(t) {
		t = last.Add(time.Microsecond)
	}
	id := fmt.Sprintf("%s-%06d-%s", t.Format("20060102-150405"), t.Nanosecond()/1000, hex.EncodeToString(r[:]))
	if id <= after {
		// The same microsecond as after, a smaller random part.
		t = t.Add(time.Microsecond)
		id = fmt.Sprintf("%s-%06d-%s", t.Format("20060102-150405"), t.Nanosecond()/1000, hex.EncodeToString(r[:]))
	}
	return id
}

// idTime parses the time part of a transaction id.
func idTime(id string) (time.Time, bool) {
	if len(id) < 22 || id[15] != '-' {
		return time.Time{}, false
	}
	t, err := time.Parse("20060102-150405", id[:15])
	us, err2 := strconv.Atoi(id[16:22])
	if err != nil || err2 != nil {
		return time.Time{}, false
	}
	return t.Add(time.Duration(us) * time.Microsecond), true
}

// brokenOrder switches on deliberately wrong orderings of the commit
// protocol, for the test that proves the power-loss model catches them.
// Nothing but that test sets it.
var brokenOrder struct {
	noFileSync            bool // staged files are not fsynced before their rename
	dataSyncOnly          bool // a staged file whose mode was set after creation is only fdatasynced
	noDirSyncBeforeCommit bool // no directory fsync between the renames and the commit mark
	commitFirst           bool // the commit mark is made durable before the renames
	noExchange            bool // renames instead of exchanges (the window the exchange closes)
	noLease               bool // no read lease over an exchange (in-place writers: docs/journal.md, "Writers outside txedit")
	noForward             bool // recovery never rolls forward (but the commit mark is still not synced)
	forwardMixed          bool // recovery rolls forward a transaction some files of which are old
	stageNamed            bool // staged files are named, with the begin round before (not a broken order: the other path)
	linkEarly             bool // an unnamed staged file is named when staged, before the deferred begin round
	ignoreLate            bool // recovery ignores preparedLate: no PREPARED mark, no classification
	noRecordSync          bool // the transaction's file (manifest and pack) is not synced in the prepare round
	noLinkedSync          bool // a linked unnamed file's inode (its link count) is not synced in the rename round
	entryLate             bool // a new journal's id is renamed in before its key store entry is durable
}

// Tx is a transaction being committed. Stage may be called concurrently for
// different ops; the other methods are not safe for concurrent use.
type Tx struct {
	j         *Journal
	l         *Locked
	m         *Manifest
	pack      *packWriter
	packFile  fsys.File
	idents    []fsys.Identity
	identSet  []bool
	displaced []bool // op i's old version sits at its staging name (swapIn)
	// replaced: op i's swap changed what its name holds (renameOne), and
	// was not given back: the rollback saves aside a file there that is
	// neither version only then (restoreOp).
	replaced []bool
	// inPlace: op i's exchange put its new version in place and checked
	// that what it displaced, now at the staging name, is the version
	// checked (swapIn): a failed commit gives it back (giveBack).
	inPlace []bool
	// ours: op i's staged new version by identity (ourIdentity), taken
	// when it was written; oursSet says it was. A live rollback tells
	// the commit's own version from a save of the very same bytes by it,
	// where content cannot (giveBack, restoreOp).
	ours    []fsys.Identity
	oursSet []bool
	// leases: the read leases taken before the renames (leaseTargets),
	// until each file's swap uses and releases its own.
	leases []fsys.Lease
	sync   SyncMode
	syncer *syncer // the fsyncs in flight (SyncFile, SyncData)
	// unnamed: the begin round is deferred into the prepare round, and
	// staged files are made unnamed and given their staging names just
	// before the renames (unnamed.go). begun: the begin round is done.
	unnamed     bool
	begun       bool
	beginMu     sync.Mutex
	files       []fsys.Unnamed // op i's unnamed staged file, until it is linked
	filesClosed bool
	prepared    bool
	renaming    bool // the renames have begun
	committed   bool
	packSynced  bool
	done        bool
	unwiden     func() // restores GOMAXPROCS (par.Widen), or nil
}

// Manifest returns the transaction's manifest (with its id).
func (tx *Tx) Manifest() *Manifest { return tx.m }

// Begin starts a transaction for m's ops: it assigns the id and staging
// names, finds the directories creates need, and writes the manifest
// durably before any user file or directory is touched.
func (l *Locked) Begin(m *Manifest) (*Tx, error) {
	m.Version = manifestVersion
	m.Time = time.Now().UTC()
	f, err := l.makeTxnFile(m)
	if err != nil {
		return nil, err
	}
	j := l.j
	tx := &Tx{j: j, l: l, m: m, packFile: f, pack: &packWriter{f: f}, idents: make([]fsys.Identity, len(m.Ops)), identSet: make([]bool, len(m.Ops)), displaced: make([]bool, len(m.Ops)), replaced: make([]bool, len(m.Ops)), inPlace: make([]bool, len(m.Ops)), ours: make([]fsys.Identity, len(m.Ops)), oursSet: make([]bool, len(m.Ops)), leases: make([]fsys.Lease, len(m.Ops)), files: make([]fsys.Unnamed, len(m.Ops)), sync: j.syncMode(len(m.Ops))}
	if tx.sync == SyncFile || tx.sync == SyncData {
		tx.syncer = newSyncer(j.opts.SyncWorkers)
	}
	if tx.syncer != nil {
		// Its files' syncs are in flight while the next are staged.
		tx.widen()
	}
	begun := false
	defer func() {
		if !begun {
			// Failed, or panicked: a caller that recovers is not left
			// with the Ps widened (nor is the next test after a
			// crash test's panic).
			tx.restoreProcs()
		}
	}()
	seen := map[string]bool{} // the parents of creates planOps looked at
	err = tx.planOps(seen)
	if err == nil {
		err = tx.begin(seen)
	}
	if err != nil {
		tx.rollbackQuiet()
		return nil, err
	}
	begun = true
	return tx, nil
}

// makeTxnFile assigns m its id and creates the transaction's file
// (layout.go), with its pending entry; it returns the file, open for the
// manifest and the pack.
func (l *Locked) makeTxnFile(m *Manifest) (fsys.File, error) {
	j := l.j
	for try := 0; ; try++ {
		m.ID = newID(l.lastID)
		name := txnPath(m.ID)
		// Pending first: a transaction's file is never without its
		// entry (pending.go), and both are durable with the manifest.
		err := j.createPending(m.ID)
		var f fsys.File
		if err == nil {
			if f, err = j.fs.Create(name, 0o600); err != nil {
				j.unpend(m.ID)
			}
		}
		if err == nil {
			l.lastID = m.ID
			l.listed.add(m.ID)
			return f, nil
		}
		if errors.Is(err, syscall.ENOTDIR) {
			// The lock listed pending/, not txns/ (pending.go).
			return nil, fmt.Errorf("%w: %s is not a directory (run txedit recover)", ErrCorrupt, txnsDir)
		}
		if !errors.Is(err, fs.ErrExist) || try > 10 {
			return nil, err
		}
	}
}

// syncMode is the durability mode of a transaction of n ops.
func (j *Journal) syncMode(n int) SyncMode {
	if j.opts.Sync != SyncAuto {
		return j.opts.Sync
	}
	// On a file system that keeps nothing across a power loss, syncs
	// change nothing that a power loss leaves (Options.Volatile); a few
	// files' syncs cost less than the look at the mount table.
	if n >= quietMinOps && j.opts.Volatile != nil && j.opts.Volatile() {
		return SyncNone
	}
	// Many files' fdatasyncs cost more than one syncfs that flushes
	// little else; a few files' cost less than flushing anything.
	if n >= quietMinOps && j.opts.Quiet() {
		return SyncFilesystem
	}
	if n >= quietFewMinOps && n < quietMinOps && j.opts.QuietFew != nil && j.opts.QuietFew() {
		return SyncFilesystem
	}
	return SyncData
}

// planOps gives every op its staging name and lists in the manifest the
// directories the transaction removes (those a delete may empty) and
// makes (the missing parents of a create). It adds to seen the parents of
// the creates it looked at.
func (tx *Tx) planOps(seen map[string]bool) error {
	m := tx.m
	rmSeen := map[string]bool{}
	for _, d := range m.Rmdirs {
		rmSeen[d] = true
	}
	for i, op := range m.Ops {
		op.staged = stagedName(m.ID, op.Path, i)
		if op.Old == nil {
			op.New = tx.j.ownedHere(m, op.Path, op.New) // owner.go
		}
		if op.New == nil && !m.KeepParents {
			// A directory emptied by a delete goes too, as git and
			// patch do; Remove leaves it if anything else is in it.
			ps := parents(op.Path)
			for k := len(ps) - 1; k >= 0; k-- {
				if !rmSeen[ps[k]] {
					rmSeen[ps[k]] = true
					m.Rmdirs = append(m.Rmdirs, ps[k])
				}
			}
		}
		if op.Old == nil {
			for _, d := range parents(op.Path) {
				if seen[d] {
					continue
				}
				seen[d] = true
				_, err := tx.j.fs.Lstat(d)
				switch {
				case errors.Is(err, fs.ErrNotExist):
					m.Mkdirs = append(m.Mkdirs, d)
				case err != nil && !errors.Is(err, syscall.ENOTDIR):
					// Not an answer: which directories to make is
					// unknown (a file above d fails the create later,
					// with its own error).
					return err
				}
			}
		}
	}
	return nil
}

// begin records the directories' states, writes the manifest durably,
// makes the directories creates need and opens the pack. On an error the
// caller rolls back.
func (tx *Tx) begin(seen map[string]bool) error {
	j, m := tx.j, tx.m
	if err := j.wantDirs(m, seen); err != nil {
		return err
	}
	if err := j.recordDirs(m); err != nil {
		return err
	}
	if tx.l.tr == nil {
		return errors.New("journal key missing under the lock")
	}
	tx.unnamed = tx.useUnnamed()
	m.preparedLate = tx.unnamed
	data, err := encodeManifest(m, tx.l.tr.key)
	if err != nil {
		return err
	}
	if err := tx.writeManifest(data); err != nil {
		return err
	}
	for _, d := range m.Mkdirs {
		if err := j.mkdirAs(m, d); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
	}
	return nil
}

// writeManifest writes the manifest as the first record of the
// transaction's new file (layout.go) and makes it, and the file's entry
// in txns, durable (beginRound). Nothing outside the journal is touched
// until then, so a power loss before leaves at most a torn or missing
// manifest in a transaction that was never prepared: recovery removes it,
// as it was never begun.
//
// With unnamed staging the round is deferred (tx.unnamed: no staged file
// has a name before the prepare round, which makes the manifest durable
// first: unnamed.go).
func (tx *Tx) writeManifest(data []byte) error {
	if err := tx.pack.add(recManifest, 0, data); err != nil {
		return err
	}
	if tx.unnamed {
		return nil
	}
	return tx.beginRound(true)
}

// beginRound makes the manifest, the transaction's file's entry and the
// pending entry durable, the syncs in flight at once (one round trip to
// the device, not three: docs/journal.md, "The commit, and what it
// syncs"); withData false leaves out the file's own sync, which the
// caller has in flight already (the pack's, in the prepare round). It
// synced the transactions directory: the marks of the transactions that
// ended before are durable now, and their pending entries may go.
func (tx *Tx) beginRound(withData bool) error {
	tx.begun = true
	if tx.sync == SyncNone {
		tx.l.unpendStale() // nothing is durable in this mode anyway
		return nil
	}
	fsy := tx.j.fs
	var syncs []func() error
	if withData {
		syncs = append(syncs, tx.packFile.DataSync)
	}
	syncs = append(syncs, func() error { return fsy.SyncDir(txnsDir) }, func() error { return fsy.SyncDir(pendingDir) })
	err := par.Do(context.Background(), len(syncs), min(len(syncs), tx.j.opts.SyncWorkers), func(i int) error { return syncs[i]() })
	if err == nil {
		tx.l.unpendStale()
	}
	return err
}

// stagedName is the temporary file of op n: in the target's own directory,
// so the final rename stays inside one directory and one file system.
func stagedName(id, p string, n int) string {
	return path.Join(path.Dir(p), fmt.Sprintf(".txedit-%s-%d.tmp", id, n))
}

// IsTemp reports whether a file name is one of txedit's staging files;
// walkers skip them.
func IsTemp(name string) bool {
	return strings.HasPrefix(name, ".txedit-") && strings.HasSuffix(name, ".tmp")
}

// parents returns the directories above p, outermost first.
func parents(p string) []string {
	var out []string
	for d := path.Dir(p); d != "." && d != "/"; d = path.Dir(d) {
		out = append(out, d)
	}
	for i, k := 0, len(out)-1; i < k; i, k = i+1, k-1 {
		out[i], out[k] = out[k], out[i]
	}
	return out
}

// Staging is the data of one op.
type Staging struct {
	Old   []byte        // current content (nil when the file is absent)
	Ident fsys.Identity // identity of the file Old was read from
	New   []byte        // new content (ignored for deletes)
	Diff  string        // the op's unified diff, kept for `txedit show`
	// Checked says that the caller has checked Old and New against the
	// manifest's hashes (the engine does, under the lock): Stage does not
	// hash them again.
	Checked bool
}

// Stage records op i's before-image and diff in the pack and writes its new
// content to the staging file with the target's mode and owner; the file is
// made durable in the background, and Commit waits for it. It is safe to
// call concurrently for different ops.
func (tx *Tx) Stage(i int, s Staging) error {
	op := tx.m.Ops[i]
	var recs [2]record
	n := 0
	if op.Old != nil {
		if !s.Checked && hash.Of(s.Old) != op.Old.Hash {
			return fmt.Errorf("stage %s: before-image does not match the manifest", op.Path)
		}
		recs[n] = record{recBefore, s.Old}
		n++
		tx.idents[i], tx.identSet[i] = s.Ident, true
	}
	if s.Diff != "" {
		recs[n] = record{recDiff, unsafe.Slice(unsafe.StringData(s.Diff), len(s.Diff))} // only read
		n++
	}
	if n > 0 {
		// The before-image and the diff in one write (addRecords).
		if err := tx.pack.addRecords(i, recs[:n]...); err != nil {
			return err
		}
	}
	if op.New == nil {
		return nil
	}
	if !s.Checked && hash.Of(s.New) != op.New.Hash {
		return fmt.Errorf("stage %s: new content does not match the manifest", op.Path)
	}
	if op.New.IsLink() {
		// A link is staged under its name (there are no unnamed links),
		// durable with its directory in the prepare round.
		if tx.syncer != nil {
			if err := tx.ensureBegun(); err != nil {
				return err
			}
		}
		if err := tx.j.writeStaged(op.staged, s.New, op.New, false); err != nil {
			return err
		}
		fi, err := tx.j.fs.Lstat(op.staged)
		tx.noteOurs(i, fi, err)
		return nil
	}
	if tx.syncer == nil {
		f, _, err := tx.j.createStaged(op.staged, s.New, op.New)
		if err != nil {
			return err
		}
		fi, err := f.Stat()
		tx.noteOurs(i, fi, err)
		if err := f.Close(); err != nil {
			tx.j.fs.Remove(op.staged)
			return err
		}
		return nil
	}
	if err := tx.syncer.failed(); err != nil {
		return err // an earlier file could not be made durable
	}
	f, meta, err := tx.stageUnnamed(i, s.New)
	if errors.Is(err, errors.ErrUnsupported) {
		if err = tx.ensureBegun(); err == nil {
			f, meta, err = tx.j.createStaged(op.staged, s.New, op.New)
		}
	}
	if err != nil {
		return err
	}
	// The fdatasync runs while the next files are written; a failure
	// fails the barrier, and the rollback removes the file. An unnamed
	// file stays open until it is linked (renameOne).
	named := tx.files[i] == nil
	return tx.syncer.do(func() error {
		fi, err := f.Stat() // written: its mtime is final
		tx.noteOurs(i, fi, err)
		err = nil
		if !brokenOrder.noFileSync {
			err = tx.j.syncFile(f, meta)
		}
		if named {
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		return err
	})
}

// noteOurs records op i's staged new version's identity (fi, from a stat
// after its last write), unless the stat failed: then the live rollback
// cannot tell it from a save of the same bytes and saves a copy aside
// before restoring (restoreOp).
func (tx *Tx) noteOurs(i int, fi fs.FileInfo, err error) {
	if err == nil {
		tx.ours[i], tx.oursSet[i] = fsys.IdentityOf(fi), true
	}
}

// ourIdentity reports whether a and b are one version of one file txedit
// staged: its device, inode, size, mtime and mode. Not its link count
// (an unnamed file gets its link after the stat) nor its change time
// (the link and the exchanges set it): a save by rename is another
// inode; a write into the file in place changes its mtime.
func ourIdentity(a, b fsys.Identity) bool {
	return a.Dev == b.Dev && a.Ino == b.Ino && a.Size == b.Size && a.Mtime == b.Mtime && a.Mode == b.Mode
}

// writeStaged writes a staging file (see createStaged), synced if asked.
// A symbolic link's state makes a link whose target is data (durable with
// its directory, which the caller syncs).
func (j *Journal) writeStaged(name string, data []byte, st *State, sync bool) error {
	if st.IsLink() {
		return j.fs.Symlink(string(data), name)
	}
	f, meta, err := j.createStaged(name, data, st)
	if err != nil {
		return err
	}
	if sync && !brokenOrder.noFileSync {
		err = j.syncFile(f, meta)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		j.fs.Remove(name)
	}
	return err
}

// createStaged creates and writes a staging file: created with st's
// permission bits less the umask (never more readable than the target
// while half-written), then owner and mode set from st. meta reports
// whether the mode or owner was set after creation: then only a full
// fsync makes them durable. On failure the file is removed.
func (j *Journal) createStaged(name string, data []byte, st *State) (f fsys.File, meta bool, err error) {
	f, err = j.fs.Create(name, st.Mode&fs.ModePerm)
	if err != nil {
		return nil, false, err
	}
	meta, err = fillStaged(f, data, st)
	if err != nil {
		f.Close()
		j.fs.Remove(name)
		return nil, false, err
	}
	return f, meta, nil
}

// fillStaged writes a new staging file's data and sets its owner and mode
// (see createStaged).
func fillStaged(f fsys.File, data []byte, st *State) (meta bool, err error) {
	perm := st.Mode & fs.ModePerm
	_, err = f.Write(data)
	// Keep the owner and group where we may (owner.go); rename would
	// otherwise hand the file to whoever ran txedit.
	lost := false
	if err == nil {
		meta, lost, err = keepOwner(f, st)
	}
	want := st.Mode & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
	if lost {
		want &^= fs.ModeSetuid | fs.ModeSetgid
	}
	if err == nil && want != perm&^fsys.Umask() {
		// The umask took bits the file had, or setuid/setgid/sticky
		// must be set again (after the chown, which clears them).
		meta = true
		err = f.Chmod(want)
	}
	return meta, err
}

// syncFile makes a file txedit wrote durable: its data (fdatasync), or
// data and metadata (fsync) in SyncFile mode or when meta says that its
// mode or owner changed after it was created.
func (j *Journal) syncFile(f fsys.File, meta bool) error {
	if j.opts.Sync == SyncFile || (meta && !brokenOrder.dataSyncOnly) {
		return f.Sync()
	}
	return f.DataSync()
}

// ErrCommitUnknown reports that the commit mark was written but could not
// be made durable: the transaction is committed unless the machine loses
// power before the next sync.
var ErrCommitUnknown = errors.New("commit mark written but its durability is unknown")

// Commit makes the transaction take effect: a durability barrier, the
// PREPARED mark, an identity re-check of every target, the renames, a
// second barrier, and the COMMITTED mark, which is the commit point. On
// failure before that point every file is rolled back and the error
// returned.
func (tx *Tx) Commit() error {
	if tx.done {
		return errors.New("transaction already finished")
	}
	defer tx.closeFiles()
	defer tx.releaseLeases()
	tx.widen()
	defer tx.restoreProcs()
	err := tx.commit()
	if err != nil && !tx.committed {
		if tx.renaming {
			tx.giveBack()
			tx.abandon()
		}
		if rerr := tx.rollbackQuiet(); rerr != nil {
			return fmt.Errorf("%w (and rolling back: %w)", err, rerr)
		}
	}
	tx.done = true
	return err
}

// commit is the protocol, step by step (docs/design.md, the journal):
// prepare (the PREPARED mark and a barrier), check that every target is
// still the file staged against, the renames, the cleanup of what they
// displaced, a second barrier, and the commit point.
func (tx *Tx) commit() error {
	if err := tx.distinctTargets(); err != nil {
		return err
	}
	if err := tx.prepare(); err != nil {
		return err
	}
	if err := tx.leaseTargets(); err != nil {
		return err
	}
	if err := tx.checkTargets(); err != nil {
		return err
	}
	tx.renaming = true
	if err := tx.renameAll(); err != nil {
		return err
	}
	if tx.syncsEachDir() {
		// Each directory's fsync starts once its last entry changed,
		// while the other directories' displaced files are removed.
		if err := tx.removeDisplacedSyncing(); err != nil {
			return err
		}
		return tx.commitPoint()
	}
	if err := tx.removeDisplaced(); err != nil {
		return err
	}
	for _, d := range uniqueDeepestFirst(tx.m.Rmdirs) {
		if err := removeEmptyDir(tx.j.fs, d); err != nil {
			return err
		}
	}
	if !brokenOrder.noDirSyncBeforeCommit {
		// A late PREPARED mark is not synced here: recovery classifies
		// the files of a preparedLate transaction without it, and it
		// is durable with the next begin round (unnamed.go).
		if err := tx.barrier(tx.affectedDirs()); err != nil {
			return err
		}
	}
	return tx.commitPoint()
}

// prepare makes the PREPARED mark, the staged files and the pack durable.
// The mark is made durable by the same barrier as the staged files and
// the pack (one round of syncs, not two): it may become durable before
// them, which is safe, because no file is renamed until the barrier is
// passed, and a rollback classifies files by content (all still old)
// from here on.
func (tx *Tx) prepare() error {
	tx.prepared = true
	if tx.m.preparedLate {
		// The deferred begin round (which syncs txns/, where the
		// transaction's file is, and pending/) beside the staged files'
		// syncs and the file's own, which makes its manifest and its
		// pack durable at once (the barrier's); the mark after the
		// round, durable with the renames (unnamed.go).
		tx.syncer.do(func() error { return tx.finishBegin(false) })
		if err := tx.barrier(tx.stagingDirs()); err != nil {
			return err
		}
		if err := tx.markCreate("prepared"); err != nil {
			return err
		}
	} else {
		if err := tx.markCreate("prepared"); err != nil {
			return err
		}
		if err := tx.barrier(append(tx.stagingDirs(), txnsDir)); err != nil {
			return err
		}
	}
	if err := tx.j.fs.Revalidate(); err != nil {
		return err
	}
	if brokenOrder.commitFirst {
		if err := tx.mark("committed"); err != nil {
			return err
		}
	}
	return nil
}

// checkTargets checks that every target is still the file that was
// staged against (or still absent, for a create).
//
// A target held under a read lease (leaseTargets) is checked by the
// lease's own descriptor, not by its path: the lease was opened at the
// path after staging, so a leased file of the version staged against is
// that version still (a write since would have broken the lease, which
// swapIn looks at, and changed the ctime). What the descriptor cannot
// see is a rename over the path since the lease's open: the exchange
// then displaces that other file, and swapIn's check of what it
// displaced (by path) finds it and gives it back, as it does for a
// rename over the path after this check (docs/journal.md, "What a
// commit's calls cost"). A leased file that is not the version checks
// the path, for the answer's reason.
func (tx *Tx) checkTargets() error {
	fsy := tx.j.fs
	return tx.parallel(len(tx.m.Ops), func(i int) error {
		op := tx.m.Ops[i]
		if l := tx.leases[i]; l != nil && tx.identSet[i] {
			if fi, err := l.Stat(); err == nil && fsys.SameVersion(fsys.IdentityOf(fi), tx.idents[i]) {
				return nil
			}
		}
		fi, err := fsy.Lstat(op.Path)
		switch {
		case err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
			return err // not an answer about the file (EIO, say)
		case op.Old == nil:
			if err == nil {
				return &fsys.ConflictError{Op: "commit", Path: op.Path, Msg: "was created by someone else meanwhile"}
			}
		case err != nil:
			return &fsys.ConflictError{Op: "commit", Path: op.Path, Msg: "disappeared meanwhile"}
		case tx.identSet[i] && !fsys.SameVersion(fsys.IdentityOf(fi), tx.idents[i]):
			return &fsys.ConflictError{Op: "commit", Path: op.Path, Msg: "was modified by someone else meanwhile"}
		}
		return nil
	})
}

// renameAll puts every op in effect. Files are independent (recovery
// classifies each one on its own), so they run in parallel; creates go
// before deletes, so a moved file is never in neither place.
func (tx *Tx) renameAll() error {
	for _, deletes := range []bool{false, true} {
		err := tx.parallel(len(tx.m.Ops), func(i int) error {
			if (tx.m.Ops[i].New == nil) != deletes {
				return nil
			}
			return tx.renameOne(i)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// renameOne puts op i in effect: removes, creates or swaps in its file.
func (tx *Tx) renameOne(i int) error {
	fsy := tx.j.fs
	op := tx.m.Ops[i]
	var err error
	switch f := tx.files[i]; {
	case op.New == nil:
		err = tx.removeTarget(i)
	case op.Old == nil && f != nil:
		// Unnamed: linked at its name, which must not exist.
		if err = tx.link(f, op.Path); errors.Is(err, fs.ErrExist) {
			return &fsys.ConflictError{Op: "commit", Path: op.Path, Msg: "was created by someone else meanwhile"}
		} else if err == nil {
			tx.syncLinked(f)
		}
	case op.Old == nil:
		err = createNoClobber(fsy, op.staged, op.Path)
	default:
		if f != nil {
			if err = tx.link(f, op.staged); err != nil {
				break
			}
			tx.syncLinked(f)
		}
		err = tx.swapIn(i)
	}
	// A conflict left the name as it was (a lease refused, a name taken,
	// a save swapped back at once); any other failure may have changed it.
	var ce *fsys.ConflictError
	if err == nil || tx.displaced[i] || !errors.As(err, &ce) && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
		tx.replaced[i] = true
	}
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		// The file, or the staged file beside it, is not where the
		// identity check found it a moment ago: its directory was moved
		// or replaced meanwhile.
		return &fsys.ConflictError{Op: "commit", Path: op.Path, Msg: "its directory was moved or replaced while the commit ran"}
	}
	return err
}

// commitPoint makes the COMMITTED mark come into existence: the commit
// point. Past it the transaction is in effect, whatever fails after; a
// failure whose outcome is unknown is ErrCommitUnknown.
func (tx *Tx) commitPoint() error {
	fsy := tx.j.fs
	created, err := tryCreateMark(tx.j, tx.m.ID, "committed")
	if !created {
		if _, lerr := fsy.Lstat(txnsDir + "/" + tx.m.ID + ".committed"); errors.Is(lerr, fs.ErrNotExist) {
			return err // certainly not committed: roll back
		} else if lerr != nil {
			// Whether the mark exists is unknown: leave the decision
			// to recovery, which reads what is on disk.
			tx.committed = true
			return fmt.Errorf("%w: %w", ErrCommitUnknown, err)
		}
	}
	tx.committed = true
	if s := tx.l.listed.states[tx.m.ID]; s != nil {
		s.committed = true
	}
	if tx.packFile != nil {
		tx.packFile.Close()
	}
	if err != nil {
		return fmt.Errorf("%w: %w", ErrCommitUnknown, err)
	}
	// A transaction recovery can tell finished from its files alone needs
	// no sync of its mark (forward.go): the renames are durable. Its
	// pending entry stays until the mark is durable too (the next begin
	// round), or a power loss could take the mark and keep the removal.
	synced := tx.sync == SyncNone || !forwardable(tx.m)
	if tx.sync != SyncNone && synced {
		if err := fsy.SyncDir(txnsDir); err != nil {
			return fmt.Errorf("%w: %w", ErrCommitUnknown, err)
		}
	}
	// The index and the pending entry are bookkeeping, unsynced
	// (pending.go).
	tx.l.ended(tx.m.ID, tx.packSize(), tx.m.Undoes, synced)
	return nil
}

// swapIn puts op i's staged file in place of the file it replaces. Where
// the file system can, it exchanges the two names atomically and then
// checks that what it displaced is exactly the version the identity check
// saw a moment before: a writer that knows nothing of txedit and saved
// the file in between (an editor's save: a temporary file renamed over
// it; or a write in place) is caught, its file swapped back, and the
// commit fails with conflict, where a rename would have replaced that
// save silently (docs/journal.md, "Writers outside txedit"). The displaced old version stays at the
// staging name until the commit removes it, before its commit point; a
// crash before then is rolled back from the pack's before-image, which
// is durable by now. Without an exchange (other systems, other file
// systems) it renames, as before.
//
// A writer that saves in place (open with O_TRUNC, write, close) writes
// into the file it opened, whatever is at the name later: a commit that
// swapped that file out between the writer's open and its last write
// would lose the save, and a commit staged against the moment the file
// was empty would wipe it. So, where leases exist, the file is held under
// a read lease from before the exchange until the displaced version is
// checked: a file open for writing now is not replaced (conflict), and a
// writer that opens or truncates it meanwhile waits and is seen, its file
// swapped back before it goes on (docs/journal.md, "Writers outside
// txedit").
func (tx *Tx) swapIn(i int) error {
	fsy := tx.j.fs
	op := tx.m.Ops[i]
	if brokenOrder.noExchange {
		return fsy.Rename(op.staged, op.Path)
	}
	lease, err := tx.leaseOf(i)
	if err != nil {
		return err
	}
	if lease != nil {
		defer lease.Release()
	}
	err = fsy.Exchange(op.staged, op.Path)
	if errors.Is(err, errors.ErrUnsupported) {
		return fsy.Rename(op.staged, op.Path)
	}
	if err != nil {
		return err
	}
	tx.displaced[i] = true
	fi, err := fsy.Lstat(op.staged)
	if err == nil && (!tx.identSet[i] || sameFile(fsys.IdentityOf(fi), tx.idents[i])) && (lease == nil || !lease.Broken()) {
		tx.inPlace[i] = true
		return nil
	}
	msg := "was modified by someone else meanwhile"
	if err == nil && tx.identSet[i] && fsys.IdentityOf(fi).Nlink > tx.idents[i].Nlink {
		msg = "was given another name (a hard link) meanwhile: replacing it would split the two names"
	}
	// Not the version that was checked, or it cannot be checked: give the
	// writer's file back, unless a third one has replaced ours meanwhile
	// (then its save is the newest, and stays).
	if cur, lerr := fsy.Lstat(op.Path); lerr == nil && (tx.oursSet[i] && ourIdentity(fsys.IdentityOf(cur), tx.ours[i]) || !tx.oursSet[i] && cur.Size() == op.New.Size) {
		if fsy.Exchange(op.staged, op.Path) == nil {
			tx.displaced[i] = false
		}
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err // the check failed (EIO, say): not a conflict
	}
	return &fsys.ConflictError{Op: "commit", Path: op.Path, Msg: msg}
}

// lease takes a read lease on the target name for a replacement or a
// removal (see swapIn): nil where there are no leases, a conflict if
// another process has the file open for writing. A symbolic link (old, the
// version replaced) takes none: nothing writes into a link in place, and a
// lease would be taken on what it leads to.
func (tx *Tx) lease(name string, old *State) (fsys.Lease, error) {
	if brokenOrder.noLease || old.IsLink() {
		return nil, nil
	}
	l, err := tx.j.fs.ReadLease(name)
	switch {
	case err == nil:
		return l, nil
	case errors.Is(err, fsys.ErrOpenForWriting):
		return nil, &fsys.ConflictError{Op: "commit", Path: name, Msg: "is open for writing by another process (a save in progress?); try again when it is closed"}
	}
	// No leases here (or the file went: the removal or exchange says so).
	return nil, nil
}

// removeTarget removes op i's file, under a read lease where there are
// leases: a file another process has open for writing, or opens for
// writing meanwhile, is not removed (conflict).
func (tx *Tx) removeTarget(i int) error {
	op := tx.m.Ops[i]
	lease, err := tx.leaseOf(i)
	if err != nil {
		return err
	}
	if lease != nil {
		defer lease.Release()
		if lease.Broken() {
			return &fsys.ConflictError{Op: "commit", Path: op.Path, Msg: "was opened for writing by another process meanwhile"}
		}
	}
	return tx.j.fs.Remove(op.Path)
}

// heldLeasesMax bounds the read leases a commit holds at once before its
// renames (leaseTargets): each is an open file. The ops past it take
// theirs just before their own swap.
const heldLeasesMax = 256

// leaseTargets takes, before any file is put in place, the read lease of
// every file a commit of several files replaces or removes (up to
// heldLeasesMax of them): a file some process has open for writing (a
// save in place under way) refuses the commit (conflict) while every
// file is still as it was. Taken one at a time, at each file's swap, it
// refused it only after the files before it had been put in place, and
// an outside writer reading one of those in that moment could save the
// refused change (docs/journal.md, "Writers outside txedit"). A
// commit of one file takes its lease at its swap.
func (tx *Tx) leaseTargets() error {
	if brokenOrder.noLease || brokenOrder.noExchange {
		return nil
	}
	var want []int
	for i, op := range tx.m.Ops {
		if op.Old != nil && !op.Old.IsLink() && len(want) < heldLeasesMax {
			want = append(want, i)
		}
	}
	if len(want) < 2 {
		return nil
	}
	return tx.parallel(len(want), func(k int) error {
		i := want[k]
		l, err := tx.lease(tx.m.Ops[i].Path, tx.m.Ops[i].Old)
		tx.leases[i] = l
		return err
	})
}

// leaseOf is op i's read lease: the one leaseTargets took, or a new one;
// the caller releases it.
func (tx *Tx) leaseOf(i int) (fsys.Lease, error) {
	if l := tx.leases[i]; l != nil {
		tx.leases[i] = nil
		return l, nil
	}
	return tx.lease(tx.m.Ops[i].Path, tx.m.Ops[i].Old)
}

// releaseLeases releases the leases no swap used (the commit failed
// before it got to them).
func (tx *Tx) releaseLeases() {
	for i, l := range tx.leases {
		if l != nil {
			l.Release()
			tx.leases[i] = nil
		}
	}
}

// giveBack undoes, at once, the swaps of a commit that failed after its
// renames began: each file put in place gets back the very file it
// displaced, which waits at the staging name, by a second exchange. The
// version rolled back is then in place only for the moment between the
// swaps, not while the rollback writes a before-image and syncs
// (docs/journal.md, "Writers outside txedit"); and the file is the one it
// was (its inode, its links). What the second exchange displaces must be
// the commit's version: a save that replaced it meanwhile is swapped back
// and stays, as the rollback leaves any file that is neither version. A
// file not given back here (an exchange failed) is restored by the
// rollback from the pack, as before.
func (tx *Tx) giveBack() {
	fsy := tx.j.fs
	tx.parallel(len(tx.m.Ops), func(i int) error {
		if !tx.inPlace[i] {
			return nil
		}
		op := tx.m.Ops[i]
		if fsy.Exchange(op.staged, op.Path) != nil {
			return nil
		}
		tx.inPlace[i] = false
		if tx.displacedOurs(i) {
			tx.displaced[i], tx.replaced[i] = false, false
			return nil
		}
		fsy.Exchange(op.staged, op.Path)
		return nil
	})
}

// displacedOurs reports whether what op i's exchange just moved to its
// staging name is the commit's own version: by identity (ourIdentity)
// where it was taken, since a save of exactly the bytes the commit wrote
// is the user's file all the same; by content only where it was not.
func (tx *Tx) displacedOurs(i int) bool {
	op := tx.m.Ops[i]
	if tx.oursSet[i] {
		fi, err := tx.j.fs.Lstat(op.staged)
		return err == nil && ourIdentity(fsys.IdentityOf(fi), tx.ours[i])
	}
	back, _, err := readCurrent(tx.j.fs, op.staged)
	return err == nil && back.is(op.New)
}

// sameFile reports whether two identities are one version of one file,
// but for the change time, which the exchange itself sets. The link count
// counts: a hard link made to the file between the check and the exchange
// would keep the old version under its other name, split from the one
// the exchange replaced (docs/design.md, "Shared trees"); swapIn then
// gives the file back and the commit fails with conflict.
func sameFile(a, b fsys.Identity) bool {
	return a.Dev == b.Dev && a.Ino == b.Ino && a.Size == b.Size && a.Mtime == b.Mtime && a.Mode == b.Mode && a.Nlink == b.Nlink
}

// removeDisplaced removes the old versions the exchanges left at the
// staging names, before the commit point.
func (tx *Tx) removeDisplaced() error {
	return tx.parallelRemovals(len(tx.m.Ops), func(i int) error {
		if !tx.displaced[i] {
			return nil
		}
		if err := tx.j.fs.Remove(tx.m.Ops[i].staged); err != nil && !fsys.Gone(err) {
			return err
		}
		return nil
	})
}

// syncsEachDir reports whether the rename round's barrier syncs each
// directory (the files' own syncs, not a syncfs) and the transaction
// removes no directory: then removeDisplacedSyncing may start each
// directory's fsync as soon as its entries are final.
func (tx *Tx) syncsEachDir() bool {
	return tx.syncer != nil && (tx.sync == SyncData || tx.sync == SyncFile) && len(tx.m.Rmdirs) == 0 && !brokenOrder.noDirSyncBeforeCommit
}

// removeDisplacedSyncing is removeDisplaced and the rename round's barrier
// at once: the fsync of a directory starts the moment the last displaced
// file in it is removed (at once, for a directory with none), while the
// removals in the other directories go on, instead of after every
// removal. Every directory is still synced after its last change, and the
// barrier waits for all of them (and for the linked files' syncs) before
// the commit point, as before.
func (tx *Tx) removeDisplacedSyncing() error {
	dirs := uniqueDeepestFirst(tx.affectedDirs())
	left := make(map[string]*atomic.Int32, len(dirs))
	for _, d := range dirs {
		left[d] = new(atomic.Int32)
	}
	// The removals a directory at a time (the ops need not be in
	// directory order), so that the first directories are done, and
	// their syncs under way, while the last are still being emptied.
	var order []int
	for i, op := range tx.m.Ops {
		if tx.displaced[i] {
			left[path.Dir(op.Path)].Add(1)
			order = append(order, i)
		}
	}
	sort.SliceStable(order, func(a, b int) bool {
		return path.Dir(tx.m.Ops[order[a]].Path) < path.Dir(tx.m.Ops[order[b]].Path)
	})
	syncDir := func(d string) {
		tx.syncer.do(func() error {
			if err := tx.j.fs.SyncDir(d); err != nil && !fsys.Gone(err) {
				return err
			}
			return nil
		})
	}
	for _, d := range dirs {
		if left[d].Load() == 0 {
			syncDir(d)
		}
	}
	err := tx.parallelRemovals(len(order), func(k int) error {
		op := tx.m.Ops[order[k]]
		if err := tx.j.fs.Remove(op.staged); err != nil && !fsys.Gone(err) {
			return err
		}
		if d := path.Dir(op.Path); left[d].Add(-1) == 0 {
			syncDir(d)
		}
		return nil
	})
	if werr := tx.syncer.wait(); err == nil {
		err = werr
	}
	return err
}

// parallel runs fn(0..n-1) on up to Options.Workers goroutines and returns
// the first error; after an error no new call starts. A panic is an error:
// the caller rolls back.
func (tx *Tx) parallel(n int, fn func(i int) error) error {
	return par.Do(context.Background(), n, tx.j.opts.Workers, fn)
}

// removeWorkers bounds the removals of displaced files run at once. A
// removal frees the old version's blocks, and on a file system that
// discards freed blocks at once it waits for the device inside the
// unlink (this machine's ext4, mounted with discard and without a
// journal: ext4_free_blocks, blkdev_issue_discard, submit_bio_wait): 1,000
// unlinks of 4 KiB files took 92 ms one at a time, 35 ms four at a time
// (Options.Workers' default), 19 ms sixteen at a time, no less with more
// (bench/README.md, round 5, "Removals in flight"). The Ps are widened
// for the commit (widen), so the waits do not hold up the other calls.
const removeWorkers = 16

// parallelRemovals is parallel for the removals: up to removeWorkers at
// once (no more than SyncWorkers; one at a time when Workers is 1, as
// every call is then).
func (tx *Tx) parallelRemovals(n int, fn func(i int) error) error {
	return par.Do(context.Background(), n, tx.j.opts.removals(), fn)
}

// removals is how many removals of files that hold data run at once: up
// to removeWorkers (no more than SyncWorkers), one at a time when Workers
// is 1.
func (o *Options) removals() int {
	if o.Workers <= 1 {
		return o.Workers
	}
	return max(o.Workers, min(removeWorkers, o.SyncWorkers))
}

// abandon tells recovery that this transaction failed after its renames
// began and must be rolled back, not finished, even if its rollback
// cannot be done now (a full disk, say) and every file is new: its pending
// entry goes, durably where it can (forward.go). A removal needs no space.
func (tx *Tx) abandon() {
	tx.j.unpend(tx.m.ID)
	if tx.sync != SyncNone {
		_ = tx.j.fs.SyncDir(pendingDir) // at worst recovery finishes it
	}
}

// Abort rolls back a transaction that was begun but not committed.
func (tx *Tx) Abort() error {
	if tx.done {
		return nil
	}
	tx.done = true
	defer tx.restoreProcs()
	return tx.rollbackQuiet()
}

// widenFewMinOps is the fewest ops of a transaction that widen: raising
// GOMAXPROCS and restoring it costs ~70 µs (two stops of the world) and
// the idle Ps' spinning (0.2-0.6 ms of CPU a commit), which a round of 4
// syncs (one file; prepare: the transaction's file, txns/, pending/, the
// staged file) or 6 (two files) does not win back, and 3 to 8 files on
// ext4 do (0.80-0.94x the time of a commit). On a file system in memory
// (Options.InMemory) nothing waits for a device, and no transaction
// widens: it cost 1.0-1.3x the time of 3 to 8 files' commits there, and
// 1.2x that of 60 files' (docs/journal.md, "Syncs in flight, and the Go
// runtime's Ps").
const widenFewMinOps = 3

// widen gives the process more Ps (par.Widen) until the transaction ends,
// where it has many syncs in flight and many calls that wait in the
// kernel (the exchanges, the removals): with GOMAXPROCS 2, a goroutine
// blocked in an fsync keeps one of the two Ps, and the rest of a round's
// syncs, and the staging beside them, wait for it (docs/journal.md, "What
// a commit's calls cost"). Not on a file system in memory, where no call
// waits for a device: there the Ps would only spin.
func (tx *Tx) widen() {
	if tx.unwiden != nil || tx.sync == SyncNone {
		return
	}
	if len(tx.m.Ops) >= widenFewMinOps && (tx.j.opts.InMemory == nil || !tx.j.opts.InMemory()) {
		tx.unwiden = par.Widen(par.SyscallProcs)
	}
}

// restoreProcs ends widen's effect.
func (tx *Tx) restoreProcs() {
	if tx.unwiden != nil {
		tx.unwiden()
		tx.unwiden = nil
	}
}

func (tx *Tx) rollbackQuiet() error {
	if tx.syncer != nil {
		tx.syncer.wait() // no sync of a staged file may still be running
	}
	if tx.packFile != nil {
		tx.packFile.Close()
		tx.packFile = nil
	}
	tx.closeFiles()
	_, err := tx.j.rollback(tx.m, tx.prepared, &live{replaced: tx.replaced, ours: tx.ours, oursSet: tx.oursSet})
	if err == nil {
		tx.l.ended(tx.m.ID, tx.packSize(), tx.m.Undoes, true)
	}
	return err
}

// packSize is the bytes the transaction's pack holds (0 before it exists).
func (tx *Tx) packSize() int64 {
	if tx.pack == nil {
		return 0
	}
	return tx.pack.off.Load()
}

// createNoClobber puts staged at name without replacing anything there:
// link(2) fails if name exists. Where hard links are not supported it
// falls back to a checked rename.
func createNoClobber(fsy fsys.FS, staged, name string) error {
	err := fsy.Link(staged, name)
	if err == nil {
		return fsy.Remove(staged)
	}
	if errors.Is(err, fs.ErrExist) {
		return &fsys.ConflictError{Op: "commit", Path: name, Msg: "was created by someone else meanwhile"}
	}
	if errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.EXDEV) || errors.Is(err, errors.ErrUnsupported) {
		if _, lerr := fsy.Lstat(name); lerr == nil {
			return &fsys.ConflictError{Op: "commit", Path: name, Msg: "was created by someone else meanwhile"}
		}
		return fsy.Rename(staged, name)
	}
	return err
}

// removeEmptyDir removes d if it is empty. A directory that holds
// anything (someone else's files) stays; that is not an error.
func removeEmptyDir(fsy fsys.FS, d string) error {
	err := fsy.Remove(d)
	if err == nil || fsys.Gone(err) || errors.Is(err, fs.ErrExist) || errors.Is(err, syscall.ENOTEMPTY) {
		return nil
	}
	return err
}

// mark creates a state mark beside the transaction's file and makes it
// durable.
func (tx *Tx) mark(state string) error {
	if err := tx.markCreate(state); err != nil {
		return err
	}
	if tx.sync != SyncNone {
		return tx.j.fs.SyncDir(txnsDir)
	}
	return nil
}

func (tx *Tx) markCreate(state string) error {
	return createMark(tx.j, tx.m.ID, state)
}

func createMark(j *Journal, id, state string) error {
	_, err := tryCreateMark(j, id, state)
	return err
}

// tryCreateMark creates a state mark. created reports whether the mark
// exists afterwards as far as this call knows, even if an error follows
// (a failed close of the empty file).
func tryCreateMark(j *Journal, id, state string) (created bool, err error) {
	err = j.makeEmpty(txnsDir + "/" + id + "." + state)
	if errors.Is(err, fs.ErrExist) {
		return true, nil
	}
	return err == nil, err
}

// stagingDirs lists the directories the prepare round syncs: the parents
// of the directories phase 1 made (they appear in the user's tree when
// made). Not the directories of the staged files: a staged file's name
// needs to be durable only with the exchange that puts it in place, and
// the rename round syncs its directory after that; a power loss before
// leaves its target old, rolled back, or new, finished forward, and its
// old content in the pack either way (docs/journal.md, "The commit, and
// what it syncs").
func (tx *Tx) stagingDirs() []string {
	var dirs []string
	for _, d := range tx.m.Mkdirs {
		dirs = append(dirs, path.Dir(d))
	}
	return dirs
}

// affectedDirs lists the directories whose entries the renames changed.
func (tx *Tx) affectedDirs() []string {
	var dirs []string
	for _, op := range tx.m.Ops {
		dirs = append(dirs, path.Dir(op.Path))
	}
	for _, d := range tx.m.Rmdirs {
		dirs = append(dirs, path.Dir(d))
	}
	return dirs
}

// barrier makes everything written so far durable: one syncfs per file
// system; or, with the staged files' syncs already under way, a sync of
// the pack and an fsync of every directory listed, many at once, and a
// wait for all of them.
func (tx *Tx) barrier(dirs []string) error {
	switch tx.sync {
	case SyncNone:
		return nil
	case SyncFilesystem:
		err := syncFilesystems(tx.j.fs, dirs)
		if !errors.Is(err, errors.ErrUnsupported) {
			return err
		}
		tx.sync = SyncFile
		tx.syncer = newSyncer(tx.j.opts.SyncWorkers)
		// The staged files were written without fsync: sync them now.
		for _, op := range tx.m.Ops {
			if op.New != nil {
				staged := op.staged
				tx.syncer.do(func() error {
					if err := syncByName(tx.j.fs, staged); err != nil && !errors.Is(err, fs.ErrNotExist) {
						return err
					}
					return nil
				})
			}
		}
	}
	if tx.packFile != nil && !tx.packSynced && !brokenOrder.noRecordSync {
		// The pack is written only before the first barrier.
		pack := tx.packFile
		tx.syncer.do(func() error { return tx.j.syncFile(pack, false) })
		tx.packSynced = true
	}
	for _, d := range uniqueDeepestFirst(dirs) {
		tx.syncer.do(func() error {
			if err := tx.j.fs.SyncDir(d); err != nil && !fsys.Gone(err) {
				return err
			}
			return nil
		})
	}
	return tx.syncer.wait()
}

func syncByName(fsy fsys.FS, name string) error {
	f, err := fsy.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// syncDirs fsyncs each distinct directory, deepest first, so a new
// directory's own entries are durable before its parent's entry for it.
func syncDirs(fsy fsys.FS, dirs []string) error {
	for _, d := range uniqueDeepestFirst(dirs) {
		if err := fsy.SyncDir(d); err != nil && !fsys.Gone(err) {
			return err
		}
	}
	return nil
}

// syncFilesystems calls SyncFS once per distinct file system the dirs are
// on (usually one: the root's).
func syncFilesystems(fsy fsys.FS, dirs []string) error {
	devs := map[uint64]bool{}
	for _, d := range append([]string{"."}, uniqueDeepestFirst(dirs)...) {
		fi, err := fsy.Lstat(d)
		if err != nil {
			continue
		}
		dev := fsys.IdentityOf(fi).Dev
		if devs[dev] {
			continue
		}
		devs[dev] = true
		if err := fsy.SyncFS(d); err != nil {
			return err
		}
	}
	return nil
}

func uniqueDeepestFirst(dirs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, d := range dirs {
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	sort.SliceStable(out, func(i, k int) bool { return strings.Count(out[i], "/") > strings.Count(out[k], "/") })
	return out
}

// DiffReader reads the diffs a transaction recorded, one op at a time, so
// that a caller can hand out a large transaction's diffs without holding
// them all. It indexes the pack as far as it must, not at once: the
// records are written about in op order, so a caller that reads the first
// diffs of a 1,000-file transaction, and no more (a write's answer that
// stops at its budget), reads the headers of those records only, not
// 2,000 (bench/README.md, round 5, "Diffs past the budget").
type DiffReader struct {
	f    fsys.File
	size int64
	idx  packIndex
	off  int64 // the next record not yet indexed
	err  error // what ended the scan before the end of the pack
}

// OpenDiffs opens the recorded diffs of transaction id.
func (j *Journal) OpenDiffs(id string) (*DiffReader, error) {
	f, size, err := j.openPack(id)
	if err != nil {
		return nil, err
	}
	return &DiffReader{f: f, size: size, idx: packIndex{}}, nil
}

// Diff returns the diff recorded for op i ("" if none). A damaged record
// ends the index, as readPack's: a diff after it is not read, and Diff
// returns the damage.
func (r *DiffReader) Diff(i int) (string, error) {
	key := [2]int{recDiff, i}
	e, ok := r.idx[key]
	for !ok && r.err == nil && r.size-r.off >= recHeader {
		kind, op, n, err := recordAt(r.f, r.off, r.size)
		if err != nil {
			r.err = err
			break
		}
		r.idx[[2]int{int(kind), op}] = packEntry{r.off + recHeader, n}
		r.off += recHeader + n
		e, ok = r.idx[key]
	}
	if !ok {
		return "", r.err
	}
	data := make([]byte, e.n)
	if _, err := r.f.ReadAt(data, e.off); err != nil {
		return "", err
	}
	return string(data), nil
}

// Close releases the reader.
func (r *DiffReader) Close() error { return r.f.Close() }
