package fsys

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

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

// fsParents returns, when dir is the root of a mount of a subdirectory
// (a bind mount: its "root" in /proc/self/mountinfo is not "/"), the
// directory above that subdirectory in its own file system, opened through
// another mount of that file system where one shows it (path handles).
// ".." (dots) leads elsewhere from a mount's root: to the mount point's
// parent. Without this, a writer of w and a writer of a bind mount of w/sub
// did not serialise (docs/design.md, "The tree lock"). The mount table is read once per
// walk, and only when the walk meets a mount's root that is not the
// namespace's root. A file system whose other mounts this namespace does
// not see (a container given only the bind mount) cannot be walked up:
// docs/design.md says what remains.
func fsParents(dir int, dots []int, mounts **mountTable) []int {
	id, err := mntID(dir, unix.STATX_MNT_ID)
	if err != nil {
		return nil
	}
	if len(dots) > 0 {
		if up, err := mntID(dots[0], unix.STATX_MNT_ID); err == nil && up == id {
			return nil // inside a mount: ".." is the way up
		}
	}
	// dir is a mount's root. Most mounts show their file system's root,
	// and statmount (Linux 6.8) says so without reading the mount table
	// (which costs about 0.2 ms).
	if u, err := mntID(dir, unix.STATX_MNT_ID_UNIQUE); err == nil {
		if root, err := statmountRoot(u); err == nil && root == "/" {
			return nil
		}
	}
	if *mounts == nil {
		*mounts = readMounts()
	}
	m, ok := (*mounts).byID[id]
	if !ok || m.root == "/" {
		return nil
	}
	target := path.Dir(m.root)
	for _, o := range (*mounts).list {
		rest, ok := within(target, o.root)
		if o.dev != m.dev || o.id == m.id || !ok {
			continue
		}
		fd, err := unix.Open(path.Join(o.point, rest), unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			continue
		}
		if got, err := mntID(fd, unix.STATX_MNT_ID); err != nil || got != o.id {
			unix.Close(fd) // another mount hides it there
			continue
		}
		return []int{fd} // one suffices: flock locks the inode
	}
	return nil
}

// within returns p relative to dir (both clean absolute paths), if p is
// dir or below it.
func within(p, dir string) (string, bool) {
	if dir == "/" {
		return p, true
	}
	if p == dir {
		return ".", true
	}
	if strings.HasPrefix(p, dir+"/") {
		return p[len(dir)+1:], true
	}
	return "", false
}

// mountTable is /proc/self/mountinfo: each mount's id, device, root (the
// directory of its file system it shows) and mount point.
type mountTable struct {
	list []mountEntry
	byID map[uint64]mountEntry
}

type mountEntry struct {
	id               uint64
	dev, root, point string
}

func readMounts() *mountTable {
	t := &mountTable{byID: map[uint64]mountEntry{}}
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return t
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 5 {
			continue
		}
		id, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			continue
		}
		e := mountEntry{id: id, dev: f[2], root: unescapeMount(f[3]), point: unescapeMount(f[4])}
		t.list = append(t.list, e)
		t.byID[id] = e
	}
	return t
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space, ...).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// mntID returns the id of the mount the handle fd is on: which is
// STATX_MNT_ID (the id mountinfo shows) or STATX_MNT_ID_UNIQUE (the one
// statmount takes; Linux 6.8).
func mntID(fd, which int) (uint64, error) {
	var st unix.Statx_t
	err := unix.Statx(fd, "", unix.AT_EMPTY_PATH, which, &st)
	if err == nil && st.Mask&uint32(which) != 0 {
		return st.Mnt_id, nil
	}
	if which != unix.STATX_MNT_ID {
		return 0, errors.ErrUnsupported
	}
	// Before Linux 5.8, statx does not say: fdinfo does (3.15 on).
	data, err := os.ReadFile("/proc/self/fdinfo/" + strconv.Itoa(fd))
	if err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "mnt_id:"); ok {
			return strconv.ParseUint(strings.TrimSpace(v), 10, 64)
		}
	}
	return 0, errors.ErrUnsupported
}

// statmountRoot returns the directory of its file system that the mount
// (by unique id) shows, from statmount(2) (Linux 6.8).
func statmountRoot(id uint64) (string, error) {
	const (
		reqSize0     = 24  // MNT_ID_REQ_SIZE_VER0
		statmountMnt = 0x8 // STATMOUNT_MNT_ROOT
		strOffset    = 512 // sizeof(struct statmount): its strings follow
		rootField    = 104 // offsetof(struct statmount, mnt_root)
		maskField    = 8   // offsetof(struct statmount, mask)
	)
	req := struct {
		size, spare uint32
		id, param   uint64
	}{reqSize0, 0, id, statmountMnt}
	buf := make([]byte, 4096+strOffset)
	_, _, e := unix.Syscall6(unix.SYS_STATMOUNT, uintptr(unsafe.Pointer(&req)), uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), 0, 0, 0)
	if e != 0 {
		return "", e
	}
	if binary.NativeEndian.Uint64(buf[maskField:])&statmountMnt == 0 {
		return "", errors.ErrUnsupported
	}
	s := buf[strOffset+int(binary.NativeEndian.Uint32(buf[rootField:])):]
	if i := bytes.IndexByte(s, 0); i >= 0 {
		return string(s[:i]), nil
	}
	return "", errors.ErrUnsupported
}

// dirPath returns the path of the directory fd is open on ("" if it is
// not known).
func dirPath(fd int) string {
	p, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
	if err != nil || !strings.HasPrefix(p, "/") {
		return ""
	}
	return p
}
