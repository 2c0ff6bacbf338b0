// Package fdtable grows the process's table of file descriptors ahead of
// need.
//
// Linux grows a process's descriptor table by doubling it (64, 128, 256,
// 512, 1024 slots), and each time it does so in a process of several
// threads (every Go program) it waits for an RCU grace period (fs/file.c,
// expand_fdtable), and every thread that needs a descriptor past the old
// end waits with it: 8-35 ms a step on the 2-core VM of bench/README.md
// ("round 4 (replcpu: the descriptor table)"), time in which neither core
// did any of txedit's work. A commit of hundreds of files holds up to 256
// read leases and 512 cached directory handles at once (journal's
// heldLeasesMax, fsys's maxCachedDirs): a replacement across GOROOT/src
// crossed 256 and 512 while it staged and committed, and stood still
// twice.
package fdtable

import "sync"

// Slots is the table Reserve asks for: it holds the bounds above
// (512 + 256 + fsys's 64 held directories) and the few descriptors the
// journal, the lock and the walk keep besides.
const Slots = 1024

var once sync.Once

// Reserve grows the table to Slots, once a process, in the background:
// one step (one grace period) from the table's initial 64 slots, waited
// for by a thread of its own while the others go on with the descriptors
// the table already has. Best effort: where it cannot (a lower
// RLIMIT_NOFILE, another system) nothing changes.
//
// It is for work that will hold many descriptors: a process that exits
// while the step waits for its grace period exits when it ends (7 ms more
// for a three-file replacement), so a small request must not call it.
func Reserve() { once.Do(func() { go reserve(Slots) }) }

// done is closed when the background step has returned (tests).
var done = make(chan struct{})
