//go:build race

package patch

// slowdown scales time limits in tests: the race detector is 5-10x slower.
const slowdown = 10
