package engine

import (
	"context"
	"github.com/txedit/txedit/journal"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/txedit/txedit/apply/patch"
	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/fsys/faultfs"
	"github.com/txedit/txedit/plan"
)

// lspEdit compiles a WorkspaceEdit (with @ standing for the root's file
// URI) against w.
func lspEdit(t *testing.T, w *Workspace, dir, edit string, o patch.LSPOptions) (*plan.Request, error) {
	t.Helper()
	o.Tree = w.Tree()
	req, _, err := patch.CompileLSP([]byte(strings.ReplaceAll(edit, "@", "file://"+dir)), o)
	return req, err
}

func rng(l1, c1, l2, c2 int) string {
	return `{"start":{"line":` + itoa(l1) + `,"character":` + itoa(c1) + `},"end":{"line":` + itoa(l2) + `,"character":` + itoa(c2) + `}}`
}

// lspHandTree is the tree of the hand-checked WorkspaceEdit below, before
// and after it (checked by hand: each change is spelled out beside it).
var (
	lspHandBefore = map[string]string{
		"emoji.go":          "package p\n\nvar s = \"😀\"; var foo = 1\n",
		"crlf.txt":          "one\r\ntwo\r\nthree\r\n",
		"ins.txt":           "x\n",
		"ren/a.txt":         "alpha\n",
		"gone/f1.txt":       "1\n",
		"gone/sub/f2.txt":   "2\n",
		"gone/empty/":       "",
		"my dir/n a.txt":    "name\n",
		"keep/untouched.go": "package keep\n",
	}
	lspHandAfter = map[string]string{
		// foo is at UTF-16 characters 18-21: the emoji counts two (as code
		// points it would be 17-20, as bytes 20-23).
		"emoji.go": "package p\n\nvar s = \"😀\"; var bar = 1\n",
		// line 1 of a CRLF file replaced whole; the line end kept.
		"crlf.txt": "one\r\nTWO\r\nthree\r\n",
		// three inserts at 0:1 in array order, one at 0:0 before them.
		"ins.txt": "<x123\n",
		// edited, renamed into a new directory, edited at the new name.
		"ren2/b.txt": "ALPHA beta\n",
		// a percent-decoded URI.
		"my dir/n a.txt":    "NAME\n",
		"keep/untouched.go": "package keep\n",
		"keep/":             "", "my dir/": "",
		"ren2/": "",
		// ren/ stays: a rename leaves its directory; gone/ went whole.
		"ren/": "",
	}
)

const lspHandEdit = `{"documentChanges":[
	{"textDocument":{"uri":"@/emoji.go","version":null},"edits":[{"range":` + "RNG_EMOJI" + `,"newText":"bar"}]},
	{"textDocument":{"uri":"@/crlf.txt","version":0},"edits":[{"range":` + "RNG_CRLF" + `,"newText":"TWO"}]},
	{"textDocument":{"uri":"@/ins.txt","version":null},"edits":[
		{"range":` + "RNG_01" + `,"newText":"1"},{"range":` + "RNG_01" + `,"newText":"2"},{"range":` + "RNG_00" + `,"newText":"<"},{"range":` + "RNG_01" + `,"newText":"3"}]},
	{"textDocument":{"uri":"@/ren/a.txt","version":null},"edits":[{"range":` + "RNG_A" + `,"newText":"ALPHA"}]},
	{"kind":"rename","oldUri":"@/ren/a.txt","newUri":"@/ren2/b.txt"},
	{"textDocument":{"uri":"@/ren2/b.txt","version":null},"edits":[{"range":` + "RNG_B" + `,"newText":" beta"}]},
	{"kind":"delete","uri":"@/gone","options":{"recursive":true}},
	{"textDocument":{"uri":"@/my%20dir/n%20a.txt","version":null},"edits":[{"range":` + "RNG_A4" + `,"newText":"NAME"}]}
]}`

func handEdit() string {
	return strings.NewReplacer("RNG_EMOJI", rng(2, 18, 2, 21), "RNG_CRLF", rng(1, 0, 1, 99), "RNG_01", rng(0, 1, 0, 1), "RNG_00", rng(0, 0, 0, 0),
		"RNG_A4", rng(0, 0, 0, 4), "RNG_A", rng(0, 0, 0, 5), "RNG_B", rng(0, 5, 0, 5)).Replace(lspHandEdit)
}

