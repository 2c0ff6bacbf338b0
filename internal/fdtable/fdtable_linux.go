package fdtable

import "golang.org/x/sys/unix"

// reserve duplicates a descriptor to slot n-1 and closes it: the table
// keeps the size it grew to. The descriptor is an eventfd's, which names
// nothing on any file system: every disk call goes through fsys
// (docs/design.md), and this is not one.
func reserve(n int) {
	defer close(done)
	fd, err := unix.Eventfd(0, unix.EFD_CLOEXEC)
	if err != nil {
		return
	}
	if hi, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, n-1); err == nil {
		unix.Close(hi)
	}
	unix.Close(fd)
}
