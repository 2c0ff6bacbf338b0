package durable

import (
	"os"
	"syscall"
)

// DataSync is fdatasync(2), as txedit's staged files get.
func DataSync(f *os.File) error { return syscall.Fdatasync(int(f.Fd())) }
