package journal

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// appendWire appends the JSON of w: the bytes json.Marshal writes for it,
// made without reflection. A manifest of a tree-wide replacement has an op
// for each of hundreds of files, and json.Marshal spent ~2 µs on each (a
// MarshalJSON for each name, whose output it then parsed again), serially
// between the walk and the staging: encodeManifest took 1.2 ms for 585
// ops, 0.35-0.4 ms now, the MAC and the sum included
// (bench/README.md, round 5, "The manifest's encoding"). A string that
// needs any escaping is written by json.Marshal itself, so the bytes are
// its bytes (TestAppendWireIsJSONMarshal compares them).
func appendWire(b []byte, w *wireManifest) ([]byte, error) {
	b = append(b, `{"v":`...)
	b = strconv.AppendInt(b, int64(w.Version), 10)
	b = append(b, `,"id":`...)
	b = appendStr(b, w.ID)
	t, err := w.Time.MarshalJSON()
	if err != nil {
		return nil, err
	}
	b = append(append(b, `,"time":`...), t...)
	b = appendStr(append(b, `,"command":`...), w.Command)
	b = appendStr(append(b, `,"summary":`...), w.Summary)
	if w.Agent != "" {
		b = appendStr(append(b, `,"agent":`...), w.Agent)
	}
	if w.Session != "" {
		b = appendStr(append(b, `,"session":`...), w.Session)
	}
	if w.Undoes != "" {
		b = appendStr(append(b, `,"undoes":`...), w.Undoes)
	}
	if w.Forced {
		b = append(b, `,"forced":true`...)
	}
	b = append(b, `,"ops":`...)
	if w.Ops == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, op := range w.Ops {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendOp(b, op)
		}
		b = append(b, ']')
	}
	b = appendNames(b, `,"mkdirs":`, w.Mkdirs)
	b = appendNames(b, `,"rmdirs":`, w.Rmdirs)
	if len(w.Dirs) > 0 {
		b = append(b, `,"dirs":[`...)
		for i, d := range w.Dirs {
			if i > 0 {
				b = append(b, ',')
			}
			if d == nil {
				b = append(b, "null"...)
				continue
			}
			b = appendName(append(b, `{"path":`...), d.Path)
			b = strconv.AppendUint(append(b, `,"mode":`...), uint64(d.Mode), 10)
			b = strconv.AppendInt(append(b, `,"uid":`...), int64(d.Uid), 10)
			b = strconv.AppendInt(append(b, `,"gid":`...), int64(d.Gid), 10)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if w.Late {
		b = append(b, `,"prepared_late":true`...)
	}
	return append(b, '}'), nil
}

func appendOp(b []byte, op *wireOp) []byte {
	if op == nil {
		return append(b, "null"...)
	}
	b = appendName(append(b, `{"path":`...), op.Path)
	b = appendStr(append(b, `,"kind":`...), string(op.Kind))
	if op.Old != nil {
		b = appendState(append(b, `,"old":`...), op.Old)
	}
	if op.New != nil {
		b = appendState(append(b, `,"new":`...), op.New)
	}
	if op.Staged != "" {
		b = appendName(append(b, `,"staged":`...), op.Staged)
	}
	if op.Note != "" {
		b = appendStr(append(b, `,"note":`...), op.Note)
	}
	return append(b, '}')
}

func appendState(b []byte, s *State) []byte {
	b = append(b, `{"hash":"`...)
	b = append(b, s.Hash.String()...) // hex digits: nothing to escape
	b = strconv.AppendInt(append(b, `","size":`...), s.Size, 10)
	b = strconv.AppendUint(append(b, `,"mode":`...), uint64(s.Mode), 10)
	if s.Uid != 0 {
		b = strconv.AppendInt(append(b, `,"uid":`...), int64(s.Uid), 10)
	}
	if s.Gid != 0 {
		b = strconv.AppendInt(append(b, `,"gid":`...), int64(s.Gid), 10)
	}
	return append(b, '}')
}

func appendNames(b []byte, key string, ns []name) []byte {
	if len(ns) == 0 {
		return b
	}
	b = append(append(b, key...), '[')
	for i, n := range ns {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendName(b, n)
	}
	return append(b, ']')
}

// appendName is name.MarshalJSON's bytes.
func appendName(b []byte, n name) []byte {
	if utf8.ValidString(string(n)) {
		return appendStr(b, string(n))
	}
	m, _ := n.MarshalJSON() // cannot fail: a struct of a string
	return append(b, m...)
}

// appendStr appends s as json.Marshal writes a string: bytes that need no
// escaping as they are, anything else by json.Marshal.
func appendStr(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			m, _ := json.Marshal(s) // cannot fail for a string
			return append(b, m...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
