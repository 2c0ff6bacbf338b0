//go:build !linux

package fsys

import "os"

// osFile is a [File] where there is no fdFile (fdfile_linux.go).
type osFile struct{ *os.File }

func (f osFile) Chown(uid, gid int) error { return f.File.Chown(uid, gid) }

// DataSync implements [File].
func (f osFile) DataSync() error { return datasync(f.File) }

// newFile is the File of the descriptor fd, which it owns.
func newFile(fd int, name string) File { return osFile{os.NewFile(uintptr(fd), name)} }
