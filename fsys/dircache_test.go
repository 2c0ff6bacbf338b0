package fsys

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestDirCacheRevalidate(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "a"), 0o755)
	os.WriteFile(filepath.Join(dir, "a/x"), []byte("1\n"), 0o644)
	fsy, err := NewOS(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer fsy.Close()
	view, release := fsy.View()
	defer release()
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

// TestDirCacheForgetsBelow: renaming a directory forgets the handles
// cached below it (the look-up that makes forget cheap for files must not
// miss them), and renaming files leaves the handles alone.
func TestDirCacheForgetsBelow(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "p/q/r"), 0o755)
	os.WriteFile(filepath.Join(dir, "p/q/r/x"), []byte("1\n"), 0o644)
	fsy, err := NewOS(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer fsy.Close()
	view, release := fsy.View()
	defer release()
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
