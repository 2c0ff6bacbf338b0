//go:build unix && !linux

package fsys

import "golang.org/x/sys/unix"

// openParent opens the directory above dir. Without O_PATH the walk stops
// at the first directory the process may not read.
func openParent(dir int) (int, error) {
	return unix.Openat(dir, "..", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
}

// openLockable returns another handle of dir, opened for reading.
func openLockable(dir int) (int, error) {
	return unix.Openat(dir, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
}

// fsParents finds no directory above dir other than "..": these systems
// have no bind mounts of the Linux kind (BSD's nullfs is not looked into).
func fsParents(dir int, dots []int, mounts **mountTable) []int { return nil }

type mountTable struct{}

// dirPath returns "": the path of an open directory is not looked up
// here (the message then names no path).
func dirPath(fd int) string {
	return ""
}
