package journal

import (
	"errors"
	"io/fs"
	"syscall"
)

// Marks (ID.prepared, ID.committed, ID.rolledback) and pending entries
// are empty files whose existence is all they say. Creating a file costs
// an inode: 0.02-0.56 ms on the ext4 of the machines measured, by load
// and churn (a hard link 0.01-0.025 ms: bench/run.sh fscost), and a
// commit made three of them (docs/journal.md, "Cost per commit,
// whatever is retained"). So each is a hard link to one
// empty file, .txedit/mark, made once; where a link cannot be made (a
// file system without hard links, the link count at its limit) the file
// is created, as before. Their content is never read and they are never
// written, so sharing one inode changes nothing they say.
const markName = Dir + "/mark"

// makeEmpty makes name, an empty file that must not exist yet (it
// returns fs.ErrExist if it does).
func (j *Journal) makeEmpty(name string) error {
	err := j.fs.Link(markName, name)
	if errors.Is(err, fs.ErrNotExist) {
		switch _, serr := j.fs.Lstat(markName); {
		case errors.Is(serr, fs.ErrNotExist):
			if err := j.makeMarkSource(); err != nil {
				return err
			}
			err = j.fs.Link(markName, name)
		case serr != nil:
			return serr // not an answer (EIO, say)
		}
	}
	if !errors.Is(err, syscall.EMLINK) && !errors.Is(err, syscall.EPERM) && !errors.Is(err, syscall.EOPNOTSUPP) &&
		!errors.Is(err, syscall.EXDEV) && !errors.Is(err, errors.ErrUnsupported) {
		return err // nil, fs.ErrExist, or an answer about name (its directory gone, EIO)
	}
	f, err := j.fs.Create(name, 0o600)
	if err != nil {
		return err
	}
	return f.Close()
}

// makeMarkSource makes .txedit/mark, durably before any link to it is
// made (an older journal has none; a new one gets it on first use).
func (j *Journal) makeMarkSource() error {
	f, err := j.fs.Create(markName, 0o600)
	switch {
	case errors.Is(err, fs.ErrExist):
		return nil
	case err != nil:
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if j.opts.Sync != SyncNone {
		return j.fs.SyncDir(Dir)
	}
	return nil
}
