package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// TestNestedRootsNoLostUpdate: agents increment one counter, each a
// series of txedit processes that read it (with its range token) and write
// it back with replace_lines guarded by that token, retrying on
// stale_hash. Half the agents open the workspace at w, half at w/sub
// (--root defaults to the current directory, so this is easy to do). Each
// root has its own journal and LOCK: before the tree lock, the two sets of
// writers were not serialised and increments were lost (54 of 80).
func TestNestedRootsNoLostUpdate(t *testing.T) {
	bin := hookedBinary(t)
	top := t.TempDir()
	sub := filepath.Join(top, "sub")
	os.MkdirAll(sub, 0o755)
	os.WriteFile(filepath.Join(sub, "count.txt"), []byte("counter\n0\nend\n"), 0o644)
	const agents, each = 4, 20
	var wg sync.WaitGroup
	var mu sync.Mutex
	successes, retries := 0, 0
	for a := 0; a < agents; a++ {
		root, name := top, "sub/count.txt"
		if a%2 == 1 {
			root, name = sub, "count.txt"
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for done := 0; done < each; {
				read := exec.Command(bin, "read", "--json", "--root", root)
				read.Stdin = strings.NewReader(`{"mode":"Line","path":"` + name + `","start_line":2,"end_line":2}`)
				out, err := read.Output()
				if err != nil {
					t.Errorf("read: %v", err)
					return
				}
				var r struct {
					Content     string `json:"content"`
					ContentHash string `json:"content_hash"`
				}
				json.Unmarshal(out, &r)
				n, err := strconv.Atoi(strings.TrimSpace(r.Content))
				if err != nil {
					t.Errorf("counter %q: %v", r.Content, err)
					return
				}
				req := fmt.Sprintf(`{"command":"replace_lines","path":"%s","start_line":2,"end_line":2,"new_str":"%d","content_hash":"%s"}`, name, n+1, r.ContentHash)
				apply := exec.Command(bin, "apply", "--json", "--root", root)
				apply.Stdin = strings.NewReader(req)
				out, _ = apply.Output()
				var res struct {
					Success bool   `json:"success"`
					Code    string `json:"code"`
				}
				json.Unmarshal(out, &res)
				mu.Lock()
				switch {
				case res.Success:
					successes++
					done++
				case res.Code == "stale_hash" || res.Code == "conflict" || res.Code == "busy":
					retries++
				default:
					t.Errorf("apply: %s", out)
					done = each
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	data, _ := os.ReadFile(filepath.Join(sub, "count.txt"))
	got, _ := strconv.Atoi(strings.Split(string(data), "\n")[1])
	t.Logf("%d agents on two nested roots: %d successful increments, counter at %d, %d retries", agents, successes, got, retries)
	if got != successes || successes != agents*each {
		t.Fatalf("counter at %d after %d successful increments: %d updates lost", got, successes, successes-got)
	}
}
