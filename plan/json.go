package plan

import (
	"bytes"
	"encoding/binary"
	"io"
	"math/bits"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// AppendJSON appends r as encoding/json would marshal it (with HTML
// escaping off), only much faster: fs_read results carry whole files, and
// a batch read of a source tree is mostly string escaping.
func (r *ReadResult) AppendJSON(b []byte) []byte {
	if b == nil {
		b = make([]byte, 0, len(r.Content)+len(r.Content)/8+256)
	}
	b = append(b, `{"path":`...)
	b = appendString(b, r.Path)
	b = append(b, `,"success":`...)
	b = strconv.AppendBool(b, r.Success)
	b = field(b, "content", r.Content)
	b = field(b, "content_hash", r.ContentHash)
	b = field(b, "file_hash", r.FileHash)
	b = field(b, "last_modified", r.LastModified)
	b = intField(b, "start_line", r.StartLine)
	b = intField(b, "end_line", r.EndLine)
	b = intField(b, "total_lines", r.TotalLines)
	if len(r.Entries) > 0 {
		b = append(b, `,"entries":[`...)
		for i, e := range r.Entries {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"path":`...)
			b = appendString(b, e.Path)
			b = append(b, `,"name":`...)
			b = appendString(b, e.Name)
			b = append(b, `,"kind":`...)
			b = appendString(b, string(e.Kind))
			b = append(b, `,"size":`...)
			b = strconv.AppendInt(b, e.Size, 10)
			b = append(b, `,"mode":`...)
			b = appendString(b, e.Mode)
			b = append(b, `,"modified":`...)
			b = appendString(b, e.Modified)
			b = field(b, "target", e.Target)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if len(r.Matches) > 0 {
		b = append(b, `,"matches":[`...)
		for i, m := range r.Matches {
			if i > 0 {
				b = append(b, ',')
			}
			b = m.appendJSON(b)
		}
		b = append(b, ']')
	}
	if len(r.Images) > 0 {
		b = append(b, `,"images":[`...)
		for i, img := range r.Images {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"path":`...)
			b = appendString(b, img.Path)
			b = append(b, `,"data":`...)
			b = appendString(b, img.Data)
			b = append(b, `,"media_type":`...)
			b = appendString(b, img.MediaType)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = field(b, "warning", r.Warning)
	b = field(b, "code", string(r.Code))
	b = field(b, "error", r.Error)
	return append(b, '}')
}

func (m *Match) appendJSON(b []byte) []byte {
	b = append(b, `{"path":`...)
	b = appendString(b, m.Path)
	b = append(b, `,"line":`...)
	b = strconv.AppendInt(b, int64(m.Line), 10)
	b = append(b, `,"text":`...)
	b = appendString(b, m.Text)
	for _, l := range []struct {
		name  string
		lines []string
	}{{"before", m.Before}, {"after", m.After}} {
		if len(l.lines) == 0 {
			continue
		}
		b = append(b, `,"`...)
		b = append(b, l.name...)
		b = append(b, `":[`...)
		for i, s := range l.lines {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, s)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// field appends ,"name":"value" unless value is empty (omitempty).
func field(b []byte, name, value string) []byte {
	if value == "" {
		return b
	}
	b = append(b, `,"`...)
	b = append(b, name...)
	b = append(b, `":`...)
	return appendString(b, value)
}

func intField(b []byte, name string, v int) []byte {
	if v == 0 {
		return b
	}
	b = append(b, `,"`...)
	b = append(b, name...)
	b = append(b, `":`...)
	return strconv.AppendInt(b, int64(v), 10)
}

// safe marks the ASCII bytes a JSON string holds as they are.
var safe = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return
}()

const hexDigits = "0123456789abcdef"

// AppendJSONString appends s as a JSON string exactly as encoding/json
// does without HTML escaping (see appendString), for other packages'
// encoders of results that carry big texts.
func AppendJSONString(b []byte, s string) []byte { return appendString(b, s) }

// appendString appends s as a JSON string exactly as encoding/json does
// without HTML escaping: invalid UTF-8 becomes U+FFFD, U+2028 and U+2029
// are escaped. Plain ASCII moves eight bytes at a time: each word is
// stored whole and the output advances past its plain bytes only.
func appendString(b []byte, s string) []byte {
	// room keeps space for one word and the longest escape after j.
	const room = 8 + 6
	b = append(b, '"')
	j := len(b)
	b = b[:cap(b)]
	grow := func(n int) {
		if len(b)-j < n {
			b = append(b[:j], make([]byte, n+len(s)/4)...)
			b = b[:cap(b)]
		}
	}
	grow(len(s) + room)
	for i := 0; i < len(s); {
		if len(b)-j < room {
			grow(room)
		}
		if i+8 <= len(s) {
			w := binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8))
			binary.LittleEndian.PutUint64(b[j:], w)
			m := special8(w)
			if m == 0 {
				i += 8
				j += 8
				continue
			}
			k := bits.TrailingZeros64(m) / 8
			i += k
			j += k
		}
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			if safe[c] {
				b[j] = c
				j++
				continue
			}
			b[j] = '\\'
			switch c {
			case '\\', '"':
				b[j+1] = c
			case '\b':
				b[j+1] = 'b'
			case '\f':
				b[j+1] = 'f'
			case '\n':
				b[j+1] = 'n'
			case '\r':
				b[j+1] = 'r'
			case '\t':
				b[j+1] = 't'
			default:
				j += copy(b[j:], `\u00`)
				b[j] = hexDigits[c>>4]
				b[j+1] = hexDigits[c&0xF]
			}
			j += 2
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			j += copy(b[j:], `\ufffd`)
		case r == '\u2028' || r == '\u2029':
			j += copy(b[j:], `\u202`)
			b[j] = hexDigits[r&0xF]
			j++
		default:
			j += copy(b[j:], s[i:i+size])
		}
		i += size
	}
	b = b[:j]
	return append(b, '"')
}

// special8 returns a mask with the high bit set in the byte of w that
// is not plain ASCII for JSON (a control byte, '"', '\\' or a byte of a
// multi-byte rune), and possibly in bytes after it; the lowest set bit is
// always at the first such byte (w is little-endian: its first byte is
// the lowest).
func special8(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	ctl := (w - 0x20*ones) &^ w                          // bytes < 0x20
	quote := ((w ^ '"'*ones) - ones) &^ (w ^ '"'*ones)   // bytes == '"'
	slash := ((w ^ '\\'*ones) - ones) &^ (w ^ '\\'*ones) // bytes == '\\'
	return (ctl | quote | slash | w) & highs             // w: bytes >= 0x80
}

// AppendJSON appends r as encoding/json would marshal it (HTML escaping
// off). A grep in content mode returns every matching line with its
// context: most of its time out of the engine is encoding.
func (r *GrepResult) AppendJSON(b []byte) []byte {
	b = append(b, `{"success":`...)
	b = strconv.AppendBool(b, r.Success)
	b = append(b, `,"mode":`...)
	b = appendString(b, string(r.Mode))
	b = append(b, `,"files":`...)
	b = appendStrings(b, r.Files)
	b = append(b, `,"counts":`...)
	if r.Counts == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, c := range r.Counts {
			if i > 0 {
				b = append(b, ',')
			}
			if c == nil {
				b = append(b, "null"...)
				continue
			}
			b = append(b, `{"path":`...)
			b = appendString(b, c.Path)
			b = append(b, `,"count":`...)
			b = strconv.AppendInt(b, int64(c.Count), 10)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, `,"matches":`...)
	if r.Matches == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, m := range r.Matches {
			if i > 0 {
				b = append(b, ',')
			}
			if m == nil {
				b = append(b, "null"...)
				continue
			}
			b = m.appendJSON(b)
		}
		b = append(b, ']')
	}
	b = append(b, `,"truncated":`...)
	b = strconv.AppendBool(b, r.Truncated)
	b = field(b, "code", string(r.Code))
	b = field(b, "error", r.Error)
	return append(b, '}')
}

// AppendJSON appends r as encoding/json would marshal it (HTML escaping
// off).
func (r *GlobResult) AppendJSON(b []byte) []byte {
	b = append(b, `{"success":`...)
	b = strconv.AppendBool(b, r.Success)
	b = append(b, `,"files":`...)
	b = appendStrings(b, r.Files)
	if r.Truncated {
		b = append(b, `,"truncated":true`...)
	}
	b = field(b, "code", string(r.Code))
	b = field(b, "error", r.Error)
	return append(b, '}')
}

func appendStrings(b []byte, ss []string) []byte {
	if ss == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, s)
	}
	return append(b, ']')
}

