package memfs

import (
	"errors"
	"io/fs"
	"math/rand"
	"testing"
	"time"

	"github.com/txedit/txedit/fsys"
)

func write(t *testing.T, m *FS, name, data string) {
	t.Helper()
	f, err := m.Create(name, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte(data))
	f.Close()
}

func TestSemantics(t *testing.T) {
	m := New(map[string]string{"a/x": "old", "d/": ""})
	if _, err := m.Create("a/x", 0o644); !errors.Is(err, fs.ErrExist) {
		t.Errorf("create over a file: %v", err)
	}
	write(t, m, "a/tmp", "new")
	if err := m.Rename("a/tmp", "a/x"); err != nil {
		t.Fatal(err)
	}
	if got := m.Files(); got["a/x"] != "new" || got["d/"] != "" || len(got) != 3 {
		t.Errorf("after rename over: %v", got)
	}
	if err := m.Link("a/x", "a/y"); err != nil {
		t.Fatal(err)
	}
	fi, _ := m.Lstat("a/x")
	if n := fsys.IdentityOf(fi).Nlink; n != 2 {
		t.Errorf("nlink after link = %d, want 2", n)
	}
	if err := m.Link("a/x", "a/y"); !errors.Is(err, fs.ErrExist) {
		t.Errorf("link over an existing name: %v", err)
	}
	if err := m.Remove("a"); err == nil {
		t.Error("removed a non-empty directory")
	}
	if _, err := m.Lstat("a/x/z"); err == nil {
		t.Error("a file used as a directory")
	}
	ents, _ := m.ReadDir("a")
	if len(ents) != 2 || ents[0].Name() != "x" || ents[1].Name() != "y" {
		t.Errorf("readdir: %v", ents)
	}
}

// TestCrash: only what was made durable survives a power loss that drops
// everything; an unsynced rename over a durable file brings the old file
// back.
func TestCrash(t *testing.T) {
	m := New(map[string]string{"a/x": "old"})
	write(t, m, "a/tmp", "new")
	m.Rename("a/tmp", "a/x")
	if got := m.Crash(rand.New(rand.NewSource(1)), DropAll).Files(); got["a/x"] != "old" || len(got) != 2 {
		t.Errorf("unsynced rename survived: %v", got)
	}
	if got := m.Crash(rand.New(rand.NewSource(1)), KeepAll).Files(); got["a/x"] != "new" {
		t.Errorf("keep-all lost the rename: %v", got)
	}
	m.SyncDir("a")
	if got := m.Crash(rand.New(rand.NewSource(1)), DropAll).Files(); got["a/x"] != "" {
		// The entry is durable, the data never was: an empty file.
		t.Errorf("durable entry, unsynced data: %q", got["a/x"])
	}
}

func TestLockWaits(t *testing.T) {
	m := New(nil)
	unlock, err := m.Lock("L", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Lock("L", 20*time.Millisecond); !errors.Is(err, fsys.ErrBusy) {
		t.Errorf("second lock: %v, want ErrBusy", err)
	}
	// The waiter gets the lock when it is released: the release comes
	// 20 ms on (most likely while the waiter waits); the waiter's limit
	// is a minute, which no loaded machine reaches.
	go func() { time.Sleep(20 * time.Millisecond); unlock() }()
	if u, err := m.Lock("L", time.Minute); err != nil {
		t.Errorf("lock after release: %v", err)
	} else {
		u()
	}
}

// TestDataSync: fdatasync makes a file's data durable but not a mode set
// after its creation, and not its name; fsync makes the mode durable too.
func TestDataSync(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, full := range []bool{false, true} {
		m := New(map[string]string{"d/": ""})
		f, err := m.Create("d/f", 0o755)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte("data"))
		f.Chmod(0o755 | fs.ModeSetuid)
		if full {
			f.Sync()
		} else {
			f.DataSync()
		}
		f.Close()
		if _, ok := m.Crash(rng, DropAll).Files()["d/f"]; ok {
			t.Errorf("full=%v: a new file's name survived without a sync of its directory", full)
		}
		m.SyncDir("d")
		c := m.Crash(rng, DropAll)
		if got := c.Files()["d/f"]; got != "data" {
			t.Errorf("full=%v: synced data after a crash = %q", full, got)
		}
		fi, err := c.Lstat("d/f")
		if err != nil {
			t.Fatal(err)
		}
		want := fs.FileMode(0o755)
		if full {
			want |= fs.ModeSetuid
		}
		if fi.Mode() != want {
			t.Errorf("full=%v: mode after a crash = %v, want %v", full, fi.Mode(), want)
		}
		if fi, _ := m.Crash(rng, KeepAll).Lstat("d/f"); fi.Mode() != 0o755|fs.ModeSetuid {
			t.Errorf("full=%v: KeepAll lost the mode: %v", full, fi.Mode())
		}
	}
}

