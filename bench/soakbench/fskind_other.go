//go:build !linux

package main

// fsKind names the file system that holds dir: only Linux says here.
func fsKind(dir string) string { return "?" }
