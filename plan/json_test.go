package plan

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"strings"
	"testing"
)

func stdJSON(t *testing.T, v any) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

// TestAppendJSONMatchesEncodingJSON keeps the fast encoder byte-identical
// to encoding/json on every field and every kind of string.
func TestAppendJSONMatchesEncodingJSON(t *testing.T) {
	weird := "tab\t nl\n cr\r \"q\" \\ <html>&amp; \x00\x01\x1f é 日本 \u2028\u2029 bad:\xff\xfe end\xc3"
	results := []*ReadResult{
		{Path: "a.go", Success: true, Content: "package a\n", ContentHash: "0123456789abcdef", FileHash: "0123456789abcdef", LastModified: "2026-11-21T00:00:00Z", StartLine: 1, EndLine: 1, TotalLines: 1},
		{Path: weird, Success: true, Content: weird, Warning: "w"},
		{Path: "d", Success: true, Entries: []*DirEntry{{Path: "d/x", Name: "x", Kind: "file", Size: 3, Mode: "-rw-r--r--", Modified: "t"}, {Path: "d/l", Name: "l", Kind: "symlink", Target: "x"}}},
		{Path: "s", Success: true, Matches: []*Match{{Path: "s", Line: 2, Text: weird, Before: []string{"a", ""}, After: []string{weird}}, {Path: "s", Line: 9, Text: "t"}}},
		{Path: "i", Success: true, Images: []*Image{{Path: "i", Data: "iVBOR", MediaType: "image/png"}}},
		{Path: "e", Code: CodeFileNotFound, Error: "file_not_found: e: no such file"},
		{},
	}
	for i, r := range results {
		if got, want := string(r.AppendJSON(nil)), stdJSON(t, r); got != want {
			t.Errorf("result %d:\n got %s\nwant %s", i, got, want)
		}
	}
}

func BenchmarkAppendJSON(b *testing.B) {
	content := bytes.Repeat([]byte("func main() {\n\tfmt.Println(\"hello, world\")\n}\n"), 1000)
	r := &ReadResult{Path: "main.go", Success: true, Content: string(content)}
	b.SetBytes(int64(len(content)))
	buf := make([]byte, 0, 2*len(content))
	for i := 0; i < b.N; i++ {
		buf = r.AppendJSON(buf[:0])
	}
}

// TestAppendStringRandom: every byte, at every offset of the eight-byte
// scan, escapes as encoding/json escapes it.
func TestAppendStringRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	pieces := []string{"a", "Z", " ", "\t", "\n", "\"", "\\", "\x00", "\x1f", "\x7f", "é", "日本", "\u2028", "\u2029", "\xff", "\xc3", "<>&", "plain text "}
	for iter := 0; iter < 5000; iter++ {
		var b strings.Builder
		for k := rng.Intn(40); k > 0; k-- {
			if rng.Intn(3) == 0 {
				b.WriteByte(byte(rng.Intn(256)))
			} else {
				b.WriteString(pieces[rng.Intn(len(pieces))])
			}
		}
		s := b.String()
		if got, want := string(appendString(nil, s)), stdJSON(t, s); got != want {
			t.Fatalf("%q:\n got %s\nwant %s", s, got, want)
		}
	}
}

func stdIndent(t *testing.T, v any) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// TestGrepGlobJSONMatchEncodingJSON keeps the grep and glob encoders and
// the indenter byte-identical to encoding/json, compact and indented.
func TestGrepGlobJSONMatchEncodingJSON(t *testing.T) {
	weird := "tab\t nl\n \"q\" \\ \\\" \\\\\" <html>&amp; \x00\x1f é 日本 \u2028 bad:\xff {[,:]} end\xc3"
	greps := []*GrepResult{
		{Success: true, Mode: "files_with_matches", Files: []string{"a.go", weird}, Counts: []*Count{}, Matches: []*Match{}},
		{Success: true, Mode: "count", Files: []string{}, Counts: []*Count{{Path: "a", Count: 3}, {Path: weird, Count: 0}}, Matches: []*Match{}, Truncated: true},
		{Success: true, Mode: "content", Files: []string{}, Counts: []*Count{}, Matches: []*Match{
			{Path: "a", Line: 1, Text: weird, Before: []string{"", weird}, After: []string{"x"}}, {Path: "b", Line: 2, Text: ""}}},
		{Mode: "content", Code: CodeInvalidRequest, Error: "bad: " + weird},
		{},
	}
	for i, r := range greps {
		if got, want := string(r.AppendJSON(nil)), stdJSON(t, r); got != want {
			t.Errorf("grep %d:\n got %s\nwant %s", i, got, want)
		}
		if got, want := string(AppendIndentJSON(nil, r.AppendJSON(nil), "  "))+"\n", stdIndent(t, r); got != want {
			t.Errorf("grep %d indented:\n got %s\nwant %s", i, got, want)
		}
	}
	globs := []*GlobResult{{Success: true, Files: []string{"a", weird}}, {Files: []string{}, Truncated: true}, {Code: CodeDenied, Error: weird}, {}}
	for i, r := range globs {
		if got, want := string(r.AppendJSON(nil)), stdJSON(t, r); got != want {
			t.Errorf("glob %d:\n got %s\nwant %s", i, got, want)
		}
		if got, want := string(AppendIndentJSON(nil, r.AppendJSON(nil), "  "))+"\n", stdIndent(t, r); got != want {
			t.Errorf("glob %d indented:\n got %s\nwant %s", i, got, want)
		}
	}
	// Read results, indented, too.
	rr := &ReadResult{Path: weird, Success: true, Content: weird, Matches: []*Match{{Path: "s", Line: 2, Text: weird}},
		Entries: []*DirEntry{{Path: "d/x", Name: "x", Kind: "file"}}}
	if got, want := string(AppendIndentJSON(nil, rr.AppendJSON(nil), "  "))+"\n", stdIndent(t, rr); got != want {
		t.Errorf("read indented:\n got %s\nwant %s", got, want)
	}
}

