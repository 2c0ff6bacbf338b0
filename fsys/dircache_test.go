package fsys

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// openView opens the OS file system at dir and a view of it, both closed
// when the test ends.
func openView(t *testing.T, dir string) (*OS, FS) {
	t.Helper()
	fsy, err := NewOS(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fsy.Close() })
	view, release := fsy.View()
	t.Cleanup(release)
	return fsy, view
}

func TestDirCacheRevalidate(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "a"), 0o755)
	os.WriteFile(filepath.Join(dir, "a/x"), []byte("1\n"), 0o644)
	fsy, view := openView(t, dir)
	if _, err := view.Lstat("a/x"); err != nil { // caches a handle on a/
		t.Fatal(err)
	}
	rv := view
	if err := rv.Revalidate(); err != nil {
		t.Fatalf("untouched: %v", err)
	}
	// Someone moves the directory away and puts another in its place.
	os.Rename(filepath.Join(dir, "a"), filepath.Join(dir, "a.old"))
	os.Mkdir(filepath.Join(dir, "a"), 0o755)
	var ce *ConflictError
	if err := rv.Revalidate(); !errors.As(err, &ce) || ce.Path != "a" {
		t.Fatalf("swapped directory: %v, want a ConflictError for a", err)
	}
	// A directory the view itself removes and re-creates is not stale.
	view2, release2 := fsy.View()
	defer release2()
	view2.Lstat("a/y")
	if err := view2.Remove("a"); err != nil {
		t.Fatal(err)
	}
	if err := view2.Mkdir("a", 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := view2.Create("a/y", 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := os.Stat(filepath.Join(dir, "a/y")); err != nil {
		t.Errorf("create after re-mkdir went to a stale handle: %v", err)
	}
	if err := view2.Revalidate(); err != nil {
		t.Errorf("after its own re-mkdir: %v", err)
	}
}

// TestNoRenameOutsideAfterRevalidate (docs/testing.md, the first red-team
// audit): the commit
// revalidates its cached directory handles and then renames through the
// view. A directory moved out of the root in between must not receive
// those renames (an fd follows its directory wherever it goes). The test
// is the hook between revalidation and rename: it moves the directory
// out, then makes the commit's calls, and checks that nothing reached the
// directory's new place outside the root.
func TestNoRenameOutsideAfterRevalidate(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(dir, "a/b"), 0o755)
	os.WriteFile(filepath.Join(dir, "a/b/f.txt"), []byte("old\n"), 0o644)
	_, view := openView(t, dir)
	// The commit's staging: a temp file next to the target, through the
	// cached handle of a/b.
	f, err := view.Create("a/b/.f.txt.tmp", 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("new\n"))
	f.Close()
	if err := view.Revalidate(); err != nil {
		t.Fatalf("untouched tree: %v", err)
	}
	// The window: a/b leaves the root.
	if err := os.Rename(filepath.Join(dir, "a/b"), filepath.Join(outside, "b")); err != nil {
		t.Fatal(err)
	}
	err = view.Rename("a/b/.f.txt.tmp", "a/b/f.txt")
	if err == nil {
		t.Errorf("rename after the directory left the root succeeded")
	}
	if err := view.Remove("a/b/f.txt"); err == nil {
		t.Errorf("remove after the directory left the root succeeded")
	}
	if g, err := view.Create("a/b/g.txt", 0o644); err == nil {
		g.Close()
		t.Errorf("create after the directory left the root succeeded")
	}
	got, err := os.ReadFile(filepath.Join(outside, "b/f.txt"))
	if err != nil || string(got) != "old\n" {
		t.Errorf("outside b/f.txt = %q, %v: the rename reached outside the root", got, err)
	}
	if _, err := os.Lstat(filepath.Join(outside, "b/g.txt")); err == nil {
		t.Errorf("a file was created outside the root")
	}
	// And the same directory name, re-created inside: the renames act
	// there, by path, never in the one outside.
	os.MkdirAll(filepath.Join(dir, "a/b"), 0o755)
	if err := view.Rename("a/b/.f.txt.tmp", "a/b/f.txt"); err == nil {
		t.Errorf("rename of a temp file that is not in the new a/b succeeded")
	}
	if _, err := os.Lstat(filepath.Join(outside, "b/.f.txt.tmp")); err != nil {
		t.Errorf("the staged file outside was moved: %v", err)
	}
}

