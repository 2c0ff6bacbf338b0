package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txedit/txedit/plan"
)

// A request with directories (plan.Request.Dirs: an LSP WorkspaceEdit)
// keeps the delta bookkeeping of the other forms (docs/design.md,
// "Concurrency"): a refusal's delta that its caller shows counts as the
// session's read of the region shown, so the retry made from that region
// lands.
func TestDirsRequestKeepsDeltaShown(t *testing.T) {
	dir, _, _, _ := overlapRefusedUsefully(t, func(req *plan.Request) *plan.Request {
		req.Dirs = &plan.DirChanges{Make: []plan.DirMake{{Path: "made"}}, KeepParents: true}
		req.DeltaShown = true
		return req
	})
	if got := readTree(t, dir)["f.txt"]; !strings.Contains(got, "line TEN\n") {
		t.Fatalf("file %q", got)
	}
}

// A request with directories whose every try meets an outside save gets
// the last look as the other forms do: a conflict carrying the change and
// the region, nothing written (no directory made either), and the edit
// sent again lands.
func TestDirsRequestConflictAtEveryTryShowsRegion(t *testing.T) {
	orig := lines(12, "line %d\n")
	dir, s, sv := savingWS(t, orig)
	req := strReplace("f.txt", "line 9\n", "line nine\n")
	req.Dirs = &plan.DirChanges{Make: []plan.DirMake{{Path: "made"}}, KeepParents: true}
	req.DeltaShown = true
	sv.On.Store(true)
	r := apply1(t, s, req)
	sv.On.Store(false)
	now := sv.Version(len(conflictRetries) + 1)
	if got := readTree(t, dir)["f.txt"]; got != now {
		t.Fatalf("file %q, want the last save's", got)
	}
	if _, err := os.Lstat(filepath.Join(dir, "made")); !os.IsNotExist(err) {
		t.Fatalf("a refused request made its directory: %v", err)
	}
	d := r.Files[0].Delta
	if r.Success || r.Code != plan.CodeConflict || d == nil || !regionHas(d, "line 9") || !strings.Contains(d.Diff, "+line 1 (save 4)") || !strings.Contains(r.Error, "nothing was written") {
		t.Fatalf("conflict at every try, with directories: %+v, delta %+v", r, d)
	}
	if r := apply1(t, s, req); !r.Success || r.Files[0].Delta != nil {
		t.Fatalf("the edit sent again after the conflict's region: %+v", r.Files[0])
	}
	if fi, err := os.Lstat(filepath.Join(dir, "made")); err != nil || !fi.IsDir() {
		t.Fatalf("directory not made: %v", err)
	}
}
