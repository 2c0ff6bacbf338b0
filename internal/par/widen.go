package par

import (
	"runtime"
	"sync"
)

// SyscallProcs is how many Go Ps Widen gives a process while it waits for
// many blocking system calls at once (journal: a round of fsyncs).
const SyscallProcs = 8

var widen struct {
	sync.Mutex
	n      int // Widen calls not yet restored
	orig   int // GOMAXPROCS before the first of them
	raised int // what it was set to; 0: not raised
}

// Widen raises GOMAXPROCS to at least procs until the returned function
// is called, and returns that function (which restores it once every
// Widen still in effect is restored, unless someone else changed it
// meanwhile). A goroutine in a blocking system call keeps its P until the
// runtime's monitor takes it back (20 µs to 10 ms later), so with
// GOMAXPROCS 2 a round of 20 fsyncs issued at once runs about two at a
// time; a P in a system call uses no CPU, and with more of them every
// call is in flight at once (docs/journal.md, "What a commit's calls
// cost"). For the steps that wait for the device, not for CPU work:
// more Ps than cores also means more goroutines running Go code at once.
func Widen(procs int) (restore func()) {
	widen.Lock()
	defer widen.Unlock()
	if widen.n == 0 {
		widen.orig, widen.raised = runtime.GOMAXPROCS(0), 0
		if widen.orig < procs {
			runtime.GOMAXPROCS(procs)
			widen.raised = procs
		}
	}
	widen.n++
	var once sync.Once
	return func() {
		once.Do(func() {
			widen.Lock()
			defer widen.Unlock()
			widen.n--
			if widen.n == 0 && widen.raised != 0 && runtime.GOMAXPROCS(0) == widen.raised {
				// Setting GOMAXPROCS stops the runtime's own updates of it
				// (the CPU limit of the container changing): where the
				// value before was the default, the default is put back,
				// updates and all.
				runtime.SetDefaultGOMAXPROCS()
				if runtime.GOMAXPROCS(0) != widen.orig {
					runtime.GOMAXPROCS(widen.orig)
				}
			}
		})
	}
}
