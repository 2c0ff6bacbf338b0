package journal

import (
	"errors"
	"io/fs"
	"path"
	"syscall"

	"github.com/txedit/txedit/fsys"
)

// Unnamed staging: one round of syncs fewer (docs/journal.md,
// "The commit, and what it syncs").
//
// The begin round exists so that no staged file appears in a user's
// directory before a durable manifest names it: a power loss would leave
// a temporary file nobody knows of. A staged file made without a name
// (O_TMPFILE, in the target's directory, so its default ACL and security
// label still apply) appears nowhere until it is linked at its staging
// name, just before its exchange, after the prepare round. So the begin
// round is not needed before staging: it runs inside the prepare round,
// in parallel with the staged files' and the pack's syncs. The PREPARED
// mark is made after that round (so a durable mark always has a durable
// manifest, as before) and not synced (it is durable with the next begin
// round, as the COMMITTED mark is: forward.go); a rename may then be
// durable before the mark is, so the manifest says preparedLate and
// recovery classifies such a transaction's files by content with or
// without the mark. Two rounds of syncs in all: prepare (with begin) and
// rename.
//
// Where a file cannot be made unnamed (no O_TMPFILE on that file system,
// no /proc to link it through), the begin round runs at once, before that
// file is staged under its name, as before; so it does for a transaction
// that makes directories (they appear in the user's tree when made), for
// one whose files are synced by syncfs, and for one of more than
// maxUnnamed files.

// maxUnnamed is the most ops a transaction stages unnamed. Unnamed
// staging saves the begin round but costs each file an fsync after its
// link (syncLinked), in the rename round: for the agent's edit of a file
// or a few that costs nothing measurable, but a 60-file commit took 2.2-
// 2.5x the bare durable write unnamed against 1.7x named (commitbench,
// builds alternating; docs/journal.md). Each unnamed file also holds a
// descriptor until it is linked.
const maxUnnamed = 8

// useUnnamed says whether tx stages unnamed files, deferring its begin
// round into the prepare round.
func (tx *Tx) useUnnamed() bool {
	return tx.syncer != nil && len(tx.m.Mkdirs) == 0 && len(tx.m.Ops) <= maxUnnamed && !tx.j.noUnnamed.Load() && !brokenOrder.stageNamed
}

// stageUnnamed makes op i's staged file unnamed in its target's directory
// and writes it; errors.ErrUnsupported where it cannot (the caller then
// stages a named file).
func (tx *Tx) stageUnnamed(i int, data []byte) (fsys.File, bool, error) {
	if !tx.unnamed {
		return nil, false, errors.ErrUnsupported
	}
	op := tx.m.Ops[i]
	f, err := tx.j.fs.CreateUnnamed(path.Dir(op.Path), op.New.Mode&fs.ModePerm)
	if errors.Is(err, errors.ErrUnsupported) {
		tx.j.noUnnamed.Store(true) // not asked again by this process
	}
	if err != nil {
		return nil, false, err
	}
	meta, err := fillStaged(f, data, op.New)
	if err == nil && brokenOrder.linkEarly {
		err = f.Link(op.staged) // staged as a named file, without the begin round
		if err == nil {
			return f, meta, nil
		}
	}
	if err != nil {
		f.Close()
		return nil, false, err
	}
	tx.files[i] = f
	return f, meta, nil
}

// link gives unnamed staged file f its name. A refusal that is not about
// the name (no permission to link through /proc, a security policy, a
// file system that made the file but cannot link it) fails this commit,
// which rolls back, and makes the journal stage named files from then on,
// so that it fails once.
func (tx *Tx) link(f fsys.Unnamed, name string) error {
	err := f.Link(name)
	if errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EXDEV) ||
		errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, errors.ErrUnsupported) {
		tx.j.noUnnamed.Store(true)
	}
	return err
}

// syncLinked makes a just linked unnamed file's link count durable with
// the rename round (its barrier waits for it). Its
// data was synced before the link, with a link count of 0: a journaling
// file system commits the new count with the directory's entry, but an
// ext4 without a journal writes the file's inode only when it is synced
// or written back, so a power loss between would leave an entry whose
// inode says it has no link (unreadable until e2fsck repairs it).
// docs/journal.md, "An ext4 without a journal".
func (tx *Tx) syncLinked(f fsys.Unnamed) {
	if tx.syncer == nil || brokenOrder.noLinkedSync {
		return
	}
	tx.syncer.do(f.Sync)
}

// ensureBegun runs the deferred begin round now: a file is about to be
// staged under its name.
func (tx *Tx) ensureBegun() error { return tx.finishBegin(true) }

// finishBegin runs the deferred begin round, if it has not run; withData
// as for beginRound.
func (tx *Tx) finishBegin(withData bool) error {
	tx.beginMu.Lock()
	defer tx.beginMu.Unlock()
	if tx.begun {
		return nil
	}
	return tx.beginRound(withData)
}

// closeFiles closes the unnamed staged files (once: a file not linked by
// then is gone with its descriptor).
func (tx *Tx) closeFiles() {
	if tx.filesClosed {
		return
	}
	tx.filesClosed = true
	for _, f := range tx.files {
		if f != nil {
			f.Close()
		}
	}
}
