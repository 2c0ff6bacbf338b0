package engine

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txedit/txedit/hash"
	"github.com/txedit/txedit/journal"
	"github.com/txedit/txedit/plan"
)

func TestApplyMultiFile(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.go": "package a\n\nfunc Foo() {}\n", "sub/b.go": "package sub\n\nvar x = Foo()\n"})
	w := openWS(t, dir, nil)
	res := run(t, w, `{"command":"str_replace","fileEdits":[
		{"path":"a.go","edits":[{"command":"str_replace","old_str":"Foo","new_str":"Bar"}]},
		{"path":"sub/b.go","edits":[{"command":"str_replace","old_str":"Foo","new_str":"Bar"},{"command":"append","new_str":"// done"}]}]}`)
	if !res.Success || res.FilesModified != 2 || res.TransactionID == "" {
		t.Fatalf("result: %+v", res)
	}
	got := readTree(t, dir)
	if got["a.go"] != "package a\n\nfunc Bar() {}\n" || got["sub/b.go"] != "package sub\n\nvar x = Bar()\n// done\n" {
		t.Fatalf("tree:\n%s", treeString(got))
	}
	if h := res.Files[1].ContentHash; h != hash.Of([]byte(got["sub/b.go"])).String() {
		t.Errorf("content_hash %s is not the new file's hash", h)
	}
	if res.Files[1].EditsApplied != 2 || res.Files[1].EditsFailed != 0 {
		t.Errorf("file result: %+v", res.Files[1])
	}
	// The returned hash chains into the next edit without a re-read.
	res = run(t, w, `{"fileEdits":[{"path":"sub/b.go","content_hash":"`+res.Files[1].ContentHash+`","edits":[{"command":"str_replace","old_str":"done","new_str":"DONE"}]}]}`)
	if !res.Success {
		t.Fatalf("chained edit: %+v", res)
	}
}

func TestApplyAtomicReportsEveryFailureAndWritesNothing(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.txt": "one\ntwo\n", "b.txt": "x\nx\n"})
	before := readTree(t, dir)
	w := openWS(t, dir, nil)
	res := run(t, w, `{"fileEdits":[
		{"path":"a.txt","edits":[{"command":"str_replace","old_str":"one","new_str":"1"},{"command":"str_replace","old_str":"three","new_str":"3"}]},
		{"path":"b.txt","edits":[{"command":"str_replace","old_str":"x","new_str":"y"}]},
		{"path":"missing.txt","edits":[{"command":"append","new_str":"z"}]},
		{"path":"c.txt","edits":[{"command":"create","file_text":"new"}]}]}`)
	if res.Success || res.FilesModified != 0 || res.TransactionID != "" {
		t.Fatalf("want failure with nothing written: %+v", res)
	}
	if got := readTree(t, dir); treeString(got) != treeString(before) {
		t.Fatalf("tree changed:\n%s", treeString(got))
	}
	codes := []plan.Code{}
	for _, f := range res.Files {
		for _, fe := range f.FailedEdits {
			codes = append(codes, fe.Code)
		}
	}
	want := []plan.Code{plan.CodeNotFound, plan.CodeAmbiguous, plan.CodeFileNotFound}
	if len(codes) != len(want) || codes[0] != want[0] || codes[1] != want[1] || codes[2] != want[2] {
		t.Errorf("failed edit codes = %v, want %v", codes, want)
	}
	if fe := res.Files[0].FailedEdits[0]; fe.Index != 1 || !strings.Contains(fe.Error, "a.txt") || !strings.Contains(fe.Error, "edit 1") {
		t.Errorf("failed edit does not name path and index: %+v", fe)
	}
	if !strings.Contains(res.Files[1].FailedEdits[0].Error, "lines 1, 2") {
		t.Errorf("ambiguous error does not list the lines: %s", res.Files[1].FailedEdits[0].Error)
	}
	if _, err := os.Stat(filepath.Join(dir, ".txedit", "txns")); err == nil {
		entries, _ := os.ReadDir(filepath.Join(dir, ".txedit", "txns"))
		if len(entries) != 0 {
			t.Errorf("a failed atomic request left journal entries: %v", entries)
		}
	}
}

