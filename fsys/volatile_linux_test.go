package fsys

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/txedit/txedit/internal/mountns"
)

// TestMountedBelow: a mount point strictly below the directory makes it
// not volatile; one at the directory itself, above it, or beside it with
// the same prefix does not; a table that cannot be read is taken as a
// mount below (the safe answer).
func TestMountedBelow(t *testing.T) {
	table := "22 1 0:21 / / rw - ext4 /dev/vda rw\n" +
		"30 22 0:26 / /dev/shm rw - tmpfs tmpfs rw\n" +
		"31 30 0:27 / /dev/shm/w rw - tmpfs tmpfs rw\n" +
		"32 22 0:28 / /dev/shm/wx rw - tmpfs tmpfs rw\n" +
		"33 22 0:29 / /dev/shm/with\\040space/sub rw - ext4 /dev/vdb rw\n"
	for _, c := range []struct {
		dir  string
		want bool
	}{
		{"/dev/shm/w", false},         // mounted at the directory itself
		{"/dev/shm/w/a", false},       // inside a mount, nothing below
		{"/dev/shm", true},            // w and wx are below
		{"/dev/shm/with space", true}, // an escaped mount point below
		{"/dev/shm/with space/sub", false},
		{"/", true},
	} {
		if got := mountedBelow(table, c.dir); got != c.want {
			t.Errorf("%s: mountedBelow %v, want %v", c.dir, got, c.want)
		}
	}
	if !mountedBelow("", "/dev/shm/w") {
		t.Error("an empty table: want true (not known)")
	}
}

// TestVolatile: a directory on a tmpfs with nothing mounted below it is
// volatile; one on a file system that keeps its data is not.
func TestVolatile(t *testing.T) {
	var st unix.Statfs_t
	if err := unix.Statfs("/dev/shm", &st); err != nil || st.Type != unix.TMPFS_MAGIC {
		t.Skip("no tmpfs at /dev/shm")
	}
	dir, err := os.MkdirTemp("/dev/shm", "volatile")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if !Volatile(dir) {
		t.Errorf("%s (tmpfs): not volatile", dir)
	}
	if err := unix.Statfs(t.TempDir(), &st); err == nil && st.Type != unix.TMPFS_MAGIC && st.Type != unix.RAMFS_MAGIC {
		if Volatile(t.TempDir()) {
			t.Errorf("%s (not a tmpfs): volatile", t.TempDir())
		}
	}
	if Volatile(filepath.Join(dir, "missing")) {
		t.Error("a missing directory: volatile")
	}
}

// TestInMemory: a directory on /dev/shm's tmpfs is in memory, one on a
// disk's file system (the test's temporary directory, where it is one)
// and a missing one are not.
func TestInMemory(t *testing.T) {
	var st unix.Statfs_t
	if err := unix.Statfs("/dev/shm", &st); err != nil || st.Type != unix.TMPFS_MAGIC {
		t.Skip("no tmpfs at /dev/shm")
	}
	dir, err := os.MkdirTemp("/dev/shm", "inmemory")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if !InMemory(dir) {
		t.Errorf("%s (tmpfs): not in memory", dir)
	}
	if tmp := t.TempDir(); unix.Statfs(tmp, &st) == nil && st.Type != unix.TMPFS_MAGIC && st.Type != unix.RAMFS_MAGIC && InMemory(tmp) {
		t.Errorf("%s (not a tmpfs): in memory", tmp)
	}
	if InMemory(filepath.Join(dir, "missing")) {
		t.Error("a missing directory: in memory")
	}
}

// TestVolatileMountBelow: a tmpfs directory with a disk's directory
// bind-mounted below it is not volatile (the mounted files survive a power
// loss). The test runs itself again in a mount namespace of its own
// (unshare -m), where it makes the mount; that needs root.
func TestVolatileMountBelow(t *testing.T) {
	if dir := os.Getenv("TXEDIT_VOLATILE_CHILD"); dir != "" {
		if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := unix.Mount(os.Getenv("TXEDIT_VOLATILE_DISK"), filepath.Join(dir, "sub"), "", unix.MS_BIND, ""); err != nil {
			t.Fatalf("mount --bind: %v", err)
		}
		if Volatile(dir) {
			t.Errorf("%s with a disk mounted below: volatile", dir)
		}
		other := filepath.Join(dir, "other")
		if err := os.Mkdir(other, 0o755); err != nil {
			t.Fatal(err)
		}
		if !Volatile(other) {
			t.Errorf("%s, beside the mount: not volatile", other)
		}
		return
	}
	var st unix.Statfs_t
	if err := unix.Statfs("/dev/shm", &st); err != nil || st.Type != unix.TMPFS_MAGIC {
		t.Skip("no tmpfs at /dev/shm")
	}
	mountns.Require(t)
	dir, err := os.MkdirTemp("/dev/shm", "volatile")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	mountns.Rerun(t, "TXEDIT_VOLATILE_CHILD="+dir, "TXEDIT_VOLATILE_DISK="+t.TempDir())
}
