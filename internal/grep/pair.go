package grep

// indexPairGo is indexPair one position at a time: for short inputs, and
// the reference the vector kernels are tested against.
func indexPairGo(b []byte, c1, m1, c2, m2 byte, d int) int {
	for i := 0; i+d < len(b); i++ {
		if b[i]|m1 == c1 && b[i+d]|m2 == c2 {
			return i
		}
	}
	return -1
}
