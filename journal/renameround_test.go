package journal

import (
	"path"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/fsys/fstest"
)

// orderFS records the removals and directory syncs, in order.
type orderFS struct {
	fsys.FS
	mu     sync.Mutex
	events []string
}

func (o *orderFS) note(e string) {
	o.mu.Lock()
	o.events = append(o.events, e)
	o.mu.Unlock()
}

func (o *orderFS) Remove(name string) error {
	if IsTemp(path.Base(name)) {
		o.note("remove " + path.Dir(name))
	}
	return o.FS.Remove(name)
}

func (o *orderFS) SyncDir(name string) error {
	if !strings.HasPrefix(name, Dir) {
		o.note("sync " + name)
	}
	return o.FS.SyncDir(name)
}

// TestRenameRoundSyncsEachDirWhenDone: in the rename round a directory's
// fsync comes right after the removal of the last displaced file in it,
// before the next directory's removals (one worker, so in a fixed order),
// not after every directory's; and a directory without a displaced file
// (a create's) is synced first.
func TestRenameRoundSyncsEachDirWhenDone(t *testing.T) {
	w := workload{name: "three dirs", initial: map[string]string{}, change: map[string]*string{"new/f": s("f\n")}}
	for _, p := range []string{"a/1", "b/1", "a/2", "c/1", "b/2"} {
		w.initial[p] = "old\n"
		w.change[p] = s("new " + p + "\n")
	}
	o := &orderFS{FS: fstest.NewDisk(w.initial).Mem}
	if err := runTx(o, &Options{Sync: SyncData, Workers: 1}, w); err != nil {
		t.Fatal(err)
	}
	// The prepare round syncs the staging directories first; the rename
	// round's events start at the first removal, less the one before it.
	i := slices.Index(o.events, "remove a")
	if i < 1 {
		t.Fatalf("no removal in a: %q", o.events)
	}
	got := strings.Join(o.events[i-1:], ", ")
	want := "sync new, remove a, remove a, sync a, remove b, remove b, sync b, remove c, sync c"
	if got != want {
		t.Errorf("rename round:\n got %s\nwant %s", got, want)
	}
}
