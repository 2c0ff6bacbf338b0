//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/txedit/txedit/internal/mountns"
)

// TestBindMountNoLostUpdate: like TestNestedRootsNoLostUpdate, but the
// nested root is reached through a bind mount of the subdirectory (w/sub
// mounted on m, a sibling of w): half the agents open w and write
// sub/count.txt, half open m and write count.txt, one file. From m the
// tree lock's walk up ".." leads to the mount point's parent, not to w, so
// the two sets of writers were not serialised (10 of 60 increments lost;
// docs/testing.md, the reliability audit). The test runs itself again in a
// mount namespace of its own (unshare -m), where it makes the bind mount;
// that needs root.
func TestBindMountNoLostUpdate(t *testing.T) {
	if dir := os.Getenv("TXEDIT_BIND_COUNTER"); dir != "" {
		bindCounterChild(t, dir, os.Getenv("TXEDIT_BIND_BIN"))
		return
	}
	mountns.Require(t)
	bin := hookedBinary(t)
	top := t.TempDir()
	os.MkdirAll(filepath.Join(top, "w", "sub"), 0o755)
	os.MkdirAll(filepath.Join(top, "m"), 0o755)
	os.WriteFile(filepath.Join(top, "w", "sub", "count.txt"), []byte("counter\n0\nend\n"), 0o644)
	mountns.Rerun(t, "TXEDIT_BIND_COUNTER="+top, "TXEDIT_BIND_BIN="+bin)
}

func bindCounterChild(t *testing.T, top, bin string) {
	w, sub, m := filepath.Join(top, "w"), filepath.Join(top, "w", "sub"), filepath.Join(top, "m")
	if err := syscall.Mount(sub, m, "", syscall.MS_BIND, ""); err != nil {
		t.Fatalf("mount --bind: %v", err)
	}
	defer syscall.Unmount(m, 0)
	const agents, each = 4, 15
	var ags []counterAgent
	for a := 0; a < agents; a++ {
		if a%2 == 0 {
			ags = append(ags, counterAgent{w, "sub/count.txt"})
		} else {
			ags = append(ags, counterAgent{m, "count.txt"})
		}
	}
	successes, retries := incrementCounter(t, bin, ags, each)
	data, _ := os.ReadFile(filepath.Join(sub, "count.txt"))
	got, _ := strconv.Atoi(strings.Split(string(data), "\n")[1])
	t.Logf("%d agents on a root and a bind mount of its subdirectory: %d successful increments, counter at %d, %d retries", agents, successes, got, retries)
	if got != successes || successes != agents*each {
		t.Fatalf("counter at %d after %d successful increments: %d updates lost", got, successes, successes-got)
	}
}
