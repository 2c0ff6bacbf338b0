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
func Quiet() bool {
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
	return ok && n < quietBytes
}
