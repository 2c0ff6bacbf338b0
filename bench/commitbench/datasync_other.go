//go:build !linux

package main

import "os"

// dataSync is fsync where there is no fdatasync.
func dataSync(f *os.File) error { return f.Sync() }
