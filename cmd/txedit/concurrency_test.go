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

// TestConcurrentProcesses: four agents, each a series of separate txedit
// processes, increment one counter by reading it (fs_read returns a
// range token) and writing it back with replace_lines guarded by that
// token, retrying on stale_hash. The final count equals the number of
// successful writes: no update is lost.
func TestConcurrentProcesses(t *testing.T) {
	bin := hookedBinary(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "count.txt"), []byte("counter\n0\nend\n"), 0o644)
	const agents, each = 4, 12
	var wg sync.WaitGroup
	var mu sync.Mutex
	successes, retries := 0, 0
	for a := 0; a < agents; a++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for done := 0; done < each; {
				read := exec.Command(bin, "read", "--json", "--root", dir)
				read.Stdin = strings.NewReader(`{"mode":"Line","path":"count.txt","start_line":2,"end_line":2}`)
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
				req := fmt.Sprintf(`{"command":"replace_lines","path":"count.txt","start_line":2,"end_line":2,"new_str":"%d","content_hash":"%s"}`, n+1, r.ContentHash)
				apply := exec.Command(bin, "apply", "--json", "--root", dir)
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
	data, _ := os.ReadFile(filepath.Join(dir, "count.txt"))
	want := fmt.Sprintf("counter\n%d\nend\n", successes)
	if string(data) != want || successes != agents*each {
		t.Fatalf("count.txt = %q after %d successful writes, want %q", data, successes, want)
	}
	t.Logf("%d processes x %d increments: %d writes, %d retries on stale_hash/busy, no update lost", agents, each, successes, retries)
}
