package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/txedit/txedit/internal/testlong"
)

// TestNestedRootsNoLostUpdate: agents increment one counter, each a
// series of txedit processes that read it (with its range token) and write
// it back with replace_lines guarded by that token, retrying on
// stale_hash. Half the agents open the workspace at w, half at w/sub
// (--root defaults to the current directory, so this is easy to do). Each
// root has its own journal and LOCK: before the tree lock, the two sets of
// writers were not serialised and increments were lost (54 of 80). (4 x 3
// increments in the quick run, 4 x 20 with TXEDIT_LONG=1.)
func TestNestedRootsNoLostUpdate(t *testing.T) {
	bin := hookedBinary(t)
	top := t.TempDir()
	sub := filepath.Join(top, "sub")
	os.MkdirAll(sub, 0o755)
	os.WriteFile(filepath.Join(sub, "count.txt"), []byte("counter\n0\nend\n"), 0o644)
	agents, each := 4, testlong.Pick(3, 20)
	var ags []counterAgent
	for a := 0; a < agents; a++ {
		if a%2 == 0 {
			ags = append(ags, counterAgent{top, "sub/count.txt"})
		} else {
			ags = append(ags, counterAgent{sub, "count.txt"})
		}
	}
	successes, retries := incrementCounter(t, bin, ags, each)
	data, _ := os.ReadFile(filepath.Join(sub, "count.txt"))
	got, _ := strconv.Atoi(strings.Split(string(data), "\n")[1])
	t.Logf("%d agents on two nested roots: %d successful increments, counter at %d, %d retries", agents, successes, got, retries)
	if got != successes || successes != agents*each {
		t.Fatalf("counter at %d after %d successful increments: %d updates lost", got, successes, successes-got)
	}
}
