// Command txedit reads, searches and changes the files of a workspace
// through one transactional engine: every change is planned, checked
// against content hashes, previewed as a diff, and committed
// all-or-nothing through a journal that `txedit undo` rolls back.
//
// Run `txedit help` for the commands.
//
// For performance work, a txedit built with -tags txedit_pprof writes a
// CPU profile of the command to FILE given TXEDIT_CPUPROFILE=FILE, and
// an allocation profile (every allocation sampled) given
// TXEDIT_MEMPROFILE=FILE, when it ends; read them with
// `go tool pprof -top`; and its execution trace given TXEDIT_TRACE=FILE
// (`go tool trace`). (txedit mcp's server, txedit-mcp, always can.)
package main

import (
	"os"
	"runtime/debug"
	"strings"

	"github.com/txedit/txedit/tools"
)

// memoryLimit is the soft limit of the Go heap (GOMEMLIMIT overrides it).
const memoryLimit = 128 << 20

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent(os.Args[1:]))
	}
	// What a command holds is bounded by its workers and its memory
	// budget, not by the size of the tree; the soft limit makes the
	// collector work harder than GOGC=400 would once the heap nears it,
	// so that peak RSS stays near what is live (bench/README.md: a 50,000-file
	// replacement under 200 MiB).
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
	os.Exit(profiled(os.Args[1:], func() int { return run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr) }))
}

// gcPercent is the collector's setting for a command. A command lives for
// one request and its live heap is small (reads stream through a bounded
// window), so trading some memory for fewer collections is cheap: a batch
// read of a source tree runs ~25% faster at 400. Grep allocates little per
// file and is held to a peak RSS near ripgrep's: at 50 its heap stays at
// two or three MiB, at the cost of a few sub-millisecond collections.
// Apply and replace read, edit and read again at staging every changed
// file (beyond a small memory budget), tens of MiB that die young: at
// 400 the heap grows through fresh pages, which cost ~15 µs each on the
// benchmark machine (a fault into the VM's memory), and at 100 it reuses
// them — over GOROOT/src 6,000 page faults instead of 12,000 and ~25%
// less time; a 1,000-file commit 2,600 instead of 4,900 and ~6% less
// (bench/README.md).
func gcPercent(args []string) int {
	if len(args) == 0 {
		return 400
	}
	switch args[0] {
	case "grep":
		return 50
	case "replace", "apply", "undo", "redo":
		return 100
	case "mcp":
		// A server's writes (a pattern_replace sent as a request) are the
		// same work as apply's: at 400 a GOROOT/src replacement through a
		// tool took 12,000-13,000 page faults instead of 7,000 (every
		// entry point as fast as the CLI's: bench/README.md).
		return 100
	}
	// txedit tool: toolGCPercent, once the tool is known (finding it here
	// built every toolset before each call: a tenth of a read's time).
	return 400
}

// toolGCPercent is the collector's setting for a tool's call, as for the
// command it stands for: 50 for a grep, 100 for a tool that writes, 0
// (keep the command's) for the others.
func toolGCPercent(t *tools.Tool) int {
	switch {
	case strings.EqualFold(t.Name, "grep"):
		return 50
	case !t.ReadOnly && !t.Execute:
		return 100
	}
	return 0
}
