package journal

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/txedit/txedit/fsys"
)

// TestPruneKeys: only "does not exist" counts as gone; an entry younger
// than minAge, a live journal and a damaged entry are kept; a dry run
// removes nothing (docs/journal.md, "Pruning the key store").
func TestPruneKeys(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Mkdir(store, 0o700))
	live := filepath.Join(dir, "live")
	must(os.MkdirAll(filepath.Join(live, Dir), 0o755))
	blocker := filepath.Join(dir, "file")
	must(os.WriteFile(blocker, nil, 0o644))
	roots := map[string]string{
		"live":     live,
		"gone":     filepath.Join(dir, "nothing", "ws"),
		"notdir":   filepath.Join(blocker, "ws"), // ENOTDIR, not ENOENT
		"relative": "rel/ws",
		"young":    filepath.Join(dir, "young"),
	}
	ids := map[string]string{}
	now := time.Now()
	for n, root := range roots {
		id := newJournalID()
		ids[n] = id
		e := &keyEntry{id: id, path: root, key: make([]byte, keyLen)}
		must(os.WriteFile(filepath.Join(store, id), e.encode(), 0o600))
		if n != "young" {
			old := now.Add(-time.Hour)
			must(os.Chtimes(filepath.Join(store, id), old, old))
		}
	}
	must(os.WriteFile(filepath.Join(live, Dir, "id"), []byte(ids["live"]+"\n"), 0o600))
	damaged := newJournalID()
	must(os.WriteFile(filepath.Join(store, damaged), []byte("torn"), 0o600))

	for _, remove := range []bool{false, true} {
		got, err := PruneKeys(store, remove, time.Minute, now)
		must(err)
		if len(got) != len(roots)+1 {
			t.Fatalf("%d entries, want %d: %+v", len(got), len(roots)+1, got)
		}
		for _, pe := range got {
			want := pe.ID == ids["gone"]
			if pe.Remove != want || pe.Done != (want && remove) {
				t.Errorf("remove=%v: %s (%s): %+v", remove, pe.ID, pe.Root, pe)
			}
		}
		_, err = os.Lstat(filepath.Join(store, ids["gone"]))
		if remove != os.IsNotExist(err) {
			t.Errorf("remove=%v: the gone entry: %v", remove, err)
		}
		for n, id := range ids {
			if n != "gone" {
				if _, err := os.Lstat(filepath.Join(store, id)); err != nil {
					t.Errorf("%s removed: %v", n, err)
				}
			}
		}
	}
	// A store that does not exist yet has nothing to prune.
	if got, err := PruneKeys(filepath.Join(dir, "none"), true, 0, now); err != nil || len(got) != 0 {
		t.Errorf("no store: %v %v", got, err)
	}
}

// TestPruneKeysOtherFileSystem: a root that is missing, or holds no
// journal, where what stands in its place (the nearest directory above
// it, or the root itself) is on another device than the journal was, is
// a file system that is not mounted, not a deleted workspace: kept. On the
// journal's own device it is gone.
func TestPruneKeysOtherFileSystem(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	if err := os.Mkdir(store, 0o700); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	dev := fsys.IdentityOf(fi).Dev
	for _, d := range []string{"mnt", "empty", "plain"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name, root string
		dev        uint64
		remove     bool
	}{
		{"unmounted", filepath.Join(dir, "mnt", "data", "ws"), dev + 1, false},
		{"empty mount point", filepath.Join(dir, "empty"), dev + 1, false},
		{"deleted", filepath.Join(dir, "mnt", "gone", "ws"), dev, true},
		{"emptied", filepath.Join(dir, "plain"), dev, true},
		{"no device recorded", filepath.Join(dir, "mnt", "old", "ws"), 0, true},
	}
	byID := map[string]int{}
	old := time.Now().Add(-time.Hour)
	for i, c := range cases {
		id := newJournalID()
		byID[id] = i
		e := &keyEntry{id: id, dev: c.dev, ino: 1, path: c.root, key: make([]byte, keyLen)}
		p := filepath.Join(store, id)
		if err := os.WriteFile(p, e.encode(), 0o600); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, old, old)
	}
	got, err := PruneKeys(store, true, time.Minute, time.Now())
	if err != nil || len(got) != len(cases) {
		t.Fatalf("PruneKeys: %v, %d entries", err, len(got))
	}
	for _, pe := range got {
		c := cases[byID[pe.ID]]
		if pe.Remove != c.remove || pe.Done != c.remove || !c.remove && !strings.Contains(pe.Reason, "another file system") {
			t.Errorf("%s: %+v", c.name, pe)
		}
	}
}
