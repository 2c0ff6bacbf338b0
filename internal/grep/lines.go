package grep

import "bytes"

// binaryPrefix is what ripgrep looks at before searching a file found by a
// walk: a NUL byte in its first buffer (64 KiB) makes the file binary and
// it is skipped. A NUL further on ends the search there.
const binaryPrefix = 64 << 10

// Searchable returns the part of a file a recursive search looks at, and
// false if the file is binary from the start (ripgrep's rule).
func Searchable(buf []byte) ([]byte, bool) {
	i := bytes.IndexByte(buf, 0)
	if i < 0 {
		return buf, true
	}
	if i < binaryPrefix {
		return nil, false
	}
	cut := i / binaryPrefix * binaryPrefix
	return buf[:bytes.LastIndexByte(buf[:cut], '\n')+1], true
}

// LinesBefore returns up to n lines of buf ending before offset at,
// without their line breaks.
func LinesBefore(buf []byte, at, n int) []string {
	var out []string
	for end := at; n > 0 && end > 0; n-- {
		start := bytes.LastIndexByte(buf[:end-1], '\n') + 1
		out = append(out, TrimEOL(buf[start:end]))
		end = start
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// LinesAfter returns up to n lines of buf starting at offset at, without
// their line breaks.
func LinesAfter(buf []byte, at, n int) []string {
	var out []string
	for start := at; n > 0 && start < len(buf); n-- {
		end := len(buf)
		if i := bytes.IndexByte(buf[start:], '\n'); i >= 0 {
			end = start + i + 1
		}
		out = append(out, TrimEOL(buf[start:end]))
		start = end
	}
	return out
}

// TrimEOL returns a line without its line break (LF or CRLF).
func TrimEOL(b []byte) string {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return string(bytes.TrimSuffix(b, []byte("\r")))
}
