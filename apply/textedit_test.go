package apply

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/txedit/txedit/plan"
)

func te(l1, c1, l2, c2 int, text string) plan.TextEdit {
	return plan.TextEdit{Range: plan.Range{Start: plan.Position{Line: l1, Character: c1}, End: plan.Position{Line: l2, Character: c2}}, NewText: text}
}

// editText applies groups of text edits (one text_edits edit each, in
// order) to content in encoding enc.
func editText(t *testing.T, content string, enc plan.PositionEncoding, groups ...[]plan.TextEdit) *Outcome {
	t.Helper()
	fe := plan.FileEdit{Path: "f.txt"}
	for _, g := range groups {
		fe.Edits = append(fe.Edits, plan.Edit{Command: "text_edits", TextEdits: g, PositionEncoding: string(enc)})
	}
	p, err := plan.Compile(&plan.Request{FileEdits: []plan.FileEdit{fe}})
	if err != nil {
		t.Fatal(err)
	}
	return Edit(p.Files[0], []byte(content), true)
}

func TestTextEditsHandChecked(t *testing.T) {
	// The emoji is one code point, two UTF-16 code units, four bytes.
	const emoji = "s := \"😀\" + foo()\n"
	tests := []struct {
		name    string
		content string
		enc     plan.PositionEncoding
		groups  [][]plan.TextEdit
		want    string
	}{
		{"emoji utf-16", emoji, plan.EncodingUTF16, [][]plan.TextEdit{{te(0, 12, 0, 15, "bar")}}, "s := \"😀\" + bar()\n"},
		{"emoji utf-32", emoji, plan.EncodingUTF32, [][]plan.TextEdit{{te(0, 11, 0, 14, "bar")}}, "s := \"😀\" + bar()\n"},
		{"emoji utf-8", emoji, plan.EncodingUTF8, [][]plan.TextEdit{{te(0, 14, 0, 17, "bar")}}, "s := \"😀\" + bar()\n"},
		{"default encoding is utf-16", emoji, "", [][]plan.TextEdit{{te(0, 12, 0, 15, "bar")}}, "s := \"😀\" + bar()\n"},
		{"crlf lines", "a\r\nfoo\r\nb\r\n", "", [][]plan.TextEdit{{te(1, 0, 1, 3, "bar"), te(2, 0, 2, 1, "c")}}, "a\r\nbar\r\nc\r\n"},
		{"lone cr ends a line", "a\rfoo\nb", "", [][]plan.TextEdit{{te(1, 0, 1, 3, "bar"), te(2, 1, 2, 1, "!")}}, "a\rbar\nb!"},
		{"character past the end is the end of the line", "ab\r\ncd\n", "", [][]plan.TextEdit{{te(0, 9, 0, 9, "X"), te(1, 3, 1, 3, "Y")}}, "abX\r\ncdY\n"},
		{"the line after the last, character 0, is the end", "ab\n", "", [][]plan.TextEdit{{te(1, 0, 1, 0, "c\n"), te(2, 0, 2, 0, "d\n")}}, "ab\nc\nd\n"},
		{"inserts at one place keep their order", "x\n", "", [][]plan.TextEdit{{te(0, 1, 0, 1, "1"), te(0, 1, 0, 1, "2"), te(0, 0, 0, 0, "<"), te(0, 1, 0, 1, "3")}}, "<x123\n"},
		{"inserts then one replace at one start", "abc\n", "", [][]plan.TextEdit{{te(0, 1, 0, 1, "["), te(0, 1, 0, 1, "("), te(0, 1, 0, 2, "B")}}, "a[(Bc\n"},
		{"touching ranges", "abcd\n", "", [][]plan.TextEdit{{te(0, 2, 0, 4, "CD"), te(0, 0, 0, 2, "AB")}}, "ABCD\n"},
		{"a range across lines", "one\ntwo\nthree\n", "", [][]plan.TextEdit{{te(0, 1, 2, 2, "-")}}, "o-ree\n"},
		{"a later edit sees what the earlier left", "foo()\n", "", [][]plan.TextEdit{{te(0, 0, 0, 3, "barbaz")}, {te(0, 6, 0, 6, "Fn")}}, "barbazFn()\n"},
		{"not utf-8: a byte counts one", "\xff\xfeab\n", "", [][]plan.TextEdit{{te(0, 2, 0, 3, "A")}}, "\xff\xfeAb\n"},
		{"a bom is a character", "\ufeffab\n", "", [][]plan.TextEdit{{te(0, 1, 0, 2, "A")}}, "\ufeffAb\n"},
		{"an empty list changes nothing", "a\n", "", [][]plan.TextEdit{{}}, "a\n"},
	}
	for _, tc := range tests {
		out := editText(t, tc.content, tc.enc, tc.groups...)
		if !out.OK() {
			t.Errorf("%s: failed: %v", tc.name, out.Failed)
			continue
		}
		if got := string(out.Content); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestTextEditsRefused(t *testing.T) {
	const emoji = "s := \"😀\" + foo()\n"
	tests := []struct {
		name    string
		content string
		enc     plan.PositionEncoding
		edits   []plan.TextEdit
		code    plan.Code
		msg     string
	}{
		{"inside a surrogate pair", emoji, plan.EncodingUTF16, []plan.TextEdit{te(0, 7, 0, 9, "x")}, plan.CodeInvalidRequest, "inside the UTF-16 surrogate pair of U+1F600"},
		{"inside utf-8 bytes", emoji, plan.EncodingUTF8, []plan.TextEdit{te(0, 8, 0, 8, "x")}, plan.CodeInvalidRequest, "inside the UTF-8 bytes of U+1F600"},
		{"between cr and lf", "ab\r\ncd\n", "", []plan.TextEdit{te(0, 3, 0, 3, "x")}, plan.CodeInvalidRequest, "between the \\r and the \\n"},
		{"overlap", "abcdef\n", "", []plan.TextEdit{te(0, 0, 0, 3, "x"), te(0, 2, 0, 4, "y")}, plan.CodeOverlappingEdits, "text_edits[1] (range 0:2-0:4) overlaps text_edits[0] (range 0:0-0:3)"},
		{"the same range twice", "abc\n", "", []plan.TextEdit{te(0, 1, 0, 2, "x"), te(0, 1, 0, 2, "x")}, plan.CodeOverlappingEdits, "overlaps"},
		{"an insert after a replace at its start", "abc\n", "", []plan.TextEdit{te(0, 1, 0, 2, "B"), te(0, 1, 0, 1, "[")}, plan.CodeOverlappingEdits, "inserts at one place go before"},
		{"clamped onto each other", "ab\n", "", []plan.TextEdit{te(0, 1, 0, 5, "x"), te(0, 1, 0, 9, "y")}, plan.CodeOverlappingEdits, "overlaps"},
		{"line past the end", "a\nb\n", "", []plan.TextEdit{te(4, 0, 4, 0, "x")}, plan.CodeLineOutOfRange, "line 4 is past the end: the document has 3 lines"},
		{"the line after the last, past character 0", "a\n", "", []plan.TextEdit{te(2, 1, 2, 1, "x")}, plan.CodeLineOutOfRange, "line 2 is past the end"},
	}
	for _, tc := range tests {
		out := editText(t, tc.content, tc.enc, tc.edits)
		if out.OK() {
			t.Errorf("%s: applied: %q", tc.name, out.Content)
			continue
		}
		f := out.Failed[0]
		if f.Code != tc.code || !strings.Contains(f.Error(), tc.msg) || f.Index != 0 || f.Command != "text_edits" {
			t.Errorf("%s: got %v (%s), want %s containing %q", tc.name, f, f.Code, tc.code, tc.msg)
		}
		if string(out.Content) != tc.content {
			t.Errorf("%s: refused, yet the content changed: %q", tc.name, out.Content)
		}
	}
}

func TestTextEditsCompileChecks(t *testing.T) {
	for _, tc := range []struct {
		edit plan.Edit
		msg  string
	}{
		{plan.Edit{Command: "text_edits"}, "text_edits needs text_edits"},
		{plan.Edit{Command: "text_edits", TextEdits: []plan.TextEdit{te(0, 0, 0, 0, "")}, PositionEncoding: "utf-7"}, `unknown position encoding "utf-7"`},
		{plan.Edit{Command: "text_edits", TextEdits: []plan.TextEdit{te(1, 0, 0, 5, "")}}, "ends before it starts"},
		{plan.Edit{Command: "text_edits", TextEdits: []plan.TextEdit{te(0, -1, 0, 5, "")}}, "negative"},
	} {
		p, err := plan.Compile(&plan.Request{FileEdits: []plan.FileEdit{{Path: "a", Edits: []plan.Edit{tc.edit}}}})
		if err != nil {
			t.Fatal(err)
		}
		if inv := p.Files[0].Invalid; len(inv) != 1 || inv[0].Code != plan.CodeInvalidRequest || !strings.Contains(inv[0].Msg, tc.msg) {
			t.Errorf("%+v: got %v, want invalid_request %q", tc.edit, inv, tc.msg)
		}
	}
}

func TestTextEditsOnBinary(t *testing.T) {
	out := editText(t, "a\x00b\n", "", []plan.TextEdit{te(0, 0, 0, 1, "x")})
	if out.OK() || out.Failed[0].Code != plan.CodeBinaryFile {
		t.Errorf("got %v, want binary_file", out.Failed)
	}
}

func TestPositionOf(t *testing.T) {
	content := []byte("a😀b\r\nc\rd\n")
	for _, tc := range []struct {
		off  int
		enc  plan.PositionEncoding
		want plan.Position
	}{
		{0, plan.EncodingUTF16, plan.Position{}},
		{5, plan.EncodingUTF16, plan.Position{Line: 0, Character: 3}},
		{5, plan.EncodingUTF32, plan.Position{Line: 0, Character: 2}},
		{5, plan.EncodingUTF8, plan.Position{Line: 0, Character: 5}},
		{6, plan.EncodingUTF16, plan.Position{Line: 0, Character: 4}},
		{7, plan.EncodingUTF16, plan.Position{Line: 0, Character: 4}}, // inside the line end
		{8, plan.EncodingUTF16, plan.Position{Line: 1, Character: 0}},
		{10, plan.EncodingUTF16, plan.Position{Line: 2, Character: 0}},
		{len(content), plan.EncodingUTF16, plan.Position{Line: 3, Character: 0}},
	} {
		if got := PositionOf(content, tc.off, tc.enc); got != tc.want {
			t.Errorf("PositionOf(%d, %s) = %v, want %v", tc.off, tc.enc, got, tc.want)
		}
		if tc.off != 7 {
			if back, err := OffsetOf("f", content, tc.want, tc.enc); err != nil || back != tc.off {
				t.Errorf("OffsetOf(%v, %s) = %d, %v; want %d", tc.want, tc.enc, back, err, tc.off)
			}
		}
	}
}

// FuzzTextEdits: any content and edits never panic, and a refusal
// changes nothing; edits made from a real change (byte spans turned into
// positions by PositionOf) apply back to exactly that change, in every
// encoding.
func FuzzTextEdits(f *testing.F) {
	f.Add("s := \"😀\" + foo()\r\nb\rc\n", []byte{3, 2, 5, 0, 1, 4}, "X\n", uint8(1))
	f.Add("\xff\xfe\r\n\r\n", []byte{0, 1, 1, 1}, "", uint8(0))
	f.Add("", []byte{0, 0, 0, 0}, "ab", uint8(2))
	f.Fuzz(func(t *testing.T, content string, cuts []byte, text string, e uint8) {
		enc := []plan.PositionEncoding{plan.EncodingUTF8, plan.EncodingUTF16, plan.EncodingUTF32}[int(e)%3]
		b := []byte(content)
		bounds := boundaries(b)
		// Spans between boundaries, in order, none overlapping.
		var spans []textSpan
		at := 0
		for i := 0; i+1 < len(cuts) && len(spans) < 8; i += 2 {
			lo := nextBound(bounds, at+int(cuts[i]%8))
			hi := nextBound(bounds, lo+int(cuts[i+1]%8))
			if lo < 0 || hi < 0 {
				break
			}
			spans = append(spans, textSpan{lo: lo, hi: hi, text: text})
			at = hi
		}
		edits := []plan.TextEdit{}
		var want []byte
		pos := 0
		for _, s := range spans {
			edits = append(edits, plan.TextEdit{Range: plan.Range{Start: PositionOf(b, s.lo, enc), End: PositionOf(b, s.hi, enc)}, NewText: s.text})
			want = append(append(want, b[pos:s.lo]...), s.text...)
			pos = s.hi
		}
		want = append(want, b[pos:]...)
		out := editText(t, content, enc, edits)
		if !out.OK() {
			if string(out.Content) != content {
				t.Fatalf("refused (%v), yet changed the content", out.Failed)
			}
			if !insertAfterReplace(spans) && !IsBinary(b) {
				t.Fatalf("spans %v of %q (%s): refused: %v", spans, content, enc, out.Failed)
			}
			return
		}
		if string(out.Content) != string(want) {
			t.Fatalf("spans %v of %q (%s): got %q, want %q", spans, content, enc, out.Content, want)
		}
	})
}

// insertAfterReplace reports whether an empty span starts where a
// non-empty span before it in the list starts too (the protocol's one
// refused order).
func insertAfterReplace(spans []textSpan) bool {
	for i := 1; i < len(spans); i++ {
		if spans[i].lo == spans[i].hi && spans[i].lo == spans[i-1].lo && spans[i-1].hi > spans[i-1].lo {
			return true
		}
	}
	return false
}

// boundaries returns the offsets of content a position can name: the
// start of every decoded rune of every line's text, every line's end and
// the document's end (never inside a "\r\n" or a character).
func boundaries(content []byte) []int {
	starts := lspLines(content)
	var out []int
	for i := range starts {
		lo, hi, _ := lineText(content, starts, i)
		for at := lo; at < hi; {
			out = append(out, at)
			_, size := utf8.DecodeRune(content[at:hi])
			at += size
		}
		out = append(out, hi)
	}
	if out[len(out)-1] != len(content) {
		out = append(out, len(content))
	}
	return out
}

// nextBound is the first boundary at or after off, or -1.
func nextBound(bounds []int, off int) int {
	for _, b := range bounds {
		if b >= off {
			return b
		}
	}
	return -1
}
