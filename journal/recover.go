package journal

import (
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/hash"
)

// Report describes what recovery did to one transaction.
type Report struct {
	ID string
	// Conflicts lists files that matched neither their old nor their new
	// version: they were left alone and their bytes saved aside.
	Conflicts []Conflict
	// Damaged is set when the transaction's manifest could not be read
	// or verified.
	Damaged string
	// Finished is set when the transaction was interrupted after every
	// file was in place: recovery finished it (it is committed) instead
	// of rolling it back (docs/journal.md, "Recovery").
	Finished bool
	// A report with no ID is about the journal itself: Repaired says what
	// recovery put aside so that writes can go on (a txns that was not a
	// directory, a LOCK that was not a file), Strays lists names in the
	// transactions directory that are not txedit's (never acted on).
	Repaired string
	Strays   []string
}

// Conflict is a file recovery would not overwrite.
type Conflict struct {
	Path    string `json:"path"`
	SavedAs string `json:"saved_as,omitempty"` // root-relative copy of its bytes
	Reason  string `json:"reason"`
}

// Recover rolls back every transaction whose owner died before its commit
// point. It takes the workspace lock and is idempotent: a crash inside
// recovery is repaired by the next recovery.
//
// It also repairs what would stop every write (see [Report]) and reports
// stray names, which writes ignore.
func (j *Journal) Recover() ([]*Report, error) {
	reports, err := j.repairJournal()
	if err != nil {
		return reports, err
	}
	// A journal half made (a power loss kept .txedit and what was made in
	// it before txns/ was durable: the first write syncs the new
	// directories with its claim) is made whole and claimed by the lock,
	// and what that write left is removed below; only where there is no
	// journal at all is there nothing to do.
	if _, err := j.fs.Lstat(Dir); errors.Is(err, fs.ErrNotExist) {
		return reports, nil
	}
	more, err := j.repair()
	reports = append(reports, more...)
	if err != nil {
		return reports, err
	}
	l, err := j.Lock()
	if err != nil {
		return reports, err
	}
	defer l.Unlock()
	reports = append(reports, l.Recovered...)
	// A crash in one of the journal's own atomic writes may have left its
	// temporary file; under the lock none is being written.
	for _, tmp := range journalTemps {
		if err := j.fs.Remove(tmp); err != nil && !fsys.Gone(err) {
			return reports, err
		}
	}
	all, err := j.scan() // the whole directory, for the names that are not txedit's
	if err != nil {
		return reports, err
	}
	rs, err := l.recoverOrphans(all)
	reports = append(reports, rs...)
	if err != nil {
		return reports, err
	}
	if len(l.stale) > 0 && j.opts.Sync != SyncNone {
		if err := j.fs.SyncDir(txnsDir); err != nil {
			return reports, err
		}
	}
	l.unpendStale()
	if strays := append(all.strays, l.listed.strays...); len(strays) > 0 {
		sort.Strings(strays)
		reports = append(reports, &Report{Strays: strays})
	}
	return reports, nil
}

// journalTemps are the temporary files of the journal's own atomic writes
// (fsys.WriteFileAtomic) that a crash may leave behind.
var journalTemps = []string{keyName + ".tmp", legacyName + ".tmp", indexName + ".tmp", idName + ".tmp"}

// repair puts aside, under a name that says what it was, a transactions
// directory that is not a directory and a lock file that is not a regular
// file: either stops every write (with an error that says to run txedit
// recover). Nobody can hold the lock or commit meanwhile, so no lock is
// needed; of two racing repairs, one renames and the other finds nothing.
func (j *Journal) repair() ([]*Report, error) {
	var out []*Report
	stamp := time.Now().UTC().Format("20060102-150405.000000")
	for _, c := range []struct {
		name string
		ok   func(fs.FileInfo) bool
		what string
	}{
		{txnsDir, fs.FileInfo.IsDir, "not a directory"},
		{lockName, func(fi fs.FileInfo) bool { return fi.Mode().IsRegular() }, "not a regular file"},
	} {
		fi, err := j.fs.Lstat(c.name)
		if err != nil || c.ok(fi) {
			continue
		}
		aside := c.name + ".damaged-" + stamp
		if err := j.fs.Rename(c.name, aside); err != nil && !fsys.Gone(err) {
			return out, err
		}
		out = append(out, &Report{Repaired: fmt.Sprintf("%s was %s (%v): moved aside to %s", c.name, c.what, fi.Mode().Type(), aside)})
	}
	if len(out) > 0 {
		if err := j.init(); err != nil {
			return out, err
		}
	}
	return out, nil
}

