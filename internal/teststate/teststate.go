// Package teststate gives a test binary a key store of its own, so that no
// test ever writes into the real home directory: txedit keeps the keys of
// its journals in $XDG_STATE_HOME/txedit (docs/design.md, "What makes a
// journal trusted"), and every workspace a test opens on disk, and every
// txedit a test starts, would otherwise put one there.
package teststate

import (
	"fmt"
	"os"
	"path/filepath"
)

// Isolate points XDG_STATE_HOME (for this process and the processes it
// starts) at a new temporary directory, and returns the function that
// removes it. Call it first in TestMain, before anything opens a
// workspace.
func Isolate() (cleanup func()) {
	dir, err := os.MkdirTemp("", "txedit-state-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "teststate:", err)
		os.Exit(2)
	}
	os.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	return func() { os.RemoveAll(dir) }
}
