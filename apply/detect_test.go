package apply

import "testing"

// TestDetectStyles: the style detect reports, with its fast path for text
// without a "\r" (no count of CRLFs then) and without it: a bare "\r" is
// no CRLF, mostly CRLF is CRLF, a tie is CRLF, and the BOM either way.
func TestDetectStyles(t *testing.T) {
	for _, c := range []struct {
		text      string
		bom, crlf bool
	}{
		{"", false, false},
		{"a\nb\n", false, false},
		{"\xEF\xBB\xBFa\nb\n", true, false},
		{"a\r\nb\r\n", false, true},
		{"\xEF\xBB\xBFa\r\nb\n", true, true},
		{"a\r\nb\nc\n", false, false},
		{"a\rb\rc\n", false, false},
		{"no line break", false, false},
	} {
		if s := detect([]byte(c.text)); s.bom != c.bom || s.crlf != c.crlf {
			t.Errorf("detect(%q) = %+v, want bom %v crlf %v", c.text, s, c.bom, c.crlf)
		}
	}
}
