package journal

import (
	"fmt"
	"path"
	"sync"
	"testing"
	"time"

	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/fsys/fstest"
)

// removalsSeen records how many removals of staging names run at once:
// each waits (up to 300 ms) for the others a commit would run beside it.
type removalsSeen struct {
	fsys.FS
	waitFor int

	mu       sync.Mutex
	inFlight int
	most     int
}

func (r *removalsSeen) Remove(name string) error {
	if !IsTemp(path.Base(name)) {
		return r.FS.Remove(name)
	}
	r.mu.Lock()
	r.inFlight++
	r.most = max(r.most, r.inFlight)
	deadline := time.Now().Add(300 * time.Millisecond)
	for r.inFlight < r.waitFor && time.Now().Before(deadline) {
		r.mu.Unlock()
		time.Sleep(time.Millisecond)
		r.mu.Lock()
	}
	r.mu.Unlock()
	err := r.FS.Remove(name)
	r.mu.Lock()
	r.inFlight--
	r.mu.Unlock()
	return err
}

// TestRemovalsInFlight: the displaced versions of a commit of many files
// are removed up to removeWorkers at once, more than Options.Workers (each
// removal may wait for the device: docs/journal.md, "Removals in
// flight"), no more than SyncWorkers, and one at a time with Workers 1.
func TestRemovalsInFlight(t *testing.T) {
	for _, c := range []struct {
		workers, syncWorkers, want int
	}{
		{4, 64, removeWorkers},
		{4, 8, 8},
		{32, 64, 32},
		{1, 1, 1},
	} {
		name := fmt.Sprintf("workers %d, sync workers %d", c.workers, c.syncWorkers)
		w := workload{name: name, initial: map[string]string{}, change: map[string]*string{}}
		for i := range 96 { // a multiple of every want: no batch waits out its deadline

			p := fmt.Sprintf("d%d/f%d", i%3, i)
			w.initial[p] = "old\n"
			w.change[p] = s("new " + p + "\n")
		}
		probe := &removalsSeen{FS: fstest.NewDisk(w.initial).Mem, waitFor: c.want}
		j := New(probe, &Options{Sync: SyncData, Workers: c.workers, SyncWorkers: c.syncWorkers})
		if err := runTxOn(j, probe, w); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if probe.most != c.want {
			t.Errorf("%s: up to %d removals at once, want %d", name, probe.most, c.want)
		}
	}
}
