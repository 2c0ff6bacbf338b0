package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txedit/txedit/apply/patch"
	"github.com/txedit/txedit/plan"
)

// "Already applied" only with proof: what the content cannot prove, the
// journal can — a retry of a patch txedit applied (retry.go).

const retrySrc = "package p\n\nfunc A() error {\n\treturn nil\n}\n\nfunc F() error {\n\tx := 1\n\t_ = x\n\treturn nil\n}\n\nfunc G() error {\n\treturn nil\n}\n"

// Deleting G without *** End of File: its context ("\treturn nil", "}",
// "") stands in three places once G is gone, so the content proves
// nothing; the journal proves the retry.
const deleteG = "*** Begin Patch\n*** Update File: p.go\n@@\n \treturn nil\n }\n \n-func G() error {\n-\treturn nil\n-}\n*** End Patch\n"

// A deletion without any context line.
const deleteX = "*** Begin Patch\n*** Update File: p.go\n@@\n-\tx := 1\n-\t_ = x\n*** End Patch\n"

func statusOfFile(res *plan.Result, path string) (string, plan.Code) {
	for _, f := range res.Files {
		if f.Path == path {
			return string(f.Status), f.Code
		}
	}
	return "", ""
}

func TestJournalProvesRetries(t *testing.T) {
	for _, tc := range []struct {
		name   string
		format patch.Format
		input  string
	}{
		{"deletion with ambiguous context", patch.FormatApplyPatch, deleteG},
		{"deletion without context", patch.FormatApplyPatch, deleteX},
		{"responses deletion without context", patch.FormatResponses, `{"type":"apply_patch_call","operation":{"type":"update_file","path":"p.go","diff":"@@\n-\tx := 1\n-\t_ = x\n"}}`},
		{"diff deletion without context", patch.FormatDiff, "--- a/p.go\n+++ b/p.go\n@@ -8,2 +7,0 @@\n-\tx := 1\n-\t_ = x\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, map[string]string{"p.go": retrySrc})
			w := openWS(t, dir, nil)
			first := applyPatch(t, w, tc.format, tc.input, false)
			if !first.Success || first.TransactionID == "" {
				t.Fatalf("first run: %+v", first)
			}
			after := readTree(t, dir)["p.go"]
			again := applyPatch(t, w, tc.format, tc.input, false)
			if st, _ := statusOfFile(again, "p.go"); !again.Success || st != "already_applied" || again.TransactionID != "" {
				t.Fatalf("retry: success %v status %q code %s: %s", again.Success, st, again.Code, again.Error)
			}
			if got := readTree(t, dir)["p.go"]; got != after {
				t.Errorf("the retry changed the file:\n%s", got)
			}
			for _, h := range again.Files[0].Hunks {
				if !h.AlreadyApplied || h.Line < 1 {
					t.Errorf("hunk report %+v", h)
				}
			}
			// The same bytes, not made by txedit: no journal proof; the
			// content alone proves nothing, so the patch is refused.
			fresh := t.TempDir()
			writeTree(t, fresh, map[string]string{"p.go": after})
			w2 := openWS(t, fresh, nil)
			res := applyPatch(t, w2, tc.format, tc.input, false)
			if st, code := statusOfFile(res, "p.go"); res.Success || st == "already_applied" || code != plan.CodeNotFound {
				t.Errorf("without the journal: success %v status %q code %s", res.Success, st, code)
			}
			// Changed after the transaction: the journal no longer proves
			// it (the file is not what the transaction left).
			os.WriteFile(filepath.Join(dir, "p.go"), []byte(after+"// later\n"), 0o644)
			res = applyPatch(t, w, tc.format, tc.input, false)
			if res.Success {
				t.Errorf("after another change: %+v", res.Files[0])
			}
			// Undone: the journal's newest transaction on the file is the
			// undo, which the patch did not make.
			os.WriteFile(filepath.Join(dir, "p.go"), []byte(after), 0o644)
			if u, _ := w.Undo(context.Background(), UndoOptions{Force: true}); !u.Success {
				t.Fatalf("undo: %+v", u)
			}
			os.WriteFile(filepath.Join(dir, "p.go"), []byte(after), 0o644)
			if res = applyPatch(t, w, tc.format, tc.input, false); res.Success {
				t.Errorf("after undo (file put back by hand): %+v", res.Files[0])
			}
		})
	}
}

