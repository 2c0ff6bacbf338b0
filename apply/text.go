package apply

import "bytes"

var bom = []byte{0xEF, 0xBB, 0xBF}

// binarySniff is how many leading bytes are searched for a NUL, as git does.
const binarySniff = 8000

// IsBinary reports whether data looks binary: a NUL in its first 8000 bytes.
func IsBinary(data []byte) bool {
	if len(data) > binarySniff {
		data = data[:binarySniff]
	}
	return bytes.IndexByte(data, 0) >= 0
}

// style is what a file keeps across edits.
type style struct {
	bom  bool
	crlf bool
}

func (s style) nl() string {
	if s.crlf {
		return "\r\n"
	}
	return "\n"
}

// detect reports a file's style: a leading UTF-8 BOM, and CRLF when most of
// its line breaks are CRLF.
func detect(data []byte) style {
	s := style{bom: bytes.HasPrefix(data, bom)}
	if bytes.IndexByte(data, '\r') < 0 {
		// No CRLF at all (most files): one fast scan, not two counts
		// (counting "\r\n" is a substring search over every byte).
		return s
	}
	crlf := bytes.Count(data, []byte("\r\n"))
	lf := bytes.Count(data, []byte("\n")) - crlf
	s.crlf = crlf > 0 && crlf >= lf
	return s
}

// split returns data's style and its body without the BOM.
func split(data []byte) (style, []byte) {
	s := detect(data)
	if s.bom {
		data = data[len(bom):]
	}
	return s, data
}

// join puts the BOM back.
func join(s style, body []byte) []byte {
	if !s.bom {
		return body
	}
	out := make([]byte, 0, len(bom)+len(body))
	return append(append(out, bom...), body...)
}

// convert rewrites text's line breaks to the file's style: in a CRLF file
// every LF becomes CRLF (existing CRLFs stay as they are).
func (s style) convert(text string) string {
	if !s.crlf || !bytes.Contains([]byte(text), []byte("\n")) {
		return text
	}
	var b bytes.Buffer
	b.Grow(len(text) + len(text)/16)
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c == '\n' && (i == 0 || text[i-1] != '\r') {
			b.WriteByte('\r')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// wholeLines converts text to the file's style and ends it with a line
// break, so it inserts as whole lines. Empty text is zero lines.
func (s style) wholeLines(text string) string {
	if text == "" {
		return ""
	}
	text = s.convert(text)
	if text[len(text)-1] != '\n' {
		text += s.nl()
	}
	return text
}

// lineStarts returns the byte offset of the start of every line of body,
// plus len(body) as a sentinel: lines i (1-based) spans
// starts[i-1]:starts[i].
func lineStarts(body []byte) []int {
	starts := make([]int, 1, bytes.Count(body, []byte("\n"))+2)
	for off := 0; ; {
		i := bytes.IndexByte(body[off:], '\n')
		if i < 0 {
			break
		}
		off += i + 1
		starts = append(starts, off)
	}
	if starts[len(starts)-1] != len(body) {
		starts = append(starts, len(body))
	}
	return starts
}

// lineOf returns the 1-based line number holding byte offset off.
func lineOf(starts []int, off int) int {
	lo, hi := 0, len(starts)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if starts[mid] <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo + 1
}
