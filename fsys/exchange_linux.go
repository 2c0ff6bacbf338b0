package fsys

import (
	"errors"
	"os"
	"path"

	"golang.org/x/sys/unix"
)

// Exchange implements [FS]: renameat2(RENAME_EXCHANGE) in the names'
// directory, opened below the root without following a symlink.
func (o *OS) Exchange(a, b string) error {
	if path.Dir(a) != path.Dir(b) {
		return &os.LinkError{Op: "exchange", Old: a, New: b, Err: errors.New("names in different directories")}
	}
	return o.inDir(path.Dir(a), func(fd int) error { return exchangeAt(fd, a, b) })
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
