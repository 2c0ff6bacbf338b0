//go:build !linux

package durable

import "os"

func fdatasync(f *os.File) error { return f.Sync() }
