//go:build !linux

package fsys

import "time"

// TimestampSlack is how far behind the clock a file's ctime may be
// stamped: taken to be 3 s where the file system is not known.
func TimestampSlack(dir string) time.Duration { return 3 * time.Second }
