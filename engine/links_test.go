package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txedit/txedit/apply/patch"
	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/fsys/fstest"
	"github.com/txedit/txedit/fsys/memfs"
	"github.com/txedit/txedit/plan"
)

// linkDiff is a git diff, as git writes it, of every kind of change to
// symbolic links: one deleted, one created (to a directory), one
// retargeted, a file replaced by a link and a link replaced by a file.
const linkDiff = `diff --git a/gone b/gone
deleted file mode 120000
index 1111111..0000000
--- a/gone
+++ /dev/null
@@ -1 +0,0 @@
-d/f
\ No newline at end of file
diff --git a/l b/l
new file mode 120000
index 0000000..2222222
--- /dev/null
+++ b/l
@@ -0,0 +1 @@
+d
\ No newline at end of file
diff --git a/old b/old
index 3333333..4444444 120000
--- a/old
+++ b/old
@@ -1 +1 @@
-d/f
\ No newline at end of file
+d/g
\ No newline at end of file
diff --git a/t b/t
deleted file mode 100644
index 5555555..0000000
--- a/t
+++ /dev/null
@@ -1 +0,0 @@
-regular
diff --git a/t b/t
new file mode 120000
index 0000000..6666666
--- /dev/null
+++ b/t
@@ -0,0 +1 @@
+d/f
\ No newline at end of file
diff --git a/u b/u
deleted file mode 120000
index 7777777..0000000
--- a/u
+++ /dev/null
@@ -1 +0,0 @@
-d/f
\ No newline at end of file
diff --git a/u b/u
new file mode 100644
index 0000000..8888888
--- /dev/null
+++ b/u
@@ -0,0 +1 @@
+now a file
`

// linkTree lays the tree linkDiff applies to.
func linkTree(t *testing.T, dir string) {
	writeTree(t, dir, map[string]string{"d/f": "f\n", "t": "regular\n"})
	for name, target := range map[string]string{"gone": "d/f", "old": "d/f", "u": "d/f"} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
}

func applyGit(t *testing.T, w *Workspace, diff string, dryRun bool) (*plan.Result, error) {
	t.Helper()
	req, _, err := patch.Compile(patch.FormatDiff, []byte(diff))
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	req.DryRun = dryRun
	return w.Apply(context.Background(), req)
}

// TestGitSymlinks: a git diff's symbolic links are created, retargeted,
// deleted and swapped with files as entries, through the journal: undo
// brings every one back, redo takes them again, and the dry run's diff is
// git's.
func TestGitSymlinks(t *testing.T) {
	dir := t.TempDir()
	linkTree(t, dir)
	before := treeString(readTree(t, dir))
	w := openWS(t, dir, nil)
	prev, err := applyGit(t, w, linkDiff, true)
	if err != nil || !prev.Success {
		t.Fatalf("dry run: %v %+v", err, prev)
	}
	for _, want := range []string{"deleted file mode 120000", "new file mode 120000\n", "-d/f\n\\ No newline at end of file\n+d/g\n", "new file mode 100644\n"} {
		if !strings.Contains(prev.Diff, want) {
			t.Errorf("the dry run's diff lacks %q:\n%s", want, prev.Diff)
		}
	}
	res, err := applyGit(t, w, linkDiff, false)
	if err != nil || !res.Success {
		t.Fatalf("apply: %v %+v", err, res)
	}
	want := "d/=\nd/f=f\n\nl=-> d\nold=-> d/g\nt=-> d/f\nu=now a file\n\n"
	after := treeString(readTree(t, dir))
	if after != want {
		t.Fatalf("after:\n%s\nwant:\n%s", after, want)
	}
	if _, err := w.Undo(context.Background(), UndoOptions{}); err != nil {
		t.Fatalf("undo: %v", err)
	}
	if got := treeString(readTree(t, dir)); got != before {
		t.Fatalf("after undo:\n%s\nwant:\n%s", got, before)
	}
	if _, err := w.Undo(context.Background(), UndoOptions{Redo: true}); err != nil {
		t.Fatalf("redo: %v", err)
	}
	if got := treeString(readTree(t, dir)); got != after {
		t.Fatalf("after redo:\n%s\nwant:\n%s", got, after)
	}
	// Sent again, the links are what the diff makes: nothing is written.
	again, _ := applyGit(t, w, linkDiff, false)
	if again.TransactionID != "" {
		t.Errorf("a second apply committed %s: %+v", again.TransactionID, again.Files)
	}
}

