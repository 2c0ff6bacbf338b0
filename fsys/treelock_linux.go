package fsys

import "golang.org/x/sys/unix"

// openParent opens the directory above dir as a path handle: it needs only
// search permission, so the walk goes on above a directory it may not read.
func openParent(dir int) (int, error) {
	return unix.Openat(dir, "..", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
}

// openLockable opens the directory a path handle names for reading, which
// flock needs.
func openLockable(dir int) (int, error) {
	return unix.Openat(dir, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
}
