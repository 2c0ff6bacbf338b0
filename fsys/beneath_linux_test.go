package fsys

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestBeneathIsUsed: on Linux with openat2, a name is opened below the
// root in one call that follows no symbolic link and does not leave the
// root; without it (noOpenat2) the walk one component at a time answers
// the same.
func TestBeneathIsUsed(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "a/b"), 0o755)
	os.WriteFile(filepath.Join(dir, "a/b/f.txt"), []byte("1\n"), 0o644)
	os.Symlink("a", filepath.Join(dir, "link"))
	rfd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(rfd)
	if !openat2Works(rfd) {
		t.Log("this kernel has no openat2 (Linux 5.6+): only the walk is checked")
	}
	for _, walk := range []bool{false, true} {
		open := func(name string, flags int) (int, error) {
			if walk {
				return walkBeneath(rfd, name, flags, 0)
			}
			return openBeneath(rfd, name, flags, 0)
		}
		if fd, err := open("a/b", dirFlags|unix.O_DIRECTORY); err != nil {
			t.Errorf("walk %v: a/b: %v", walk, err)
		} else {
			unix.Close(fd)
		}
		if fd, err := open("a/b/f.txt", unix.O_RDONLY); err != nil {
			t.Errorf("walk %v: a/b/f.txt: %v", walk, err)
		} else {
			unix.Close(fd)
		}
		for _, name := range []string{"link/b", "link/b/f.txt", "link"} {
			if fd, err := open(name, unix.O_RDONLY); err != unix.ELOOP {
				t.Errorf("walk %v: %s through a symlink: %d, %v; want ELOOP", walk, name, fd, err)
				if err == nil {
					unix.Close(fd)
				}
			}
		}
	}
	if fd, err := openBeneath(rfd, "../"+filepath.Base(dir), unix.O_RDONLY, 0); err == nil {
		unix.Close(fd)
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
