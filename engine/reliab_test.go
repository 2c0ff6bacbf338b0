package engine

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/fsys/faultfs"
	"github.com/txedit/txedit/internal/testlong"
	"github.com/txedit/txedit/journal"
)

// TestNonUTF8NameUndo: a file whose name is not UTF-8 is edited, then
// undone, then the undo is redone and force-undone, next to a decoy that
// carries the U+FFFD spelling of its name. Before manifests kept names
// exactly, undo refused (the journal named a file that does not exist)
// and undo --force overwrote the decoy with the other file's before-image.
func TestNonUTF8NameUndo(t *testing.T) {
	dir := t.TempDir()
	bad, decoy := "bad\xff.txt", "bad\uFFFD.txt"
	writeTree(t, dir, map[string]string{bad: "hello\n", decoy: "decoy\n", "ok.txt": "hello\n", "sub\xfe/in.txt": "hello\n"})
	w := openWS(t, dir, nil)
	ctx := context.Background()
	res := run(t, w, `{"command":"pattern_replace","file_pattern":"*","sed_pattern":"s/hello/HI/"}`)
	if !res.Success || res.FilesModified != 3 {
		t.Fatalf("replace: %+v", res)
	}
	check := func(label, want string) {
		t.Helper()
		got := readTree(t, dir)
		if got[bad] != want || got["sub\xfe/in.txt"] != want || got["ok.txt"] != want || got[decoy] != "decoy\n" {
			t.Fatalf("%s: %q", label, got)
		}
	}
	check("after replace", "HI\n")
	if r, err := w.Undo(ctx, UndoOptions{}); err != nil || !r.Success {
		t.Fatalf("undo: %v", err)
	}
	check("after undo", "hello\n")
	if r, err := w.Undo(ctx, UndoOptions{Redo: true}); err != nil || !r.Success {
		t.Fatalf("redo: %v", err)
	}
	check("after redo", "HI\n")
	// A forced undo over a file changed since.
	os.WriteFile(filepath.Join(dir, bad), []byte("changed\n"), 0o644)
	if r, err := w.Undo(ctx, UndoOptions{}); err == nil || r.Success {
		t.Fatalf("undo over a changed file succeeded")
	}
	if r, err := w.Undo(ctx, UndoOptions{Force: true}); err != nil || !r.Success {
		t.Fatalf("undo --force: %v", err)
	}
	check("after undo --force", "hello\n")
}

