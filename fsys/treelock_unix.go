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
// "Above" is by inode, not by path: from the root of a bind mount of
// w/sub, ".." leads to the mount point's parent, so the walk also goes up
// from w/sub in its own file system, through another mount of it
// (fsParents; Linux). Without that, writers of w and of the bind mount
// were not serialised (10 of 60 increments lost; docs/design.md, "The tree
// lock").
//
// Deadlock cannot happen: every writer takes its shared locks first and
// its one exclusive lock last. A shared lock waits only for the holder of
// the exclusive one, which holds everything it needs; a writer waiting for
// the exclusive lock of its root waits only for writers below it, and
// "below" has no cycle (unless a directory is bind-mounted inside itself:
// then both writers give up at their deadline with ErrBusy).
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
	ancestors := parentsOf(rootFd) // closes rootFd
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
	for _, fd := range ancestors {
		if err := flockUntil(fd, unix.LOCK_SH, deadline); err != nil {
			if errors.Is(err, ErrBusy) {
				where := "a directory above this workspace"
				if p := dirPath(fd); p != "" {
					where = p
				}
				err = &BusyError{Holder: "a txedit process is committing in the workspace at " + where + ", which contains this one"}
			}
			release()
			return nil, err
		}
		held = append(held, fd)
	}
	if err := flockUntil(self, unix.LOCK_EX, deadline); err != nil {
		if errors.Is(err, ErrBusy) {
			err = &BusyError{Holder: "a txedit process is committing in a workspace nested inside this one (a directory below it with its own .txedit)"}
		}
		release()
		return nil, err
	}
	held = append(held, self)
	return release, nil
}

// parentsOf opens, for flock, every directory above the one dir is open
// on, up to the file system's root (whose ".." is itself), by every way up
// there is: ".." and, where dir or a directory above it is the root of a
// bind mount of a subdirectory, the directories above that subdirectory in
// its own file system too ([fsParents]: ".." from a mount's root leads to
// the mount point's parent, another tree). Each directory (by device and
// inode) is opened once, and never the root's own. It takes ownership of
// dir.
func parentsOf(dir int) []int {
	var out []int
	var self unix.Stat_t
	if unix.Fstat(dir, &self) != nil {
		unix.Close(dir)
		return nil
	}
	seen := map[[2]uint64]bool{{uint64(self.Dev), self.Ino}: true}
	var mounts *mountTable
	queue := []int{dir}
	for len(queue) > 0 && len(seen) < 4096 {
		cur := queue[0]
		queue = queue[1:]
		var ups []int
		if up, err := openParent(cur); err == nil {
			ups = append(ups, up)
		}
		ups = append(ups, fsParents(cur, ups, &mounts)...)
		unix.Close(cur)
		for _, up := range ups {
			var st unix.Stat_t
			if unix.Fstat(up, &st) != nil || seen[[2]uint64{uint64(st.Dev), st.Ino}] {
				unix.Close(up)
				continue
			}
			seen[[2]uint64{uint64(st.Dev), st.Ino}] = true
			if fd, err := openLockable(up); err == nil {
				out = append(out, fd)
			} else if !errors.Is(err, unix.EACCES) && !errors.Is(err, unix.EPERM) {
				unix.Close(up)
				continue
			}
			queue = append(queue, up)
		}
	}
	for _, fd := range queue {
		unix.Close(fd)
	}
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
