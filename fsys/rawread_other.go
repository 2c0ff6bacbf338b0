//go:build !linux

package fsys

import (
	"io/fs"
	"os"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// fdDir is a [Dir] on a directory descriptor where there is no getdents
// of Linux's kind: entries are listed through package os and stat'ed
// relative to the descriptor; children are opened with one openat each,
// O_NOFOLLOW, so nothing leaves the directory or follows a link.
type fdDir struct {
	fd atomic.Int64 // -1 once closed
}

// newFdDir is a Dir on the directory descriptor fd, which it owns.
func newFdDir(fd int) Dir {
	d := &fdDir{}
	d.fd.Store(int64(fd))
	return d
}

func (d *fdDir) handle(op, name string) (int, error) {
	fd := int(d.fd.Load())
	if fd < 0 {
		return -1, &os.PathError{Op: op, Path: name, Err: os.ErrClosed}
	}
	return fd, entryName(op, name)
}

// ReadDir implements [Dir]: the names through a second descriptor (so
// that package os may own and close it), each entry stat'ed relative to
// this one.
func (d *fdDir) ReadDir() ([]fs.DirEntry, error) {
	fd := int(d.fd.Load())
	if fd < 0 {
		return nil, &os.PathError{Op: "readdir", Path: ".", Err: os.ErrClosed}
	}
	dup, err := openatRetry(fd, ".", unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return nil, &os.PathError{Op: "readdir", Path: ".", Err: err}
	}
	f := os.NewFile(uintptr(dup), ".")
	names, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		return nil, err
	}
	out := make([]fs.DirEntry, 0, len(names))
	for _, n := range names {
		fi, err := lstatAt(fd, n)
		if err != nil {
			if err == unix.ENOENT {
				continue
			}
			return nil, &os.PathError{Op: "fstatat", Path: n, Err: err}
		}
		out = append(out, statDirent{fi})
	}
	return out, nil
}

func (d *fdDir) Open(name string) (File, error) {
	dfd, err := d.handle("openat", name)
	if err != nil {
		return nil, err
	}
	fd, err := openatRetry(dfd, name, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOFOLLOW, 0)
	if err != nil {
		if isNoFollowErr(err) {
			err = unix.ELOOP
		}
		return nil, &os.PathError{Op: "openat", Path: name, Err: err}
	}
	return osFile{os.NewFile(uintptr(fd), name)}, nil
}

// OpenDir implements [Dir].
func (d *fdDir) OpenDir(name string) (Dir, error) {
	dfd, err := d.handle("opendir", name)
	if err != nil {
		return nil, err
	}
	fd, err := openatRetry(dfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
	if err != nil {
		if isNoFollowErr(err) {
			err = unix.ENOTDIR // a symlink: not a directory of this tree
		}
		return nil, &os.PathError{Op: "openat", Path: name, Err: err}
	}
	return newFdDir(fd), nil
}

// ReadFile implements [Dir] through Open.
func (d *fdDir) ReadFile(name string, buf []byte, max int64) ([]byte, error) {
	f, err := d.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := ReadAll(f, buf, max)
	if err != nil {
		return nil, &os.PathError{Op: "read", Path: name, Err: err}
	}
	return data, nil
}

func (d *fdDir) Close() error {
	fd := d.fd.Swap(-1)
	if fd < 0 {
		return os.ErrClosed
	}
	return unix.Close(int(fd))
}

var _ Dir = (*fdDir)(nil)
