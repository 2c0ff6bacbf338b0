//go:build linux

package journal

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/txedit/txedit/fsys"

	"github.com/txedit/txedit/internal/mountns"
)

// TestPruneKeysUnmounted: a workspace on a file system that is then
// unmounted looks deleted (its root is gone, or its mount point is an
// empty directory); prune keeps its entry, and removes it once the
// workspace is really deleted. The test runs itself again in a mount
// namespace of its own (unshare -m), where it mounts a tmpfs; that needs
// root.
func TestPruneKeysUnmounted(t *testing.T) {
	if os.Getenv("TXEDIT_PRUNE_MOUNT_CHILD") != "" {
		pruneMountChild(t)
		return
	}
	mountns.Rerun(t, "TXEDIT_PRUNE_MOUNT_CHILD="+t.TempDir())
}

func pruneMountChild(t *testing.T) {
	dir := os.Getenv("TXEDIT_PRUNE_MOUNT_CHILD")
	store, mnt := filepath.Join(dir, "store"), filepath.Join(dir, "mnt")
	for _, d := range []string{store, mnt} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size=1m"); err != nil {
		t.Fatalf("mount tmpfs: %v", err)
	}
	// Two workspaces on the tmpfs: one its root, one below it.
	old := time.Now().Add(-time.Hour)
	entry := func(root string) string {
		jdir := filepath.Join(root, Dir)
		if err := os.MkdirAll(jdir, 0o755); err != nil {
			t.Fatal(err)
		}
		id := newJournalID()
		if err := os.WriteFile(filepath.Join(jdir, "id"), []byte(id+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(jdir)
		if err != nil {
			t.Fatal(err)
		}
		ident := fsys.IdentityOf(fi)
		e := &keyEntry{id: id, dev: ident.Dev, ino: ident.Ino, path: root, key: make([]byte, keyLen)}
		p := filepath.Join(store, id)
		if err := os.WriteFile(p, e.encode(), 0o600); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, old, old)
		return id
	}
	atMount, below := entry(mnt), entry(filepath.Join(mnt, "src", "ws"))
	prune := func(what string, want map[string]bool) {
		t.Helper()
		got, err := PruneKeys(store, true, time.Minute, time.Now())
		if err != nil || len(got) != len(want) {
			t.Fatalf("%s: PruneKeys: %v, %+v", what, err, got)
		}
		for _, pe := range got {
			if pe.Done != want[pe.ID] {
				t.Errorf("%s: %+v, want removed %v", what, pe, want[pe.ID])
			}
		}
	}
	prune("mounted", map[string]bool{atMount: false, below: false})
	if err := syscall.Unmount(mnt, 0); err != nil {
		t.Fatalf("umount: %v", err)
	}
	prune("unmounted", map[string]bool{atMount: false, below: false})
	// The same workspaces had they been made on the file system below
	// (their entries' device is its), then deleted: gone.
	if err := os.MkdirAll(filepath.Join(mnt, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, e := range []string{atMount, below} {
		b, err := os.ReadFile(filepath.Join(store, e))
		if err != nil {
			t.Fatal(err)
		}
		ke, err := decodeEntry(b)
		if err != nil {
			t.Fatal(err)
		}
		fi, _ := os.Stat(dir)
		ke.dev = fsys.IdentityOf(fi).Dev // as if it had been made here
		os.WriteFile(filepath.Join(store, e), ke.encode(), 0o600)
		os.Chtimes(filepath.Join(store, e), old, old)
	}
	prune("deleted", map[string]bool{atMount: true, below: true})
}
