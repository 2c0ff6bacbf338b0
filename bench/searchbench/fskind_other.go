//go:build !linux

package main

// fsKind names the file system that holds dir: only Linux is told apart
// here, elsewhere -fs tmpfs is refused.
func fsKind(dir string) string { return "unknown" }
