package apply

import (
	"fmt"
	"strings"
	"testing"

	"github.com/txedit/txedit/plan"
)

// numbered is n lines "line I of the file".
func numbered(n int) []byte {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "line %d of the file\n", i)
	}
	return []byte(b.String())
}

func line(i int) string { return fmt.Sprintf("line %d of the file", i) }

// TestHunkBombCostIsLinear: a patch of many hunks that all fail — each
// hunk's lines are in the file, but not together — looks at a bounded
// number of places per hunk, whatever the file's length (a failing
// 3,000-hunk patch took 28.5 s, each hunk scanning the whole file on every
// rung of the ladder; docs/testing.md, the reliability audit). The cost is counted, not
// timed: 4 times the file and the hunks cost about 4 times the work.
func TestHunkBombCostIsLinear(t *testing.T) {
	work := func(n int) int {
		var hs []plan.Hunk
		for h := 0; h < n/10; h++ {
			i := h*10 + 5
			hs = append(hs, plan.Hunk{Old: []string{line(i - 1), line(i + 2), line(i + 1)}, New: []string{line(i - 1), "CHANGED", line(i + 1)}, Line: i})
		}
		o := ApplyHunks("f", numbered(n), hs)
		if len(o.Failed) != n/10 {
			t.Fatalf("%d hunks, %d failed: %v", n/10, len(o.Failed), o.Failed[:1])
		}
		return o.t.work
	}
	small, big := work(4000), work(16000)
	t.Logf("places looked at: %d for 400 hunks on 4,000 lines, %d for 1,600 on 16,000", small, big)
	if big > 6*small || big > 16000*4 {
		t.Errorf("the work grows faster than the patch: %d, then %d", small, big)
	}
}

// TestBlockBombIndexesOnce: SEARCH/REPLACE blocks are applied one after
// another, each to the result of the ones before it; the rung indexes
// (each line's key on each rung of the ladder) are kept current across
// those splices, not rebuilt for every block (which made 10,000 blocks
// take 40.7 s). Blocks whose new lines match nowhere
// make the matcher look on every rung; the result is the sequential one.
func TestBlockBombIndexesOnce(t *testing.T) {
	const n = 2000
	var hs []plan.Hunk
	for i := 0; i < n; i++ {
		hs = append(hs, plan.Hunk{Old: []string{line(i)}, New: []string{strings.ToUpper(line(i))}})
	}
	// A block that finds what an earlier one wrote: sequential, as Aider.
	hs = append(hs, plan.Hunk{Old: []string{strings.ToUpper(line(7))}, New: []string{"seven"}})
	o := ApplyBlocks("f", numbered(n), hs)
	if !o.OK() {
		t.Fatalf("failed: %v", o.Failed[0])
	}
	want := strings.ToUpper(string(numbered(n)))
	want = strings.Replace(want, strings.ToUpper(line(7))+"\n", "seven\n", 1)
	if string(o.Content) != want {
		t.Fatalf("content differs from the blocks applied in turn")
	}
	t.Logf("%d blocks: %d index builds", n+1, o.t.builds)
	if o.t.builds > rungCount {
		t.Errorf("the rung indexes were built %d times for %d blocks: rebuilt after splices", o.t.builds, n+1)
	}
}

// TestHunksAtTheirLinesIndexNothing: a unified diff's hunks found where
// their headers say (shifted by the hunks before them) are compared there
// line by line: no rung index of the file is built, whose cost is a hash
// and a map entry per line of the file for every file a patch touches.
// A hunk that moved is still found by the index, and reported with its
// offset.
func TestHunksAtTheirLinesIndexNothing(t *testing.T) {
	const n = 4000
	var hs []plan.Hunk
	for h := 1; h < 40; h++ {
		i := h * 100 // 1-based line of the hunk's first old line
		hs = append(hs, plan.Hunk{Old: []string{line(i - 1), line(i), line(i + 1)}, New: []string{line(i - 1), "CHANGED", "ADDED", line(i + 1)}, Line: i, Marks: " -++ "})
	}
	o := ApplyHunks("f", numbered(n), hs)
	if !o.OK() {
		t.Fatalf("failed: %v", o.Failed[0])
	}
	if o.t.builds != 0 {
		t.Errorf("%d rung indexes built for hunks that all stand at their stated lines", o.t.builds)
	}
	for _, r := range o.Reports {
		if r.Offset != 0 {
			t.Errorf("hunk %d: offset %d, want 0", r.Hunk, r.Offset)
		}
	}
	// The same file with 5 lines inserted at the top: every hunk is 5
	// lines further down, found by the index, and the offset said.
	moved := append([]byte("a\nb\nc\nd\ne\n"), numbered(n)...)
	o = ApplyHunks("f", moved, hs)
	if !o.OK() {
		t.Fatalf("moved: failed: %v", o.Failed[0])
	}
	if o.Reports[0].Offset != 5 || o.Reports[len(o.Reports)-1].Offset != 5 {
		t.Errorf("moved: offsets %d and %d, want 5", o.Reports[0].Offset, o.Reports[len(o.Reports)-1].Offset)
	}
	if o.t.builds == 0 {
		t.Errorf("moved: found without an index?")
	}
}
