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