// AppendIndentJSON appends the compact JSON src indented as
// json.Indent(dst, src, "", indent) would, much faster: strings are
// skipped whole. src must be valid compact JSON, as the AppendJSON
// methods make it.
func AppendIndentJSON(dst, src []byte, indent string) []byte {
	return indentJSON(dst, src, indent, nil)
}

// WriteIndentJSON writes the compact JSON src to w indented as
// [AppendIndentJSON] would, without building the whole indented copy:
// strings of a few KiB or more (a tool's text) are written from src as
// they are, the rest through a small buffer.
func WriteIndentJSON(w io.Writer, src []byte, indent string) error {
	var err error
	write := func(b []byte) {
		if err == nil && len(b) > 0 {
			_, err = w.Write(b)
		}
	}
	buf := indentJSON(make([]byte, 0, 32<<10), src, indent, func(dst, s []byte) []byte {
		write(dst)
		write(s)
		return dst[:0]
	})
	write(buf)
	return err
}

// indentJSON is AppendIndentJSON; with out set, a string of 4 KiB or
// more, and what is buffered once dst passes 32 KiB, go to out (which
// returns the buffer to go on with) instead of into dst.
func indentJSON(dst, src []byte, indent string, out func(dst, s []byte) []byte) []byte {
	const direct, flushAt = 4 << 10, 32 << 10
	depth := 0
	newline := func() {
		dst = append(dst, '\n')
		for i := 0; i < depth; i++ {
			dst = append(dst, indent...)
		}
		if out != nil && len(dst) >= flushAt {
			dst = out(dst, nil)
		}
	}
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case '"':
			// To the closing quote: one not escaped by an odd number of
			// backslashes.
			j := i + 1
			for {
				k := bytes.IndexByte(src[j:], '"')
				if k < 0 {
					j = len(src) - 1
					break
				}
				j += k
				n := 0
				for n < j-i-1 && src[j-1-n] == '\\' {
					n++
				}
				if n%2 == 0 {
					break
				}
				j++
			}
			if out != nil && j+1-i >= direct {
				dst = out(dst, src[i:j+1])
			} else {
				dst = append(dst, src[i:j+1]...)
			}
			i = j
		case '{', '[':
			dst = append(dst, c)
			if i+1 < len(src) && (src[i+1] == '}' || src[i+1] == ']') {
				dst = append(dst, src[i+1])
				i++
				continue
			}
			depth++
			newline()
		case '}', ']':
			depth--
			newline()
			dst = append(dst, c)
		case ',':
			dst = append(dst, c)
			newline()
		case ':':
			dst = append(dst, ':', ' ')
		default:
			dst = append(dst, c)
		}
	}
	return dst
}
