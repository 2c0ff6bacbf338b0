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
