package engine

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txedit/txedit/apply/patch"
	"github.com/txedit/txedit/plan"
)

// applyPatch compiles a native-format patch and applies it.
func applyPatch(t *testing.T, w *Workspace, f patch.Format, input string, dryRun bool) *plan.Result {
	t.Helper()
	req, _, err := patch.Compile(f, []byte(input))
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	req.DryRun = dryRun
	res, _ := w.Apply(context.Background(), req)
	return res
}

var codexTree = map[string]string{
	"src/app.py":   "import os\n\ndef main():\n    print('old')\n    return 0\n\ndef other():\n    print('old')\n",
	"src/util.py":  "def helper():\n    return 1\n",
	"src/gone.py":  "x = 1\n",
	"docs/old.md":  "# Old\n",
	"docs/keep.md": "keep\n",
	"win.txt":      "one\r\ntwo\r\nthree\r\n",
}

const codexPatch = `*** Begin Patch
*** Update File: src/app.py
@@ def main():
-    print('old')
+    print('new')
*** Add File: src/new.py
+print("hi")
*** Delete File: src/gone.py
*** Update File: docs/old.md
*** Move to: docs/keep.md
@@
-# Old
+# New
*** Update File: win.txt
@@
 one
-two
+TWO
*** End Patch
`

// TestCodexPatchThroughTheEngine: Codex's semantics (an @@ anchor picks the
// occurrence, Add File, Delete File, Move to over an existing file
// replaces it), one transaction, undoable; CRLF stays CRLF; a retry is a
// no-op without a transaction.
func TestCodexPatchThroughTheEngine(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, codexTree)
	before := readTree(t, dir)
	w := openWS(t, dir, nil)
	res := applyPatch(t, w, patch.FormatApplyPatch, codexPatch, false)
	if !res.Success || res.TransactionID == "" {
		t.Fatalf("apply: %+v", res)
	}
	got := readTree(t, dir)
	want := map[string]string{
		"src/app.py":   "import os\n\ndef main():\n    print('new')\n    return 0\n\ndef other():\n    print('old')\n",
		"src/new.py":   "print(\"hi\")\n",
		"docs/keep.md": "# New\n",
		"win.txt":      "one\r\nTWO\r\nthree\r\n",
	}
	for p, c := range want {
		if got[p] != c {
			t.Errorf("%s = %q, want %q", p, got[p], c)
		}
	}
	for _, p := range []string{"src/gone.py", "docs/old.md"} {
		if _, ok := got[p]; ok {
			t.Errorf("%s still there", p)
		}
	}
	for _, f := range res.Files {
		if f.Path == "src/app.py" && (len(f.Hunks) != 1 || f.Hunks[0].Line != 4 || f.Match != plan.RungExact) {
			t.Errorf("app.py hunk report: %+v match %s", f.Hunks, f.Match)
		}
	}
	// A retry changes nothing and makes no transaction.
	again := applyPatch(t, w, patch.FormatApplyPatch, codexPatch, false)
	if !again.Success || again.TransactionID != "" || readTree(t, dir)["src/app.py"] != want["src/app.py"] {
		t.Fatalf("retry: %+v", again)
	}
	for _, f := range again.Files {
		if f.Status != "already_applied" {
			t.Errorf("retry: %s status %q, want already_applied", f.Path, f.Status)
		}
	}
	// One undo takes the whole patch back, the replaced file included.
	if res, _ := w.Undo(context.Background(), UndoOptions{}); !res.Success {
		t.Fatalf("undo: %+v", res)
	}
	if got := readTree(t, dir); treeString(got) != treeString(before) {
		t.Errorf("after undo:\n%s\nwant:\n%s", treeString(got), treeString(before))
	}
}

// TestPatchAtomicAmbiguousPartial: a failure anywhere writes nothing;
// context that matches twice is ambiguous (every candidate named); a
// patch half applied is refused, naming the hunks.
func TestPatchAtomicAmbiguousPartial(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, codexTree)
	w := openWS(t, dir, nil)
	bad := "*** Begin Patch\n*** Update File: src/util.py\n@@\n-    return 1\n+    return 2\n*** Update File: src/app.py\n@@\n-    print('nothing like this')\n+    x\n*** End Patch\n"
	res := applyPatch(t, w, patch.FormatApplyPatch, bad, false)
	if res.Success || res.Code != plan.CodeNotFound || readTree(t, dir)["src/util.py"] != codexTree["src/util.py"] {
		t.Fatalf("a failing second file: %+v; util.py %q", res, readTree(t, dir)["src/util.py"])
	}
	amb := "*** Begin Patch\n*** Update File: src/app.py\n@@\n-    print('old')\n+    print('new')\n*** End Patch\n"
	res = applyPatch(t, w, patch.FormatApplyPatch, amb, false)
	if res.Success || res.Code != plan.CodeAmbiguous || !strings.Contains(res.Files[0].FailedEdits[0].Error, "4") || !strings.Contains(res.Files[0].FailedEdits[0].Error, "8") {
		t.Fatalf("ambiguous: %+v %+v", res, res.Files[0].FailedEdits)
	}
	two := "*** Begin Patch\n*** Update File: src/app.py\n@@\n-import os\n+import sys\n@@ def other():\n-    print('old')\n+    print('other')\n*** End Patch\n"
	writeTree(t, dir, map[string]string{"src/app.py": strings.Replace(codexTree["src/app.py"], "import os", "import sys", 1)})
	res = applyPatch(t, w, patch.FormatApplyPatch, two, false)
	if res.Success || res.Code != plan.CodeConflict {
		t.Fatalf("half applied: %+v", res)
	}
}