// TestWorkspaceEditHandChecked applies a WorkspaceEdit with an emoji
// before the identifier, a CRLF file, same-position inserts, a RenameFile
// followed by an edit of the renamed file and a DeleteFile of a
// directory, checks every byte of the tree against the hand-checked
// result, and that one undo restores every file and directory.
func TestWorkspaceEditHandChecked(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, lspHandBefore)
	before := readTree(t, dir)
	w := openWS(t, dir, &Options{Durability: NotDurable})
	req, err := lspEdit(t, w, dir, handEdit(), patch.LSPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	preview := *req
	preview.DryRun = true
	if res, _ := w.Apply(context.Background(), &preview); !res.Success || res.FilesModified != 7 || treeString(readTree(t, dir)) != treeString(before) {
		t.Fatalf("dry run: %+v", res)
	}
	res, _ := w.Apply(context.Background(), req)
	if !res.Success || res.TransactionID == "" {
		t.Fatalf("apply: %+v", res)
	}
	if got, want := treeString(readTree(t, dir)), treeString(lspHandAfter); got != want {
		t.Fatalf("after the edit:\n%s\nwant:\n%s", got, want)
	}
	if res, _ := w.Undo(context.Background(), UndoOptions{}); !res.Success {
		t.Fatalf("undo: %+v", res)
	}
	if got := treeString(readTree(t, dir)); got != treeString(before) {
		t.Fatalf("after one undo:\n%s\nwant:\n%s", got, treeString(before))
	}
}

// TestWorkspaceEditRefusedWritesNothing: an edit refused in one file (a
// position inside a surrogate pair, overlapping edits) writes none of the
// others.
func TestWorkspaceEditRefusedWritesNothing(t *testing.T) {
	for _, tc := range []struct {
		name, edits string
		code        plan.Code
	}{
		{"inside a surrogate pair", `{"range":` + rng(2, 10, 2, 10) + `,"newText":"x"}`, plan.CodeInvalidRequest},
		{"overlapping", `{"range":` + rng(2, 0, 2, 5) + `,"newText":"x"},{"range":` + rng(2, 3, 2, 8) + `,"newText":"y"}`, plan.CodeOverlappingEdits},
	} {
		dir := t.TempDir()
		writeTree(t, dir, lspHandBefore)
		before := treeString(readTree(t, dir))
		w := openWS(t, dir, &Options{Durability: NotDurable})
		edit := `{"documentChanges":[{"textDocument":{"uri":"@/crlf.txt","version":null},"edits":[{"range":` + rng(0, 0, 0, 3) + `,"newText":"ONE"}]},
			{"kind":"rename","oldUri":"@/ins.txt","newUri":"@/ins2.txt"},
			{"textDocument":{"uri":"@/emoji.go","version":null},"edits":[` + tc.edits + `]}]}`
		req, err := lspEdit(t, w, dir, edit, patch.LSPOptions{})
		if err != nil {
			t.Fatal(err)
		}
		res, _ := w.Apply(context.Background(), req)
		if res.Success || res.Code != tc.code {
			t.Errorf("%s: got %s %s", tc.name, res.Code, res.Error)
		}
		if got := treeString(readTree(t, dir)); got != before {
			t.Errorf("%s: refused, yet the tree changed:\n%s", tc.name, got)
		}
	}
}

