//go:build !linux

package fsys

import "os"

// newFile is the File of the descriptor fd, which it owns.
func newFile(fd int, name string) File { return osFile{os.NewFile(uintptr(fd), name)} }