// TestDeleteMissingFile: Codex's scenario 007 — deleting a file that does
// not exist fails (file_not_found), in every format; a Delete File that
// txedit made, sent again, is already applied.
func TestDeleteMissingFile(t *testing.T) {
	for _, tc := range []struct {
		format patch.Format
		input  string
	}{
		{patch.FormatApplyPatch, "*** Begin Patch\n*** Delete File: gone.txt\n*** End Patch\n"},
		{patch.FormatResponses, `{"type":"apply_patch_call","operation":{"type":"delete_file","path":"gone.txt"}}`},
		{patch.FormatDiff, "diff --git a/gone.txt b/gone.txt\ndeleted file mode 100644\n--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n"},
	} {
		t.Run(string(tc.format), func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, map[string]string{"keep.txt": "keep\n"})
			w := openWS(t, dir, nil)
			res := applyPatch(t, w, tc.format, tc.input, false)
			if st, code := statusOfFile(res, "gone.txt"); res.Success || code != plan.CodeFileNotFound || st == "already_applied" {
				t.Fatalf("a file that never existed: success %v status %q code %s", res.Success, st, code)
			}
			writeTree(t, dir, map[string]string{"gone.txt": "bye\n"})
			if res = applyPatch(t, w, tc.format, tc.input, false); !res.Success {
				t.Fatalf("delete: %+v", res)
			}
			res = applyPatch(t, w, tc.format, tc.input, false)
			if st, _ := statusOfFile(res, "gone.txt"); !res.Success || st != "already_applied" || res.TransactionID != "" {
				t.Fatalf("retry: success %v status %q: %s", res.Success, st, res.Error)
			}
			// Made again and removed by hand: the journal's deletion is no
			// longer what is in effect... the file is gone, but the newest
			// transaction on it is still txedit's deletion, so a retry is
			// still proven; a file recreated by txedit and removed by hand
			// is not.
			w.Apply(context.Background(), mustParse(t, `{"path":"gone.txt","command":"create","file_text":"again\n"}`))
			os.Remove(filepath.Join(dir, "gone.txt"))
			res = applyPatch(t, w, tc.format, tc.input, false)
			if st, code := statusOfFile(res, "gone.txt"); res.Success || code != plan.CodeFileNotFound || st == "already_applied" {
				t.Errorf("removed by hand after txedit made it: success %v status %q code %s", res.Success, st, code)
			}
		})
	}
}

// TestRetriedGitRename: a git rename sent again is already applied (the
// journal shows the move), not "move does not overwrite"; the same tree
// made by hand is not proof.
func TestRetriedGitRename(t *testing.T) {
	rename := "diff --git a/old.txt b/new.txt\nsimilarity index 100%\nrename from old.txt\nrename to new.txt\n"
	withHunk := "diff --git a/a.txt b/b.txt\nsimilarity index 80%\nrename from a.txt\nrename to b.txt\n--- a/a.txt\n+++ b/b.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"old.txt": "content\n", "a.txt": "one\ntwo\nthree\n"})
	w := openWS(t, dir, nil)
	for _, in := range []string{rename, withHunk} {
		if res := applyPatch(t, w, patch.FormatDiff, in, false); !res.Success {
			t.Fatalf("rename: %+v", res)
		}
		res := applyPatch(t, w, patch.FormatDiff, in, false)
		if !res.Success || res.Files[0].Status != "already_applied" || res.TransactionID != "" {
			t.Errorf("retried rename: success %v status %q: %s", res.Success, res.Files[0].Status, res.Error)
		}
	}
	if got := readTree(t, dir); got["new.txt"] != "content\n" || got["b.txt"] != "one\nTWO\nthree\n" || len(got) != 2 {
		t.Errorf("tree %v", got)
	}
	// A rename made by hand: the destination exists, the source not, and
	// nothing proves the move was this one.
	hand := t.TempDir()
	writeTree(t, hand, map[string]string{"new.txt": "other\n"})
	w2 := openWS(t, hand, nil)
	res := applyPatch(t, w2, patch.FormatDiff, rename, false)
	if res.Success || res.Code != plan.CodeConflict || !strings.Contains(res.Files[0].Error, "does not overwrite") {
		t.Errorf("unproven rename: success %v code %s: %s", res.Success, res.Code, res.Error)
	}
}

// TestRequestSentAgain: a str_replace sent again after it
// committed (it fails: its old text is gone) answers already_applied naming the transaction, when
// the request asks for retry proof (the command line and the txedit
// toolset do); without it (dialects whose tools answer not found) it
// stays not_found. A different edit is never proven.
func TestRequestSentAgain(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.txt": "one\ntwo\nthree\n"})
	w := openWS(t, dir, nil)
	apply := func(js string, prove bool) *plan.Result {
		req := mustParse(t, js)
		req.ProveRetries = prove
		res, _ := w.Apply(context.Background(), req)
		return res
	}
	for _, js := range []string{
		`{"command":"str_replace","path":"a.txt","old_str":"two","new_str":"TWO"}`,
	} {
		first := apply(js, true)
		if !first.Success || first.TransactionID == "" {
			t.Fatalf("%s: %s", js, first.Error)
		}
		if res := apply(js, false); res.Success {
			t.Errorf("%s again without proof: success", js)
		}
		res := apply(js, true)
		if !res.Success || res.TransactionID != "" || res.Files[0].Status != "already_applied" || res.Files[0].AppliedBy != first.TransactionID {
			t.Errorf("%s again: %s", js, mustJSON(res))
		}
	}
	if res := apply(`{"command":"str_replace","path":"a.txt","old_str":"two","new_str":"2"}`, true); res.Success {
		t.Errorf("a different edit was proven: %s", mustJSON(res))
	}
}