// TestPatchLadderAndOffset: a hunk whose context differs in whitespace
// matches on a looser rung, reported; a diff hunk away from its stated
// line is placed by content with its offset reported.
func TestPatchLadderAndOffset(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.go": "package a\n\nfunc F() {\n\treturn\n}\n", "b.txt": "1\n2\n3\n4\n5\n6\n7\n8\n"})
	w := openWS(t, dir, nil)
	ws := "*** Begin Patch\n*** Update File: a.go\n@@\n func F() {\n-    return\n+    panic(1)\n }\n*** End Patch\n"
	res := applyPatch(t, w, patch.FormatApplyPatch, ws, false)
	if !res.Success || res.Files[0].Match == plan.RungExact || res.Files[0].Match == "" {
		t.Fatalf("whitespace rung: %+v %+v", res, res.Files)
	}
	diff := "--- a/b.txt\n+++ b/b.txt\n@@ -1,3 +1,3 @@\n 5\n-6\n+six\n 7\n"
	res = applyPatch(t, w, patch.FormatDiff, diff, false)
	if !res.Success || readTree(t, dir)["b.txt"] != "1\n2\n3\n4\n5\nsix\n7\n8\n" || res.Files[0].Hunks[0].Offset != 4 {
		t.Fatalf("offset: %+v %+v", res, res.Files[0].Hunks)
	}
}

// TestSearchReplaceCreatesAndEdits: an empty SEARCH creates a missing
// file; blocks edit in order.
func TestSearchReplaceCreatesAndEdits(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"m.py": "a = 1\nb = 2\n"})
	w := openWS(t, dir, nil)
	in := "m.py\n```python\n<<<<<<< SEARCH\na = 1\n=======\na = 10\n>>>>>>> REPLACE\n```\n\nnew.py\n```python\n<<<<<<< SEARCH\n=======\nprint('new')\n>>>>>>> REPLACE\n```\n"
	res := applyPatch(t, w, patch.FormatAuto, in, false)
	if got := readTree(t, dir); !res.Success || got["m.py"] != "a = 10\nb = 2\n" || got["new.py"] != "print('new')\n" {
		t.Fatalf("search/replace: %+v %v", res, got)
	}
}

// TestDryRunDiffRoundTrip: the diff a dry run prints, applied through the
// diff parser on a fresh copy, reproduces the real run of the request.
func TestDryRunDiffRoundTrip(t *testing.T) {
	req := `{"fileEdits":[
		{"path":"src/app.py","edits":[{"command":"str_replace","old_str":"import os","new_str":"import os\nimport sys"},{"command":"append","new_str":"# end"}]},
		{"path":"win.txt","edits":[{"command":"replace_lines","start_line":2,"end_line":2,"new_str":"2"}]},
		{"path":"src/gone.py","edits":[{"command":"delete"}]},
		{"path":"new/made.txt","edits":[{"command":"create","file_text":"made\n"}]},
		{"path":"src/util.py","edits":[{"command":"move","new_path":"lib/util.py"}]}]}`
	a, b := t.TempDir(), t.TempDir()
	writeTree(t, a, codexTree)
	writeTree(t, b, codexTree)
	wa, wb := openWS(t, a, nil), openWS(t, b, nil)
	dry := run(t, wa, strings.Replace(req, `{"fileEdits"`, `{"dry_run":true,"fileEdits"`, 1))
	if !dry.Success || dry.Diff == "" {
		t.Fatalf("dry run: %+v", dry)
	}
	if res := run(t, wa, req); !res.Success {
		t.Fatalf("real run: %+v", res)
	}
	if res := applyPatch(t, wb, patch.FormatDiff, dry.Diff, false); !res.Success {
		t.Fatalf("applying the dry-run diff: %+v\n%s", res, dry.Diff)
	}
	if ga, gb := treeString(readTree(t, a)), treeString(readTree(t, b)); ga != gb {
		t.Errorf("the dry-run diff does not reproduce the real run:\nreal:\n%s\nvia diff:\n%s", ga, gb)
	}
}

