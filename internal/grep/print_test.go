package grep

import (
	"strings"
	"testing"

	"github.com/txedit/txedit/plan"
)

// TestPrintMergesContexts: overlapping contexts print each line once, a
// matching line is never context, groups that do not touch are separated
// by "--", and every line of a multiline match has its prefix.
func TestPrintMergesContexts(t *testing.T) {
	res := &plan.GrepResult{Matches: []*plan.Match{
		{Path: "a", Line: 2, Text: "m2", Before: []string{"l1"}, After: []string{"m3"}},
		{Path: "a", Line: 3, Text: "m3", Before: []string{"m2"}, After: []string{"l4"}},
		{Path: "a", Line: 9, Text: "m9\nm10", Before: []string{"l8"}},
		{Path: "b", Line: 1, Text: "x", After: []string{"y"}},
	}}
	var b strings.Builder
	n, cut := Print(&b, res, PrintOptions{LineNumbers: true, Context: true})
	want := "a-1-l1\na:2:m2\na:3:m3\na-4-l4\n--\na-8-l8\na:9:m9\na:10:m10\n--\nb:1:x\nb-2-y\n"
	if b.String() != want || n != 11 || cut {
		t.Errorf("got %d lines (cut %v):\n%s\nwant:\n%s", n, cut, b.String(), want)
	}
	// Offset and HeadLimit count output lines, separators included.
	b.Reset()
	n, cut = Print(&b, res, PrintOptions{LineNumbers: true, Context: true, Offset: 3, HeadLimit: 3})
	if b.String() != "a-4-l4\n--\na-8-l8\n" || n != 3 || !cut {
		t.Errorf("offset 3, head 3: %d lines (cut %v):\n%s", n, cut, b.String())
	}
	b.Reset()
	if n, cut = Print(&b, res, PrintOptions{LineNumbers: true, Context: true, Offset: 9, HeadLimit: 2}); n != 2 || cut {
		t.Errorf("the last two lines are not a cut: %d lines (cut %v):\n%s", n, cut, b.String())
	}
}