// repairJournal repairs what is wrong with the journal directory itself,
// which stops every write: a .txedit that is a symbolic link is removed
// (never followed: the link is the one thing removed), one that is a file
// or anything else not a directory is moved aside beside it
// (.txedit.damaged-TIME); a journal whose entry in this user's key store
// is damaged gets a new key (what it holds stays unverifiable, so it is
// never acted on). A journal that is not this user's is left as it is:
// that needs a person's word (txedit journal adopt or remove).
func (j *Journal) repairJournal() ([]*Report, error) {
	st, err := j.Status()
	if err != nil {
		return nil, err
	}
	stamp := time.Now().UTC().Format("20060102-150405.000000")
	switch {
	case st.Standing == Wedged:
		fi, err := j.fs.Lstat(Dir)
		if err != nil {
			return nil, err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			if err := j.fs.Remove(Dir); err != nil && !fsys.Gone(err) {
				return nil, err
			}
			return []*Report{{Repaired: fmt.Sprintf("%s %s: removed (the link, not what it named)", Dir, st.Reason)}}, nil
		}
		aside := Dir + ".damaged-" + stamp
		if err := j.fs.Rename(Dir, aside); err != nil && !fsys.Gone(err) {
			return nil, err
		}
		return []*Report{{Repaired: fmt.Sprintf("%s %s: moved aside to %s", Dir, st.Reason, aside)}}, nil
	case st.Standing == Foreign && st.Damaged:
		more, err := j.repair() // the lock file, first
		if err != nil {
			return more, err
		}
		unlock, err := j.fs.Lock(lockName, j.opts.LockTimeout)
		if err != nil {
			return more, err
		}
		defer unlock()
		if st, err = j.Status(); err != nil || st.Standing != Foreign || !st.Damaged {
			return more, err
		}
		j.keys.forget(st.id)
		if _, err := j.claim(nil, nil); err != nil {
			return more, err
		}
		return append(more, &Report{Repaired: fmt.Sprintf("the journal %s; it has a new key: the transactions it holds cannot be verified, so none of them will be undone or recovered", st.Reason)}), nil
	case st.Standing == Foreign || st.Standing == NotOwned:
		if st.Fresh {
			return nil, nil // the lock claims it
		}
		return nil, st.Err()
	}
	return nil, nil
}

type txnStates struct {
	dir, prepared, committed, rolledBack bool
	aside                                bool // ID.conflicts (layout.go)
}

// marks lists the marks s says are present; nil s (nothing known) lists
// all three, the PREPARED mark first, so that removing them in order
// leaves the end mark last.
func (s *txnStates) marks() []string {
	var out []string
	for _, m := range []struct {
		name    string
		present bool
	}{{"prepared", s == nil || s.prepared}, {"committed", s == nil || s.committed}, {"rolledback", s == nil || s.rolledBack}} {
		if m.present {
			out = append(out, m.name)
		}
	}
	return out
}

// listing is what the names in the transactions directory say: each
// transaction's state (its file and marks), the ids sorted, and the
// names that are neither (strays: someone else's files; never compared
// with an id, never acted on, reported by recover and gc).
type listing struct {
	states map[string]*txnStates
	ids    []string
	strays []string
}

// last returns the newest id ("" in an empty journal).
func (ls *listing) last() string {
	if len(ls.ids) == 0 {
		return ""
	}
	return ls.ids[len(ls.ids)-1]
}

// add records a transaction begun under the lock.
func (ls *listing) add(id string) {
	if ls.states[id] == nil {
		ls.states[id] = &txnStates{}
		ls.ids = append(ls.ids, id) // newID sorts it last
	}
	ls.states[id].dir = true
}