func TestApplyNonAtomicAppliesTheRest(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.txt": "one\n", "b.txt": "two\n"})
	w := openWS(t, dir, nil)
	res := run(t, w, `{"atomic":false,"fileEdits":[
		{"path":"a.txt","edits":[{"command":"str_replace","old_str":"one","new_str":"1"},{"command":"str_replace","old_str":"nope","new_str":"3"}]},
		{"path":"b.txt","edits":[{"command":"str_replace","old_str":"two","new_str":"2"}]}]}`)
	if res.Success || res.Code != plan.CodeNotFound || res.FilesModified != 2 || res.TransactionID == "" {
		t.Fatalf("result: %+v", res)
	}
	got := readTree(t, dir)
	if got["a.txt"] != "1\n" || got["b.txt"] != "2\n" {
		t.Fatalf("tree: %s", treeString(got))
	}
	if f := res.Files[0]; f.EditsApplied != 1 || f.EditsFailed != 1 || f.Success {
		t.Errorf("a.txt result: %+v", f)
	}
}

func TestApplyMoveCopyDeleteCreateAndUndo(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"src/m.txt": "move me\n", "src/c.txt": "copy me\n", "old/d.txt": "delete me\n", "keep.txt": "k\n"})
	os.Chmod(filepath.Join(dir, "old/d.txt"), 0o751)
	os.Chmod(filepath.Join(dir, "src/m.txt"), 0o700)
	before := readTree(t, dir)
	w := openWS(t, dir, nil)
	res := run(t, w, `{"fileEdits":[
		{"path":"src/m.txt","edits":[{"command":"str_replace","old_str":"move","new_str":"moved"},{"command":"move","new_path":"dst/deep/m.txt"}]},
		{"path":"src/c.txt","edits":[{"command":"copy","new_path":"copies/c.txt"}]},
		{"path":"old/d.txt","edits":[{"command":"delete"}]},
		{"path":"new/dir/n.txt","edits":[{"command":"create","file_text":"fresh\n"}]}]}`)
	if !res.Success {
		t.Fatalf("apply: %+v", res)
	}
	after := readTree(t, dir)
	want := map[string]string{"src/": "", "src/c.txt": "copy me\n", "keep.txt": "k\n",
		"dst/": "", "dst/deep/": "", "dst/deep/m.txt": "moved me\n", "copies/": "", "copies/c.txt": "copy me\n",
		"new/": "", "new/dir/": "", "new/dir/n.txt": "fresh\n"}
	if treeString(after) != treeString(want) {
		t.Fatalf("after apply:\n%s\nwant:\n%s", treeString(after), treeString(want))
	}
	if fi, _ := os.Stat(filepath.Join(dir, "dst/deep/m.txt")); fi.Mode().Perm() != 0o700 {
		t.Errorf("moved file mode = %v, want 0700", fi.Mode().Perm())
	}
	if res.Files[0].NewPath != "dst/deep/m.txt" || res.Files[0].ContentHash != hash.Of([]byte("moved me\n")).String() {
		t.Errorf("move result: %+v", res.Files[0])
	}
	// Undo restores the tree exactly, removing the directories it made
	// and bringing the deleted file back with its mode.
	ures, err := w.Undo(context.Background(), UndoOptions{})
	if err != nil || !ures.Success {
		t.Fatalf("undo: %v %+v", err, ures)
	}
	if got := readTree(t, dir); treeString(got) != treeString(before) {
		t.Fatalf("after undo:\n%s\nwant:\n%s", treeString(got), treeString(before))
	}
	if fi, _ := os.Stat(filepath.Join(dir, "old/d.txt")); fi.Mode().Perm() != 0o751 {
		t.Errorf("restored file mode = %v, want 0751", fi.Mode().Perm())
	}
	// Undoing the undo is redo.
	rres, err := w.Undo(context.Background(), UndoOptions{ID: ures.TransactionID})
	if err != nil || !rres.Success {
		t.Fatalf("redo: %v %+v", err, rres)
	}
	if got := readTree(t, dir); treeString(got) != treeString(after) {
		t.Fatalf("after redo:\n%s\nwant:\n%s", treeString(got), treeString(after))
	}
	log, _ := w.Log(context.Background(), LogOptions{})
	if len(log) != 3 || log[0].Undoes != ures.TransactionID || log[1].State != "undone" || log[2].State != "committed" {
		t.Errorf("log: %s", mustJSON(log))
	}
}

