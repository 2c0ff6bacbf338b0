package fsys

import (
	"io/fs"
	"path"
)

// WriteFileAtomic writes a small file so that a crash at any point leaves
// either the old file or the new one, never a torn or empty one: the data
// goes to a temporary file beside name (created with O_EXCL and perm),
// whose data is made durable (fdatasync: the file is new and its mode
// set at creation, so its data and size are all there is to it), renamed
// over name, and the directory fsynced. With sync false (durability off)
// the syncs are skipped. The temporary file
// is name + ".tmp": one left by a crash is replaced, so callers serialise
// the writers of one name (the journal holds its lock). It is removed on
// failure.
//
// It is for txedit's own small files (manifests, marks, conflict reports,
// the journal's .gitignore); workspace files go through the journal.
func WriteFileAtomic(fsys FS, name string, data []byte, perm fs.FileMode, sync bool) error {
	tmp := name + ".tmp"
	if err := fsys.Remove(tmp); err != nil && !Gone(err) {
		return err
	}
	f, err := fsys.Create(tmp, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil && sync {
		err = f.DataSync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = fsys.Rename(tmp, name)
	}
	if err == nil && sync {
		err = fsys.SyncDir(path.Dir(name))
	}
	if err != nil {
		fsys.Remove(tmp)
	}
	return err
}
