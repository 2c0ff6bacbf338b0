package fsys

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestBeneathIsUsed: on Linux with openat2, a view after Revalidate
// stats and renames with one openat2 below the root (the fast path that
// TestAfterRevalidateSameAnswers checks the answers of), and a name
// reached through a symlink is not opened by it.
func TestBeneathIsUsed(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "a/b"), 0o755)
	os.WriteFile(filepath.Join(dir, "a/b/f.txt"), []byte("1\n"), 0o644)
	os.Symlink("a", filepath.Join(dir, "link"))
	fsy, view := openView(t, dir)
	view.Revalidate()
	if _, err := view.Lstat("a/b/f.txt"); err != nil {
		t.Fatal(err)
	}
	if fsy.b.fd < 0 {
		t.Skip("this kernel has no openat2 (Linux 5.6+): os.Root resolves every name")
	}
	if fd := fsy.b.dir("a/b"); fd < 0 {
		t.Errorf("openat2 did not open a/b")
	} else {
		unix.Close(fd)
	}
	if fd := fsy.b.dir("link/b"); fd >= 0 {
		t.Errorf("openat2 followed a symlink")
	}
	if fd := fsy.b.dir("../" + filepath.Base(dir)); fd >= 0 {
		t.Errorf("openat2 left the root")
	}
}

// TestCloseLeavesOtherDescriptors: closing an OS whose openat2 handle was
// never made closes nothing else (the zero value's fd 0 is stdin).
func TestCloseLeavesOtherDescriptors(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	fsy, err := NewOS(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	fsy.Close()
	var st unix.Stat_t
	if err := unix.Fstat(0, &st); err != nil {
		t.Errorf("descriptor 0 closed by OS.Close: %v", err)
	}
	if _, err := w.Write([]byte("x")); err != nil {
		t.Errorf("an unrelated descriptor broke: %v", err)
	}
}
