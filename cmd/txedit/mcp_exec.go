package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"github.com/txedit/txedit/internal/mcpcli"
)

// mcpBinary is the MCP server's binary: txedit-mcp beside this txedit,
// else on PATH.
func mcpBinary() (string, error) {
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), "txedit-mcp")
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	if p, err := exec.LookPath("txedit-mcp"); err == nil {
		return p, nil
	}
	return "", errors.New("the MCP server is the separate binary txedit-mcp (so that every other command starts fast), and it is neither beside this txedit nor on PATH: go install ./cmd/txedit-mcp in the clone (go install ./cmd/... installs both)")
}

// execMCP becomes txedit-mcp serving cfg: the same process (its PID, its
// standard input and output), so the client talks to the server directly.
// cfg was checked here, so a mistake is reported as txedit mcp's.
func (e *env) execMCP(cfg *mcpcli.Config) int {
	bin, err := mcpBinary()
	if err != nil {
		fmt.Fprintf(e.stderr, "%s%v\n", e.pfx(), err)
		return 1
	}
	argv := append([]string{bin}, cfg.Args()...)
	// A CPU profile's interval timer (TXEDIT_CPUPROFILE) survives execve
	// and its SIGPROF would kill txedit-mcp before it sets a handler:
	// stopped here, and txedit-mcp profiles itself into the same file.
	stopCPUProfile()
	if err := syscall.Exec(bin, argv, os.Environ()); err != nil {
		fmt.Fprintf(e.stderr, "%sstarting %s: %v\n", e.pfx(), bin, err)
		return 1
	}
	return 0 // not reached
}
