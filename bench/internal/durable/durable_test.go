package durable

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestReadList: NUL-separated lists (git -z, find -print0) and lists of
// lines (rg -l) both read back as the names, without empty ones; a name
// with a newline survives a NUL-separated list.
func TestReadList(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		data string
		want []string
	}{
		{"a/b.go\nc.go\n", []string{"a/b.go", "c.go"}},
		{"a/b.go\x00odd\nname\x00", []string{"a/b.go", "odd\nname"}},
		{"", nil},
	} {
		name := filepath.Join(dir, "list")
		if err := os.WriteFile(name, []byte(c.data), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := ReadList(name)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("ReadList(%q) = %q, %v; want %q", c.data, got, err, c.want)
		}
	}
}

// TestSync: every file and directory is opened and synced (a missing one
// is an error, named), with and without a directory list, and by
// SyncTogether in one round.
func TestSync(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for i := range 40 {
		d := filepath.Join(dir, string(rune('a'+i%4)))
		os.MkdirAll(d, 0o755)
		f := filepath.Join(d, "f"+string(rune('0'+i%10))+string(rune('a'+i/10)))
		if err := os.WriteFile(f, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	if err := Sync(files, nil); err != nil {
		t.Fatalf("Sync of the files and their parents: %v", err)
	}
	if err := Sync(files[:3], []string{dir}); err != nil {
		t.Fatalf("Sync with a list of directories: %v", err)
	}
	gone := filepath.Join(dir, "gone")
	if err := Sync(append(files[:5:5], gone), nil); err == nil || !strings.Contains(err.Error(), "gone") {
		t.Fatalf("Sync of a missing file: %v", err)
	}
	if err := Sync(files[:2], []string{gone}); err == nil {
		t.Fatal("Sync of a missing directory succeeded")
	}
	if err := SyncTogether(files, []string{dir, filepath.Dir(files[0])}); err != nil {
		t.Fatalf("SyncTogether: %v", err)
	}
	if err := SyncTogether(files[:3], []string{gone}); err == nil || !strings.Contains(err.Error(), "gone") {
		t.Fatalf("SyncTogether of a missing directory: %v", err)
	}
	if err := SyncTogether(append(files[:3:3], gone), nil); err == nil || !strings.Contains(err.Error(), "gone") {
		t.Fatalf("SyncTogether of a missing file: %v", err)
	}
}