// TestWorkspaceEditDirectoryRename renames a directory (gopls's package
// rename moves with RenameMovesSubpackages): its files move with their
// edits, its directories are made with their modes and the old ones
// removed; undo brings the tree back, modes too.
func TestWorkspaceEditDirectoryRename(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"pkg/a.go": "package pkg\n", "pkg/sub/b.go": "package sub\n", "pkg/empty/": "", "main.go": "import \"m/pkg\"\n"})
	os.Chmod(filepath.Join(dir, "pkg/sub"), 0o700)
	before := treeString(readTree(t, dir))
	w := openWS(t, dir, &Options{Durability: NotDurable})
	req, err := lspEdit(t, w, dir, `{"documentChanges":[
		{"textDocument":{"uri":"@/pkg/a.go","version":0},"edits":[{"range":`+rng(0, 8, 0, 11)+`,"newText":"lib"}]},
		{"textDocument":{"uri":"@/main.go","version":0},"edits":[{"range":`+rng(0, 10, 0, 13)+`,"newText":"lib"}]},
		{"kind":"rename","oldUri":"@/pkg","newUri":"@/lib"}]}`, patch.LSPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res, _ := w.Apply(context.Background(), req); !res.Success {
		t.Fatalf("apply: %+v", res)
	}
	want := map[string]string{"lib/": "", "lib/a.go": "package lib\n", "lib/sub/": "", "lib/sub/b.go": "package sub\n", "lib/empty/": "", "main.go": "import \"m/lib\"\n"}
	if got := treeString(readTree(t, dir)); got != treeString(want) {
		t.Fatalf("after:\n%s\nwant:\n%s", got, treeString(want))
	}
	if fi, err := os.Stat(filepath.Join(dir, "lib/sub")); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("lib/sub: %v %v, want its old mode 0700", fi.Mode(), err)
	}
	if res, _ := w.Undo(context.Background(), UndoOptions{}); !res.Success {
		t.Fatalf("undo: %+v", res)
	}
	if got := treeString(readTree(t, dir)); got != before {
		t.Fatalf("after undo:\n%s\nwant:\n%s", got, before)
	}
	if fi, err := os.Stat(filepath.Join(dir, "pkg/sub")); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("pkg/sub after undo: %v %v, want 0700", fi.Mode(), err)
	}
}

