package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/txedit/txedit/internal/testlong"
)

// TestConcurrentProcesses: four agents, each a series of separate txedit
// processes, increment one counter by reading it (fs_read returns a
// range token) and writing it back with replace_lines guarded by that
// token, retrying on stale_hash. The final count equals the number of
// successful writes: no update is lost. (4 x 3 increments in the quick
// run, 4 x 12 with TXEDIT_LONG=1.)
func TestConcurrentProcesses(t *testing.T) {
	bin := hookedBinary(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "count.txt"), []byte("counter\n0\nend\n"), 0o644)
	agents, each := 4, testlong.Pick(3, 12)
	var ags []counterAgent
	for a := 0; a < agents; a++ {
		ags = append(ags, counterAgent{dir, "count.txt"})
	}
	successes, retries := incrementCounter(t, bin, ags, each)
	data, _ := os.ReadFile(filepath.Join(dir, "count.txt"))
	want := fmt.Sprintf("counter\n%d\nend\n", successes)
	if string(data) != want || successes != agents*each {
		t.Fatalf("count.txt = %q after %d successful writes, want %q", data, successes, want)
	}
	t.Logf("%d processes x %d increments: %d writes, %d retries on stale_hash/busy, no update lost", agents, each, successes, retries)
}
