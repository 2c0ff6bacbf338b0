//go:build !linux

// Command fscostbench times single file-system calls (main_linux.go); it
// uses Linux calls (fdatasync, O_TMPFILE) and runs on Linux only.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "fscostbench: Linux only (fdatasync, O_TMPFILE)")
	os.Exit(1)
}
