package fsys

import (
	"errors"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// ReadLease implements [FS]: the file is opened read-only below the root
// (a symlink at name is not followed) and leased with F_SETLEASE. The
// kernel tells a lease's holder of a breaking opener with SIGIO, which
// the Go runtime ignores unless asked for it; Broken asks with
// F_GETLEASE instead.
//
// Three system calls besides the open: F_SETLEASE (which refuses
// anything but a regular file with EINVAL: no fstat first), F_GETLEASE
// for Broken, and the close that releases it (a lease goes with the last
// descriptor of its open file: no F_UNLCK first).
func (o *OS) ReadLease(name string) (Lease, error) {
	fd, name, err := o.openFD("open", name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	f := newFdFile(fd, name)
	l := &osLease{f: f}
	err = l.fcntl(unix.F_SETLEASE, unix.F_RDLCK)
	switch {
	case err == nil:
		return l, nil
	case errors.Is(err, unix.EAGAIN):
		f.Close()
		return nil, &fs.PathError{Op: "lease", Path: name, Err: ErrOpenForWriting}
	default:
		// EACCES (not the owner, no CAP_LEASE), EINVAL (not a regular
		// file, or a file system without leases, as NFS or FUSE),
		// ENOLCK, leases disabled.
		f.Close()
		return nil, errors.ErrUnsupported
	}
}

type osLease struct{ f *fdFile }

func (l *osLease) fcntl(cmd, arg int) (err error) {
	fd, err := l.f.use("fcntl")
	if err != nil {
		return err
	}
	defer l.f.done()
	var r int
	for {
		r, err = unix.FcntlInt(uintptr(fd), cmd, arg)
		if err != unix.EINTR {
			break
		}
	}
	if err == nil && cmd == unix.F_GETLEASE && r != unix.F_RDLCK {
		return errBroken
	}
	return err
}

var errBroken = errors.New("lease broken")

// Broken implements [Lease]: a breaking lease reads as F_UNLCK, the type
// it is being broken to.
func (l *osLease) Broken() bool { return l.fcntl(unix.F_GETLEASE, 0) != nil }

// Stat implements [Lease].
func (l *osLease) Stat() (fs.FileInfo, error) { return l.f.Stat() }

// Release implements [Lease]: the close of the lease's only descriptor
// removes the lease (fcntl(2), "Leases").
func (l *osLease) Release() error { return l.f.Close() }
