package grep

import "golang.org/x/sys/cpu"

// havePair says that indexPair runs vector instructions here: a literal
// is then found by two of its bytes at once.
const havePair = true

//go:noescape
func indexPairSSE2(b []byte, c1, m1, c2, m2 byte, d int) int

//go:noescape
func indexPairAVX2(b []byte, c1, m1, c2, m2 byte, d int) int

var useAVX2 = cpu.X86.HasAVX2

// indexPair returns the first i < len(b)-d with (b[i]|m1) == c1 and
// (b[i+d]|m2) == c2, or -1.
func indexPair(b []byte, c1, m1, c2, m2 byte, d int) int {
	n := len(b) - d
	switch {
	case n >= 32 && useAVX2:
		return indexPairAVX2(b, c1, m1, c2, m2, d)
	case n >= 16:
		return indexPairSSE2(b, c1, m1, c2, m2, d)
	}
	return indexPairGo(b, c1, m1, c2, m2, d)
}
