package fsys

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestUnnamed: a file made by CreateUnnamed has no name in its directory
// until Link gives it one; Link never replaces a name that exists, and
// only names it in the directory it was made in; a directory outside the
// root (through "..", a symlink) is refused, as every name is. The same
// through a view after Revalidate (the commit's path).
func TestUnnamed(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "a"), 0o755)
	os.WriteFile(filepath.Join(dir, "a/taken"), []byte("mine\n"), 0o644)
	outside := t.TempDir()
	os.Symlink(outside, filepath.Join(dir, "out"))
	o, err := NewOS(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	view, release := o.View()
	defer release()
	view.Revalidate()
	for _, fsy := range []FS{o, view} {
		f, err := fsy.CreateUnnamed("a", 0o640)
		if err != nil {
			t.Fatalf("CreateUnnamed: %v (this kernel or file system has no O_TMPFILE?)", err)
		}
		f.Write([]byte("new\n"))
		if err := f.DataSync(); err != nil {
			t.Fatal(err)
		}
		if ents, _ := os.ReadDir(filepath.Join(dir, "a")); len(ents) != 1 {
			t.Errorf("an unnamed file shows in its directory: %v", ents)
		}
		if err := f.Link("a/taken"); !errors.Is(err, fs.ErrExist) {
			t.Errorf("Link over a name that exists: %v", err)
		}
		if got, _ := os.ReadFile(filepath.Join(dir, "a/taken")); string(got) != "mine\n" {
			t.Errorf("a/taken = %q", got)
		}
		if err := f.Link("elsewhere"); err == nil {
			t.Errorf("Link into another directory succeeded")
		}
		if err := f.Link("a/named"); err != nil {
			t.Fatal(err)
		}
		f.Close()
		fi, err := os.Stat(filepath.Join(dir, "a/named"))
		if got, _ := os.ReadFile(filepath.Join(dir, "a/named")); err != nil || string(got) != "new\n" || fi.Mode().Perm() != 0o640&^Umask() {
			t.Errorf("a/named = %q, %v, %v", got, fi, err)
		}
		os.Remove(filepath.Join(dir, "a/named"))
		for _, bad := range []string{"out", "..", "a/../.."} {
			if f, err := fsy.CreateUnnamed(bad, 0o644); err == nil {
				f.Close()
				t.Errorf("CreateUnnamed(%q) outside the root succeeded", bad)
			}
		}
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("something was made outside the root: %v", ents)
	}
}