// TestGitDiffOnGoTree: a real multi-file `git diff` of a copy of Go's
// source (edits in several files, a new file, a deleted file, a rename)
// applied by txedit gives exactly what `git apply` gives.
func TestGitDiffOnGoTree(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed (.ci/run installs it)")
	}
	src := filepath.Join(goRoot(t), "src", "strings")
	base := t.TempDir()
	gitRun := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.email=t@t", "-c", "user.name=t", "-c", "core.autocrlf=false"}, args...)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	copyTree := func(dst string) {
		if out, err := exec.Command("cp", "-a", src, dst).CombinedOutput(); err != nil {
			t.Fatalf("cp: %v %s", err, out)
		}
	}
	orig := filepath.Join(base, "orig")
	copyTree(orig)
	gitRun(orig, "init", "-q")
	gitRun(orig, "add", "-A")
	gitRun(orig, "commit", "-q", "-m", "base")
	// The change: rename identifiers in several files, add, delete, rename.
	edited := 0
	entries, _ := os.ReadDir(orig)
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		p := filepath.Join(orig, e.Name())
		data, _ := os.ReadFile(p)
		s := strings.ReplaceAll(string(data), "func Index(", "func IndexOf(")
		s = strings.ReplaceAll(s, "// Copyright", "// Copyright (edited)")
		if s != string(data) {
			os.WriteFile(p, []byte(s), 0o644)
			edited++
		}
	}
	os.WriteFile(filepath.Join(orig, "added.go"), []byte("package strings\n\n// Added is new.\nconst Added = 1\n"), 0o644)
	os.Remove(filepath.Join(orig, "clone.go"))
	gitRun(orig, "mv", "compare.go", "compare_renamed.go")
	gitRun(orig, "add", "-A")
	diff := gitRun(orig, "diff", "--cached", "-M")
	if edited < 3 || !strings.Contains(diff, "rename from") || !strings.Contains(diff, "deleted file") {
		t.Fatalf("the change is too small to test: %d files edited", edited)
	}
	// Two fresh copies: one through git apply, one through txedit.
	viaGit, viaTxedit := filepath.Join(base, "git"), filepath.Join(base, "txedit")
	copyTree(viaGit)
	copyTree(viaTxedit)
	pf := filepath.Join(base, "change.diff")
	os.WriteFile(pf, []byte(diff), 0o644)
	gitRun(viaGit, "apply", pf)
	w := openWS(t, viaTxedit, nil)
	res := applyPatch(t, w, patch.FormatAuto, diff, false)
	if !res.Success {
		t.Fatalf("txedit: %+v", res)
	}
	if g, x := treeString(readTree(t, viaGit)), treeString(readTree(t, viaTxedit)); g != x {
		t.Errorf("txedit and git apply differ (%d bytes of diff)", len(diff))
	}
	t.Logf("git diff of %d files (%d bytes): txedit equals git apply; %s", len(res.Files), len(diff), fmt.Sprint(res.FilesModified)+" files modified")
}

// TestDiffKeepsThePatchsHunks: the diff a unified patch's result carries
// (a dry run's preview, the committed diff that show prints) is computed
// where its hunks were placed: where an added block could stand in two
// places (it ends with a blank line, after a blank line), it says what
// the patch said, with full context, as git diff wrote it.
func TestDiffKeepsThePatchsHunks(t *testing.T) {
	dir := t.TempDir()
	old := "x\nk1\nk2\nk3\nk4\nl1\nl2\nl3\n\nm1\nm2\nm3\nm4\n"
	writeTree(t, dir, map[string]string{"f.txt": old})
	w := openWS(t, dir, nil)
	hunks := "@@ -1,4 +1,4 @@\n-x\n+X\n k1\n k2\n k3\n" +
		"@@ -7,6 +7,9 @@\n l2\n l3\n \n+n1\n+n2\n+\n m1\n m2\n m3\n"
	diff := "diff --git a/f.txt b/f.txt\n--- a/f.txt\n+++ b/f.txt\n" + hunks
	pre := applyPatch(t, w, patch.FormatDiff, diff, true)
	if !pre.Success || !strings.HasSuffix(pre.Diff, hunks) {
		t.Fatalf("dry run: %v\n%s", pre.Error, pre.Diff)
	}
	res := applyPatch(t, w, patch.FormatDiff, diff, false)
	if !res.Success {
		t.Fatalf("apply: %v", res.Error)
	}
	_, shown, err := w.Show(context.Background(), res.TransactionID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(shown, hunks) {
		t.Errorf("show:\n%s\nwant the patch's hunks:\n%s", shown, hunks)
	}
}
