package jsonenc

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"
)

// stdJSON is encoding/json's encoding of v with HTML escaping off.
func stdJSON(t testing.TB, v any) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

func stdIndent(t testing.TB, v any) string {
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

// TestAppendStringEdges: every single byte, alone and at each offset of
// the eight-byte scan, and the runes where encodings differ (controls,
// the HTML characters, U+2028 and U+2029, invalid and truncated UTF-8,
// surrogate halves, the largest rune) encode as encoding/json encodes
// them without HTML escaping.
func TestAppendStringEdges(t *testing.T) {
	var cases []string
	for c := 0; c < 256; c++ {
		for pad := 0; pad < 9; pad++ {
			cases = append(cases, strings.Repeat("x", pad)+string([]byte{byte(c)})+"tail")
		}
	}
	cases = append(cases, "", "<script>&amp;</script>", "\u2028\u2029", "a\u2028b\u2029c", "\u2027\u202a",
		"\xed\xa0\x80", "\xf4\x90\x80\x80", "\U0010ffff", "\xe2\x82", "€\xe2\x82", "\xc0\xaf", "\ufffd", "\x7f\x80",
		"\u00e9\u65e5\u672c", strings.Repeat("é", 100)+"\xff")
	for _, s := range cases {
		got, want := string(AppendString(nil, s)), stdJSON(t, s)
		if got != want {
			t.Errorf("%q:\n got %s\nwant %s", s, got, want)
		}
		// Appending keeps what is there.
		if got := string(AppendString([]byte("prefix"), s)); got != "prefix"+want {
			t.Errorf("%q after a prefix: %s", s, got)
		}
	}
}

// TestHTMLIsNotEscaped pins the package's decision: '<', '>' and '&' stay
// as they are (encoding/json's SetEscapeHTML(false)), where json.Marshal's
// default writes \u003c, \u003e and \u0026.
func TestHTMLIsNotEscaped(t *testing.T) {
	s := "a<b && c>d"
	if got := string(AppendString(nil, s)); got != `"a<b && c>d"` {
		t.Errorf("got %s", got)
	}
	if m, _ := json.Marshal(s); string(m) == string(AppendString(nil, s)) {
		t.Errorf("json.Marshal's default now agrees (%s): the package doc's comparison is out of date", m)
	}
}

// TestAppendStringValidUTF8Output: whatever the input, the output is valid
// UTF-8 that decodes back to the input with invalid bytes as U+FFFD.
func TestAppendStringValidUTF8Output(t *testing.T) {
	for _, s := range []string{"\xff\xfe", "ok \xc3 é \u2028", string([]byte{0, 1, 2, 0x7f, 0x80, 0xbf})} {
		b := AppendString(nil, s)
		if !utf8.Valid(b) {
			t.Errorf("%q: output %q is not UTF-8", s, b)
		}
		var back string
		if err := json.Unmarshal(b, &back); err != nil || back != toValid(s) {
			t.Errorf("%q: decodes to %q (%v)", s, back, err)
		}
	}
}

// toValid replaces each invalid byte by U+FFFD, as encoding/json does.
func toValid(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		b.WriteRune(r)
		i += n
	}
	return b.String()
}

// FuzzAppendString compares the encoder with encoding/json on any input.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "tab\t\"q\"\\", "\x00\x1f\x7f", "<&>", "\u2028\u2029", "\xff\xc3", "€\xe2\x82", strings.Repeat("a", 17) + "\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(AppendString(nil, s)), stdJSON(t, s); got != want {
			t.Fatalf("%q:\n got %s\nwant %s", s, got, want)
		}
	})
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
		if got, want := string(AppendString(nil, s)), stdJSON(t, s); got != want {
			t.Fatalf("%q:\n got %s\nwant %s", s, got, want)
		}
	}
}

// TestAppendIndentAnyValue: the indenter gives encoding/json's output
// for any value the CLI prints (printJSON), not only the results that
// have their own encoders: empty and nested objects and arrays, strings
// with quotes, backslashes, brackets and escapes, numbers, null.
func TestAppendIndentAnyValue(t *testing.T) {
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
		// Big strings and more small values than WriteIndent buffers.
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
		if got := string(AppendIndent(nil, compact, "  ")) + "\n"; got != want {
			t.Errorf("value %d:\n got %.300s\nwant %.300s", i, got, want)
		}
		var w bytes.Buffer
		if err := WriteIndent(&w, compact, "  "); err != nil || w.String()+"\n" != want {
			t.Errorf("value %d: WriteIndent: %v\n got %.300s\nwant %.300s", i, err, w.String(), want)
		}
	}
}