// TestDirCacheForgetsBelow: renaming a directory forgets the handles
// cached below it (the look-up that makes forget cheap for files must not
// miss them), and renaming files leaves the handles alone.
func TestDirCacheForgetsBelow(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "p/q/r"), 0o755)
	os.WriteFile(filepath.Join(dir, "p/q/r/x"), []byte("1\n"), 0o644)
	_, view := openView(t, dir)
	c := view.(*cachedFS)
	if _, err := view.Lstat("p/q/r/x"); err != nil { // caches p/q/r
		t.Fatal(err)
	}
	if err := view.Rename("p/q/r/x", "p/q/r/z"); err != nil || c.dirs["p/q/r"] == nil {
		t.Fatalf("a file rename dropped the handle of its directory: %v", err)
	}
	if err := view.Rename("p", "p2"); err != nil {
		t.Fatal(err)
	}
	if len(c.dirs) != 0 || len(c.held) != 0 {
		t.Fatalf("after renaming p: cached %v, counts %v", c.dirs, c.held)
	}
	for _, d := range []string{"p", "p/q", "p/q/r"} {
		if err := view.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	f, err := view.Create("p/q/r/y", 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := os.Stat(filepath.Join(dir, "p/q/r/y")); err != nil {
		t.Errorf("create after the rename went to the moved directory: %v", err)
	}
}

// TestAfterRevalidateSameAnswers: after Revalidate a view stats and
// renames by names resolved from the root again. No symbolic link is
// followed on the way, whether it stays inside the root or leads out
// (ELOOP: the engine resolves links itself, docs/design.md,
// "Resolution"); a missing name is not found.
func TestAfterRevalidateSameAnswers(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(dir, "a/b"), 0o755)
	os.WriteFile(filepath.Join(dir, "a/b/f.txt"), []byte("1\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "a/b/g.tmp"), []byte("2\n"), 0o644)
	os.WriteFile(filepath.Join(outside, "x.txt"), []byte("outside\n"), 0o644)
	os.Symlink("a/b", filepath.Join(dir, "inlink"))
	os.Symlink(outside, filepath.Join(dir, "outlink"))
	_, view := openView(t, dir)
	if err := view.Revalidate(); err != nil {
		t.Fatal(err)
	}
	if fi, err := view.Lstat("a/b/f.txt"); err != nil || fi.Size() != 2 || IdentityOf(fi).Ino == 0 {
		t.Errorf("lstat a/b/f.txt: %v, %v", fi, err)
	}
	if fi, err := view.Lstat("inlink/f.txt"); !errors.Is(err, syscall.ELOOP) {
		t.Errorf("lstat through an in-root symlink: %v, %v; want ELOOP", fi, err)
	}
	if _, err := view.Lstat("outlink/x.txt"); !errors.Is(err, syscall.ELOOP) {
		t.Errorf("lstat through an escaping symlink: %v, want ELOOP", err)
	}
	if _, err := view.Lstat("a/b/missing"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lstat of a missing file: %v", err)
	}
	if _, err := view.Lstat("a/missing/f.txt"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lstat in a missing directory: %v", err)
	}
	if err := view.Rename("a/b/g.tmp", "a/b/f.txt"); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "a/b/f.txt")); string(got) != "2\n" {
		t.Errorf("after rename: %q", got)
	}
	if err := view.Rename("outlink/x.txt", "outlink/y.txt"); err == nil {
		t.Errorf("rename through an escaping symlink succeeded")
	}
	if _, err := os.Stat(filepath.Join(outside, "x.txt")); err != nil {
		t.Errorf("outside file moved: %v", err)
	}
	if err := view.Rename("a/b/missing", "a/b/other"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("rename of a missing file: %v", err)
	}
	// A link is a second name: the first stays (the commit's creates).
	if err := view.Link("a/b/f.txt", "a/b/h.txt"); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"a/b/f.txt", "a/b/h.txt"} {
		if got, err := os.ReadFile(filepath.Join(dir, n)); err != nil || string(got) != "2\n" {
			t.Errorf("after link, %s = %q, %v", n, got, err)
		}
	}
}
