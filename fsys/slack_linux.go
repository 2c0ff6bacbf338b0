package fsys

import (
	"syscall"
	"time"
)

// TimestampSlack is how far behind the clock a file's ctime may be stamped
// on the file system holding dir: a write just after time.Now() can carry
// a ctime up to this much earlier. Linux stamps ext4, xfs, btrfs and tmpfs
// from the coarse clock (one tick: at most 10 ms); elsewhere (FAT keeps 2
// s, network file systems the server's clock) it is taken to be 3 s.
func TimestampSlack(dir string) time.Duration {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 3 * time.Second
	}
	switch uint32(st.Type) {
	case 0xEF53, // ext2/3/4
		0x58465342, // xfs
		0x9123683E, // btrfs
		0x01021994: // tmpfs
		return 50 * time.Millisecond
	}
	return 3 * time.Second
}
