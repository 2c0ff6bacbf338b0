package plan

import (
	"strconv"

	"github.com/txedit/txedit/internal/jsonenc"
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

// appendString appends s as a JSON string as encoding/json does without
// HTML escaping (internal/jsonenc).
func appendString(b []byte, s string) []byte { return jsonenc.AppendString(b, s) }

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
