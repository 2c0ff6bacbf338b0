//go:build !amd64

package grep

// havePair is false where indexPair has no vector instructions: a
// literal is then found by its rarest byte with bytes.IndexByte.
const havePair = false

func indexPair(b []byte, c1, m1, c2, m2 byte, d int) int {
	return indexPairGo(b, c1, m1, c2, m2, d)
}