// TestWorkspaceEditIsNotReplanned: a file changed between planning and
// the commit is refused as stale, not edited at the old positions on the
// new bytes (a str_replace would be planned again: it finds its text).
func TestWorkspaceEditIsNotReplanned(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.txt": "hello world\n"})
	w := openWS(t, dir, &Options{Durability: NotDurable})
	req, err := lspEdit(t, w, dir, `{"changes":{"@/a.txt":[{"range":`+rng(0, 6, 0, 11)+`,"newText":"there"}]}}`, patch.LSPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	testHookBeforeCommit = func() { os.WriteFile(filepath.Join(dir, "a.txt"), []byte("# hi\nhello world\n"), 0o644) }
	defer func() { testHookBeforeCommit = nil }()
	res, _ := w.Apply(context.Background(), req)
	if res.Success || res.Code != plan.CodeStaleHash {
		t.Errorf("got %+v, want stale_hash", res)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(data) != "# hi\nhello world\n" {
		t.Errorf("a.txt = %q: the other writer's version must stay", data)
	}
}

// TestWorkspaceEditFaultAfterThreeOfFive injects a failure into the
// commit of a five-file WorkspaceEdit right after the third file was put
// in place (the rename of the fourth), as an I/O error and as a crash:
// every file is old afterwards (rolled back, or recovered).
func TestWorkspaceEditFaultAfterThreeOfFive(t *testing.T) {
	files := map[string]string{}
	var changes []string
	for i := 1; i <= 5; i++ {
		name := "f" + itoa(i) + ".txt"
		files[name] = "old " + itoa(i) + "\n"
		changes = append(changes, `"@/`+name+`":[{"range":`+rng(0, 0, 0, 3)+`,"newText":"new"}]`)
	}
	edit := `{"changes":{` + strings.Join(changes, ",") + `}}`
	// A clean run, recorded, finds the fourth rename into place.
	dir := t.TempDir()
	writeTree(t, dir, files)
	rec := &faultfs.FS{Record: true}
	res := lspFaultApply(t, dir, rec, edit)
	if res == nil || !res.Success {
		t.Fatalf("clean run: %+v", res)
	}
	at, renames := 0, 0
	for i, c := range rec.Calls {
		if isPlacing(c) {
			if renames++; renames == 4 {
				at = i + 1
				break
			}
		}
	}
	if at == 0 {
		t.Fatalf("no fourth rename into place among %d calls:\n%s", len(rec.Calls), strings.Join(rec.Calls, "\n"))
	}
	t.Logf("the fourth file goes in place at call %d: %s", at, rec.Calls[at-1])
	for _, mode := range []faultfs.Mode{faultfs.ModeError, faultfs.ModeCrash} {
		dir := t.TempDir()
		writeTree(t, dir, files)
		old := readTree(t, dir)
		ffs := &faultfs.FS{FailAt: at, Mode: mode}
		res := lspFaultApply(t, dir, ffs, edit)
		if mode == faultfs.ModeError && (res == nil || res.Success) {
			t.Errorf("EIO at call %d (%s): the edit succeeded: %+v", at, rec.Calls[at-1], res)
		}
		if !ffs.Tripped && !ffs.Dead() {
			t.Errorf("mode %d: the fault at call %d never fired", mode, at)
		}
		if mode == faultfs.ModeError {
			// Rolled back by the failed commit itself, before any
			// recovery runs.
			if got := treeString(readTree(t, dir)); got != treeString(old) {
				t.Errorf("EIO at %s: right after the failure, not all five old:\n%s", rec.Calls[at-1], got)
			}
		}
		if committed := checkCrashInvariant(t, dir, old, nil, "fault"); committed {
			t.Errorf("mode %d: a transaction committed", mode)
		}
		if got := treeString(readTree(t, dir)); got != treeString(old) {
			t.Errorf("mode %d, fault at %s: not all five old:\n%s", mode, rec.Calls[at-1], got)
		}
	}
}

// isPlacing reports whether a recorded call puts a staged file in place
// (an exchange or a rename onto the target).
func isPlacing(call string) bool {
	return (strings.HasPrefix(call, "exchange ") || strings.HasPrefix(call, "rename ")) && strings.HasSuffix(call, ".txt") && !strings.Contains(call, ".txedit/")
}

// lspFaultApply is faultApply for a WorkspaceEdit.
func lspFaultApply(t *testing.T, dir string, ffs *faultfs.FS, edit string) (res *plan.Result) {
	inner, err := fsys.NewOS(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer inner.Close()
	ffs.Inner = inner
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(faultfs.Crash); !ok {
				panic(r)
			}
		}
	}()
	// TimestampSlack: the tree just written is trusted by its identity in
	// the recorded run and the faulted ones alike (as faultApply's), so
	// that the calls are the same however loaded the machine is.
	w, err := Open(dir, &Options{FS: ffs, Keys: journal.UserKeys(), Durability: NotDurable, TimestampSlack: -time.Hour})
	if err != nil {
		return nil
	}
	defer w.Close()
	req, err := lspEdit(t, w, dir, edit, patch.LSPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, _ = w.Apply(context.Background(), req)
	return res
}

// TestWorkspaceEditSymlinks: an edit through a link edits its target
// (the link stays a link); a rename or delete of a link is refused, since
// a write would move or delete the file it points to.
func TestWorkspaceEditSymlinks(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.txt": "abc\n"})
	os.Symlink("a.txt", filepath.Join(dir, "l.txt"))
	w := openWS(t, dir, &Options{Durability: NotDurable})
	req, err := lspEdit(t, w, dir, `{"changes":{"@/l.txt":[{"range":`+rng(0, 0, 0, 1)+`,"newText":"A"}]}}`, patch.LSPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res, _ := w.Apply(context.Background(), req); !res.Success {
		t.Fatalf("edit through the link: %+v", res)
	}
	if got := readTree(t, dir); got["a.txt"] != "Abc\n" || got["l.txt"] != "-> a.txt" {
		t.Errorf("after the edit: %v", got)
	}
	for _, op := range []string{`{"kind":"delete","uri":"@/l.txt"}`, `{"kind":"rename","oldUri":"@/l.txt","newUri":"@/m.txt"}`} {
		if _, err := lspEdit(t, w, dir, `{"documentChanges":[`+op+`]}`, patch.LSPOptions{}); plan.CodeOf(err) != plan.CodeNotRegular || !strings.Contains(err.Error(), "is a symlink") {
			t.Errorf("%s: got %v", op, err)
		}
	}
}