// TestUndoReadsThePackOnce: undo of an n-file transaction opened and
// indexed the whole pack once per file (journal.Before), so its time grew
// with n²: 1k/2k/4k/8k files took 4/17/66/271 s. It now opens the pack
// once, and its file-system calls grow linearly.
func TestUndoReadsThePackOnce(t *testing.T) {
	calls := func(n int) (packOpens, total int) {
		dir := t.TempDir()
		files := map[string]string{}
		for i := 0; i < n; i++ {
			files[fmt.Sprintf("d%d/f%d.txt", i%7, i)] = fmt.Sprintf("hello %d\n", i)
		}
		writeTree(t, dir, files)
		inner, err := fsys.NewOS(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer inner.Close()
		ff := &faultfs.FS{Inner: inner}
		w := openWS(t, dir, &Options{FS: ff, Keys: journal.UserKeys(), Durability: NotDurable})
		if res := run(t, w, `{"command":"pattern_replace","file_pattern":"*","sed_pattern":"s/hello/HI/"}`); !res.Success {
			t.Fatalf("replace: %+v", res)
		}
		ff.Record = true
		ff.Calls = nil
		before := ff.N()
		if res, err := w.Undo(context.Background(), UndoOptions{}); err != nil || !res.Success {
			t.Fatalf("undo: %v", err)
		}
		for _, c := range ff.Calls {
			// The transaction's file (journal/layout.go), for its
			// manifest or its pack.
			if name, ok := strings.CutPrefix(c, "open "+journal.Dir+"/txns/"); ok && !strings.ContainsAny(name, "./") {
				packOpens++
			}
		}
		return packOpens, ff.N() - before
	}
	opens100, total100 := calls(100)
	opens400, total400 := calls(400)
	t.Logf("undo of 100 files: %d opens of the transaction's file, %d calls; of 400: %d, %d", opens100, total100, opens400, total400)
	if opens100 != 2 || opens400 != 2 {
		t.Errorf("the transaction's file was opened %d and %d times, want twice (its manifest, then its pack, once)", opens100, opens400)
	}
	if total400 > 5*total100 {
		t.Errorf("file-system calls grew faster than the files: %d for 100, %d for 400", total100, total400)
	}
}

// TestDirectoriesComeBackAsTheyWere: a delete that empties a directory
// removes it; undo, an in-process rollback and recovery create it again.
// They did so with mkdir 0777 less the umask: a private 0700 directory
// came back 0755 and lost its owner and setgid bit.
func TestDirectoriesComeBackAsTheyWere(t *testing.T) {
	const mode = fs.ModeSetgid | 0o700
	uid, gid := os.Getuid(), os.Getgid()
	if uid == 0 {
		uid, gid = 1234, 5678 // root can give it away: the owner must come back too
	}
	setup := func(t *testing.T) string {
		dir := t.TempDir()
		writeTree(t, dir, map[string]string{"private/deeper/secret.txt": "s\n", "keep.txt": "k\n"})
		for _, d := range []string{"private", "private/deeper"} {
			p := filepath.Join(dir, d)
			os.Chown(p, uid, gid)
			if err := os.Chmod(p, mode); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	check := func(t *testing.T, dir, label string) {
		t.Helper()
		for _, d := range []string{"private", "private/deeper"} {
			fi, err := os.Lstat(filepath.Join(dir, d))
			if err != nil {
				t.Fatalf("%s: %s: %v", label, d, err)
			}
			st := fi.Sys().(*syscall.Stat_t)
			if fi.Mode()&(fs.ModePerm|fs.ModeSetgid|fs.ModeSticky) != mode || int(st.Uid) != uid || int(st.Gid) != gid {
				t.Errorf("%s: %s came back %v owned by %d:%d, want %v %d:%d", label, d, fi.Mode(), st.Uid, st.Gid, mode, uid, gid)
			}
		}
	}
	del := `{"fileEdits":[{"path":"private/deeper/secret.txt","edits":[{"command":"delete"}]}]}`
	// calls counts the file-system calls of a clean run.
	calls := func(t *testing.T) int {
		probe := &faultfs.FS{}
		if res, _ := faultApply(t, setup(t), Options{}, probe, del); res == nil || !res.Success {
			t.Fatalf("clean run: %+v", res)
		}
		return probe.N()
	}
	t.Run("undo", func(t *testing.T) {
		dir := setup(t)
		w := openWS(t, dir, nil)
		if res := run(t, w, del); !res.Success {
			t.Fatalf("delete: %+v", res)
		}
		if _, err := os.Lstat(filepath.Join(dir, "private")); err == nil {
			t.Fatal("the emptied directory was not removed")
		}
		if res, err := w.Undo(context.Background(), UndoOptions{}); err != nil || !res.Success {
			t.Fatalf("undo: %v", err)
		}
		check(t, dir, "undo")
		// Redo removes them again; undoing the redo brings them back again.
		if res, err := w.Undo(context.Background(), UndoOptions{Redo: true}); err != nil || !res.Success {
			t.Fatalf("redo: %v", err)
		}
		if res, err := w.Undo(context.Background(), UndoOptions{}); err != nil || !res.Success {
			t.Fatalf("undo after redo: %v", err)
		}
		check(t, dir, "undo of the redo")
	})
	t.Run("rollback", func(t *testing.T) {
		// Fail every call after the directories are removed, in turn: the
		// commit rolls back in process and recreates them.
		// (The quick run: a sample of the calls, testlong.Sweep.)
		_, rolledBack := testlong.Sweep(calls(t), 12, func(n int) bool {
			dir := setup(t)
			ff := &faultfs.FS{FailAt: n, Mode: faultfs.ModeError}
			res, _ := faultApply(t, dir, Options{}, ff, del)
			if res == nil || !ff.Tripped {
				return false // the workspace did not open, or no fault
			}
			log, _ := openWS(t, dir, nil).Log(context.Background(), LogOptions{})
			if !res.Success && len(log) > 0 && log[0].State == "rolled_back" {
				if _, err := os.Lstat(filepath.Join(dir, "private/deeper/secret.txt")); err != nil {
					t.Fatalf("failed at call %d, but the file is gone: %v", n, err)
				}
				check(t, dir, fmt.Sprintf("rollback after a failure at call %d", n))
				return true
			}
			return false
		})
		if rolledBack == 0 {
			t.Fatal("no failure made the commit roll back")
		}
	})
	t.Run("recovery", func(t *testing.T) {
		// Crash at every call (the quick run: a sample, testlong.Sweep);
		// recovery (on open) restores the directories unless the
		// transaction committed.
		testlong.Sweep(calls(t), 12, func(n int) bool {
			dir := setup(t)
			_, crashed := faultApply(t, dir, Options{}, &faultfs.FS{FailAt: n, Mode: faultfs.ModeCrash}, del)
			if !crashed {
				return true // the run made fewer calls and finished
			}
			w := openWS(t, dir, nil)
			log, _ := w.Log(context.Background(), LogOptions{})
			if len(log) > 0 && log[0].State == "committed" {
				return true
			}
			check(t, dir, fmt.Sprintf("recovery after a crash at call %d", n))
			return false
		})
	})
}

// TestUndoReachesTheWholeRetention: with retention keeping the newest
// Keep transactions, undo walks back through all of them. Each undo is a
// transaction of its own, and GC counted it and evicted the oldest, so
// undo met the evictions halfway: after 1,000 transactions only 100 of
// 200 undos worked. Past the window, undo says retention removed the rest.
func TestUndoReachesTheWholeRetention(t *testing.T) {
	const keep = 10
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"f.txt": "0\n"})
	w := openWS(t, dir, &Options{Keep: keep, Durability: NotDurable})
	ctx := context.Background()
	for i := 1; i <= 3*keep; i++ {
		if res := run(t, w, fmt.Sprintf(`{"command":"replace_lines","path":"f.txt","start_line":1,"end_line":1,"new_str":"%d"}`, i)); !res.Success {
			t.Fatalf("edit %d: %+v", i, res)
		}
	}
	undos := 0
	var last error
	for ; undos < 3*keep; undos++ {
		res, err := w.Undo(ctx, UndoOptions{})
		if err != nil || !res.Success {
			last = err
			break
		}
		if got := readTree(t, dir)["f.txt"]; got != fmt.Sprintf("%d\n", 3*keep-undos-1) {
			t.Fatalf("after undo %d: f.txt = %q", undos+1, got)
		}
	}
	t.Logf("keep %d: %d undos worked; then: %v", keep, undos, last)
	if undos != keep {
		t.Errorf("%d undos worked, want %d (the whole retention window)", undos, keep)
	}
	if last == nil || !strings.Contains(last.Error(), "retention removed") {
		t.Errorf("past the window: %v, want it to say that retention removed the rest", last)
	}
	// Redo re-applies what the last undo reverted.
	if res, err := w.Undo(ctx, UndoOptions{Redo: true}); err != nil || !res.Success {
		t.Fatalf("redo: %v", err)
	}
	if got := readTree(t, dir)["f.txt"]; got != fmt.Sprintf("%d\n", 2*keep+1) {
		t.Errorf("after redo: %q", got)
	}
}
