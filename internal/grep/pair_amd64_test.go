package grep

import (
	"testing"

	"golang.org/x/sys/cpu"
)

// TestHasAVX2: the package's own probe agrees with golang.org/x/sys/cpu
// (which it replaced so that no process pays the probing at start).
func TestHasAVX2(t *testing.T) {
	if got, want := hasAVX2(), cpu.X86.HasAVX2 && cpu.X86.HasAVX; got != want {
		t.Fatalf("hasAVX2() = %v, golang.org/x/sys/cpu says %v", got, want)
	}
}
