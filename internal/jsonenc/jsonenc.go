// Package jsonenc is txedit's one hand-written JSON encoder: a string
// encoder and an indenter that give exactly what encoding/json gives, much
// faster. Results that carry whole files (a read, a grep in content mode,
// a tool's text) spend most of their time out of the engine escaping
// strings; plan's results and the tools' results encode themselves with
// it, and the command line indents with it.
//
// HTML escaping is off, as encoding/json's Encoder.SetEscapeHTML(false)
// has it, not on, as json.Marshal's default has it: every JSON txedit
// prints goes to a program or a terminal, never into an HTML page, and
// '<', '>' and '&' are common in source code, where \u003c would make
// the text longer and harder for the agent and the reader to read. Every
// other byte is escaped as encoding/json escapes it, U+2028 and U+2029
// included (encoding/json escapes those whatever the HTML setting, so a
// result stays valid JavaScript). The tests compare both functions with
// encoding/json byte for byte.
//
// A dialect that must match a peer tool's own escaping (JavaScript's
// JSON.stringify, say, which keeps U+2028 as it is) would be a separate
// function with its reason, not a flag of these.
package jsonenc

import (
	"bytes"
	"encoding/binary"
	"io"
	"math/bits"
	"unicode/utf8"
	"unsafe"
)

// safe marks the ASCII bytes a JSON string holds as they are.
var safe = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return
}()

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string exactly as encoding/json
// encodes it with HTML escaping off (Encoder.SetEscapeHTML(false)):
// '"', '\\' and control bytes are escaped (\n, \r, \t, \b, \f, else
// \u00XX), invalid UTF-8 becomes \ufffd, U+2028 and U+2029 are escaped
// (\u2028, \u2029) as encoding/json always does, and '<', '>' and '&'
// are kept as they are (see the package doc). Plain ASCII moves eight
// bytes at a time: each word is stored whole and the output advances past
// its plain bytes only.
func AppendString(b []byte, s string) []byte {
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

// AppendIndent appends the compact JSON src indented as
// json.Indent(dst, src, "", indent) would, much faster: strings are
// skipped whole. src must be valid compact JSON, as encoding/json and
// the AppendJSON methods of txedit's results make it.
func AppendIndent(dst, src []byte, indent string) []byte {
	return indentJSON(dst, src, indent, nil)
}

// WriteIndent writes the compact JSON src to w indented as
// [AppendIndent] would, without building the whole indented copy:
// strings of a few KiB or more (a tool's text) are written from src as
// they are, the rest through a small buffer.
func WriteIndent(w io.Writer, src []byte, indent string) error {
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

// indentJSON is AppendIndent; with out set, a string of 4 KiB or
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
