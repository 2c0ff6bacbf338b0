package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/txedit/txedit/hash"
	"github.com/txedit/txedit/plan"
)

// TestConcurrentCounter: writers, each with its own Workspace (as separate
// processes would have), increment one counter by reading it and writing
// it back with the read's hash, retrying on stale_hash. No increment may
// be lost: the final count equals the number of successful writes.
func TestConcurrentCounter(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"count.txt": "header\n0\nfooter\n"})
	const writers, each = 4, 15
	var wg sync.WaitGroup
	var mu sync.Mutex
	successes, stale := 0, 0
	for g := 0; g < writers; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w, err := Open(dir, nil)
			if err != nil {
				t.Error(err)
				return
			}
			defer w.Close()
			for done := 0; done < each; {
				data, err := os.ReadFile(filepath.Join(dir, "count.txt"))
				if err != nil {
					t.Error(err)
					return
				}
				lines := strings.Split(string(data), "\n")
				n, _ := strconv.Atoi(lines[1])
				tok, _ := hash.Lines(data, 2, 2)
				req := fmt.Sprintf(`{"fileEdits":[{"path":"count.txt","edits":[{"command":"replace_lines","start_line":2,"end_line":2,"new_str":"%d","content_hash":"%s"}]}]}`, n+1, tok)
				r, _ := plan.Parse([]byte(req))
				res, _ := w.Apply(context.Background(), r)
				mu.Lock()
				switch {
				case res.Success:
					successes++
					done++
				case res.Code == plan.CodeStaleHash || res.Code == plan.CodeConflict:
					stale++
				default:
					t.Errorf("unexpected failure: %+v", res)
					done = each
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	data, _ := os.ReadFile(filepath.Join(dir, "count.txt"))
	if want := fmt.Sprintf("header\n%d\nfooter\n", successes); string(data) != want || successes != writers*each {
		t.Fatalf("count.txt = %q after %d successful writes (want %q)", data, successes, want)
	}
	t.Logf("%d writes, %d retried on stale_hash", successes, stale)
}

// TestDisjointRangeEdits: two writers holding range tokens of different
// parts of one file both succeed, in either order.
func TestDisjointRangeEdits(t *testing.T) {
	dir := t.TempDir()
	orig := "1\n2\n3\n4\n5\n6\n"
	writeTree(t, dir, map[string]string{"f.txt": orig})
	top, _ := hash.Lines([]byte(orig), 1, 2)
	bottom, _ := hash.Lines([]byte(orig), 5, 6)
	w := openWS(t, dir, nil)
	if res := run(t, w, `{"fileEdits":[{"path":"f.txt","edits":[{"command":"replace_lines","start_line":6,"end_line":6,"new_str":"SIX","content_hash":"`+bottom.String()+`"}]}]}`); !res.Success {
		t.Fatalf("bottom edit: %+v", res)
	}
	if res := run(t, w, `{"fileEdits":[{"path":"f.txt","edits":[{"command":"replace_lines","start_line":1,"end_line":1,"new_str":"ONE","content_hash":"`+top.String()+`"}]}]}`); !res.Success {
		t.Fatalf("top edit with a token read before the bottom edit: %+v", res)
	}
	if got := readTree(t, dir)["f.txt"]; got != "ONE\n2\n3\n4\n5\nSIX\n" {
		t.Errorf("f.txt = %q", got)
	}
}

func TestDevicesAndHugeFiles(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"big.txt": strings.Repeat("x", 2048)})
	if err := syscall.Mknod(filepath.Join(dir, "null"), syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
		t.Logf("mknod not permitted (%v): device case not checked", err)
	} else {
		w := openWS(t, dir, nil)
		if res := run(t, w, `{"command":"append","path":"null","new_str":"x"}`); res.Code != plan.CodeNotRegular {
			t.Errorf("char device: %+v", res)
		}
	}
	w := openWS(t, dir, &Options{MaxFileSize: 1024})
	if res := run(t, w, `{"command":"append","path":"big.txt","new_str":"x"}`); res.Code != plan.CodeTooLarge {
		t.Errorf("file over the limit: %+v", res)
	}
}
