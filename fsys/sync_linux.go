package fsys

import (
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

func syncfs(f *os.File) error {
	c, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := c.Control(func(fd uintptr) { serr = unix.Syncfs(int(fd)) }); err != nil {
		return err
	}
	return serr
}

// quietBytes is the most unwritten data (Dirty plus Writeback, system
// wide) at which a syncfs barrier is cheap: it flushes at most that much
// that is not the caller's own.
const quietBytes = 32 << 20

// Quiet reports whether the system holds little data waiting to be written
// back (/proc/meminfo): then one syncfs(2) is the cheapest durability
// barrier; under a build's writeback it is the most expensive.
func Quiet() bool { return QuietBelow(quietBytes) }

// QuietBelow reports whether the system holds less than limit bytes of
// data waiting to be written back (Dirty plus Writeback, /proc/meminfo):
// a syncfs(2) then flushes at most that much that is not the caller's.
func QuietBelow(limit int64) bool {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return false
	}
	n, ok := int64(0), false
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && (f[0] == "Dirty:" || f[0] == "Writeback:") {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				return false
			}
			n, ok = n+kb<<10, true
		}
	}
	return ok && n < limit
}

// InMemory reports whether dir itself is on a tmpfs or a ramfs (one
// statfs; unlike Volatile it does not look at what is mounted below dir,
// and it is false on any error). No sync there waits for a device: the
// journal widens a few files' transaction's Ps only where it is false
// (docs/journal.md, "Syncs in flight, and the Go runtime's Ps").
func InMemory(dir string) bool {
	var st unix.Statfs_t
	return unix.Statfs(dir, &st) == nil && (st.Type == unix.TMPFS_MAGIC || st.Type == unix.RAMFS_MAGIC)
}

// Volatile reports whether everything under dir (a clean absolute path)
// is on a file system that keeps nothing across a power loss or a reboot:
// a tmpfs or a ramfs, with no other file system mounted anywhere below
// dir (/proc/self/mountinfo). No sync on such a file system has any
// effect (Linux's tmpfs and ramfs fsync is a no-op, and so is their
// syncfs), so a journal there may skip them: what a power loss leaves is
// the same, nothing. A file system mounted below dir would keep its files,
// so then it is false, as on any error.
func Volatile(dir string) bool {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil || (st.Type != unix.TMPFS_MAGIC && st.Type != unix.RAMFS_MAGIC) {
		return false
	}
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return false
	}
	return !mountedBelow(string(data), dir)
}

// mountedBelow reports whether the mount table (mountinfo's text) has a
// mount point strictly below dir, or cannot be read.
func mountedBelow(mountinfo, dir string) bool {
	seen := false
	for line := range strings.SplitSeq(mountinfo, "\n") {
		f := strings.Fields(line)
		if len(f) < 5 {
			continue
		}
		seen = true
		if rest, ok := within(unescapeMount(f[4]), dir); ok && rest != "." {
			return true
		}
	}
	return !seen
}
