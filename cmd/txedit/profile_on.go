//go:build txedit_pprof

package main

import "github.com/txedit/txedit/internal/profile"

// profiled runs the command under TXEDIT_CPUPROFILE and TXEDIT_MEMPROFILE
// (this build has -tags txedit_pprof).
func profiled(args []string, f func() int) int { return profile.Run(f) }

// stopCPUProfile stops the CPU profile before txedit mcp becomes
// txedit-mcp (mcp_exec.go).
func stopCPUProfile() { profile.StopCPU() }
