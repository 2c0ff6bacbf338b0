package fsys

import (
	"os"
	"path/filepath"
	"testing"
)

// TestDataSync: DataSync of a file written through the OS file system
// succeeds, and fails on a closed file, as fdatasync(2) does.
func TestDataSync(t *testing.T) {
	dir := t.TempDir()
	o, err := NewOS(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	f, err := o.Create("f", 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("data")); err != nil {
		t.Fatal(err)
	}
	if err := f.DataSync(); err != nil {
		t.Fatalf("DataSync: %v", err)
	}
	f.Close()
	if err := f.DataSync(); err == nil {
		t.Error("DataSync of a closed file succeeded")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "f")); string(b) != "data" {
		t.Errorf("content %q", b)
	}
}
