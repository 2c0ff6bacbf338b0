package plan

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"strings"
	"testing"

	"github.com/txedit/txedit/internal/jsonenc"
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
		if got, want := string(jsonenc.AppendIndent(nil, r.AppendJSON(nil), "  "))+"\n", stdIndent(t, r); got != want {
			t.Errorf("grep %d indented:\n got %s\nwant %s", i, got, want)
		}
	}
	globs := []*GlobResult{{Success: true, Files: []string{"a", weird}}, {Files: []string{}, Truncated: true}, {Code: CodeDenied, Error: weird}, {}}
	for i, r := range globs {
		if got, want := string(r.AppendJSON(nil)), stdJSON(t, r); got != want {
			t.Errorf("glob %d:\n got %s\nwant %s", i, got, want)
		}
		if got, want := string(jsonenc.AppendIndent(nil, r.AppendJSON(nil), "  "))+"\n", stdIndent(t, r); got != want {
			t.Errorf("glob %d indented:\n got %s\nwant %s", i, got, want)
		}
	}
	// Read results, indented, too.
	rr := &ReadResult{Path: weird, Success: true, Content: weird, Matches: []*Match{{Path: "s", Line: 2, Text: weird}},
		Entries: []*DirEntry{{Path: "d/x", Name: "x", Kind: "file"}}}
	if got, want := string(jsonenc.AppendIndent(nil, rr.AppendJSON(nil), "  "))+"\n", stdIndent(t, rr); got != want {
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
		if got, want := string(jsonenc.AppendIndent(nil, r.AppendJSON(nil), "  "))+"\n", stdIndent(t, r); got != want {
			t.Fatalf("indented:\n got %s\nwant %s", got, want)
		}
	}
}
