package fsys

import (
	"io/fs"
	"sync"
)

var (
	umaskOnce sync.Once
	umaskBits fs.FileMode = 0o022
)

// Umask returns the process's umask, learnt once. Where it cannot be
// learnt, 022 is assumed: a wrong guess only costs an extra chmod, or
// leaves bits the umask would have removed anyway.
func Umask() fs.FileMode {
	umaskOnce.Do(func() {
		if m, ok := readUmask(); ok {
			umaskBits = m
		}
	})
	return umaskBits
}
