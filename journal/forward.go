package journal

import (
	"encoding/json"
	"errors"
	"io/fs"
	"path"

	"github.com/txedit/txedit/fsys"
)

// Rolling forward (docs/journal.md, "The commit, and what it syncs").
//
// The COMMITTED mark of a transaction whose every file tells its new
// version from its old one is written without a sync of its own: the
// rename round before it is durable, so a power loss that takes the mark
// leaves every file in its new version, and recovery, which finds the
// transaction prepared and every file new, finishes it forward (makes the
// mark, durably) instead of rolling it back. One round of syncs fewer per
// commit (docs/journal.md, "Rolling forward"). The mark becomes durable with the next sync of the
// transactions directory: the next transaction's begin round, which comes
// before that transaction touches any file, or recovery's.
//
// A transaction some file of which cannot tell old from new (a change of
// mode alone, a transaction of directories only, an op whose name an old
// txedit may have garbled) still syncs its mark: recovery could not know
// it was finished.

// forwardable reports whether recovery can tell, from the files alone,
// that every op of m is in effect: each op's new version differs from its
// old one (a create's file exists, a delete's is gone, a modify's content
// changed).
func forwardable(m *Manifest) bool {
	if len(m.Ops) == 0 {
		return false
	}
	for _, op := range m.Ops {
		switch {
		case op.inexact:
			return false
		case op.Old == nil && op.New == nil:
			return false
		case op.Old != nil && op.New != nil && op.Old.Hash == op.New.Hash && op.Old.Size == op.New.Size && op.Old.IsLink() == op.New.IsLink():
			return false
		}
	}
	return true
}

// fileState is what recovery finds of one op's file.
type fileState int

const (
	stateOld     fileState = iota // its old version (or absent, for a create)
	stateNew                      // its new version (or absent, for a delete)
	stateNeither                  // someone else's, or unreadable
)

// classify reads op's file and says which version it is. data is its
// content when it exists; reason says why a file is neither, when it
// could not be read. A change of mode alone (old and new the same
// content) is told by the mode: the new version is the file with the new
// mode, not the old one.
func classify(fsy fsys.FS, op *Op) (st fileState, data []byte, reason string) {
	cur, exists, err := readCurrent(fsy, op.Path)
	isOld := exists && op.Old != nil && cur.is(op.Old)
	isNew := exists && op.New != nil && cur.is(op.New)
	if isOld && isNew {
		isNew = cur.hasMode(op.New) && !cur.hasMode(op.Old)
		isOld = !isNew
	}
	switch {
	case err != nil:
		return stateNeither, nil, err.Error()
	case !exists && op.Old == nil, isOld:
		return stateOld, cur.data, ""
	case !exists && op.New == nil, isNew:
		return stateNew, cur.data, ""
	}
	return stateNeither, cur.data, ""
}

// finishedForward reports whether transaction m, found prepared and
// unfinished, was interrupted after its renames: it is forwardable, it
// still has its pending entry, no file is in its old version and at least
// one is in its new. A file that is neither (changed by someone else
// since) does not count against it: it is left as it is either way, and
// reported.
//
// The pending entry: a prepared transaction loses it only once its end
// mark is durable (Locked.ended), or when its commit failed after the
// renames began and it is to be rolled back (Tx.abandon): its caller was
// told it failed, so it must not be finished. A journal an older txedit
// wrote, which had no pending/, synced every commit mark: its prepared
// transactions are rolled back, as it would have.
func (j *Journal) finishedForward(m *Manifest) bool {
	if brokenOrder.noForward || !forwardable(m) {
		return false
	}
	if _, err := j.fs.Lstat(pendingDir + "/" + m.ID); err != nil {
		return false
	}
	news := 0
	for _, op := range m.Ops {
		switch st, _, _ := classify(j.fs, op); st {
		case stateOld:
			if !brokenOrder.forwardMixed {
				return false
			}
		case stateNew:
			news++
		}
	}
	return news > 0
}

// rollForward finishes an interrupted transaction whose files are all in
// their new versions (finishedForward): what the commit had left to do
// after its renames. A file that is neither version is saved aside and
// reported, never changed; the displaced old versions at the staging
// names and the directories the transaction emptied are removed; the
// directories it touched are synced (the renames may not be durable: a
// kill after them, before their sync), and the COMMITTED mark made,
// durably.
func (j *Journal) rollForward(m *Manifest) (*Report, error) {
	rep := &Report{ID: m.ID, Finished: true}
	for i, op := range m.Ops {
		if st, cur, reason := classify(j.fs, op); st != stateNew {
			rep.Conflicts = append(rep.Conflicts, j.leaveNeither(m, i, cur, reason))
		}
	}
	for _, op := range m.Ops {
		if op.staged != "" {
			if err := j.fs.Remove(op.staged); err != nil && !fsys.Gone(err) {
				return rep, err
			}
		}
	}
	for _, d := range uniqueDeepestFirst(m.Rmdirs) {
		if err := removeEmptyDir(j.fs, d); err != nil {
			return rep, err
		}
	}
	return rep, j.markEnded(m, rep, "committed")
}

// markEnded makes what recovery did durable (the directories it touched
// synced), records its conflicts in conflicts.json, and makes the mark
// (rolledback or committed), durably.
func (j *Journal) markEnded(m *Manifest, rep *Report, state string) error {
	legacy := j.isLegacy(m.ID)
	aside := asideDir(m.ID, legacy)
	sync := j.opts.Sync != SyncNone
	if sync {
		var dirs []string
		for _, op := range m.Ops {
			dirs = append(dirs, path.Dir(op.Path))
		}
		for _, d := range append(append([]string{}, m.Mkdirs...), m.Rmdirs...) {
			dirs = append(dirs, path.Dir(d))
		}
		if legacy {
			dirs = append(dirs, txnPath(m.ID))
		}
		if err := syncDirs(j.fs, append(dirs, aside)); err != nil {
			return err
		}
	}
	if len(rep.Conflicts) > 0 {
		// Beside the saved files (an older txedit's transaction: in its
		// directory, as that txedit did).
		at := aside + "/conflicts.json"
		if legacy {
			at = txnPath(m.ID) + "/conflicts.json" // the directory is there
		} else if err := j.fs.Mkdir(aside, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		data, _ := json.MarshalIndent(rep.Conflicts, "", "  ")
		if err := fsys.WriteFileAtomic(j.fs, at, data, 0o600, sync); err != nil {
			return err
		}
	}
	if err := createMark(j, m.ID, state); err != nil {
		return err
	}
	if sync {
		return j.fs.SyncDir(txnsDir)
	}
	return nil
}
