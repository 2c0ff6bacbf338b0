package patch

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/txedit/txedit/apply"
)

// A 20,000-line file changed in 200 places: the git-style diff parses and
// applies fast, and so do the same changes written as an apply_patch and
// as SEARCH/REPLACE blocks; inputs built to make a parser quadratic (long
// runs of blank lines) parse fast too.
func TestLargeInputsAreFast(t *testing.T) {
	var a, b strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&a, "line %d\n", i)
		if i%100 == 50 {
			fmt.Fprintf(&b, "changed %d\n", i)
		} else {
			fmt.Fprintf(&b, "line %d\n", i)
		}
	}
	old, nw := []byte(a.String()), []byte(b.String())
	diff := apply.Unified(apply.Change{OldPath: "big.txt", NewPath: "big.txt", Old: old, New: nw})
	var ap, sr strings.Builder
	ap.WriteString("*** Begin Patch\n*** Update File: big.txt\n")
	for i := 50; i < 20000; i += 100 {
		fmt.Fprintf(&ap, "@@\n-line %d\n+changed %d\n", i, i)
		fmt.Fprintf(&sr, "big.txt\n<<<<<<< SEARCH\nline %d\n=======\nchanged %d\n>>>>>>> REPLACE\n", i, i)
	}
	ap.WriteString("*** End Patch\n")
	for _, in := range []string{diff, ap.String(), sr.String()} {
		start := time.Now()
		files, err := Parse(FormatAuto, []byte(in))
		if err != nil {
			t.Fatal(err)
		}
		o := files[0].Apply(old)
		if d := time.Since(start); d > 3*slowdown*time.Second {
			t.Errorf("%s took %v", Detect([]byte(in)), d)
		}
		if !o.OK() || string(o.Content) != b.String() {
			t.Errorf("%s: %v", Detect([]byte(in)), o.Failed)
		}
	}
	blanks := strings.Repeat("\n", 200000)
	for _, in := range []string{
		"*** Begin Patch\n*** Add File: a\n+x\n" + blanks + "+y\n*** End Patch\n",
		"--- a/f\n+++ b/f\n@@ ... @@\n-x\n" + blanks + "+y\n",
		"f\n<<<<<<< SEARCH\n" + blanks + "=======\n>>>>>>> REPLACE\n",
	} {
		start := time.Now()
		if _, err := Parse(FormatAuto, []byte(in)); err != nil {
			t.Error(err)
		}
		if d := time.Since(start); d > 2*slowdown*time.Second {
			t.Errorf("%q… took %v", in[:20], d)
		}
	}
}
