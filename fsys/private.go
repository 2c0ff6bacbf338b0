package fsys

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// OpenPrivate opens the directory dir, making it (and its missing
// parents) with mode 0700 if it does not exist, as an [OS] file system
// that only this user may read or write: the journal keeps its keys there
// (docs/design.md, "What makes a journal trusted"). It refuses, without
// changing anything, a dir that is a symbolic link or not a directory,
// one owned by another user, and one that group or others may read,
// write or enter; the check is made on the directory opened, so a name
// swapped meanwhile cannot pass it.
func OpenPrivate(dir string) (*OS, error) {
	if !filepath.IsAbs(dir) {
		return nil, fmt.Errorf("%s: not an absolute path", dir)
	}
	// The directories this call makes are made durable before a key is
	// written into them: a key store whose entry a power loss took away
	// would make the journal it keys foreign to its own maker (docs/
	// design.md, "What makes a journal trusted"). Each new directory's
	// entry is in its parent, which is synced once the chain is made.
	var made []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || !errors.Is(err, fs.ErrNotExist) || d == filepath.Dir(d) {
			break
		}
		made = append(made, d)
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return nil, err
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	for _, d := range made {
		if err := syncDirName(filepath.Dir(d)); err != nil {
			return nil, err
		}
	}
	if fi, err := os.Lstat(dir); err != nil {
		return nil, err
	} else if fi.Mode()&fs.ModeSymlink != 0 {
		return nil, fmt.Errorf("%s is a symbolic link; txedit keeps its keys only in a directory of its own", dir)
	}
	o, err := NewOS(dir)
	if err != nil {
		return nil, err
	}
	fi, err := o.rootInfo()
	if err == nil {
		err = privateDir(dir, fi)
	}
	if err != nil {
		o.Close()
		return nil, err
	}
	return o, nil
}

// privateDir checks that fi, the directory dir, is this user's alone.
func privateDir(dir string, fi fs.FileInfo) error {
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("%s is owned by uid %d, not by this user (uid %d); txedit keeps its keys only in a directory of its own", dir, st.Uid, os.Geteuid())
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("%s may be used by other users (mode %v); txedit keeps its keys only in a directory of its own: chmod 700 %s", dir, fi.Mode().Perm(), dir)
	}
	return nil
}

// rootInfo describes the directory o was opened on, by its descriptor
// (not by its name, which may have been swapped since).
func (o *OS) rootInfo() (fs.FileInfo, error) {
	fd, err := o.rfd.get()
	if err != nil {
		return nil, err
	}
	defer o.rfd.put()
	return lstatAt(fd, ".")
}

// syncDirName fsyncs the directory named dir as every directory sync
// does (syncDirFD); a variable: tests see which directories OpenPrivate
// syncs.
var syncDirName = func(dir string) error {
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	return syncDirFD(fd, dir)
}
