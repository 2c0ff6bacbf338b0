package apply

import (
	"math/rand"
	"strings"
	"testing"
)

// TestRenderWholeText checks writeWhole's diffs of created, deleted and
// emptied texts against the diffs cutting the texts into lines gives:
// the same bytes and the same counts.
func TestRenderWholeText(t *testing.T) {
	texts := []string{
		"a\n", "a", "a\nb", "a\nb\n", "\n", "\n\n\n", "x\r\ny\r\n", "no newline at all",
		"one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n",
	}
	r := rand.New(rand.NewSource(1))
	for range 50 {
		var b strings.Builder
		for range r.Intn(200) {
			for range r.Intn(40) {
				b.WriteByte("ab \t{}x"[r.Intn(7)])
			}
			if r.Intn(20) > 0 {
				b.WriteByte('\n')
			}
		}
		texts = append(texts, b.String())
	}
	changes := func(text string) []Change {
		n := lineCount([]byte(text))
		return []Change{
			{NewPath: "f.txt", New: []byte(text), NewMode: 0o644},                                                                // created
			{NewPath: "f.txt", New: []byte(text), NewMode: 0o755, Spans: []Span{{0, 0, 0, n}}},                                   // created by a patch's hunk
			{OldPath: "f.txt", Old: []byte(text), OldMode: 0o644},                                                                // deleted
			{OldPath: "f.txt", NewPath: "f.txt", Old: []byte(text), OldMode: 0o644, NewMode: 0o644},                              // emptied
			{OldPath: "f.txt", NewPath: "f.txt", New: []byte(text), OldMode: 0o644, NewMode: 0o644},                              // filled
			{OldPath: "a.txt", NewPath: "b dir/b.txt", New: []byte(text), OldMode: 0o644, NewMode: 0o644},                        // moved and filled
			{OldPath: "a.txt", NewPath: "b.txt", Old: []byte(text), OldMode: 0o644, NewMode: 0o644, Spans: []Span{{0, n, 0, 0}}}, // moved and emptied
		}
	}
	for _, text := range texts {
		for k, c := range changes(text) {
			got, gst := Render(c)
			noWholeText = true
			want, wst := Render(c)
			noWholeText = false
			if got != want || gst != wst {
				t.Fatalf("change %d of %q:\ngot  %q %+v\nwant %q %+v", k, text, got, gst, want, wst)
			}
		}
	}
}
