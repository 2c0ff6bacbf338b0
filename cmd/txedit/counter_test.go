package main

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// counterAgent names where an agent opens the workspace and the counter
// file's path relative to that root.
type counterAgent struct{ root, name string }

// incrementCounter runs the agents at once, each a series of separate
// txedit processes that read the counter on line 2 (fs_read returns a
// range token) and write it back plus one with replace_lines guarded by
// that token, retrying on stale_hash, conflict and busy, until each has
// made each successful increments. It returns the successes and retries.
func incrementCounter(t *testing.T, bin string, agents []counterAgent, each int) (successes, retries int) {
	t.Helper()
	var wg sync.WaitGroup
	var mu sync.Mutex
	for _, ag := range agents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for done := 0; done < each; {
				read := exec.Command(bin, "read", "--json", "--root", ag.root)
				read.Stdin = strings.NewReader(`{"mode":"Line","path":"` + ag.name + `","start_line":2,"end_line":2}`)
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
				req := fmt.Sprintf(`{"command":"replace_lines","path":"%s","start_line":2,"end_line":2,"new_str":"%d","content_hash":"%s"}`, ag.name, n+1, r.ContentHash)
				apply := exec.Command(bin, "apply", "--json", "--root", ag.root)
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
	return successes, retries
}