// scan lists the transactions directory by name alone: the names say
// everything (ID is a transaction's file or an older txedit's directory,
// ID.prepared and friends its
// marks), so it costs the getdents calls and no call per transaction,
// however many are retained (docs/journal.md, "Cost per commit, whatever
// is retained").
func (j *Journal) scan() (*listing, error) {
	ls := &listing{states: map[string]*txnStates{}}
	names, err := fsys.ReadDirNames(j.fs, txnsDir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return ls, nil
		}
		if errors.Is(err, syscall.ENOTDIR) {
			return nil, fmt.Errorf("%w: %s is not a directory (run txedit recover)", ErrCorrupt, txnsDir)
		}
		return nil, err
	}
	for _, name := range names {
		id, mark, _ := strings.Cut(name, ".")
		if !validID(id) {
			ls.strays = append(ls.strays, name)
			continue
		}
		s := ls.states[id]
		if s == nil {
			s = &txnStates{}
			ls.states[id] = s
		}
		switch mark {
		case "":
			s.dir = true // the transaction's file, or an older txedit's directory
		case "prepared":
			s.prepared = true
		case "committed":
			s.committed = true
		case "rolledback":
			s.rolledBack = true
		case "conflicts":
			s.aside = true // what recovery saved aside (layout.go)
		default:
			ls.strays = append(ls.strays, name)
		}
	}
	ls.ids = make([]string, 0, len(ls.states))
	for id := range ls.states {
		ls.ids = append(ls.ids, id)
	}
	sort.Strings(ls.ids)
	sort.Strings(ls.strays)
	return ls, nil
}

// Strays lists the names in the transactions directory that are not
// txedit's (see listing).
func (j *Journal) Strays() ([]string, error) {
	ls, err := j.scan()
	if err != nil {
		return nil, err
	}
	return ls.strays, nil
}

// recoverOrphans recovers the unfinished transactions of all, a listing
// of the whole transactions directory taken under the lock, after the
// lock recovered those pending/ names: what is left is a transaction whose
// pending entry a power loss in Begin's first round lost while its
// directory stayed. It was never prepared, so nothing outside the journal
// was touched; Recover and GC, which list the whole directory, finish it.
func (l *Locked) recoverOrphans(all *listing) ([]*Report, error) {
	orphans := &listing{states: map[string]*txnStates{}}
	for _, id := range all.ids {
		// Also marks whose transaction is gone: a GC interrupted between
		// removing a transaction and its marks (log.go, remove). Left,
		// they made every later open recover under the lock.
		if s := all.states[id]; !s.dir || (!s.committed && !s.rolledBack) {
			orphans.ids = append(orphans.ids, id)
			orphans.states[id] = s
		}
	}
	if len(orphans.ids) == 0 {
		return nil, nil
	}
	return l.j.recoverLocked(l, orphans)
}

