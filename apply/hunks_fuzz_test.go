package apply

import (
	"bytes"
	"strings"
	"testing"

	"github.com/txedit/txedit/plan"
)

// $ go test -fuzz=FuzzApplyHunks ./apply
// ApplyHunks never panics, is deterministic, leaves the content alone on
// failure, and a hunk cut from a real change (context around a replaced
// range, stated at its line) applies back to exactly the changed text.
func FuzzApplyHunks(f *testing.F) {
	f.Add("a\nb\nc\nd\n", uint8(1), uint8(1), "X\nY", uint8(1), "")
	f.Add("x\ny\nx\ny", uint8(0), uint8(2), "", uint8(3), "x")
	f.Add("\ufefff\r\ng\r\n", uint8(1), uint8(0), "h", uint8(0), "@@")
	f.Add("", uint8(0), uint8(0), "only", uint8(2), "")
	f.Fuzz(func(t *testing.T, a string, at, del uint8, repl string, ctx uint8, anchor string) {
		if strings.ContainsAny(a, "\r") || strings.HasPrefix(a, "\ufeff") || IsBinary([]byte(a)) || strings.ContainsAny(repl, "\r") {
			return
		}
		lines := L(strings.TrimSuffix(a, "\n"))
		if a == "" {
			lines = nil
		}
		i := min(int(at), len(lines))
		j := min(i+int(del), len(lines))
		c := int(ctx % 4)
		c0, c1 := max(0, i-c), min(len(lines), j+c)
		newLines := L(repl)
		h := plan.Hunk{
			Old:  append([]string(nil), lines[c0:c1]...),
			New:  append(append(append([]string(nil), lines[c0:i]...), newLines...), lines[j:c1]...),
			Line: c0 + 1,
		}
		var b []string
		b = append(append(append(b, lines[:i]...), newLines...), lines[j:]...)
		want := strings.Join(b, "\n")
		if len(b) > 0 && (a == "" || strings.HasSuffix(a, "\n")) {
			want += "\n"
		}
		o := ApplyHunks("f", []byte(a), []plan.Hunk{h})
		again := ApplyHunks("f", []byte(a), []plan.Hunk{h})
		if !bytes.Equal(o.Content, again.Content) || len(o.Failed) != len(again.Failed) {
			t.Fatal("not deterministic")
		}
		if !o.OK() && !bytes.Equal(o.Content, []byte(a)) {
			t.Fatalf("content changed on failure: %q", o.Content)
		}
		if len(h.Old) > 0 && !o.AlreadyApplied && h.Changes() {
			if !o.OK() {
				t.Fatalf("hunk %+v on %q failed: %v", h, a, o.Failed)
			}
			if string(o.Content) != want {
				t.Fatalf("hunk %+v on %q = %q, want %q", h, a, o.Content, want)
			}
		}
		// Arbitrary hunks, anchors and blocks: no panics, no change on failure.
		for _, hs := range [][]plan.Hunk{
			{{Anchors: L(anchor), Old: L(repl), New: h.Old}, h},
			{{Old: L(repl), New: L(anchor), AtEOF: del%2 == 0, OldNoEOL: at%3 == 0}},
		} {
			if o := ApplyHunks("f", []byte(a), hs); !o.OK() && !bytes.Equal(o.Content, []byte(a)) {
				t.Fatalf("content changed on failure: %q", o.Content)
			}
			if o := ApplyBlocks("f", []byte(a), hs); !o.OK() && !bytes.Equal(o.Content, []byte(a)) {
				t.Fatalf("blocks: content changed on failure: %q", o.Content)
			}
		}
	})
}
