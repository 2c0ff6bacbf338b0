package journal

import (
	"errors"
	"io/fs"
	"sync"
	"testing"

	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/fsys/memfs"
)

// idRaceFS runs claim, once, right after the journal it serves has found
// no id file: another writer's first commit claims the journal between
// Status's look at the id and its look at the directory.
type idRaceFS struct {
	fsys.FS
	once  sync.Once
	claim func()
}

func (f *idRaceFS) Lstat(name string) (fs.FileInfo, error) {
	fi, err := f.FS.Lstat(name)
	if name == idName && errors.Is(err, fs.ErrNotExist) {
		f.once.Do(f.claim)
	}
	return fi, err
}

// TestConcurrentFirstWritesBothTrusted: two writers' first commits in a
// new workspace at once. The one that finds no id while the other claims
// the journal saw a directory holding an id but, by its first look, none:
// it took the journal for a foreign one ("it has no id in your key
// store", untrusted_journal) and refused the write. It must look again
// and find the journal this user's.
func TestConcurrentFirstWritesBothTrusted(t *testing.T) {
	mem := memfs.New(map[string]string{"a": "old\n"})
	keys := NewKeys(memfs.New(nil), "test store")
	other := New(mem, &Options{Sync: SyncNone, Keys: keys})
	// The journal exists, fresh (its directories made), as it is while
	// the other writer waits for the lock it is about to take.
	mustMkdirAll(t, mem, txnsDir)
	mustMkdirAll(t, mem, Dir+"/pending")
	var claimErr error
	f := &idRaceFS{FS: mem, claim: func() {
		l, err := other.Lock()
		if err == nil {
			err = l.Unlock()
		}
		claimErr = err
	}}
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

// gitignoreRaceFS lets another writer's first commit run, once, right
// after the journal it serves has listed .txedit while that listing held
// the other writer's temporary .gitignore: the name is gone when looked
// at.
type gitignoreRaceFS struct {
	fsys.FS
	once  sync.Once
	claim func()
}

func (f *gitignoreRaceFS) ReadDir(name string) ([]fs.DirEntry, error) {
	ents, err := f.FS.ReadDir(name)
	for _, e := range ents {
		if name == Dir && e.Name() == ".gitignore.tmp" {
			f.once.Do(f.claim)
		}
	}
	return ents, err
}

// TestFirstWriteBesideAClaimInProgress: a writer's look at a fresh journal
// listed another writer's .gitignore.tmp, which that writer renamed in
// before the look reached it. The lstat's "no such file or directory" was
// the answer to the edit (io_error; TestAgentsBench's filesystem toolset
// saw it in CI). It must list the journal again, find the other writer's
// claim, and go on in a journal it trusts.
func TestFirstWriteBesideAClaimInProgress(t *testing.T) {
	mem := memfs.New(map[string]string{"a": "old\n"})
	keys := NewKeys(memfs.New(nil), "test store")
	other := New(mem, &Options{Sync: SyncNone, Keys: keys})
	mustMkdirAll(t, mem, txnsDir)
	mustMkdirAll(t, mem, Dir+"/pending")
	mustWrite(t, mem, Dir+"/.gitignore.tmp", []byte(gitignore))
	var claimErr error
	f := &gitignoreRaceFS{FS: mem, claim: func() {
		l, err := other.Lock()
		if err == nil {
			err = l.Unlock()
		}
		claimErr = err
	}}
	j := New(f, &Options{Sync: SyncNone, Keys: keys})
	l, err := j.Lock()
	if claimErr != nil {
		t.Fatalf("the other writer's Lock: %v", claimErr)
	}
	if err != nil {
		t.Fatalf("Lock while another writer claimed the journal: %v", err)
	}
	l.Unlock()
	if _, err := mem.Lstat(Dir + "/.gitignore.tmp"); !fsys.Gone(err) {
		t.Fatalf("the other writer's claim left its temporary .gitignore: %v", err)
	}
	if st, err := j.Status(); err != nil || st.Standing != Trusted {
		t.Fatalf("Status: %v %+v", err, st)
	}
}
