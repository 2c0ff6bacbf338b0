//go:build !linux

package fsys

import "golang.org/x/sys/unix"

// dirFlags open a directory to resolve names in: for reading, where there
// is no O_PATH.
const dirFlags = unix.O_RDONLY

// openBeneath opens name (clean, relative; "." the directory itself)
// below the directory rootfd with flags, following no symbolic link: one
// component at a time (walkBeneath), where there is no openat2(2).
func openBeneath(rootfd int, name string, flags int, perm uint32) (int, error) {
	return walkBeneath(rootfd, name, flags, perm)
}
