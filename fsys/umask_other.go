//go:build !linux

package fsys

import (
	"io/fs"
	"os"
)

// readUmask learns the process's umask without changing it (setting and
// resetting it would race with other goroutines creating files): it
// creates a temporary file asking for every permission bit and looks at
// which bits the umask took away.
func readUmask() (fs.FileMode, bool) {
	dir, err := os.MkdirTemp("", "txedit-umask-")
	if err != nil {
		return 0, false
	}
	defer os.RemoveAll(dir)
	f, err := os.OpenFile(dir+"/probe", os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o777)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, false
	}
	return 0o777 &^ fi.Mode().Perm(), true
}