func mustJSON(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

func TestUndoWalksBackAndRefusesConflicts(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"f.txt": "0\n"})
	w := openWS(t, dir, nil)
	for _, v := range []string{"1", "2"} {
		if res := run(t, w, `{"command":"create","path":"f.txt","file_text":"`+v+`\n"}`); !res.Success {
			t.Fatalf("create %s: %+v", v, res)
		}
	}
	ctx := context.Background()
	if res, err := w.Undo(ctx, UndoOptions{}); err != nil || !res.Success {
		t.Fatalf("undo 1: %v", err)
	}
	if got := readTree(t, dir)["f.txt"]; got != "1\n" {
		t.Fatalf("after first undo f.txt = %q, want 1", got)
	}
	// A second undo walks further back instead of redoing.
	if res, err := w.Undo(ctx, UndoOptions{}); err != nil || !res.Success {
		t.Fatalf("undo 2: %v", err)
	}
	if got := readTree(t, dir)["f.txt"]; got != "0\n" {
		t.Fatalf("after second undo f.txt = %q, want 0", got)
	}
	// Redo the newest undo, then change the file behind txedit's back.
	log, _ := w.Log(context.Background(), LogOptions{})
	if _, err := w.Undo(ctx, UndoOptions{ID: log[0].ID}); err != nil {
		t.Fatalf("redo: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte("edited by hand\n"), 0o644)
	res, err := w.Undo(ctx, UndoOptions{})
	if err == nil || res.Code != plan.CodeConflict || !strings.Contains(res.Error, "f.txt") {
		t.Fatalf("undo over a changed file: %v %+v", err, res)
	}
	if got := readTree(t, dir)["f.txt"]; got != "edited by hand\n" {
		t.Fatalf("refused undo wrote anyway: %q", got)
	}
	// --force undoes, journaling the hand edit so it can be brought back.
	res, err = w.Undo(ctx, UndoOptions{Force: true})
	if err != nil || !res.Success {
		t.Fatalf("forced undo: %v", err)
	}
	if got := readTree(t, dir)["f.txt"]; got != "0\n" {
		t.Fatalf("after forced undo f.txt = %q", got)
	}
	if _, err := w.Undo(ctx, UndoOptions{ID: res.TransactionID}); err != nil {
		t.Fatalf("undo of the forced undo: %v", err)
	}
	if got := readTree(t, dir)["f.txt"]; got != "edited by hand\n" {
		t.Fatalf("the forced undo lost the hand edit: %q", got)
	}
}

func TestDryRunWritesNothing(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.txt": "a\n"})
	w := openWS(t, dir, nil)
	res := run(t, w, `{"dry_run":true,"fileEdits":[{"path":"a.txt","edits":[{"command":"append","new_str":"b"}]},{"path":"n/new.txt","edits":[{"command":"create","file_text":"x\n"}]}]}`)
	if !res.Success || !res.DryRun || res.TransactionID != "" || res.FilesModified != 2 {
		t.Fatalf("dry run result: %+v", res)
	}
	if *res.Files[0].WouldModify != true || !strings.Contains(res.Files[0].Preview, "+b") {
		t.Errorf("file preview: %+v", res.Files[0])
	}
	if !strings.Contains(res.Diff, "--- /dev/null\n+++ b/n/new.txt") {
		t.Errorf("diff:\n%s", res.Diff)
	}
	if got := readTree(t, dir); treeString(got) != "a.txt=a\n\n" {
		t.Errorf("dry run changed the tree:\n%s", treeString(got))
	}
	if _, err := os.Stat(filepath.Join(dir, ".txedit")); err == nil {
		t.Error("dry run created the journal")
	}
}

func TestApplyKeepsModeAndSymlinks(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"bin/run.sh": "#!/bin/sh\necho hi\n", "real/target.txt": "t\n", "real/other.txt": "o\n"})
	os.Chmod(filepath.Join(dir, "bin/run.sh"), 0o754)
	os.Symlink("real/target.txt", filepath.Join(dir, "link.txt"))
	os.Symlink("real", filepath.Join(dir, "dirlink"))
	w := openWS(t, dir, nil)
	res := run(t, w, `{"fileEdits":[
		{"path":"bin/run.sh","edits":[{"command":"str_replace","old_str":"hi","new_str":"hello"}]},
		{"path":"link.txt","edits":[{"command":"append","new_str":"via link"}]},
		{"path":"dirlink/other.txt","edits":[{"command":"append","new_str":"via dir link"}]}]}`)
	if !res.Success {
		t.Fatalf("%+v", res)
	}
	if fi, _ := os.Stat(filepath.Join(dir, "bin/run.sh")); fi.Mode().Perm() != 0o754 {
		t.Errorf("mode = %v, want 0754", fi.Mode().Perm())
	}
	if fi, _ := os.Lstat(filepath.Join(dir, "link.txt")); fi.Mode()&os.ModeSymlink == 0 {
		t.Error("link.txt is no longer a symlink")
	}
	if got := readTree(t, dir); got["real/target.txt"] != "t\nvia link\n" || got["real/other.txt"] != "o\nvia dir link\n" {
		t.Errorf("targets: %s", treeString(got))
	}
	// The same file named twice through links is one file.
	res = run(t, w, `{"fileEdits":[{"path":"link.txt","edits":[{"command":"append","new_str":"1"}]},{"path":"real/target.txt","edits":[{"command":"append","new_str":"2"}]}]}`)
	if res.Success || res.Code != plan.CodeInvalidRequest {
		t.Errorf("one file named twice: %+v", res)
	}
}

