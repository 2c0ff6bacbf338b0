//go:build !linux

package fsys

import (
	"errors"
	"os"
)

func syncfs(*os.File) error { return errors.ErrUnsupported }

// datasync is a full fsync where fdatasync is not to be had (on macOS
// os.File.Sync is F_FULLFSYNC, which fdatasync would not be).
func datasync(f *os.File) error { return f.Sync() }

// Quiet reports whether the system holds little data waiting to be
// written back: unknown here, so false.
func Quiet() bool { return false }

// QuietBelow reports whether the system holds less than limit bytes
// waiting to be written back: unknown here, so false.
func QuietBelow(limit int64) bool { return false }

// InMemory reports whether dir is on a file system in memory: unknown
// here, so false.
func InMemory(dir string) bool { return false }

// Volatile reports whether everything under dir is on a file system that
// keeps nothing across a power loss: unknown here, so false.
func Volatile(dir string) bool { return false }
