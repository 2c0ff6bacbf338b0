//go:build unix

package fsys

import (
	"os"

	"golang.org/x/sys/unix"
)

func flock(f *os.File, lock bool) error {
	how := unix.LOCK_UN
	if lock {
		how = unix.LOCK_EX | unix.LOCK_NB
	}
	c, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := c.Control(func(fd uintptr) { ferr = unix.Flock(int(fd), how) }); err != nil {
		return err
	}
	return ferr
}
