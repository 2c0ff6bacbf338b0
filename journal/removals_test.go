package journal

import (
	"fmt"
	"path"
	"strings"
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
	match   func(name string) bool // the removals counted (nil: staging names)

	mu       sync.Mutex
	inFlight int
	most     int
}

func (r *removalsSeen) Remove(name string) error {
	if r.match == nil && !IsTemp(path.Base(name)) || r.match != nil && !r.match(name) {
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

// TestRetireInFlight: retention removes the records of the transactions
// it retires up to removeWorkers at once, as a commit removes what it
// displaced (each removal frees a file that holds data).
func TestRetireInFlight(t *testing.T) {
	probe := &removalsSeen{FS: fstest.NewDisk(map[string]string{"f": "0\n"}).Mem, waitFor: removeWorkers}
	probe.match = func(string) bool { return false }
	j := New(probe, &Options{Sync: SyncData, Workers: 4, Keep: 1000})
	content := "0\n"
	for i := range 2*removeWorkers + 1 {
		next := fmt.Sprintf("%d\n", i+1)
		w := workload{initial: map[string]string{"f": content}, change: map[string]*string{"f": s(next)}}
		if err := runTxOn(j, probe, w); err != nil {
			t.Fatal(err)
		}
		content = next
	}
	j.opts.Keep = 1
	probe.match = func(name string) bool {
		dir, base := path.Split(name)
		return dir == txnsDir+"/" && !strings.Contains(base, ".")
	}
	l, err := j.Lock()
	if err != nil {
		t.Fatal(err)
	}
	removed, err := l.GC()
	l.Unlock()
	if err != nil || len(removed) != 2*removeWorkers {
		t.Fatalf("GC removed %d, %v; want %d", len(removed), err, 2*removeWorkers)
	}
	if probe.most != removeWorkers {
		t.Errorf("up to %d records removed at once, want %d", probe.most, removeWorkers)
	}
}
