package fsys

import (
	"errors"
	"os"
	"path"

	"golang.org/x/sys/unix"
)

// Exchange implements [FS]: renameat2(RENAME_EXCHANGE) in the names'
// directory, opened confined to the root (openat2 below it, or os.Root).
func (o *OS) Exchange(a, b string) error {
	if path.Dir(a) != path.Dir(b) {
		return &os.LinkError{Op: "exchange", Old: a, New: b, Err: errors.New("names in different directories")}
	}
	o.b.init(o.root)
	fd := o.b.dir(path.Dir(a))
	if fd < 0 {
		f, err := o.root.Open(path.Dir(a))
		if err != nil {
			return err
		}
		defer f.Close()
		rc, err := f.SyscallConn()
		if err != nil {
			return err
		}
		var xerr error
		if err := rc.Control(func(h uintptr) { xerr = exchangeAt(int(h), a, b) }); err != nil {
			return err
		}
		return xerr
	}
	defer unix.Close(fd)
	return exchangeAt(fd, a, b)
}

func exchangeAt(fd int, a, b string) error {
	for {
		err := unix.Renameat2(fd, path.Base(a), fd, path.Base(b), unix.RENAME_EXCHANGE)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.ENOSYS:
			return errors.ErrUnsupported
		case err == unix.EINVAL:
			// A file system without RENAME_EXCHANGE (or a name that
			// is not in this directory: the caller checked).
			return errors.ErrUnsupported
		case err != nil:
			return &os.LinkError{Op: "exchange", Old: a, New: b, Err: err}
		}
		return nil
	}
}
