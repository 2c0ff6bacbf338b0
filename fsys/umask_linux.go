package fsys

import (
	"io/fs"
	"os"
	"strconv"
	"strings"
)

// readUmask reads the process's umask from /proc rather than setting and
// resetting it, which would race with other goroutines creating files.
func readUmask() (fs.FileMode, bool) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "Umask:"); ok {
			if n, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32); err == nil {
				return fs.FileMode(n), true
			}
		}
	}
	return 0, false
}