func (j *Journal) recoverLocked(l *Locked, ls *listing) ([]*Report, error) {
	var reports []*Report
	for _, id := range ls.ids {
		s := ls.states[id]
		if !s.dir {
			// Marks left by an interrupted GC (any of them: a power loss
			// may keep some removals and lose others), or a pending
			// entry of a Begin that died before its file was made.
			for _, m := range s.marks() {
				j.fs.Remove(txnsDir + "/" + id + "." + m)
			}
			removeAll(j.fs, asideDir(id, false))
			j.unpend(id)
			continue
		}
		if s.committed || s.rolledBack {
			// A stale entry: the transaction ended. A COMMITTED mark may
			// not be durable yet (forward.go): the entry goes after the
			// next sync of the transactions directory.
			if s.rolledBack {
				j.unpend(id)
			} else {
				l.stale = append(l.stale, id)
			}
			continue
		}
		m, err := j.readManifest(id)
		if err != nil {
			if !s.prepared && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrCorrupt)) {
				// Begin died before the manifest was durable (missing or
				// torn): nothing outside the journal was touched.
				if err := removeTxn(j.fs, id); err != nil {
					return reports, err
				}
				s.dir = false
				j.unpend(id)
				continue
			}
			// A manifest that is there but damaged or not verifiable, or
			// missing after the transaction was prepared: nothing tells
			// what is safe to change, so nothing is. It is reported and
			// kept.
			rep := &Report{ID: id, Damaged: err.Error()}
			reports = append(reports, rep)
			if err := createMark(j, id, "rolledback"); err != nil {
				return reports, err
			}
			s.rolledBack = true
			l.ended(id, 0, "", true)
			continue
		}
		// A transaction that makes its PREPARED mark late may have
		// renamed files without it (unnamed.go): classified all the same.
		prepared := s.prepared || (m.preparedLate && !brokenOrder.ignoreLate)
		var rep *Report
		if prepared && j.finishedForward(m) {
			rep, err = j.rollForward(m)
			s.committed = err == nil
		} else {
			rep, err = j.rollback(m, prepared, nil)
			s.rolledBack = err == nil
		}
		if err != nil {
			return reports, fmt.Errorf("recover %s: %w", id, err)
		}
		l.ended(id, j.packBytes(id), m.Undoes, true)
		reports = append(reports, rep)
	}
	if ents, err := j.fs.ReadDir(gcDir); err == nil {
		for _, e := range ents {
			removeAll(j.fs, gcDir+"/"+e.Name())
		}
		removeEmptyDir(j.fs, gcDir)
	}
	return reports, nil
}

func (j *Journal) readManifest(id string) (*Manifest, error) {
	data, err := j.readManifestData(id)
	if err != nil {
		return nil, err
	}
	m, err := decodeManifest(data)
	if err != nil {
		return nil, err
	}
	if m.ID != id {
		// Acting on it would touch another transaction's marks.
		return nil, fmt.Errorf("%w: manifest of %s names transaction %s", ErrCorrupt, id, m.ID)
	}
	t, err := j.trust()
	if err != nil {
		return nil, err
	}
	if err := t.verify(m); err != nil {
		return nil, err
	}
	return m, nil
}

// rollback undoes whatever part of m reached the user's files, classifying
// each file by its current content: a file that is neither its old nor its
// new version is never overwritten. Then it removes what the transaction
// staged and made, and marks it rolled back. replaced, from the commit
// that failed (nil in recovery: not known), says which files it replaced.
func (j *Journal) rollback(m *Manifest, prepared bool, lv *live) (*Report, error) {
	rep := &Report{ID: m.ID}
	if prepared {
		blobs := j.OpenPack(m)
		defer blobs.Close()
		if err := j.restoreDirs(m); err != nil {
			return rep, err
		}
		for i := len(m.Ops) - 1; i >= 0; i-- {
			if err := j.restoreOp(m, i, blobs, rep, lv); err != nil {
				return rep, err
			}
		}
	}
	if err := j.cleanUp(m); err != nil {
		return rep, err
	}
	return rep, j.markEnded(m, rep, "rolledback")
}

// restoreDirs makes the directories the transaction removed again,
// shallowest first, before any file goes back into them.
func (j *Journal) restoreDirs(m *Manifest) error {
	rm := uniqueDeepestFirst(m.Rmdirs)
	for i := len(rm) - 1; i >= 0; i-- {
		if UnderGit(rm[i]) {
			continue // never made again there: see restoreOp
		}
		if _, err := j.fs.Lstat(rm[i]); errors.Is(err, fs.ErrNotExist) {
			if err := j.mkdirAs(m, rm[i]); err != nil && !errors.Is(err, fs.ErrExist) {
				return err
			}
		}
	}
	return nil
}

// live is what a live rollback (the commit that failed, Tx.Commit) knows
// and recovery does not: which files its swaps replaced (replaced), and
// its staged new versions by identity (ours, where oursSet).
type live struct {
	replaced []bool
	ours     []fsys.Identity
	oursSet  []bool
}

