package apply

import (
	"math/rand"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/hexops/gotextdiff/myers"
	"github.com/hexops/gotextdiff/span"
)

// gotextdiffRange is what myersRange was before it was ported: gotextdiff's
// Myers diff over the joined lines, its text edits turned into line edits.
func gotextdiffRange(a, b []string, a0, a1, b0, b1 int, out *[]edit) {
	before := strings.Join(a[a0:a1], "")
	after := strings.Join(b[b0:b1], "")
	tes := myers.ComputeEdits(span.URI("file"), before, after)
	sort.SliceStable(tes, func(i, j int) bool { return tes[i].Span.Start().Line() < tes[j].Span.Start().Line() })
	shift := 0
	start := len(*out)
	for _, te := range tes {
		s, e := te.Span.Start().Line()-1, te.Span.End().Line()-1
		n := len(splitLines(te.NewText))
		ed := edit{A0: a0 + s, A1: a0 + e, B0: b0 + s + shift, B1: b0 + s + shift + n}
		shift += n - (e - s)
		if k := len(*out); k > start && (*out)[k-1].A1 == ed.A0 && (*out)[k-1].B1 == ed.B0 {
			(*out)[k-1].A1, (*out)[k-1].B1 = ed.A1, ed.B1
			continue
		}
		*out = append(*out, ed)
	}
}

// TestMyersAsGotextdiff: the port gives gotextdiff's own edits (the
// oracle: the module is a test dependency only), on random texts of few
// distinct lines, where ties between equally short scripts are the rule.
func TestMyersAsGotextdiff(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	words := []string{"a\n", "b\n", "c\n", "}\n", "\n", "x"}
	lines := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = words[r.Intn(len(words)-1)]
		}
		if n > 0 && r.Intn(4) == 0 {
			out[n-1] = "x" // a last line without its line break
		}
		return out
	}
	for i := 0; i < 20300; i++ {
		n := 14
		if i >= 20000 {
			n = 200 // a few large ones, within ranges of them
		}
		a, b := lines(r.Intn(n)), lines(r.Intn(n))
		a0, b0 := r.Intn(len(a)+1), r.Intn(len(b)+1)
		a1, b1 := a0+r.Intn(len(a)-a0+1), b0+r.Intn(len(b)-b0+1)
		if i < 20000 {
			a0, a1, b0, b1 = 0, len(a), 0, len(b)
		}
		got, want := []edit{{0, 0, 0, 0}}, []edit{{0, 0, 0, 0}} // appended after an edit of before
		myersRange(a, b, a0, a1, b0, b1, &got)
		gotextdiffRange(a, b, a0, a1, b0, b1, &want)
		if !slices.Equal(got, want) {
			t.Fatalf("case %d: %q -> %q:\nport       %v\ngotextdiff %v", i, a[a0:a1], b[b0:b1], got, want)
		}
	}
}
