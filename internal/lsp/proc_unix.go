//go:build unix

package lsp

import (
	"os/exec"
	"syscall"
)

// setProcessGroup starts cmd in a process group of its own, so that the
// programs it starts (gopls runs go list) end with it.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killProcessGroup kills cmd's process group.
func killProcessGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
