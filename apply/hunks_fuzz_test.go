package apply

import (
	"bytes"
	"slices"
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
		// One block is one hunk located by content alone.
		if len(h.Old) > 0 {
			byContent := h
			byContent.Line = 0
			oh := ApplyHunks("f", []byte(a), []plan.Hunk{byContent})
			ob := ApplyBlocks("f", []byte(a), []plan.Hunk{byContent})
			if oh.OK() != ob.OK() || !bytes.Equal(oh.Content, ob.Content) || oh.AlreadyApplied != ob.AlreadyApplied {
				t.Fatalf("hunk and block differ on %q: %q %v / %q %v", a, oh.Content, oh.Failed, ob.Content, ob.Failed)
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

// $ go test -fuzz=FuzzApplyBlocks ./apply
// Blocks whose old lines occur exactly once, each in the result of the
// ones before, give what replacing them one after another gives — unless
// a block's new lines (not all blank) also stand elsewhere, which a block
// shares with a hunk located by content (FuzzApplyHunks checks that the
// two agree): then which is meant is not guessed (docs/patch-formats.md).
// Such inputs are left out here, a little more widely than the rule
// (new lines an earlier block wrote do not count for it: TestApplyBlocks).
func FuzzApplyBlocks(f *testing.F) {
	f.Add("a\nb\nc\n", "b", "x\ny", "y\nc", "z")
	f.Add("a\nb", "b", "", "a", "q\nr")
	f.Add("x\nx\ny\n", "y", "x", "x\nx\nx", "w")
	f.Fuzz(func(t *testing.T, a, old1, new1, old2, new2 string) {
		if strings.ContainsAny(a+old1+new1+old2+new2, "\r") || strings.HasPrefix(a, "\ufeff") || strings.HasPrefix(old1+old2, "\ufeff") || IsBinary([]byte(a)) || old1 == "" || old2 == "" {
			return
		}
		lines := L(strings.TrimSuffix(a, "\n"))
		if a == "" {
			lines = nil
		}
		finalNL := a == "" || strings.HasSuffix(a, "\n")
		blocks := []plan.Hunk{{Old: L(old1), New: L(new1)}, {Old: L(old2), New: L(new2)}}
		for _, b := range blocks {
			var at []int
			for i := 0; i+len(b.Old) <= len(lines); i++ {
				if slices.Equal(lines[i:i+len(b.Old)], b.Old) {
					at = append(at, i)
				}
			}
			if len(at) != 1 || slices.Equal(b.Old, b.New) || containsRun(b.New, b.Old) {
				return // not a plain unique replacement
			}
			if !blank(b.New) {
				for q := 0; q+len(b.New) <= len(lines); q++ {
					if slices.Equal(lines[q:q+len(b.New)], b.New) && !(q < at[0]+len(b.Old) && at[0] < q+len(b.New)) {
						return // the new lines stand elsewhere too: not guessed
					}
				}
			}
			lines = slices.Replace(lines, at[0], at[0]+len(b.Old), b.New...)
		}
		want := strings.Join(lines, "\n")
		if len(lines) > 0 && finalNL {
			want += "\n"
		}
		o := ApplyBlocks("f", []byte(a), blocks)
		if !o.OK() || string(o.Content) != want {
			t.Fatalf("blocks on %q = %q %v, want %q", a, o.Content, o.Failed, want)
		}
	})
}

// containsRun reports whether sub occurs in lines as a run.
func containsRun(lines, sub []string) bool {
	for i := 0; i+len(sub) <= len(lines); i++ {
		if slices.Equal(lines[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}
