//go:build !unix

package testlong

import "time"

var start = time.Now()

// CPU returns the CPU time the process has used; where it cannot be
// read, the time since the process started.
func CPU() time.Duration { return time.Since(start) }
