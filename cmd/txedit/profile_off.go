//go:build !txedit_pprof

package main

import (
	"fmt"
	"os"
	"runtime"
)

// profiled runs the command. This build has no profiler (build with
// -tags txedit_pprof for TXEDIT_CPUPROFILE, TXEDIT_MEMPROFILE and
// TXEDIT_TRACE), so a
// request for a profile is answered with a warning rather than a missing
// file; txedit mcp's server, txedit-mcp, always has one.
func profiled(args []string, f func() int) int {
	runtime.MemProfileRate = 0
	if (os.Getenv("TXEDIT_CPUPROFILE") != "" || os.Getenv("TXEDIT_MEMPROFILE") != "" || os.Getenv("TXEDIT_TRACE") != "") && (len(args) == 0 || args[0] != "mcp") {
		fmt.Fprintln(os.Stderr, "txedit: TXEDIT_CPUPROFILE, TXEDIT_MEMPROFILE and TXEDIT_TRACE need a txedit built with -tags txedit_pprof; no profile or trace is written")
	}
	return f()
}

func stopCPUProfile() {}