func TestConfinementAndRefusals(t *testing.T) {
	outside := t.TempDir()
	writeTree(t, outside, map[string]string{"secret.txt": "secret\n"})
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"ok.txt": "ok\n", ".git/config": "[core]\n", "hard.txt": "h\n"})
	os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "abs-escape"))
	os.Symlink("../"+filepath.Base(outside)+"/secret.txt", filepath.Join(dir, "rel-escape"))
	os.Symlink(outside, filepath.Join(dir, "dir-escape"))
	os.Symlink("nowhere.txt", filepath.Join(dir, "dangling"))
	os.Link(filepath.Join(dir, "hard.txt"), filepath.Join(dir, "hard2.txt"))
	if err := mkfifo(filepath.Join(dir, "fifo")); err != nil {
		t.Fatal(err)
	}
	w := openWS(t, dir, &Options{DenyWrite: []string{"*.lock"}})
	tests := []struct {
		path string
		cmd  string
		code plan.Code
	}{
		{"../x.txt", `"command":"create","file_text":"x"`, plan.CodeOutsideRoot},
		{"a/../../x.txt", `"command":"create","file_text":"x"`, plan.CodeOutsideRoot},
		{filepath.Join(outside, "secret.txt"), `"command":"append","new_str":"x"`, plan.CodeOutsideRoot},
		{"abs-escape", `"command":"append","new_str":"x"`, plan.CodeOutsideRoot},
		{"rel-escape", `"command":"append","new_str":"x"`, plan.CodeOutsideRoot},
		{"dir-escape/secret.txt", `"command":"append","new_str":"x"`, plan.CodeOutsideRoot},
		{"dir-escape/new.txt", `"command":"create","file_text":"x"`, plan.CodeOutsideRoot},
		{"dangling", `"command":"create","file_text":"x"`, plan.CodeDenied},
		{"fifo", `"command":"append","new_str":"x"`, plan.CodeNotRegular},
		{"hard.txt", `"command":"append","new_str":"x"`, plan.CodeDenied},
		{".git/config", `"command":"append","new_str":"x"`, plan.CodeDenied},
		{".txedit/LOCK", `"command":"create","file_text":"x"`, plan.CodeDenied},
		{"yarn.lock", `"command":"create","file_text":"x"`, plan.CodeDenied},
		{"ok.txt/inner", `"command":"create","file_text":"x"`, plan.CodeFileNotFound},
		{".", `"command":"create","file_text":"x"`, plan.CodeNotRegular},
	}
	for _, tc := range tests {
		js, _ := json.Marshal(tc.path)
		res := run(t, w, `{"path":`+string(js)+`,`+tc.cmd+`}`)
		if res.Success || res.Code != tc.code {
			t.Errorf("%s: success=%v code=%q (%s), want %q", tc.path, res.Success, res.Code, res.Error, tc.code)
		}
	}
	if got := readTree(t, outside); got["secret.txt"] != "secret\n" || len(got) != 1 {
		t.Errorf("outside the root changed: %s", treeString(got))
	}
	if _, err := os.Lstat(filepath.Join(dir, "nowhere.txt")); err == nil {
		t.Error("create through a dangling link wrote its target")
	}
	// Moves and copies never overwrite.
	res := run(t, w, `{"path":"ok.txt","command":"copy","new_path":"hard.txt"}`)
	if res.Success || res.Code != plan.CodeConflict {
		t.Errorf("copy onto an existing file: %+v", res)
	}
	// A read-only workspace refuses every write, undo, recovery and gc.
	// (Permission modes and approval are the toolsets' business: see
	// package tools.)
	ro := openWS(t, dir, &Options{ReadOnly: true})
	if res := run(t, ro, `{"path":"ok.txt","command":"append","new_str":"x"}`); res.Success || res.Code != plan.CodeDenied {
		t.Errorf("read-only: %+v", res)
	}
	if res, _ := ro.Undo(context.Background(), UndoOptions{}); res.Success || res.Code != plan.CodeDenied {
		t.Errorf("read-only undo: %+v", res)
	}
	if _, err := ro.GC(context.Background()); plan.CodeOf(err) != plan.CodeDenied {
		t.Errorf("read-only gc: %v", err)
	}
	if _, err := ro.Recover(context.Background()); plan.CodeOf(err) != plan.CodeDenied {
		t.Errorf("read-only recover: %v", err)
	}
	if got := readTree(t, dir)["ok.txt"]; got != "ok\n" {
		t.Errorf("ok.txt = %q", got)
	}
}

