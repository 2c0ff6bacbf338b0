package fsys

import (
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// dirFlags open a directory to resolve names in: O_PATH, which needs no
// read permission on it and opens nothing but the name.
const dirFlags = unix.O_PATH

// noOpenat2 is set once openat2(2) is known to be missing (Linux before
// 5.6, or a seccomp filter that refuses it): names are then walked one
// component at a time.
var noOpenat2 atomic.Bool

// openBeneath opens name (clean, relative; "." the directory itself)
// below the directory rootfd with flags, following no symbolic link
// anywhere on the way: one openat2 with RESOLVE_BENEATH,
// RESOLVE_NO_SYMLINKS and RESOLVE_NO_MAGICLINKS, or, without openat2, the
// walk of walkBeneath. A symbolic link on the way is ELOOP.
func openBeneath(rootfd int, name string, flags int, perm uint32) (int, error) {
	if !noOpenat2.Load() {
		how := unix.OpenHow{
			Flags:   uint64(flags | unix.O_CLOEXEC),
			Mode:    uint64(perm),
			Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
		}
		if flags&unix.O_CREAT == 0 {
			how.Mode = 0
		}
		for try := 0; ; try++ {
			fd, err := unix.Openat2(rootfd, name, &how)
			switch err {
			case nil:
				return fd, nil
			case unix.EINTR:
				continue
			case unix.EAGAIN:
				// A rename raced the lookup (RESOLVE_BENEATH is
				// strict about that): again, a few times, then by the
				// walk, which does not need to be.
				if try < 8 {
					continue
				}
				return walkBeneath(rootfd, name, flags, perm)
			case unix.ENOSYS, unix.EPERM:
				if err == unix.ENOSYS || !openat2Works(rootfd) {
					noOpenat2.Store(true)
					return walkBeneath(rootfd, name, flags, perm)
				}
			}
			return -1, err
		}
	}
	return walkBeneath(rootfd, name, flags, perm)
}

// openat2Works tells a seccomp filter that refuses openat2 with EPERM
// (some container runtimes) from a call refused for what it asked.
func openat2Works(rootfd int) bool {
	fd, err := unix.Openat2(rootfd, ".", &unix.OpenHow{Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: unix.RESOLVE_BENEATH})
	if err != nil {
		return false
	}
	unix.Close(fd)
	return true
}
