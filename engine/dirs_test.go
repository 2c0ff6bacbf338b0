package engine

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txedit/txedit/plan"
)

// undoOnce undoes the newest transaction (or redoes, with redo) and fails
// the test if that fails.
func undoOnce(t *testing.T, w *Workspace, redo bool) {
	t.Helper()
	res, err := w.Undo(context.Background(), UndoOptions{Redo: redo})
	if err != nil || !res.Success {
		t.Fatalf("undo (redo %v): %v %+v", redo, err, res)
	}
}

func wantTree(t *testing.T, dir, label string, want map[string]string) {
	t.Helper()
	if got := treeString(readTree(t, dir)); got != treeString(want) {
		t.Fatalf("%s: tree\n%s\nwant\n%s", label, got, treeString(want))
	}
}

// TestMakeDir: create_directory's engine side. A directory and its
// missing parents are one transaction; undo removes them, redo makes them
// again; an existing directory is success without a transaction; a file
// in the way is a conflict and nothing is made.
func TestMakeDir(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a/f.txt": "f\n"})
	w := openWS(t, dir, nil)
	before := map[string]string{"a/": "", "a/f.txt": "f\n"}
	after := map[string]string{"a/": "", "a/f.txt": "f\n", "a/b/": "", "a/b/c/": ""}

	res, err := w.MakeDir(ctx, "a/b/c")
	if err != nil || !res.Success || res.TransactionID == "" {
		t.Fatalf("MakeDir: %v %+v", err, res)
	}
	wantTree(t, dir, "made", after)
	log, _ := w.Log(ctx, LogOptions{Limit: 1})
	if len(log) != 1 || log[0].Summary != "create directory a/b/c" {
		t.Fatalf("log: %+v", log[0])
	}

	res, err = w.MakeDir(ctx, "a/b")
	if err != nil || !res.Success || res.TransactionID != "" {
		t.Fatalf("MakeDir of an existing directory: %v %+v (want success, no transaction)", err, res)
	}

	undoOnce(t, w, false)
	wantTree(t, dir, "undone", before)
	undoOnce(t, w, true)
	wantTree(t, dir, "redone", after)

	res, err = w.MakeDir(ctx, "a/f.txt")
	if err == nil || res.Success || plan.CodeOf(err) != plan.CodeConflict {
		t.Fatalf("MakeDir of a file: %v %+v, want conflict", err, res)
	}
	res, err = w.MakeDir(ctx, "a/f.txt/x")
	if err == nil || res.Success || plan.CodeOf(err) != plan.CodeFileNotFound {
		t.Fatalf("MakeDir through a file: %v %+v, want file_not_found", err, res)
	}
	res, err = w.MakeDir(ctx, "../out")
	if plan.CodeOf(err) != plan.CodeOutsideRoot {
		t.Fatalf("MakeDir outside: %v %+v", err, res)
	}
	wantTree(t, dir, "after refusals", after)
}

// TestMoveDirectory: a directory with files, a subdirectory and an empty
// subdirectory moves as one transaction, modes of its directories kept;
// the directory it leaves keeps its parent (as rename does); undo brings
// back every file and directory, the empty one and its mode too; redo
// moves it again.
func TestMoveDirectory(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"p/src/f.txt": "f\n", "p/src/sub/g.txt": "g\n", "p/src/empty/": "", "dst/": ""})
	if err := os.Chmod(filepath.Join(dir, "p/src/empty"), 0o700); err != nil {
		t.Fatal(err)
	}
	w := openWS(t, dir, nil)
	before := readTree(t, dir)
	after := map[string]string{"p/": "", "dst/": "", "dst/d/": "", "dst/d/f.txt": "f\n", "dst/d/sub/": "", "dst/d/sub/g.txt": "g\n", "dst/d/empty/": ""}
	mode := func(p string) fs.FileMode {
		t.Helper()
		fi, err := os.Lstat(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		return fi.Mode().Perm()
	}

	res, err := w.Move(ctx, "p/src", "dst/d")
	if err != nil || !res.Success {
		t.Fatalf("Move: %v %+v", err, res)
	}
	wantTree(t, dir, "moved", after)
	if m := mode("dst/d/empty"); m != 0o700 {
		t.Errorf("the moved empty directory has mode %v, want 0700", m)
	}
	undoOnce(t, w, false)
	wantTree(t, dir, "undone", before)
	if m := mode("p/src/empty"); m != 0o700 {
		t.Errorf("the empty directory came back with mode %v, want 0700", m)
	}
	undoOnce(t, w, true)
	wantTree(t, dir, "redone", after)
}