func TestStaleHashAndConcurrentWriters(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"c.txt": "0\n"})
	w1 := openWS(t, dir, nil)
	w2 := openWS(t, dir, nil)
	h := hash.Of([]byte("0\n")).String()
	req := `{"fileEdits":[{"path":"c.txt","content_hash":"` + h + `","edits":[{"command":"replace_lines","start_line":1,"end_line":1,"new_str":"1"}]}]}`
	if res := run(t, w1, req); !res.Success {
		t.Fatalf("first writer: %+v", res)
	}
	res := run(t, w2, req)
	if res.Success || res.Code != plan.CodeStaleHash || res.Files[0].FailedEdits[0].CurrentHash != hash.Of([]byte("1\n")).String() {
		t.Fatalf("second writer with a stale hash: %+v %+v", res, res.Files[0].FailedEdits)
	}
}

// TestSingleFormContentHash: the single-file form's content_hash is the
// file's precondition, as fs_write's schema says, for every command: a
// str_replace with the hash the read returned applies, one with a stale
// hash is refused with stale_hash, and an insert keeps its own line-range
// token. It was refused as "str_replace does not take content_hash".
func TestSingleFormContentHash(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"c.txt": "0\nx\n"})
	w := openWS(t, dir, nil)
	h0 := hash.Of([]byte("0\nx\n")).String()
	if res := run(t, w, `{"command":"str_replace","path":"c.txt","old_str":"0","new_str":"1","content_hash":"`+h0+`"}`); !res.Success {
		t.Fatalf("str_replace with the read's hash: %+v", res)
	}
	res := run(t, w, `{"command":"str_replace","path":"c.txt","old_str":"x","new_str":"y","content_hash":"`+h0+`"}`)
	if res.Success || res.Code != plan.CodeStaleHash {
		t.Fatalf("str_replace with a stale hash: %+v", res)
	}
	if got := readTree(t, dir)["c.txt"]; got != "1\nx\n" {
		t.Fatalf("c.txt = %q", got)
	}
	h1 := hash.Of([]byte("1\nx\n")).String()
	if res := run(t, w, `{"command":"delete","path":"c.txt","content_hash":"`+h1+`"}`); !res.Success {
		t.Fatalf("delete with the read's hash: %+v", res)
	}
}

// TestUndoIDErrors: a transaction id that matches nothing is
// file_not_found and one that matches several an invalid_request (it said
// file_not_found too); both keep the journal's error for errors.Is, and
// show answers alike.
func TestUndoIDErrors(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"f.txt": "0\n"})
	w := openWS(t, dir, nil)
	for _, v := range []string{"1", "2"} {
		if res := run(t, w, `{"command":"create","path":"f.txt","file_text":"`+v+`\n"}`); !res.Success {
			t.Fatalf("create %s: %+v", v, res)
		}
	}
	ctx := context.Background()
	for _, c := range []struct {
		id   string
		code plan.Code
		is   error
	}{{"zzz", plan.CodeFileNotFound, journal.ErrUnknownTxn}, {"2", plan.CodeInvalidRequest, journal.ErrAmbiguousTxn}} {
		_, err := w.Undo(ctx, UndoOptions{ID: c.id})
		_, _, serr := w.Show(ctx, c.id)
		for _, e := range []error{err, serr} {
			if plan.CodeOf(e) != c.code || !errors.Is(e, c.is) {
				t.Errorf("id %q: %v (code %s), want %s wrapping %v", c.id, e, plan.CodeOf(e), c.code, c.is)
			}
		}
	}
}
