package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/txedit/txedit/fsys/memfs"
	"github.com/txedit/txedit/journal"
	"github.com/txedit/txedit/plan"
)

// TestUndoNeverWritesUnderGit: undo and redo never write git's own files
// (a hook or a config is code git runs), even in a workspace where writes
// there are allowed: an undo puts back what a journal says.
func TestUndoNeverWritesUnderGit(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".git/hooks"), 0o755)
	os.WriteFile(filepath.Join(dir, ".git/hooks/pre-commit"), []byte("#!/bin/sh\n"), 0o755)
	w := openWS(t, dir, &Options{AllowGit: true, Durability: NotDurable})
	ctx := context.Background()
	if res, err := w.Apply(ctx, mustParse(t, `{"fileEdits":[{"path":".git/hooks/pre-commit","edits":[{"command":"delete"}]}]}`)); err != nil || !res.Success {
		t.Fatalf("delete: %v %+v", err, res)
	}
	res, err := w.Undo(ctx, UndoOptions{})
	if err == nil || res.Code != plan.CodeDenied || !strings.Contains(res.Error, ".git") {
		t.Errorf("undo: %v %+v", err, res)
	}
	if _, err := os.Lstat(filepath.Join(dir, ".git/hooks/pre-commit")); err == nil {
		t.Error("undo wrote .git/hooks/pre-commit")
	}
}

// TestInMemoryJournalKeys: an in-memory workspace keeps its journal's key
// in the store it is given (or the process's); a memfs that arrives with
// a journal in it (loaded from elsewhere) is foreign.
func TestInMemoryJournalKeys(t *testing.T) {
	ctx := context.Background()
	keys := journal.NewKeys(memfs.New(nil), "a test's store")
	mem := memfs.New(map[string]string{"a.txt": "one\n"})
	w, err := Open("/mem", &Options{FS: mem, Keys: keys})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := w.Apply(ctx, mustParse(t, `{"command":"str_replace","path":"a.txt","old_str":"one","new_str":"two"}`)); err != nil || !res.Success {
		t.Fatalf("apply: %v %+v", err, res)
	}
	if res, err := w.Undo(ctx, UndoOptions{}); err != nil || !res.Success {
		t.Fatalf("undo: %v %+v", err, res)
	}
	w.Close()
	// The same files, loaded into another memfs with another store: the
	// journal came from elsewhere.
	other := memfs.New(mem.Files())
	w2, err := Open("/mem", &Options{FS: other, Keys: journal.NewKeys(memfs.New(nil), "another store")})
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Close()
	res, err := w2.Apply(ctx, mustParse(t, `{"command":"str_replace","path":"a.txt","old_str":"one","new_str":"three"}`))
	if err == nil || res.Code != plan.CodeUntrustedJournal {
		t.Errorf("a write beside a journal from elsewhere: %v %+v", err, res)
	}
	if res, err := w2.Undo(ctx, UndoOptions{Redo: true}); err == nil || res.Code != plan.CodeUntrustedJournal {
		t.Errorf("redo in a journal from elsewhere: %v %+v", err, res)
	}
	st, err := w2.JournalStatus(ctx)
	if err != nil || st.Standing != journal.Foreign {
		t.Errorf("JournalStatus: %v %+v", err, st)
	}
}

// TestUndoNeverGivesAFileAway: a deleted file that undo brings back gets
// its recorded owner only where that owner owns the directory it goes
// into; elsewhere it is the undoing user's (recovery and undo never make
// a file of another user's in a place that user does not own).
func TestUndoNeverGivesAFileAway(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("skipped: giving files to another user needs root")
	}
	ctx := context.Background()
	for _, dirOwner := range []int{0, 1000} {
		dir := t.TempDir()
		sub := filepath.Join(dir, "d")
		os.Mkdir(sub, 0o755)
		os.Chown(sub, dirOwner, dirOwner)
		f := filepath.Join(sub, "f")
		os.WriteFile(f, []byte("x\n"), 0o644)
		os.Chown(f, 1000, 1000)
		os.WriteFile(filepath.Join(sub, "stays"), nil, 0o644) // d is not emptied, so not removed
		w := openWS(t, dir, &Options{Durability: NotDurable})
		if res, err := w.Apply(ctx, mustParse(t, `{"fileEdits":[{"path":"d/f","edits":[{"command":"delete"}]}]}`)); err != nil || !res.Success {
			t.Fatalf("delete: %v %+v", err, res)
		}
		if res, err := w.Undo(ctx, UndoOptions{}); err != nil || !res.Success {
			t.Fatalf("undo: %v %+v", err, res)
		}
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		want := uint32(0)
		if dirOwner == 1000 {
			want = 1000
		}
		if uid := fi.Sys().(*syscall.Stat_t).Uid; uid != want {
			t.Errorf("directory owned by %d: the file came back owned by %d, want %d", dirOwner, uid, want)
		}
	}
}
