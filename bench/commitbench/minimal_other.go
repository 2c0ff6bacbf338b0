//go:build !linux

package main

// minimalMethods is empty where O_TMPFILE and /proc/self/fd are not
// there to build the unnamed staging with (minimal_linux.go).
func minimalMethods(root string, contents map[string][]byte, setupWith func(pre func(root string) error) error) []minimalMethod {
	return nil
}
