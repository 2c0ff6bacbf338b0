//go:build linux

package fsys

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/txedit/txedit/internal/mountns"
)

// TestTreeLockBindMount: with w/sub bind-mounted on m (a sibling of w), a
// writer of m and a writer of w (or of anything above w/sub, or below it)
// exclude each other, whichever holds first; a writer of w/other (beside
// sub) does not wait for one of m. From m's root ".." leads to m's
// parent, so before the walk went up w/sub's own file system too, m and w
// did not conflict (docs/testing.md, the reliability audit). The test runs itself again in a
// mount namespace of its own (unshare -m) to make the bind mount (root).
func TestTreeLockBindMount(t *testing.T) {
	if top := os.Getenv("TXEDIT_TREELOCK_BIND"); top != "" {
		treeLockBindChild(t, top)
		return
	}
	mountns.Require(t)
	top := t.TempDir()
	for _, d := range []string{"w/sub/deeper", "w/other", "m", "has space/m2"} {
		os.MkdirAll(filepath.Join(top, d), 0o755)
	}
	mountns.Rerun(t, "TXEDIT_TREELOCK_BIND="+top)
}

func treeLockBindChild(t *testing.T, top string) {
	for _, m := range [][2]string{{"w/sub", "m"}, {"w/sub/deeper", "has space/m2"}} {
		if err := syscall.Mount(filepath.Join(top, m[0]), filepath.Join(top, m[1]), "", syscall.MS_BIND, ""); err != nil {
			t.Fatalf("mount --bind: %v", err)
		}
		defer syscall.Unmount(filepath.Join(top, m[1]), 0)
	}
	open := func(dir string) *OS {
		os.MkdirAll(filepath.Join(top, dir, ".txedit"), 0o700)
		o, err := NewOS(filepath.Join(top, dir))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { o.Close() })
		return o
	}
	lock := func(o *OS, timeout time.Duration) (func() error, error) { return o.Lock(".txedit/LOCK", timeout) }
	for _, tc := range []struct {
		held, other string
		conflict    bool
	}{
		{"w", "m", true}, {"m", "w", true},
		{".", "m", true},
		{"m", "w/sub/deeper", true}, {"w/sub/deeper", "m", true},
		{"m/deeper", "w", true}, {"w", "m/deeper", true},
		{"has space/m2", "w", true}, {"w/sub", "has space/m2", true}, {"m", "has space/m2", true},
		{"m", "w/other", false}, {"w/other", "m", false}, {"has space/m2", "w/other", false},
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
}
