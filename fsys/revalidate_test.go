package fsys

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestRevalidateErrorsAreNotConflicts: Revalidate said "directory was
// moved or replaced" (a conflict: re-read and retry) for any error of its
// lookup, a full file table or disk included. Only a directory that is
// gone or is another one is a conflict; other errors are themselves.
func TestRevalidateErrorsAreNotConflicts(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "a/b/c"), 0o755)
	_, view := openView(t, dir)
	if _, err := view.Lstat("a/b/c/x"); !errors.Is(err, os.ErrNotExist) { // caches a/b/c
		t.Fatal(err)
	}
	// Lower the limit of open files to the lowest descriptor free now:
	// the lookup from the root, which opens a/b (or a and a/b), fails
	// with EMFILE.
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	free, err := syscall.Open("/dev/null", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	syscall.Close(free)
	low := lim
	setLimit(&low.Cur, free)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Fatal(err)
	}
	err = view.Revalidate()
	syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim)
	var ce *ConflictError
	if errors.As(err, &ce) || !errors.Is(err, syscall.EMFILE) {
		t.Fatalf("Revalidate with no file descriptor to spare: %v, want EMFILE, not a conflict", err)
	}
	if err := view.Revalidate(); err != nil {
		t.Fatalf("with descriptors again: %v", err)
	}
}

// setLimit sets an rlimit's field, uint64 on most systems, int64 on
// FreeBSD and DragonFly.
func setLimit[T int64 | uint64](p *T, v int) { *p = T(v) }
