package fsys

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestTreeLockNested: a writer of a workspace and a writer of a workspace
// nested in it (or of the same directory reached through a symlink)
// exclude each other; writers of sibling workspaces do not.
func TestTreeLockNested(t *testing.T) {
	top := t.TempDir()
	for _, d := range []string{"a/b", "c"} {
		os.MkdirAll(filepath.Join(top, d), 0o755)
	}
	os.Symlink(filepath.Join(top, "a"), filepath.Join(top, "alias"))
	open := func(dir string) *OS {
		o, err := NewOS(filepath.Join(top, dir))
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Join(top, dir, ".txedit"), 0o700)
		t.Cleanup(func() { o.Close() })
		return o
	}
	lock := func(o *OS, timeout time.Duration) (func() error, error) { return o.Lock(".txedit/LOCK", timeout) }
	for _, tc := range []struct {
		held, other string
		conflict    bool
	}{
		{"a", "a/b", true}, {"a/b", "a", true}, {".", "c", true}, {"a", "alias", true}, {"alias", "a/b", true},
		{"a/b", "c", false}, {"a", "c", false},
	} {
		unlock, err := lock(open(tc.held), time.Second)
		if err != nil {
			t.Fatalf("%s: %v", tc.held, err)
		}
		u2, err := lock(open(tc.other), 30*time.Millisecond)
		if tc.conflict != errors.Is(err, ErrBusy) {
			t.Errorf("%s held, lock of %s: %v; want busy=%v", tc.held, tc.other, err, tc.conflict)
		}
		if err == nil {
			u2()
		}
		unlock()
	}
	// Released: both orders go through, and a waiter gets the lock when
	// the holder lets go.
	unlock, _ := lock(open("a"), time.Second)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		u, err := lock(open("a/b"), time.Minute) // a limit no loaded machine reaches
		if err != nil {
			t.Errorf("waiter: %v", err)
			return
		}
		u()
	}()
	time.Sleep(20 * time.Millisecond)
	unlock()
	wg.Wait()
}

// BenchmarkLock measures taking and releasing the workspace lock, tree
// lock included, on a root a few directories deep.
func BenchmarkLock(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "x", "y", "z")
	os.MkdirAll(filepath.Join(dir, ".txedit"), 0o700)
	o, err := NewOS(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer o.Close()
	for b.Loop() {
		unlock, err := o.Lock(".txedit/LOCK", time.Second)
		if err != nil {
			b.Fatal(err)
		}
		unlock()
	}
}