// TestIndentRandom: the indenter agrees with encoding/json on grep
// results made of random strings.
func TestIndentRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	pieces := []string{"a", "\"", "\\", "\\\"", "{", "}", "[", "]", ",", ":", "\n", "é", "\xff", " "}
	str := func() string {
		var b strings.Builder
		for k := rng.Intn(8); k > 0; k-- {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		return b.String()
	}
	for iter := 0; iter < 500; iter++ {
		r := &GrepResult{Success: true, Mode: OutputMode(str()), Files: []string{}, Counts: []*Count{}, Matches: []*Match{}}
		for k := rng.Intn(4); k > 0; k-- {
			r.Files = append(r.Files, str())
			r.Counts = append(r.Counts, &Count{Path: str(), Count: rng.Intn(9)})
			m := &Match{Path: str(), Line: rng.Intn(99), Text: str()}
			for j := rng.Intn(3); j > 0; j-- {
				m.Before = append(m.Before, str())
			}
			r.Matches = append(r.Matches, m)
		}
		if got, want := string(AppendIndentJSON(nil, r.AppendJSON(nil), "  "))+"\n", stdIndent(t, r); got != want {
			t.Fatalf("indented:\n got %s\nwant %s", got, want)
		}
	}
}

// TestAppendIndentJSONAnyValue: the indenter gives encoding/json's output
// for any value the CLI prints (printJSON), not only the results that
// have their own encoders: empty and nested objects and arrays, strings
// with quotes, backslashes, brackets and escapes, numbers, null.
func TestAppendIndentJSONAnyValue(t *testing.T) {
	vals := []any{
		map[string]any{},
		[]any{},
		map[string]any{"a": []any{}, "b": map[string]any{}, "c": nil, "d": 1.5, "e": true},
		map[string]any{"text": "x\\\"y\\\\\"z{[,:]}\n\t\u00e9\u2028<&>", "n": []any{1, []any{2, map[string]any{"k": "v"}}, "}"}},
		[]string{`\`, `\\`, `"`, `\"`, "a\\\\\"b"},
		struct {
			OK   bool              `json:"ok"`
			Raw  json.RawMessage   `json:"raw"`
			More []json.RawMessage `json:"more"`
		}{true, json.RawMessage(`{ "x" : [1, 2] }`), []json.RawMessage{json.RawMessage(`[]`)}},
		// Big strings and more small values than WriteIndentJSON buffers.
		map[string]any{"content": strings.Repeat("line \"of\" text\\\n", 20000), "small": strings.Split(strings.Repeat("ab,", 30000), ","),
			"edge": strings.Repeat("x", 4<<10-2), "edge2": strings.Repeat("y", 4<<10-1)},
	}
	for i, v := range vals {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		compact := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		want := stdIndent(t, v)
		if got := string(AppendIndentJSON(nil, compact, "  ")) + "\n"; got != want {
			t.Errorf("value %d:\n got %.300s\nwant %.300s", i, got, want)
		}
		var w bytes.Buffer
		if err := WriteIndentJSON(&w, compact, "  "); err != nil || w.String()+"\n" != want {
			t.Errorf("value %d: WriteIndentJSON: %v\n got %.300s\nwant %.300s", i, err, w.String(), want)
		}
	}
}