// mine reports whether the file at op i's name is the commit's own new
// version by identity, and whether that could be told (known): a save of
// exactly the bytes the commit wrote is another inode (a rename-style
// save) or the same with another mtime (a write in place).
func (lv *live) mine(fsy fsys.FS, m *Manifest, i int) (mine, known bool) {
	if lv == nil || !lv.oursSet[i] {
		return true, false
	}
	fi, err := fsy.Lstat(m.Ops[i].Path)
	return err == nil && ourIdentity(fsys.IdentityOf(fi), lv.ours[i]), true
}

// restoreOp brings op i's file back to its old version if it is now its
// new one; a file that is neither is saved aside and reported, never
// overwritten. What cannot be decided is a conflict in rep; the error is
// for a failure that stops the rollback.
//
// A file that is neither, which the failed commit never replaced
// (lv.replaced says so; lv nil: not known, as in recovery), is someone's
// save that landed before the commit reached it (the commit failed with a
// conflict there, or before): the rollback has nothing of it to undo and
// nothing of the user's was displaced, so it is left as it is with no
// copy and no conflict (docs/journal.md, "Writers outside txedit").
//
// A live rollback tells its own new version from a save of the very same
// bytes by identity (live.mine): such a save is someone's, and is left
// as a file that is neither is. Recovery cannot (the identities died with
// the process): it takes the bytes for the commit's version. Where a live
// rollback could not take the identity (a stat failed at staging), it
// saves a copy aside before restoring.
func (j *Journal) restoreOp(m *Manifest, i int, blobs *Pack, rep *Report, lv *live) error {
	op := m.Ops[i]
	if op.inexact {
		rep.Conflicts = append(rep.Conflicts, Conflict{Path: op.Path, Reason: inexactReason})
		return nil
	}
	st, cur, reason := classify(j.fs, op)
	sameBytes := false
	if st == stateNew && op.New != nil && lv != nil {
		switch mine, known := lv.mine(j.fs, m, i); {
		case !mine:
			st, sameBytes = stateNeither, true
		case !known:
			c := j.leaveNeither(m, i, cur, "")
			c.Reason = "could not be told from a save of the same bytes; a copy is saved aside, and the old version restored"
			rep.Conflicts = append(rep.Conflicts, c)
		}
	}
	switch {
	case st == stateOld:
		// Already the old version.
	case UnderGit(op.Path):
		// A hook, a config: code git runs. Recovery never writes one,
		// whatever the manifest says (docs/design.md, "Threat model").
		rep.Conflicts = append(rep.Conflicts, Conflict{Path: op.Path, Reason: gitReason})
	case st == stateNeither && lv != nil && !lv.replaced[i]:
		// Never replaced: see above.
	case st == stateNeither:
		c := j.leaveNeither(m, i, cur, reason)
		if sameBytes {
			c.Reason = "was saved by someone else meanwhile, with the very bytes of its new version; left as it is"
		}
		rep.Conflicts = append(rep.Conflicts, c)
	case op.Old == nil:
		return j.fs.Remove(op.Path)
	default:
		data, err := blobs.Before(i)
		if err != nil {
			rep.Conflicts = append(rep.Conflicts, Conflict{Path: op.Path, Reason: "before-image lost: " + err.Error()})
			return nil
		}
		var ours *fsys.Identity
		if lv != nil && lv.oursSet[i] {
			ours = &lv.ours[i]
		}
		err = j.restore(m, op, data, j.opts.Sync != SyncNone, ours)
		if errors.Is(err, errChangedMeanwhile) {
			rep.Conflicts = append(rep.Conflicts, Conflict{Path: op.Path, Reason: err.Error()})
			return nil
		}
		return err
	}
	return nil
}

// leaveNeither is the conflict of op i's file when it is neither version:
// never overwritten, its bytes saved aside (cur) or, when it could not be
// read, the reason why.
func (j *Journal) leaveNeither(m *Manifest, i int, cur []byte, reason string) Conflict {
	c := Conflict{Path: m.Ops[i].Path, Reason: "matches neither its old nor its new version; left as it is"}
	if reason != "" {
		c.Reason = reason
		return c
	}
	dir := asideDir(m.ID, j.isLegacy(m.ID))
	if saved := fmt.Sprintf("%s/%d", dir, i); j.saveAside(dir, saved, cur) == nil {
		c.SavedAs = saved
	}
	return c
}