// TestMoveDirectoryRefusals: what a directory move refuses writes nothing.
func TestMoveDirectoryRefusals(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"d/f.txt": "f\n", "d/sub/g.txt": "g\n", "taken/": "", "l/x": "x\n"})
	if err := os.Symlink("x", filepath.Join(dir, "l/link")); err != nil {
		t.Fatal(err)
	}
	w := openWS(t, dir, nil)
	before := treeString(readTree(t, dir))
	for _, c := range []struct {
		src, dst string
		code     plan.Code
	}{
		{"d", "taken", plan.CodeConflict},
		{"d", "d/sub/inner", plan.CodeInvalidRequest},
		{"l", "l2", plan.CodeNotRegular},
		{"missing", "m2", plan.CodeFileNotFound},
		{".", "elsewhere", plan.CodeInvalidRequest},
		{"d", "../out", plan.CodeOutsideRoot},
	} {
		res, err := w.Move(ctx, c.src, c.dst)
		if res.Success || plan.CodeOf(err) != c.code {
			t.Errorf("Move(%s, %s) = %v %+v, want %s", c.src, c.dst, err, res, c.code)
		}
	}
	if got := treeString(readTree(t, dir)); got != before {
		t.Fatalf("a refused move changed the tree:\n%s", got)
	}
}

// TestMoveOnlyDirectories: a directory holding only directories is a
// transaction of directories alone, undone as one.
func TestMoveOnlyDirectories(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a/b/c/": "", "keep.txt": "k\n"})
	w := openWS(t, dir, nil)
	before := readTree(t, dir)
	if res, err := w.Move(ctx, "a", "z"); err != nil || !res.Success || res.TransactionID == "" {
		t.Fatalf("Move: %v %+v", err, res)
	}
	wantTree(t, dir, "moved", map[string]string{"z/": "", "z/b/": "", "z/b/c/": "", "keep.txt": "k\n"})
	undoOnce(t, w, false)
	wantTree(t, dir, "undone", before)
}

// TestMoveNeedsNoRead: a session moves a file it has not read (a move
// changes no bytes); it still has to read the moved file before changing
// it at its new name; a file it had read it may change there.
func TestMoveNeedsNoRead(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.txt": "a\n", "b.txt": "b\n", "sub/": ""})
	s := openWS(t, dir, nil).NewSession(SessionOptions{Agent: "t"})
	if res, err := s.Move(ctx, "a.txt", "sub/a.txt"); err != nil || !res.Success {
		t.Fatalf("move of an unread file: %v %+v", err, res)
	}
	res, _ := s.Apply(ctx, mustParse(t, `{"command":"str_replace","path":"sub/a.txt","old_str":"a","new_str":"A"}`))
	if res.Code != plan.CodeNotRead {
		t.Fatalf("an edit of a moved, unread file: %+v, want not_read", res)
	}
	if _, err := s.ReadBytes(ctx, "b.txt"); err != nil {
		t.Fatal(err)
	}
	if res, err := s.Move(ctx, "b.txt", "sub/b.txt"); err != nil || !res.Success {
		t.Fatalf("move: %v %+v", err, res)
	}
	res, _ = s.Apply(ctx, mustParse(t, `{"command":"str_replace","path":"sub/b.txt","old_str":"b","new_str":"B"}`))
	if !res.Success {
		t.Fatalf("an edit of a moved file the session had read: %+v", res)
	}
	wantTree(t, dir, "end", map[string]string{"sub/": "", "sub/a.txt": "a\n", "sub/b.txt": "B\n"})
}

// TestUndoKeepsDirectoriesItDidNotMake: undoing a file created in a
// directory that existed before leaves that directory, empty.
func TestUndoKeepsDirectoriesItDidNotMake(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"existing/": "", "k.txt": "k\n"})
	w := openWS(t, dir, nil)
	if res := run(t, w, `{"command":"create","path":"existing/new.txt","file_text":"n\n"}`); !res.Success {
		t.Fatalf("create: %+v", res)
	}
	undoOnce(t, w, false)
	wantTree(t, dir, "undone", map[string]string{"existing/": "", "k.txt": "k\n"})
}

// TestDryRunNeedsNoRead: a preview of a change to a file the session has
// not read shows the diff (it writes nothing, so it loses nothing); the
// same request for real is refused with not_read.
func TestDryRunNeedsNoRead(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.txt": "one\n"})
	s := openWS(t, dir, nil).NewSession(SessionOptions{Agent: "t"})
	ctx := context.Background()
	res, _ := s.Apply(ctx, mustParse(t, `{"command":"str_replace","path":"a.txt","old_str":"one","new_str":"two","dry_run":true}`))
	if !res.Success || len(res.Files) != 1 || !strings.Contains(res.Files[0].Preview, "+two") {
		t.Fatalf("dry run of an unread file: %+v", res)
	}
	res, _ = s.Apply(ctx, mustParse(t, `{"command":"str_replace","path":"a.txt","old_str":"one","new_str":"two"}`))
	if res.Success || res.Code != plan.CodeNotRead {
		t.Fatalf("the same for real: %+v, want not_read", res)
	}
	wantTree(t, dir, "after", map[string]string{"a.txt": "one\n"})
}
