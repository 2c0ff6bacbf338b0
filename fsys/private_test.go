package fsys

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestOpenPrivateSyncsWhatItMakes: a key store opened for the first time
// makes its directory and missing parents (0700) and syncs the parent of
// each one it made, so that a power loss cannot take the store's
// directory, and the keys in it, away (a journal whose key is gone is
// foreign to the user who made it). An existing store syncs nothing.
func TestOpenPrivateSyncsWhatItMakes(t *testing.T) {
	base := t.TempDir()
	var synced []string
	old := syncDirName
	syncDirName = func(dir string) error {
		synced = append(synced, dir)
		return old(dir)
	}
	defer func() { syncDirName = old }()
	dir := filepath.Join(base, "a", "b", "keys")
	o, err := OpenPrivate(dir)
	if err != nil {
		t.Fatal(err)
	}
	o.Close()
	want := []string{filepath.Join(base, "a", "b"), filepath.Join(base, "a"), base}
	slices.Sort(synced)
	slices.Sort(want)
	if !slices.Equal(synced, want) {
		t.Fatalf("synced %q, want the parents of the three directories made, %q", synced, want)
	}
	for _, d := range []string{"a", "a/b", "a/b/keys"} {
		fi, err := os.Lstat(filepath.Join(base, d))
		if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
			t.Fatalf("%s: %v %v, want a 0700 directory", d, fi.Mode(), err)
		}
	}
	synced = nil
	if o, err = OpenPrivate(dir); err != nil {
		t.Fatal(err)
	}
	o.Close()
	if len(synced) != 0 {
		t.Fatalf("an existing key store synced %q", synced)
	}
}

// TestOpenPrivateRefuses: a symbolic link and a directory others may
// enter are refused, and nothing is made through the link.
func TestOpenPrivateRefuses(t *testing.T) {
	base := t.TempDir()
	target := filepath.Join(base, "target")
	if err := os.Mkdir(target, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenPrivate(link); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("OpenPrivate of a symbolic link: %v", err)
	}
	open := filepath.Join(base, "open")
	if err := os.Mkdir(open, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenPrivate(open); err == nil || !strings.Contains(err.Error(), "may be used by other users") {
		t.Fatalf("OpenPrivate of a 0755 directory: %v", err)
	}
	if _, err := OpenPrivate("relative/keys"); err == nil {
		t.Fatal("OpenPrivate of a relative path succeeded")
	}
}