// cleanUp removes the staged files and the directories the transaction
// made. It is best effort across every step: one failure must not leave
// the rest behind. The first error is returned, and the transaction stays
// pending so that the next recovery tries again.
func (j *Journal) cleanUp(m *Manifest) error {
	var cleanErr error
	for _, op := range m.Ops {
		if op.inexact || op.staged == "" {
			continue
		}
		if err := j.fs.Remove(op.staged); err != nil && !fsys.Gone(err) && cleanErr == nil {
			cleanErr = err
		}
	}
	for i := len(m.Mkdirs) - 1; i >= 0; i-- {
		if err := removeEmptyDir(j.fs, m.Mkdirs[i]); err != nil && cleanErr == nil {
			cleanErr = err
		}
	}
	return cleanErr
}

func matches(data []byte, st *State) bool {
	return int64(len(data)) == st.Size && hash.Of(data) == st.Hash
}

// entry is what readCurrent found at a name: a file's bytes, or a
// symbolic link's target, and its mode.
type entry struct {
	data []byte
	link bool
	mode fs.FileMode
}

// is reports whether e is version st: the same kind (file or link) and
// the same content.
func (e entry) is(st *State) bool { return e.link == st.IsLink() && matches(e.data, st) }

// hasMode reports whether e has st's mode (permission, setuid, setgid and
// sticky bits; a link has no mode of its own).
func (e entry) hasMode(st *State) bool {
	const bits = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky
	return e.link || e.mode&bits == st.Mode&bits
}

// readCurrent reads a file, or a symbolic link's target, for
// classification. A missing file is not an error; a directory or special
// file is.
func readCurrent(fsy fsys.FS, name string) (entry, bool, error) {
	fi, err := fsy.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return entry{}, false, nil
	}
	if err != nil {
		return entry{}, false, err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		target, err := fsy.Readlink(name)
		if errors.Is(err, fs.ErrNotExist) {
			return entry{}, false, nil
		}
		return entry{data: []byte(target), link: true, mode: fi.Mode()}, err == nil, err
	}
	if !fi.Mode().IsRegular() {
		return entry{}, true, fmt.Errorf("is now a %v, not a regular file; left as it is", fi.Mode().Type())
	}
	data, _, err := fsys.ReadFile(fsy, name, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return entry{}, false, nil
	}
	return entry{data: data, mode: fi.Mode()}, err == nil, err
}

// UnderGit reports whether the root-relative name p lies in a .git
// directory at any depth (a component a file system may fold to .git).
func UnderGit(p string) bool {
	for c := range strings.SplitSeq(p, "/") {
		if fsys.SameName(c, ".git") {
			return true
		}
	}
	return false
}

// gitReason is the conflict of an op under .git that recovery would write.
const gitReason = "is under .git: recovery never writes git's own files (a hook or a config is code git runs); left as it is"

// inexactReason is the conflict of an op whose name may have lost bytes.
const inexactReason = "recorded by an older txedit that wrote names that are not UTF-8 as U+FFFD: which file it is cannot be known; left as it is"

