package tools

// utf8Prefix is how many bytes from s[i] (an invalid sequence) form the
// longest prefix of a valid UTF-8 sequence, at least 1, and whether s[i]
// may start one at all. The official filesystem server's decoder (WHATWG)
// replaces that prefix with one U+FFFD; Python's error, which LangChain's
// tools show, names it.
func utf8Prefix[T string | []byte](s T, i int) (n int, lead bool) {
	c := s[i]
	need, lo, hi := 0, byte(0x80), byte(0xBF)
	switch {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c == 0xE0:
		need, lo = 2, 0xA0
	case c >= 0xE1 && c <= 0xEC, c == 0xEE, c == 0xEF:
		need = 2
	case c == 0xED:
		need, hi = 2, 0x9F
	case c == 0xF0:
		need, lo = 3, 0x90
	case c >= 0xF1 && c <= 0xF3:
		need = 3
	case c == 0xF4:
		need, hi = 3, 0x8F
	default:
		return 1, false
	}
	n = 1
	for ; n <= need && i+n < len(s); n++ {
		if b := s[i+n]; b < lo || b > hi {
			break
		}
		lo, hi = 0x80, 0xBF
	}
	return n, true
}
