package journal

import (
	"errors"
	"fmt"
	"io"

	"github.com/txedit/txedit/fsys"
)

// One file per transaction (docs/journal.md, "On disk").
//
// A transaction is the file txns/ID: its manifest as the first record,
// then the pack's records (before-images, diffs) after it. A journal an
// older txedit wrote holds directories instead, txns/ID/manifest and
// txns/ID/pack, and those are still read, recovered, undone and retired
// as before: every reader asks which of the two txns/ID is.
//
// Why one file: on the file systems agents run on, creating an inode is
// the dearest call a commit makes after its syncs (bench/README.md,
// "File-system calls"), and each one created is one freed when the
// transaction is retired. A directory with a manifest and a pack cost
// three inodes and a sync of the directory; the file costs one, and its
// manifest and pack are made durable by the one fdatasync.
//
// What recovery saves aside (the bytes of a file that is neither version)
// goes into txns/ID.conflicts/ for such a transaction, made only when
// there is something to save.

// recManifest is the kind of the record that holds the manifest: the
// first record of a transaction's file, op 0.
const recManifest = 3

// txnPath is the journal entry of transaction id: its file, or the
// directory an older txedit made.
func txnPath(id string) string { return txnsDir + "/" + id }

// asideDir is where recovery saves the files of transaction id that are
// neither version; legacy says txns/ID is a directory.
func asideDir(id string, legacy bool) string {
	if legacy {
		return txnPath(id) + "/conflicts"
	}
	return txnPath(id) + ".conflicts"
}

// isLegacy reports whether transaction id is stored as a directory (an
// older txedit's layout). Whatever cannot be looked at is taken as the
// file layout: its readers then fail on it with their own errors.
func (j *Journal) isLegacy(id string) bool {
	fi, err := j.fs.Lstat(txnPath(id))
	return err == nil && fi.IsDir()
}

// openPack opens the file that holds transaction id's pack records, with
// its size: the transaction's own file, or an older txedit's
// txns/ID/pack.
func (j *Journal) openPack(id string) (fsys.File, int64, error) {
	f, err := j.fs.Open(txnPath(id))
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err == nil && fi.IsDir() {
		f.Close()
		if f, err = j.fs.Open(txnPath(id) + "/pack"); err != nil {
			return nil, 0, err
		}
		fi, err = f.Stat()
	}
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%w: %s is not a regular file", ErrCorrupt, txnPath(id))
	}
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, fi.Size(), nil
}

// packBytes is the size of transaction id's pack (its file, with the
// manifest, in the one-file layout); 0 if it cannot be looked at.
func (j *Journal) packBytes(id string) int64 {
	fi, err := j.fs.Lstat(txnPath(id))
	if err == nil && fi.IsDir() {
		fi, err = j.fs.Lstat(txnPath(id) + "/pack")
	}
	if err != nil {
		return 0
	}
	return fi.Size()
}

// maxManifest bounds the manifest record a reader allocates for: a
// manifest of 50,000 ops is a few MiB.
const maxManifest = 1 << 30

// readManifestData returns the bytes of transaction id's manifest. A file
// too short to hold its record, or whose first record is not a manifest,
// is ErrCorrupt (a Begin a power loss cut short leaves one: recovery
// removes it as never begun); a missing entry is fs.ErrNotExist.
func (j *Journal) readManifestData(id string) ([]byte, error) {
	f, err := j.fs.Open(txnPath(id))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		data, _, err := fsys.ReadFile(j.fs, txnPath(id)+"/manifest", 0)
		return data, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is not a regular file", ErrCorrupt, txnPath(id))
	}
	if fi.Size() < recHeader {
		return nil, fmt.Errorf("%w: %s has no manifest", ErrCorrupt, txnPath(id))
	}
	kind, _, n, err := recordAt(f, 0, fi.Size())
	if err == nil && (kind != recManifest || n > maxManifest) {
		err = fmt.Errorf("%w: %s does not begin with a manifest", ErrCorrupt, txnPath(id))
	}
	if err != nil {
		return nil, err
	}
	data := make([]byte, n)
	if _, err := f.ReadAt(data, recHeader); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w: %s has a truncated manifest", ErrCorrupt, txnPath(id))
		}
		return nil, err
	}
	return data, nil
}

// removeTxn removes transaction id's entry and what recovery saved aside
// for it, whichever layout it has.
func removeTxn(fsy fsys.FS, id string) error {
	if err := removeAll(fsy, asideDir(id, false)); err != nil {
		return err
	}
	return removeAll(fsy, txnPath(id))
}