// TestSymlinks: a link holds its target, is not followed by Open, moves
// and is linked as an entry, and survives a power loss once its directory
// is synced (and not before, under DropAll).
func TestSymlinks(t *testing.T) {
	m := New(map[string]string{"d/f": "x", "old": SymlinkPrefix + "d/f"})
	if err := m.Symlink("d", "l"); err != nil {
		t.Fatal(err)
	}
	if err := m.Symlink("other", "l"); !errors.Is(err, fs.ErrExist) {
		t.Errorf("symlink over an existing name: %v", err)
	}
	fi, err := m.Lstat("l")
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 || fi.Size() != 1 {
		t.Fatalf("lstat: %v %v", fi, err)
	}
	if target, err := m.Readlink("l"); err != nil || target != "d" {
		t.Errorf("readlink: %q %v", target, err)
	}
	if _, err := m.Readlink("d/f"); err == nil {
		t.Error("readlink of a file")
	}
	if _, err := m.Open("old"); err == nil {
		t.Error("Open followed a link")
	}
	if err := m.Link("l", "l2"); err != nil {
		t.Fatal(err)
	}
	if err := m.Rename("l2", "d/l3"); err != nil {
		t.Fatal(err)
	}
	got := m.Files()
	if got["l"] != SymlinkPrefix+"d" || got["d/l3"] != SymlinkPrefix+"d" || got["old"] != SymlinkPrefix+"d/f" {
		t.Errorf("files: %q", got)
	}
	if c := m.Crash(rand.New(rand.NewSource(1)), DropAll).Files(); c["l"] != "" || c["old"] != SymlinkPrefix+"d/f" {
		t.Errorf("crash before the directory sync: %q", c)
	}
	if err := m.SyncDir("."); err != nil {
		t.Fatal(err)
	}
	if c := m.Crash(rand.New(rand.NewSource(1)), DropAll).Files(); c["l"] != SymlinkPrefix+"d" {
		t.Errorf("crash after the directory sync: %q", c)
	}
}

// A link and a chmod change a file's change time, not its mtime, as on
// Linux: the journal tells the file it staged by an identity that leaves
// the change time out (journal.ourIdentity), across its link.
func TestMetadataChangesKeepMtime(t *testing.T) {
	m := New(nil)
	f, err := m.CreateUnnamed(".", 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("x"))
	fi, _ := f.Stat()
	before := fsys.IdentityOf(fi)
	if err := f.Chmod(0o600); err != nil {
		t.Fatal(err)
	}
	if err := f.Link("a"); err != nil {
		t.Fatal(err)
	}
	fi, _ = m.Lstat("a")
	after := fsys.IdentityOf(fi)
	if after.Mtime != before.Mtime || after.Ctime == before.Ctime || after.Ino != before.Ino {
		t.Fatalf("after a chmod and a link: %+v, before %+v; want the same mtime, a new ctime", after, before)
	}
	f.Write([]byte("y"))
	fi, _ = m.Lstat("a")
	if fsys.IdentityOf(fi).Mtime == after.Mtime {
		t.Fatal("a write kept the mtime")
	}
}
