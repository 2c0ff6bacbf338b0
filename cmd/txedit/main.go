// Command txedit reads, searches and changes the files of a workspace
// through one transactional engine: every change is planned, checked
// against content hashes, previewed as a diff, and committed
// all-or-nothing through a journal that `txedit undo` rolls back.
//
// Run `txedit help` for the commands.
package main

import (
	"os"
	"runtime/debug"
)

func main() {
	// A command lives for one request and its live heap is small (reads
	// stream through a bounded window), so trading some memory for fewer
	// collections is cheap: a batch read of a source tree runs ~25% faster.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
