//go:build !race

package apply

// slowdown scales time limits in tests: the race detector is 5-10x slower.
const slowdown = 1
