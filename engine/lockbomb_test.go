package engine

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/txedit/txedit/apply/patch"
	"github.com/txedit/txedit/hash"
	"github.com/txedit/txedit/plan"
)

// TestEditsAreEvaluatedOutsideTheLock: a request's edits are evaluated
// before the workspace lock is taken. While a failing patch of many hunks
// is being evaluated, another writer's one-line write to another file
// goes through at once (it waited 28.5 s; docs/testing.md, the reliability
// audit), and the
// failing request writes nothing. A request that succeeds is checked under
// the lock against what its edits were computed from: a change made to
// its file meanwhile is kept (an edit without a hash is planned again on
// it), or refused (stale_hash) when the edit carries a hash.
func TestEditsAreEvaluatedOutsideTheLock(t *testing.T) {
	defer func() { testHookEdit = nil }()
	var big strings.Builder
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&big, "line %d\n", i)
	}
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"big.txt": big.String(), "small.txt": "one\n"})
	w := openWS(t, dir, nil)
	other := openWS(t, dir, &Options{LockTimeout: 300 * time.Millisecond})

	// 1. A failing patch: 300 hunks whose lines are in the file, but not
	// together.
	var diffText strings.Builder
	diffText.WriteString("--- a/big.txt\n+++ b/big.txt\n")
	for h := 0; h < 300; h++ {
		i := h*10 + 5
		fmt.Fprintf(&diffText, "@@ -%d,2 +%d,2 @@\n line %d\n-line %d\n+LINE %d\n", i, i, i, i+3, i+3)
	}
	var beside *plan.Result
	var fired atomic.Bool // the hook acts once (the other write's own pass 1 runs it too)
	once := func(f func()) {
		if !fired.Swap(true) {
			f()
		}
	}
	testHookEdit = func(path string) {
		once(func() {
			beside = run(t, other, `{"command":"replace_lines","path":"small.txt","start_line":1,"end_line":1,"new_str":"ONE"}`)
		})
	}
	f, _ := patch.ParseFormat("diff")
	req, _, err := patch.Compile(f, []byte(diffText.String()))
	if err != nil {
		t.Fatal(err)
	}
	res, _ := w.Apply(context.Background(), req)
	if res.Success || res.Code != plan.CodeNotFound {
		t.Fatalf("the failing patch: success %v, %s", res.Success, res.Code)
	}
	if beside == nil || !beside.Success {
		t.Fatalf("a write beside the failing patch, while it was evaluated: %+v (the patch held the workspace lock)", beside)
	}
	tree := readTree(t, dir)
	if tree["big.txt"] != big.String() || tree["small.txt"] != "ONE\n" {
		t.Fatalf("after: big.txt changed %v, small.txt %q", tree["big.txt"] != big.String(), tree["small.txt"])
	}

	// 2. A request that succeeds, while its file is changed elsewhere.
	edits := 0
	fired.Store(false)
	testHookEdit = func(path string) {
		edits++
		once(func() {
			if r := run(t, other, `{"command":"str_replace","path":"big.txt","old_str":"line 2999\n","new_str":"last line\n"}`); !r.Success {
				t.Errorf("the change beside: %+v", r)
			}
		})
	}
	res = run(t, w, `{"command":"str_replace","path":"big.txt","old_str":"line 0\n","new_str":"first line\n"}`)
	if !res.Success {
		t.Fatalf("the request without a hash: %+v", res)
	}
	got := readTree(t, dir)["big.txt"]
	if !strings.HasPrefix(got, "first line\n") || !strings.HasSuffix(got, "last line\n") {
		t.Fatalf("one of the two changes was lost: %q ... %q", got[:20], got[len(got)-20:])
	}
	if edits != 2 { // the request's and the write beside's
		t.Errorf("pass 1 ran %d times on two requests of one file each", edits)
	}
	// With the hash of the file as it was read: refused, nothing lost.
	fired.Store(false)
	token := hash.Of([]byte(got)).String()
	testHookEdit = func(path string) {
		once(func() {
			run(t, other, `{"command":"str_replace","path":"big.txt","old_str":"line 1\n","new_str":"second line\n"}`)
		})
	}
	res = run(t, w, fmt.Sprintf(`{"fileEdits":[{"path":"big.txt","content_hash":%q,"edits":[{"command":"str_replace","old_str":"line 5\n","new_str":"five\n"}]}]}`, token))
	if res.Success || res.Code != plan.CodeStaleHash {
		t.Fatalf("the request with a stale hash: success %v, %s: %s", res.Success, res.Code, res.Error)
	}
	if got := readTree(t, dir)["big.txt"]; !strings.Contains(got, "second line\n") || strings.Contains(got, "five\n") {
		t.Fatalf("after the stale request: %q", got[:40])
	}
}
