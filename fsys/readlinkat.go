//go:build unix && !dragonfly

package fsys

import "golang.org/x/sys/unix"

func readlinkat(dfd int, name string, b []byte) (int, error) { return unix.Readlinkat(dfd, name, b) }
