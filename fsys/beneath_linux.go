package fsys

import (
	"io/fs"
	"os"
	"path"
	"sync"

	"golang.org/x/sys/unix"
)

// beneath is a second handle on the root for openat2(2): it opens a
// directory below the root in one system call that refuses to leave the
// root or to follow any symlink, where os.Root walks the path a component
// at a time. The commit uses it after Revalidate, when every name is
// resolved from the root again (see cachedFS.Revalidate): one call per
// rename or stat instead of one per path component. Whatever openat2
// refuses (a symlink on the way, a kernel without it, a missing
// directory) is left to os.Root, so errors are os.Root's.
type beneath struct {
	once  sync.Once
	fd    int  // -1: not available; meaningful once ready
	ready bool // init ran: the zero value holds no descriptor (fd 0 is not ours)
}

func (b *beneath) init(root *os.Root) {
	b.once.Do(func() {
		b.fd, b.ready = -1, true
		f, err := root.Open(".")
		if err != nil {
			return
		}
		defer f.Close()
		rc, err := f.SyscallConn()
		if err != nil {
			return
		}
		rc.Control(func(h uintptr) {
			fd, err := unix.Openat(int(h), ".", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
			if err != nil {
				return
			}
			// Probe: a kernel without openat2 (before 5.6) says ENOSYS.
			probe, err := unix.Openat2(fd, ".", &unix.OpenHow{Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: unix.RESOLVE_BENEATH})
			if err != nil {
				unix.Close(fd)
				return
			}
			unix.Close(probe)
			b.fd = fd
		})
	})
}

func (b *beneath) close() {
	b.once.Do(func() {}) // no init after close
	if b.ready && b.fd >= 0 {
		unix.Close(b.fd)
		b.fd = -1
	}
}

// dir opens directory d (root-relative, clean) below the root, or returns
// -1 when openat2 does not give it (the caller then uses os.Root).
func (b *beneath) dir(d string) int {
	if !b.ready || b.fd < 0 {
		return -1
	}
	if d == "" {
		d = "."
	}
	for {
		fd, err := unix.Openat2(b.fd, d, &unix.OpenHow{
			Flags:   unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC,
			Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
		})
		if err == unix.EINTR || err == unix.EAGAIN {
			continue
		}
		if err != nil {
			return -1
		}
		return fd
	}
}

// lstat stats name without following a final symlink, or reports ok false
// to leave it to os.Root.
func (b *beneath) lstat(name string) (fi fs.FileInfo, ok bool, err error) {
	fd := b.dir(path.Dir(name))
	if fd < 0 {
		return nil, false, nil
	}
	defer unix.Close(fd)
	fi, err = lstatAt(fd, path.Base(name))
	if err != nil {
		return nil, true, &os.PathError{Op: "lstat", Path: name, Err: err}
	}
	return fi, true, nil
}

// rename renames within one directory, or reports ok false to leave it
// to os.Root.
func (b *beneath) rename(oldname, newname string) (ok bool, err error) {
	fd := b.dir(path.Dir(oldname))
	if fd < 0 {
		return false, nil
	}
	defer unix.Close(fd)
	for {
		err := unix.Renameat(fd, path.Base(oldname), fd, path.Base(newname))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return true, &os.LinkError{Op: "rename", Old: oldname, New: newname, Err: err}
		}
		return true, nil
	}
}
