package apply

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/txedit/txedit/plan"
)

// TestManyFailingEditsAreBounded: 3,000 str_replace edits that all fail on
// one 20,000-line file took 23.6 s, nearly all of it in the search for the
// nearest match, which prepared the whole file again for every edit. The
// file is now prepared once, and the similarity search has a budget per
// file: the first failures still get the most similar line, and the whole
// request stays fast.
func TestManyFailingEditsAreBounded(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&b, "\tvalue%d := compute(input%d, %d) // line %d\n", i, i%97, i*7, i)
	}
	body := []byte(b.String())
	fo := &plan.FileOps{Path: "big.go"}
	for i := 0; i < 3000; i++ {
		fo.StrReplaces = append(fo.StrReplaces, &plan.Op{Index: i, Command: plan.StrReplace, Old: fmt.Sprintf("valeu%d := compute(inptu%d, %d)", i, i%97, i*7), Text: "x"})
	}
	start := time.Now()
	out := Edit(fo, body, true)
	d := time.Since(start)
	t.Logf("3,000 failing edits on 20,000 lines: %v", d)
	if len(out.Failed) != 3000 {
		t.Fatalf("%d failures", len(out.Failed))
	}
	if !strings.Contains(out.Failed[0].Error(), "the most similar line is 1:") {
		t.Errorf("the first failure has no hint: %v", out.Failed[0])
	}
	// The budget, not a clock, is what bounds it: the last failures say
	// the similarity search was skipped.
	if last := out.Failed[len(out.Failed)-1].Error(); !strings.Contains(last, "not searched for similar lines") {
		t.Errorf("the last failure searched for similar lines anyway: %v", last)
	}
	// A whitespace-only difference is found however many edits failed
	// before it: that search is indexed, not budgeted.
	fo.StrReplaces = append(fo.StrReplaces, &plan.Op{Index: 3000, Command: plan.StrReplace, Old: "value19999  :=  compute(input17,139993) //  line 19999", Text: "x"})
	out = Edit(fo, body, true)
	if last := out.Failed[len(out.Failed)-1]; !strings.Contains(last.Error(), "differs only in whitespace or line endings is at line 20000") {
		t.Errorf("last failure: %v", last)
	}
}
