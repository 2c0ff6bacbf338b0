//go:build !linux

package fsys

import "sync/atomic"

// noOpenat2 is beneath_linux.go's switch to the walk one component at a
// time; where there is no openat2 the walk is all there is, so the tests
// that set it run the same walk twice.
var noOpenat2 atomic.Bool
