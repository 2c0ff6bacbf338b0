package plan

import (
	"strconv"
	"unicode/utf8"
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
			b = appendString(b, e.Kind)
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

// appendString appends s as a JSON string exactly as encoding/json does
// without HTML escaping: invalid UTF-8 becomes U+FFFD, U+2028 and U+2029
// are escaped. Runs of plain bytes are copied at once.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if safe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
