package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/txedit/txedit/plan"
)

// TestSwapBetweenPlanAndCommit replaces, after the unlocked pass and
// before the commit, a directory (and, separately, a file) with a symlink
// to a directory outside the root. Nothing outside may be written.
func TestSwapBetweenPlanAndCommit(t *testing.T) {
	for _, what := range []string{"dir", "file"} {
		t.Run(what, func(t *testing.T) {
			outside := t.TempDir()
			writeTree(t, outside, map[string]string{"f.txt": "outside\n"})
			dir := t.TempDir()
			writeTree(t, dir, map[string]string{"sub/f.txt": "inside\n"})
			swapped := false
			w := openWS(t, dir, &Options{Timings: func(phase string, d time.Duration) {
				if phase != "edit" || swapped {
					return
				}
				swapped = true
				if what == "dir" {
					os.Rename(filepath.Join(dir, "sub"), filepath.Join(dir, "sub.moved"))
					os.Symlink(outside, filepath.Join(dir, "sub"))
				} else {
					os.Remove(filepath.Join(dir, "sub/f.txt"))
					os.Symlink(filepath.Join(outside, "f.txt"), filepath.Join(dir, "sub/f.txt"))
				}
			}})
			res := run(t, w, `{"command":"str_replace","path":"sub/f.txt","old_str":"inside","new_str":"ATTACK"}`)
			if !swapped {
				t.Fatal("the swap hook did not run")
			}
			if res.Success {
				t.Fatalf("the commit went ahead through a swapped path: %+v", res)
			}
			if b, _ := os.ReadFile(filepath.Join(outside, "f.txt")); string(b) != "outside\n" {
				t.Fatalf("outside file written: %q", b)
			}
			ents, _ := os.ReadDir(outside)
			if len(ents) != 1 {
				t.Fatalf("files appeared outside the root: %v", ents)
			}
			t.Logf("refused with %s: %s", res.Code, res.Error)
			// The refused transaction is finished, not left pending:
			// a hostile symlink must not wedge later writes.
			log, err := w.Log(context.Background(), LogOptions{})
			if err != nil || len(log) > 1 || (len(log) == 1 && log[0].State != "rolled_back") {
				t.Errorf("after the refusal: %v %s", err, mustJSON(log))
			}
			if _, err := Open(dir, nil); err != nil {
				t.Errorf("the workspace no longer opens: %v", err)
			}
		})
	}
}

func TestHostileNames(t *testing.T) {
	dir := t.TempDir()
	w := openWS(t, dir, nil)
	long := strings.Repeat("x", 300)
	cases := []struct {
		path string
		code plan.Code
	}{
		{long + ".txt", plan.CodeIOError},
		{"a/" + long + "/b.txt", plan.CodeIOError},
		{"nul\x00.txt", plan.CodeInvalidRequest},
		{"", plan.CodeInvalidRequest},
	}
	for _, tc := range cases {
		res, _ := w.Apply(context.Background(), &plan.Request{Path: tc.path, Edit: plan.Edit{Command: "create", FileText: ptrs("x")}})
		if res.Success || res.Code != tc.code {
			t.Errorf("%q: %+v, want %s", clipName(tc.path), res.Code, tc.code)
		}
	}
	if got := readTree(t, dir); len(got) != 0 {
		t.Errorf("hostile names left files: %v", got)
	}
}

func ptrs(s string) *string { return &s }

func clipName(s string) string {
	if len(s) > 20 {
		return s[:20] + "…"
	}
	return s
}
