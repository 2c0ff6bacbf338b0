//go:build !linux

package durable

import "os"

// DataSync is fsync where there is no fdatasync.
func DataSync(f *os.File) error { return f.Sync() }