// restore puts a before-image back atomically: staging file, then rename.
func (j *Journal) restore(m *Manifest, op *Op, data []byte, sync bool, ours *fsys.Identity) error {
	for _, d := range parents(op.Path) {
		_, err := j.fs.Lstat(d)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if err := j.mkdirAs(m, d); err != nil && !errors.Is(err, fs.ErrExist) {
				return err
			}
		case err != nil && !errors.Is(err, syscall.ENOTDIR):
			return err // not an answer (EIO, say)
		}
	}
	if err := j.fs.Remove(op.staged); err != nil && !fsys.Gone(err) {
		return err
	}
	// Setuid, setgid and sticky only where the file it replaces (the new
	// version) has them: recovery never makes a file setuid that is not
	// (docs/design.md, "Threat model"); a deleted one comes back without.
	st := *op.Old
	const special = fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky
	if op.New != nil {
		st.Mode &^= special &^ op.New.Mode
	} else {
		st.Mode &^= special
		st = *j.ownedHere(m, op.Path, &st) // owner.go
	}
	if err := j.writeStaged(op.staged, data, &st, sync); err != nil {
		return err
	}
	// As the commit puts a file in place (Tx.swapIn), the old version is
	// exchanged in and what it displaced checked: it must still be the
	// new version restoreOp read, or a save that landed meanwhile (an
	// editor's, while the before-image was written and synced) would be
	// replaced. Such a save is swapped back and left as it is; cleanUp
	// removes the staged name either way.
	if op.New == nil {
		return j.fs.Rename(op.staged, op.Path) // a deleted file: nothing to exchange with
	}
	err := j.fs.Exchange(op.staged, op.Path)
	if errors.Is(err, errors.ErrUnsupported) {
		return j.fs.Rename(op.staged, op.Path)
	}
	if err != nil {
		return err
	}
	var rerr error
	if ours != nil {
		// A live rollback knows its version by identity (restoreOp).
		fi, err := j.fs.Lstat(op.staged)
		if rerr = err; err == nil && ourIdentity(fsys.IdentityOf(fi), *ours) {
			return nil
		}
	} else {
		displaced, _, err := readCurrent(j.fs, op.staged)
		if rerr = err; err == nil && displaced.is(op.New) {
			return nil
		}
	}
	if err := j.fs.Exchange(op.staged, op.Path); err != nil {
		return err
	}
	if errno := syscall.Errno(0); errors.As(rerr, &errno) && !fsys.Gone(rerr) {
		return rerr // what it displaced could not be read (EIO, say): not a change
	}
	return errChangedMeanwhile
}

// errChangedMeanwhile: a file changed while recovery restored it; the
// change was kept (restore).
var errChangedMeanwhile = errors.New("changed while recovery restored it; left as it is")

func (j *Journal) saveAside(dir, name string, data []byte) error {
	if err := j.fs.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	if err := j.fs.Remove(name); err != nil && !fsys.Gone(err) {
		return err
	}
	return j.writeStaged(name, data, &State{Mode: 0o600}, j.opts.Sync != SyncNone)
}

func removeAll(fsy fsys.FS, name string) error {
	fi, err := fsy.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.IsDir() {
		ents, err := fsy.ReadDir(name)
		if err != nil {
			return err
		}
		for _, e := range ents {
			if err := removeAll(fsy, name+"/"+e.Name()); err != nil {
				return err
			}
		}
	}
	return fsy.Remove(name)
}

// RecoverIfNeeded runs Recover only when the journal needs it: a
// transaction that is not finished, an interrupted GC, or a missing or
// half-written .gitignore. Opening a healthy workspace takes no lock.
// A journal that is not this user's is never recovered (trust.go): writes
// refuse to go on beside it, and say what to run.
func (j *Journal) RecoverIfNeeded() ([]*Report, error) {
	if t, err := j.trust(); err != nil || t == nil || t.foreign != nil && !t.foreign.Fresh {
		return nil, nil
	}
	ls, err := j.scan()
	if errors.Is(err, ErrCorrupt) {
		return nil, nil // writes say so, and txedit recover repairs it
	}
	if err != nil {
		return nil, err
	}
	states := ls.states
	for _, s := range states {
		if (s.dir && !s.committed && !s.rolledBack) || !s.dir {
			return j.Recover()
		}
	}
	ents, err := j.fs.ReadDir(Dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	healthy := false
	for _, e := range ents {
		switch e.Name() {
		case "gc", ".gitignore.tmp", "key.tmp", "legacy.tmp", "index.tmp", "id.tmp":
			return j.Recover()
		case ".gitignore":
			healthy = true
		}
	}
	if !healthy {
		// In a shared journal the .gitignore is everyone's (shared.go).
		_, err := j.fs.Lstat(Dir + "/.gitignore")
		healthy = err == nil
	}
	if !healthy && len(states) > 0 {
		return j.Recover()
	}
	return nil, nil
}
