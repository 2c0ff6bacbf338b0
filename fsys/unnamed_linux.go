package fsys

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

// CreateUnnamed implements [FS]: openat(dir, ".", O_TMPFILE), in the
// directory opened below the root without following a symlink.
// The file is linked through /proc/self/fd (linkat with AT_EMPTY_PATH
// needs CAP_DAC_READ_SEARCH), so where /proc is not mounted it is
// unsupported.
func (o *OS) CreateUnnamed(dir string, perm fs.FileMode) (Unnamed, error) {
	if !procFD() {
		return nil, errors.ErrUnsupported
	}
	var f *fdFile
	err := o.inDir(dir, func(dfd int) error {
		for {
			fd, err := unix.Openat(dfd, ".", unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, uint32(perm.Perm()))
			switch err {
			case unix.EINTR:
				continue
			case nil:
				f = newFdFile(fd, path.Join(dir, "(unnamed)"))
				return nil
			case unix.EOPNOTSUPP, unix.EISDIR, unix.EINVAL:
				// A file system (or a kernel) without O_TMPFILE.
				return errors.ErrUnsupported
			}
			return &fs.PathError{Op: "open", Path: dir, Err: err}
		}
	})
	if err != nil {
		return nil, err
	}
	return &unnamedFile{fdFile: f, o: o, dir: dir}, nil
}

// procFD reports whether /proc/self/fd is there to link unnamed files by.
var procFD = sync.OnceValue(func() bool {
	_, err := os.Stat("/proc/self/fd")
	return err == nil
})

type unnamedFile struct {
	*fdFile
	o   *OS
	dir string
}

// Link implements [Unnamed].
func (u *unnamedFile) Link(name string) error {
	if path.Dir(name) != u.dir {
		return &os.LinkError{Op: "link", Old: u.Name(), New: name, Err: errors.New("not the directory the file was made in")}
	}
	fd, err := u.use("link")
	if err != nil {
		return err
	}
	defer u.done()
	src := "/proc/self/fd/" + strconv.Itoa(fd)
	return u.o.inDir(u.dir, func(dfd int) error {
		for {
			// The descriptor stays open while it is used: use holds
			// it open until Link returns.
			err := unix.Linkat(unix.AT_FDCWD, src, dfd, path.Base(name), unix.AT_SYMLINK_FOLLOW)
			if err == unix.EINTR {
				continue
			}
			if err != nil {
				return &os.LinkError{Op: "link", Old: u.Name(), New: name, Err: err}
			}
			return nil
		}
	})
}
