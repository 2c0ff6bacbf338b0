package journal

import (
	"errors"
	"io/fs"
	"os"
	"sync"
	"syscall"
	"time"
)

// OSFS is the production [FS]: the operating system's file system, confined
// to one directory through [os.Root], so no name can escape it through "..",
// an absolute path or a symlink, however the tree changes meanwhile.
type OSFS struct {
	root *os.Root
}

// NewOSFS opens dir as an OSFS.
func NewOSFS(dir string) (*OSFS, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &OSFS{root: r}, nil
}

// Root returns the underlying os.Root.
func (o *OSFS) Root() *os.Root { return o.root }

// Close releases the root.
func (o *OSFS) Close() error { return o.root.Close() }

type osFile struct{ *os.File }

func (f osFile) Chown(uid, gid int) error { return f.File.Chown(uid, gid) }

func (o *OSFS) Open(name string) (File, error) {
	// O_NONBLOCK: opening a FIFO must not hang. It has no effect on
	// regular files.
	f, err := o.root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	return osFile{f}, nil
}

func (o *OSFS) Create(name string, perm fs.FileMode) (File, error) {
	f, err := o.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return nil, err
	}
	return osFile{f}, nil
}

func (o *OSFS) Lstat(name string) (fs.FileInfo, error) { return o.root.Lstat(name) }

func (o *OSFS) ReadDir(name string) ([]fs.DirEntry, error) {
	f, err := o.root.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}

func (o *OSFS) Readlink(name string) (string, error)      { return o.root.Readlink(name) }
func (o *OSFS) Mkdir(name string, perm fs.FileMode) error { return o.root.Mkdir(name, perm) }
func (o *OSFS) Rename(oldname, newname string) error      { return o.root.Rename(oldname, newname) }
func (o *OSFS) Link(oldname, newname string) error        { return o.root.Link(oldname, newname) }
func (o *OSFS) Remove(name string) error                  { return o.root.Remove(name) }

func (o *OSFS) SyncDir(name string) error {
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

func (o *OSFS) SyncFS(name string) error {
	f, err := o.root.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	return syncfs(f)
}

func (o *OSFS) Lock(name string, timeout time.Duration) (func() error, error) {
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
	return func() error {
		flock(f, false)
		return f.Close()
	}, nil
}

// OpenDir implements [DirOpener].
func (o *OSFS) OpenDir(name string) (DirHandle, error) {
	r := o.root
	if name != "." && name != "" {
		sub, err := o.root.OpenRoot(name)
		if err != nil {
			return nil, err
		}
		r = sub
	}
	return &osDir{r: r, own: r != o.root}, nil
}

type osDir struct {
	r   *os.Root
	own bool

	once    sync.Once
	dirFile *os.File // the directory itself, opened once
	dirFd   int
	dirErr  error
}

func (d *osDir) ReadDir() ([]fs.DirEntry, error) {
	return d.readDirRaw()
}

func (d *osDir) Open(name string) (File, error) {
	f, err := d.r.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	return osFile{f}, nil
}

// OpenSubDir implements [SubDirOpener].
func (d *osDir) OpenSubDir(name string) (DirHandle, error) {
	if fi, err := d.r.Lstat(name); err != nil {
		return nil, err
	} else if !fi.IsDir() {
		return nil, &fs.PathError{Op: "opendir", Path: name, Err: syscall.ENOTDIR}
	}
	sub, err := d.r.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	return &osDir{r: sub, own: true}, nil
}

func (d *osDir) Close() error {
	if d.dirFile != nil {
		d.dirFile.Close()
	}
	if d.own {
		return d.r.Close()
	}
	return nil
}