// TestSymlinkOutsideRootRefused: a diff that creates or retargets a link
// leading out of the root is refused (outside_root, not invalid_request),
// saying why, and nothing of it is written; a link to a path inside that
// does not exist is made, as git makes it.
func TestSymlinkOutsideRootRefused(t *testing.T) {
	mk := func(name, target string) string {
		return "diff --git a/" + name + " b/" + name + "\nnew file mode 120000\nindex 0000000..1111111\n--- /dev/null\n+++ b/" + name +
			"\n@@ -0,0 +1 @@\n+" + target + "\n\\ No newline at end of file\n"
	}
	outside := t.TempDir()
	for _, tc := range []struct{ name, target, why string }{
		{"abs", "/etc/passwd", "is an absolute path"},
		{"up", "../x", "leads outside the root"},
		{"sub/up", "../../x", "leads outside the root"},
		{"through", "out/x", "through another link"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, map[string]string{"keep.txt": "k\n", "sub/": ""})
			if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
				t.Fatal(err)
			}
			w := openWS(t, dir, nil)
			diff := mk(tc.name, tc.target) + mk("fine", "keep.txt")
			res, err := applyGit(t, w, diff, false)
			if err == nil || res.Code != plan.CodeOutsideRoot || !strings.Contains(res.Error, tc.why) {
				t.Fatalf("%v %s: %s", err, res.Code, res.Error)
			}
			for _, p := range []string{tc.name, "fine"} {
				if _, err := os.Lstat(filepath.Join(dir, p)); !os.IsNotExist(err) {
					t.Errorf("%s was made: %v", p, err)
				}
			}
		})
	}
	dir := t.TempDir()
	w := openWS(t, dir, nil)
	if res, err := applyGit(t, w, mk("dangling", "not/yet"), false); err != nil || !res.Success {
		t.Fatalf("a link to a missing path inside: %v %+v", err, res)
	}
	if target, err := os.Readlink(filepath.Join(dir, "dangling")); err != nil || target != "not/yet" {
		t.Errorf("dangling: %q %v", target, err)
	}
}

// TestSymlinkModeMismatch: a git section that changes a path as a regular
// file (no mode 120000) where the tree has a link is refused, not applied
// to the link's target text.
func TestSymlinkModeMismatch(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"d/f": "f\n"})
	if err := os.Symlink("d/f", filepath.Join(dir, "l")); err != nil {
		t.Fatal(err)
	}
	w := openWS(t, dir, nil)
	res, err := applyGit(t, w, "diff --git a/l b/l\nindex 1111111..2222222 100644\n--- a/l\n+++ b/l\n@@ -1 +1 @@\n-d/f\n\\ No newline at end of file\n+x\n\\ No newline at end of file\n", false)
	if err == nil || res.Code != plan.CodeConflict || !strings.Contains(res.Error, "is a symbolic link") {
		t.Fatalf("%v %s: %s", err, res.Code, res.Error)
	}
	if target, _ := os.Readlink(filepath.Join(dir, "l")); target != "d/f" {
		t.Errorf("l now leads to %q", target)
	}
	// A JSON edit still goes through a link to its target, as before.
	if res := run(t, w, `{"command":"str_replace","path":"l","old_str":"f","new_str":"F"}`); !res.Success {
		t.Fatalf("str_replace through a link: %+v", res)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "d/f")); string(data) != "F\n" {
		t.Errorf("d/f = %q", data)
	}
}

// TestPowerLossSymlinks: the engine applying linkDiff (and undoing it) on
// the power-loss model, crashed at every call: after recovery the tree is
// entirely before or after, links included, with no temporary file left.
func TestPowerLossSymlinks(t *testing.T) {
	initial := map[string]string{"d/f": "f\n", "t": "regular\n", "gone": memfs.SymlinkPrefix + "d/f", "old": memfs.SymlinkPrefix + "d/f", "u": memfs.SymlinkPrefix + "d/f"}
	apply := func(f fsys.FS) error {
		w, err := openOn(f, DurableAuto)
		if err != nil {
			return err
		}
		defer w.Close()
		req, _, err := patch.Compile(patch.FormatDiff, []byte(linkDiff))
		if err != nil {
			return err
		}
		_, err = w.Apply(context.Background(), req)
		return err
	}
	explorePower(t, "symlinks", initial, apply, DurableAuto)
}

// TestPowerLossSymlinksUndo: the undo of linkDiff, crashed at every call:
// the links come back (or stay as the diff left them), never half.
func TestPowerLossSymlinksUndo(t *testing.T) {
	initial := map[string]string{"d/f": "f\n", "t": "regular\n", "gone": memfs.SymlinkPrefix + "d/f", "old": memfs.SymlinkPrefix + "d/f", "u": memfs.SymlinkPrefix + "d/f"}
	disk := fstest.NewDisk(initial)
	if _, err := disk.Run(0, 0, func(f fsys.FS) error {
		w, err := openOn(f, DurableFsync)
		if err != nil {
			return err
		}
		defer w.Close()
		req, _, err := patch.Compile(patch.FormatDiff, []byte(linkDiff))
		if err != nil {
			return err
		}
		_, err = w.Apply(context.Background(), req)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	undo := func(f fsys.FS) error {
		w, err := openOn(f, DurableAuto)
		if err != nil {
			return err
		}
		defer w.Close()
		_, err = w.Undo(context.Background(), UndoOptions{})
		return err
	}
	explorePower(t, "symlinks undo", disk.Files(), undo, DurableAuto)
}
