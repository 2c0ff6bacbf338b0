package patch

import (
	"fmt"
	"strings"
	"testing"

	"github.com/txedit/txedit/apply"
	"github.com/txedit/txedit/internal/testlong"
)

// A 20,000-line file changed in 200 places: the git-style diff parses and
// applies, and so do the same changes written as an apply_patch and as
// SEARCH/REPLACE blocks, at a cost that grows linearly with the file
// (from 500 to 8,000 lines);
// inputs built to make a parser quadratic (long runs of blank lines)
// parse at a cost linear in their length. The growth is checked by
// testlong.Linear, a ratio of CPU times: a wall-clock limit failed on a
// loaded or slow machine.
func TestLargeInputsAreFast(t *testing.T) {
	// inputs changes 200 lines spread over n, in the three formats.
	inputs := func(n int) (old, nw []byte, ins []string) {
		var a, b strings.Builder
		for i := range n {
			fmt.Fprintf(&a, "line %d\n", i)
			if i%(n/200) == n/400 {
				fmt.Fprintf(&b, "changed %d\n", i)
			} else {
				fmt.Fprintf(&b, "line %d\n", i)
			}
		}
		old, nw = []byte(a.String()), []byte(b.String())
		diff := apply.Unified(apply.Change{OldPath: "big.txt", NewPath: "big.txt", Old: old, New: nw})
		var ap, sr strings.Builder
		ap.WriteString("*** Begin Patch\n*** Update File: big.txt\n")
		for i := n / 400; i < n; i += n / 200 {
			fmt.Fprintf(&ap, "@@\n-line %d\n+changed %d\n", i, i)
			fmt.Fprintf(&sr, "big.txt\n<<<<<<< SEARCH\nline %d\n=======\nchanged %d\n>>>>>>> REPLACE\n", i, i)
		}
		ap.WriteString("*** End Patch\n")
		return old, nw, []string{diff, ap.String(), sr.String()}
	}
	parseApply := func(in string, old []byte) *apply.HunkOutcome {
		files, err := Parse(FormatAuto, []byte(in))
		if err != nil {
			t.Fatal(err)
		}
		return files[0].Apply(old)
	}
	old, nw, ins := inputs(20000)
	for k, in := range ins {
		if o := parseApply(in, old); !o.OK() || string(o.Content) != string(nw) {
			t.Errorf("%s: %v", Detect([]byte(in)), o.Failed)
		}
		testlong.Linear(t, string(Detect([]byte(in)))+", 200 changes in n lines", 8000, func(n int) {
			old, _, ins := inputs(n)
			parseApply(ins[k], old)
		})
	}
	blanks := func(n int) []string {
		b := strings.Repeat("\n", n)
		return []string{
			"*** Begin Patch\n*** Add File: a\n+x\n" + b + "+y\n*** End Patch\n",
			"--- a/f\n+++ b/f\n@@ ... @@\n-x\n" + b + "+y\n",
			"f\n<<<<<<< SEARCH\n" + b + "=======\n>>>>>>> REPLACE\n",
		}
	}
	for k, in := range blanks(200000) {
		if _, err := Parse(FormatAuto, []byte(in)); err != nil {
			t.Error(err)
		}
		testlong.Linear(t, fmt.Sprintf("%q… with n blank lines", in[:20]), 200000, func(n int) {
			Parse(FormatAuto, []byte(blanks(n)[k]))
		})
	}
}
