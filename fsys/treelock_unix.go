//go:build unix

package fsys

import (
	"errors"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// Workspaces nest: one agent opens /w, another /w/sub, and each has its own
// journal and its own LOCK, so their commits were not serialised and one
// could overwrite what the other had just verified (a lost update, though
// both checked hashes under "the" lock). The same directory may also be
// reached through two paths (a symlink, a bind mount). lockTree makes
// writers whose trees overlap take turns, whichever root they opened: a
// writer holds an exclusive flock on its root directory and a shared one
// on every directory above it. Two writers on one directory, or one on a
// directory and one below it, then conflict on a flock of the same inode
// (the upper root's); writers on disjoint trees (siblings) share all they
// lock and run at once. flock locks inodes, so the paths do not matter.
//
// Deadlock cannot happen: every writer locks top-down and takes its one
// exclusive lock last, so a writer waiting for the exclusive lock of its
// root waits only for writers below it, which hold everything they need.
//
// Directories above the root that the process may not open are skipped
// (they need read permission to be flocked); a writer whose root is such a
// directory is then not serialised with the writers below it.

// lockTree locks the tree of the directory root (an open handle of it,
// which it does not close), polling until deadline. It returns ErrBusy if
// another writer holds a conflicting lock past it.
func lockTree(root *os.File, deadline time.Time) (release func(), err error) {
	rc, err := root.SyscallConn()
	if err != nil {
		return nil, err
	}
	var rootFd int
	var cerr error
	if err := rc.Control(func(fd uintptr) { rootFd, cerr = unix.Dup(int(fd)) }); err != nil {
		return nil, err
	}
	if cerr != nil {
		return nil, cerr
	}
	unix.CloseOnExec(rootFd)
	// Reopen the root for its own open file description: flocks belong to
	// those, and the caller's handle may be shared.
	self, err := unix.Openat(rootFd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		unix.Close(rootFd)
		return nil, err
	}
	ancestors := parentsOf(rootFd) // nearest first; closes rootFd
	held := []int{}
	release = func() {
		for _, fd := range held {
			unix.Flock(fd, unix.LOCK_UN)
		}
		for _, fd := range ancestors {
			unix.Close(fd)
		}
		unix.Close(self)
	}
	for i := len(ancestors) - 1; i >= 0; i-- {
		if err := flockUntil(ancestors[i], unix.LOCK_SH, deadline); err != nil {
			release()
			return nil, err
		}
		held = append(held, ancestors[i])
	}
	if err := flockUntil(self, unix.LOCK_EX, deadline); err != nil {
		release()
		return nil, err
	}
	held = append(held, self)
	return release, nil
}

// parentsOf opens, for flock, every directory above the one dir is open
// on, nearest first, up to the file system's root (whose ".." is itself).
// It takes ownership of dir.
func parentsOf(dir int) []int {
	var out []int
	cur := dir
	for depth := 0; depth < 4096; depth++ {
		up, err := openParent(cur)
		if err != nil {
			break
		}
		var a, b unix.Stat_t
		if unix.Fstat(cur, &a) != nil || unix.Fstat(up, &b) != nil || (a.Dev == b.Dev && a.Ino == b.Ino) {
			unix.Close(up)
			break
		}
		unix.Close(cur)
		cur = up
		if fd, err := openLockable(cur); err == nil {
			out = append(out, fd)
		} else if !errors.Is(err, unix.EACCES) && !errors.Is(err, unix.EPERM) {
			break
		}
	}
	unix.Close(cur)
	return out
}

// flockUntil takes a flock, polling until deadline.
func flockUntil(fd, how int, deadline time.Time) error {
	delay := time.Millisecond
	for {
		err := unix.Flock(fd, how|unix.LOCK_NB)
		if err == nil {
			return nil
		}
		if !errors.Is(err, unix.EWOULDBLOCK) && !errors.Is(err, unix.EINTR) {
			return err
		}
		if time.Now().After(deadline) {
			return ErrBusy
		}
		time.Sleep(delay)
		delay = min(delay*2, 50*time.Millisecond)
	}
}
