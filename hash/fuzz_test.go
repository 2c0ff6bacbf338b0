package hash

import "testing"

// $ go test -fuzz=FuzzParseToken ./hash
func FuzzParseToken(f *testing.F) {
	for _, s := range []string{"44bc2cf5ad770999", "44bc2cf5ad770999@1-3", "x@1-2", "@", "44bc2cf5ad770999@9999999999999999999-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tok, err := ParseToken(s)
		if err != nil {
			return
		}
		again, err := ParseToken(tok.String())
		if err != nil || again != tok {
			t.Fatalf("round trip of %q: %v, %v", s, again, err)
		}
	})
}

// $ go test -fuzz=FuzzLines ./hash
func FuzzLines(f *testing.F) {
	f.Add([]byte("a\r\nb\nc"), 1, 2)
	f.Add([]byte(""), 1, 1)
	f.Fuzz(func(t *testing.T, data []byte, s, e int) {
		lo, hi, ok := LineSpan(data, s, e)
		if !ok {
			return
		}
		if lo < 0 || hi > len(data) || lo > hi {
			t.Fatalf("LineSpan(%d,%d) = %d,%d outside %d bytes", s, e, lo, hi, len(data))
		}
	})
}
