package fsys

import (
	"io"
	"io/fs"
	"os"
	"path"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// fdFile is a [File] on Linux: a bare descriptor and the system calls on
// it. os.NewFile costs an fcntl (F_GETFL) for every file, and an
// epoll_ctl that fails (EPERM) for one opened O_NONBLOCK; a commit opens
// each file it changes several times (read before the lock, read again
// under it, the staged file, the lease), so those two were a tenth of its
// system calls (docs/journal.md, "What a commit's calls cost"). Regular
// files and directories never block in the poller's sense, so nothing of
// os.File's poller is needed.
//
// It is safe for concurrent use, as os.File is: every call holds the read
// side of mu, Close the write side, so the descriptor is never closed
// while a call uses it (and never reused by another file under it).
type fdFile struct {
	mu   sync.RWMutex
	fd   int // -1 once closed
	name string
	// regular: Stat found a regular file, whose read that comes back
	// shorter than asked is its end: Read then returns io.EOF without
	// asking again (as rawFile does).
	regular atomic.Bool
	eof     atomic.Bool
}

// newFdFile wraps the descriptor fd, which it owns, as a File named name.
func newFdFile(fd int, name string) *fdFile { return &fdFile{fd: fd, name: name} }

// newFile is the File of the descriptor fd, which it owns.
func newFile(fd int, name string) File { return newFdFile(fd, name) }

func (f *fdFile) Name() string { return f.name }

// use returns the descriptor for one call and locks it open; done
// unlocks.
func (f *fdFile) use(op string) (int, error) {
	f.mu.RLock()
	if f.fd < 0 {
		f.mu.RUnlock()
		return -1, &fs.PathError{Op: op, Path: f.name, Err: os.ErrClosed}
	}
	return f.fd, nil
}

func (f *fdFile) done() { f.mu.RUnlock() }

func (f *fdFile) Read(p []byte) (int, error) {
	fd, err := f.use("read")
	if err != nil {
		return 0, err
	}
	defer f.done()
	if f.eof.Load() {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	for {
		n, err := unix.Read(fd, p)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return 0, &fs.PathError{Op: "read", Path: f.name, Err: err}
		}
		if n == 0 {
			return 0, io.EOF
		}
		if n < len(p) && f.regular.Load() {
			f.eof.Store(true)
		}
		return n, nil
	}
}

func (f *fdFile) ReadAt(p []byte, off int64) (int, error) {
	fd, err := f.use("read")
	if err != nil {
		return 0, err
	}
	defer f.done()
	if off < 0 {
		return 0, &fs.PathError{Op: "readat", Path: f.name, Err: syscall.EINVAL}
	}
	n := 0
	for len(p) > 0 {
		m, err := unix.Pread(fd, p, off)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return n, &fs.PathError{Op: "read", Path: f.name, Err: err}
		}
		if m == 0 {
			return n, io.EOF
		}
		n += m
		p = p[m:]
		off += int64(m)
	}
	return n, nil
}

func (f *fdFile) Write(p []byte) (int, error) { return f.writeAll(p, 0, false) }

func (f *fdFile) WriteAt(p []byte, off int64) (int, error) { return f.writeAll(p, off, true) }

// writeAll writes all of p, at off with pwrite(2) if at, else at the
// file's offset with write(2), retrying on EINTR and after short writes.
func (f *fdFile) writeAll(p []byte, off int64, at bool) (int, error) {
	fd, err := f.use("write")
	if err != nil {
		return 0, err
	}
	defer f.done()
	if at && off < 0 {
		return 0, &fs.PathError{Op: "writeat", Path: f.name, Err: syscall.EINVAL}
	}
	n := 0
	for len(p) > 0 {
		var m int
		if at {
			m, err = unix.Pwrite(fd, p, off)
		} else {
			m, err = unix.Write(fd, p)
		}
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return n, &fs.PathError{Op: "write", Path: f.name, Err: err}
		}
		if m == 0 {
			return n, &fs.PathError{Op: "write", Path: f.name, Err: io.ErrShortWrite}
		}
		n += m
		p = p[m:]
		off += int64(m)
	}
	return n, nil
}

// WriteAtv implements [WriterAtv] with pwritev(2).
func (f *fdFile) WriteAtv(bufs [][]byte, off int64) (int, error) {
	fd, err := f.use("write")
	if err != nil {
		return 0, err
	}
	defer f.done()
	if off < 0 {
		return 0, &fs.PathError{Op: "writeat", Path: f.name, Err: syscall.EINVAL}
	}
	bufs = append([][]byte(nil), bufs...) // trimmed below as they are written
	n := 0
	for {
		for len(bufs) > 0 && len(bufs[0]) == 0 {
			bufs = bufs[1:]
		}
		if len(bufs) == 0 {
			return n, nil
		}
		m, err := unix.Pwritev(fd, bufs, off)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return n, &fs.PathError{Op: "write", Path: f.name, Err: err}
		}
		if m == 0 {
			return n, &fs.PathError{Op: "write", Path: f.name, Err: io.ErrShortWrite}
		}
		n += m
		off += int64(m)
		for m > 0 {
			k := min(m, len(bufs[0]))
			bufs[0] = bufs[0][k:]
			m -= k
			if len(bufs[0]) == 0 {
				bufs = bufs[1:]
			}
		}
	}
}

func (f *fdFile) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fd < 0 {
		return &fs.PathError{Op: "close", Path: f.name, Err: os.ErrClosed}
	}
	// close(2) is not retried on EINTR: the descriptor is gone either way.
	err := unix.Close(f.fd)
	f.fd = -1
	if err != nil {
		return &fs.PathError{Op: "close", Path: f.name, Err: err}
	}
	return nil
}

// call runs fn on the descriptor, retrying on EINTR; an error is a
// PathError of op.
func (f *fdFile) call(op string, fn func(fd int) error) error {
	fd, err := f.use(op)
	if err != nil {
		return err
	}
	defer f.done()
	if err := ignoringEINTR(func() error { return fn(fd) }); err != nil {
		return &fs.PathError{Op: op, Path: f.name, Err: err}
	}
	return nil
}

func (f *fdFile) Sync() error { return f.call("sync", unix.Fsync) }

func (f *fdFile) DataSync() error { return f.call("fdatasync", unix.Fdatasync) }

func (f *fdFile) Stat() (fs.FileInfo, error) {
	st := new(syscall.Stat_t)
	err := f.call("stat", func(fd int) error { return unix.Fstat(fd, (*unix.Stat_t)(unsafe.Pointer(st))) })
	if err != nil {
		return nil, err
	}
	fi := &fileStat{name: path.Base(f.name), st: st}
	if fi.Mode().IsRegular() {
		f.regular.Store(true)
	}
	return fi, nil
}

func (f *fdFile) Chmod(mode fs.FileMode) error {
	return f.call("chmod", func(fd int) error { return unix.Fchmod(fd, syscallMode(mode)) })
}

func (f *fdFile) Chown(uid, gid int) error {
	return f.call("chown", func(fd int) error { return unix.Fchown(fd, uid, gid) })
}

// syscallMode is os's syscallMode: the permission bits and setuid,
// setgid and sticky.
func syscallMode(m fs.FileMode) uint32 {
	o := uint32(m.Perm())
	if m&fs.ModeSetuid != 0 {
		o |= unix.S_ISUID
	}
	if m&fs.ModeSetgid != 0 {
		o |= unix.S_ISGID
	}
	if m&fs.ModeSticky != 0 {
		o |= unix.S_ISVTX
	}
	return o
}

var _ File = (*fdFile)(nil)
