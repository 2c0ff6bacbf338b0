package fsys

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// OS is the production [FS]: the operating system's file system, confined
// to one directory. Every name is resolved below the root's descriptor
// without following a symbolic link anywhere on the way (nofollow.go; on
// Linux one openat2 with RESOLVE_BENEATH and RESOLVE_NO_SYMLINKS), so no
// name escapes through "..", an absolute path or a symlink, and no name
// reaches anything but the entry at that path, however the tree changes
// meanwhile: a link there (one swapped in after the engine resolved the
// path) is refused with ELOOP.
type OS struct {
	rfd rootFD
}

// NewOS opens dir as an [OS] file system.
func NewOS(dir string) (*OS, error) {
	var fd int
	err := ignoringEINTR(func() error {
		var err error
		fd, err = unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		return err
	})
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	return &OS{rfd: rootFD{fd: fd}}, nil
}

// Close releases the root.
func (o *OS) Close() error {
	o.rfd.close()
	return nil
}

func (o *OS) Open(name string) (File, error) {
	// O_NONBLOCK: opening a FIFO must not hang. It has no effect on
	// regular files.
	fd, name, err := o.openFD("open", name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	return newFile(fd, name), nil
}

func (o *OS) Create(name string, perm fs.FileMode) (File, error) {
	fd, name, err := o.openFD("open", name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return nil, err
	}
	return newFile(fd, name), nil
}

func (o *OS) Append(name string, data []byte, perm fs.FileMode) error {
	f, err := o.openFile("open", name, os.O_WRONLY|os.O_APPEND|os.O_CREATE, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func (o *OS) Lstat(name string) (fs.FileInfo, error) {
	var fi fs.FileInfo
	err := o.inParent("lstat", name, func(dfd int, base string) error {
		var err error
		fi, err = lstatAt(dfd, base)
		return err
	})
	return fi, err
}

func (o *OS) ReadDir(name string) ([]fs.DirEntry, error) {
	fd, name, err := o.openFD("open", name, os.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		return nil, err
	}
	ents, err := readDirFd(fd)
	return ents, fixPath(err, name)
}

func (o *OS) Readlink(name string) (string, error) {
	var s string
	err := o.inParent("readlink", name, func(dfd int, base string) error {
		var err error
		s, err = readlinkAt(dfd, base)
		return err
	})
	return s, err
}

func (o *OS) Symlink(target, name string) error {
	return o.inParent("symlink", name, func(dfd int, base string) error {
		return ignoringEINTR(func() error { return unix.Symlinkat(target, dfd, base) })
	})
}

func (o *OS) Mkdir(name string, perm fs.FileMode) error {
	return o.inParent("mkdir", name, func(dfd int, base string) error {
		return ignoringEINTR(func() error { return unix.Mkdirat(dfd, base, uint32(perm.Perm())) })
	})
}

func (o *OS) Rename(oldname, newname string) error {
	return o.inParents("rename", oldname, newname, func(ofd int, obase string, nfd int, nbase string) error {
		return ignoringEINTR(func() error { return unix.Renameat(ofd, obase, nfd, nbase) })
	})
}

func (o *OS) Link(oldname, newname string) error {
	return o.inParents("link", oldname, newname, func(ofd int, obase string, nfd int, nbase string) error {
		return ignoringEINTR(func() error { return unix.Linkat(ofd, obase, nfd, nbase, 0) })
	})
}

func (o *OS) Remove(name string) error {
	return o.inParent("remove", name, removeAt)
}

func (o *OS) SyncDir(name string) error {
	fd, name, err := o.openFD("open", name, os.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		return err
	}
	return syncDirFD(fd, name)
}

// syncDirFD fsyncs the directory descriptor fd, which it closes. Some
// file systems cannot fsync a directory; as restic does, that is nothing
// to do rather than a failure.
func syncDirFD(fd int, name string) error {
	f := newFile(fd, name)
	defer f.Close()
	if err := f.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOTSUP) {
		return err
	}
	return nil
}

func (o *OS) SyncFS(name string) error {
	f, err := o.openFile("open", name, os.O_RDONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	return syncfs(f)
}

// Lock implements [FS]. Besides the flock of name it locks the tree
// ([lockTree]): writers whose workspaces overlap — nested roots, or one
// directory reached through two paths or a bind mount — are serialised
// too, whichever root each opened.
func (o *OS) Lock(name string, timeout time.Duration) (func() error, error) {
	f, err := o.openFile("open", name, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(timeout)
	delay := time.Millisecond
	for {
		err := flock(f, true)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, &fs.PathError{Op: "flock", Path: name, Err: err}
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, ErrBusy
		}
		time.Sleep(delay)
		delay = min(delay*2, 50*time.Millisecond)
	}
	rootDir, err := o.openFile("open", ".", os.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		flock(f, false)
		f.Close()
		return nil, err
	}
	releaseTree, err := lockTree(rootDir, deadline)
	rootDir.Close()
	if err != nil {
		flock(f, false)
		f.Close()
		if !errors.Is(err, ErrBusy) {
			err = &fs.PathError{Op: "flock", Path: ".", Err: err}
		}
		return nil, err
	}
	return func() error {
		releaseTree()
		flock(f, false)
		return f.Close()
	}, nil
}

// Revalidate implements [FS]: the root itself holds no cached handle.
func (o *OS) Revalidate() error { return nil }

// OpenDir implements [FS].
func (o *OS) OpenDir(name string) (Dir, error) {
	fd, _, err := o.openFD("open", name, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return nil, err
	}
	return newFdDir(fd), nil
}

// inDir calls fn with a descriptor of directory dir, opened below the
// root without following a symbolic link.
func (o *OS) inDir(dir string, fn func(dfd int) error) error {
	dir, err := cleanName("open", dir)
	if err != nil {
		return err
	}
	rfd, err := o.rfd.get()
	if err != nil {
		return pathErr("open", dir, err)
	}
	defer o.rfd.put()
	fd, err := openBeneath(rfd, dir, dirFlags|unix.O_DIRECTORY, 0)
	if err != nil {
		return pathErr("open", dir, err)
	}
	defer unix.Close(fd)
	return fn(fd)
}

// HoldDir implements [FS]: a fresh handle, closed when given back (a
// view caches them).
func (o *OS) HoldDir(name string) (Dir, func(), error) { return holdFresh(o, name) }

// holdFresh is HoldDir without a cache.
func holdFresh(fsys FS, name string) (Dir, func(), error) {
	d, err := OpenDirBeneath(fsys, name)
	if err != nil {
		return nil, nil, err
	}
	return d, func() { d.Close() }, nil
}

var (
	_ FS = (*OS)(nil)
	_ FS = (*cachedFS)(nil)
)
