// Package profile runs a command's main function under the profiles that
// TXEDIT_CPUPROFILE and TXEDIT_MEMPROFILE ask for (files to write; read
// them with `go tool pprof -top`), and under the execution trace that
// TXEDIT_TRACE asks for (`go tool trace`).
//
// txedit-mcp always links it. The txedit command links it only when built
// with -tags txedit_pprof: runtime/pprof brings compress/gzip, hash/crc32
// and text/tabwriter, whose code and package initialisation every command
// would pay at start (docs/design.md, "Process start").
package profile

import (
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
)

// Run runs f under the profiles the environment asks for; without them
// it turns memory profiling off (no sampling cost, no profile buckets).
func Run(f func() int) int {
	cpu, mem := os.Getenv("TXEDIT_CPUPROFILE"), os.Getenv("TXEDIT_MEMPROFILE")
	if mem == "" {
		runtime.MemProfileRate = 0
	}
	if tr := os.Getenv("TXEDIT_TRACE"); tr != "" {
		if out, err := os.Create(tr); err == nil {
			if trace.Start(out) == nil {
				defer out.Close()
				defer trace.Stop()
			}
		}
	}
	if cpu == "" && mem == "" {
		return f()
	}
	if mem != "" {
		runtime.MemProfileRate = 1
	}
	if cpu != "" {
		if out, err := os.Create(cpu); err == nil {
			if pprof.StartCPUProfile(out) == nil {
				defer out.Close()
				defer pprof.StopCPUProfile()
			}
		}
	}
	code := f()
	if mem != "" {
		if out, err := os.Create(mem); err == nil {
			pprof.Lookup("allocs").WriteTo(out, 0)
			out.Close()
		}
	}
	return code
}

// StopCPU stops the CPU profile, if one runs: before an execve, whose new
// program would inherit the profiler's interval timer but not its SIGPROF
// handler.
func StopCPU() { pprof.StopCPUProfile() }
