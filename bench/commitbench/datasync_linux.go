package main

import (
	"os"
	"syscall"
)

// dataSync is fdatasync(2), as the commit's own staged files get.
func dataSync(f *os.File) error { return syscall.Fdatasync(int(f.Fd())) }
