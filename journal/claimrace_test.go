package journal

import (
	"errors"
	"io/fs"
	"sync"
	"testing"

	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/fsys/memfs"
)

// claimRaceFS runs claim, once, at the moment one of its hooks picks:
// right after the journal it serves has made the look the hook names,
// another writer's first commit claims the journal.
type claimRaceFS struct {
	fsys.FS
	once    sync.Once
	claim   func()
	lstat   func(name string, err error) bool          // after an Lstat
	readDir func(name string, ents []fs.DirEntry) bool // after a ReadDir
}

func (f *claimRaceFS) Lstat(name string) (fs.FileInfo, error) {
	fi, err := f.FS.Lstat(name)
	if f.lstat != nil && f.lstat(name, err) {
		f.once.Do(f.claim)
	}
	return fi, err
}

func (f *claimRaceFS) ReadDir(name string) ([]fs.DirEntry, error) {
	ents, err := f.FS.ReadDir(name)
	if f.readDir != nil && f.readDir(name, ents) {
		f.once.Do(f.claim)
	}
	return ents, err
}

// lockBesideAClaim makes a fresh journal in mem (its directories, and the
// files in with), then takes the lock through f while another writer
// claims the journal at the moment f's hooks pick; both must succeed, and
// the journal is this user's after.
func lockBesideAClaim(t *testing.T, mem *memfs.FS, f *claimRaceFS, with ...string) {
	t.Helper()
	keys := NewKeys(memfs.New(nil), "test store")
	other := New(mem, &Options{Sync: SyncNone, Keys: keys})
	// The journal exists, fresh (its directories made), as it is while
	// the other writer waits for the lock it is about to take.
	mustMkdirAll(t, mem, txnsDir)
	mustMkdirAll(t, mem, Dir+"/pending")
	for _, name := range with {
		mustWrite(t, mem, name, []byte(gitignore))
	}
	var claimErr error
	f.FS, f.claim = mem, func() {
		l, err := other.Lock()
		if err == nil {
			err = l.Unlock()
		}
		claimErr = err
	}
	j := New(f, &Options{Sync: SyncNone, Keys: keys})
	l, err := j.Lock()
	if claimErr != nil {
		t.Fatalf("the other writer's Lock: %v", claimErr)
	}
	if err != nil {
		t.Fatalf("Lock while another writer claimed the journal: %v", err)
	}
	l.Unlock()
	if st, err := j.Status(); err != nil || st.Standing != Trusted {
		t.Fatalf("Status: %v %+v", err, st)
	}
}

// TestConcurrentFirstWritesBothTrusted: two writers' first commits in a
// new workspace at once. The one that finds no id while the other claims
// the journal saw a directory holding an id but, by its first look, none:
// it took the journal for a foreign one ("it has no id in your key
// store", untrusted_journal) and refused the write. It must look again
// and find the journal this user's.
func TestConcurrentFirstWritesBothTrusted(t *testing.T) {
	mem := memfs.New(map[string]string{"a": "old\n"})
	lockBesideAClaim(t, mem, &claimRaceFS{lstat: func(name string, err error) bool {
		return name == idName && errors.Is(err, fs.ErrNotExist)
	}})
}

// TestFirstWriteBesideAClaimInProgress: a writer's look at a fresh journal
// listed another writer's .gitignore.tmp, which that writer renamed in
// before the look reached it. The lstat's "no such file or directory" was
// the answer to the edit (io_error; TestAgentsBench's filesystem toolset
// saw it in CI). It must list the journal again, find the other writer's
// claim, and go on in a journal it trusts.
func TestFirstWriteBesideAClaimInProgress(t *testing.T) {
	mem := memfs.New(map[string]string{"a": "old\n"})
	lockBesideAClaim(t, mem, &claimRaceFS{readDir: func(name string, ents []fs.DirEntry) bool {
		for _, e := range ents {
			if name == Dir && e.Name() == ".gitignore.tmp" {
				return true
			}
		}
		return false
	}}, Dir+"/.gitignore.tmp")
	if _, err := mem.Lstat(Dir + "/.gitignore.tmp"); !fsys.Gone(err) {
		t.Fatalf("the other writer's claim left its temporary .gitignore: %v", err)
	}
}
