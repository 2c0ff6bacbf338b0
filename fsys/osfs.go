package fsys

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
	"time"
)

// OS is the production [FS]: the operating system's file system, confined
// to one directory through [os.Root], so no name can escape it through "..",
// an absolute path or a symlink, however the tree changes meanwhile.
type OS struct {
	root *os.Root
	b    beneath // openat2 below the root, for views after Revalidate
}

// NewOS opens dir as an [OS] file system.
func NewOS(dir string) (*OS, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &OS{root: r}, nil
}

// Close releases the root.
func (o *OS) Close() error {
	o.b.close()
	return o.root.Close()
}

type osFile struct{ *os.File }

func (f osFile) Chown(uid, gid int) error { return f.File.Chown(uid, gid) }

// DataSync implements [File].
func (f osFile) DataSync() error { return datasync(f.File) }

func (o *OS) Open(name string) (File, error) {
	// O_NONBLOCK: opening a FIFO must not hang. It has no effect on
	// regular files.
	f, err := o.root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	return osFile{f}, nil
}

func (o *OS) Create(name string, perm fs.FileMode) (File, error) {
	f, err := o.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return nil, err
	}
	return osFile{f}, nil
}

func (o *OS) Append(name string, data []byte, perm fs.FileMode) error {
	f, err := o.root.OpenFile(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NOFOLLOW, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func (o *OS) Lstat(name string) (fs.FileInfo, error) { return o.root.Lstat(name) }

func (o *OS) ReadDir(name string) ([]fs.DirEntry, error) {
	f, err := o.root.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}

func (o *OS) Readlink(name string) (string, error)      { return o.root.Readlink(name) }
func (o *OS) Symlink(target, name string) error         { return o.root.Symlink(target, name) }
func (o *OS) Mkdir(name string, perm fs.FileMode) error { return o.root.Mkdir(name, perm) }
func (o *OS) Rename(oldname, newname string) error      { return o.root.Rename(oldname, newname) }
func (o *OS) Link(oldname, newname string) error        { return o.root.Link(oldname, newname) }
func (o *OS) Remove(name string) error                  { return o.root.Remove(name) }

func (o *OS) SyncDir(name string) error {
	f, err := o.root.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOTSUP) {
		// Some file systems cannot fsync a directory; as restic does,
		// treat that as nothing to do rather than a failure.
		return err
	}
	return nil
}

func (o *OS) SyncFS(name string) error {
	f, err := o.root.Open(name)
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
	f, err := o.root.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
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
	rootDir, err := o.root.Open(".")
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
func (o *OS) OpenDir(name string) (Dir, error) { return openDir(o.root, name) }

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
