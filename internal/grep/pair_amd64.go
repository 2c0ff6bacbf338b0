package grep

import "sync"

// havePair says that indexPair runs vector instructions here: a literal
// is then found by two of its bytes at once.
const havePair = true

//go:noescape
func indexPairSSE2(b []byte, c1, m1, c2, m2 byte, d int) int

//go:noescape
func indexPairAVX2(b []byte, c1, m1, c2, m2 byte, d int) int

func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)

func xgetbv0() (eax uint32)

// hasAVX2 asks the processor, once, on first use, whether it has AVX2
// and the operating system saves the YMM registers across switches. It
// is not a package variable set at start: CPUID traps to the hypervisor
// in a virtual machine, and golang.org/x/sys/cpu's start-up probing cost
// every txedit process ~0.1 ms (docs/design.md, "Process start").
var hasAVX2 = sync.OnceValue(func() bool {
	maxLeaf, _, _, _ := cpuid(0, 0)
	if maxLeaf < 7 {
		return false
	}
	_, _, ecx1, _ := cpuid(1, 0)
	const osxsave, avx = 1 << 27, 1 << 28
	if ecx1&osxsave == 0 || ecx1&avx == 0 {
		return false
	}
	const xmm, ymm = 1 << 1, 1 << 2 // XCR0: the OS saves both
	if xgetbv0()&(xmm|ymm) != xmm|ymm {
		return false
	}
	_, ebx7, _, _ := cpuid(7, 0)
	return ebx7&(1<<5) != 0
})

// indexPair returns the first i < len(b)-d with (b[i]|m1) == c1 and
// (b[i+d]|m2) == c2, or -1.
func indexPair(b []byte, c1, m1, c2, m2 byte, d int) int {
	n := len(b) - d
	switch {
	case n >= 32 && hasAVX2():
		return indexPairAVX2(b, c1, m1, c2, m2, d)
	case n >= 16:
		return indexPairSSE2(b, c1, m1, c2, m2, d)
	}
	return indexPairGo(b, c1, m1, c2, m2, d)
}
