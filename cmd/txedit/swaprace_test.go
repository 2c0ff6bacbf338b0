//go:build linux || darwin

// The swap race needs an atomic exchange of two names, which Linux
// (renameat2) and macOS (renameatx_np) have and the BSDs do not.

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sys/unix"

	"github.com/txedit/txedit/internal/testlong"
)

// TestSwapRaceOverMCP is the audit's race through the real binary: while
// another thread flips d between a real directory and a symlink to the
// journal (or to a directory --deny-read and --deny-write cover),
// read_text_file, write_file and list_directory of the filesystem toolset
// and Read and Write of the claude toolset are called on paths through d.
// None answers with the target's bytes or names, and nothing is written
// in it. The audit read the key 47 times in 1,500 read_text_file calls
// this way (the claude Read 110 in 3,000) and wrote into .txedit/txns.
func TestSwapRaceOverMCP(t *testing.T) {
	bin := txeditBinary(t)
	rounds := testlong.Pick(60, 600)
	for _, target := range []string{".txedit", "secret"} {
		for _, toolset := range []string{"filesystem", "claude"} {
			t.Run(target+"/"+toolset, func(t *testing.T) {
				dir := journalTree(t, bin)
				marker := "JOURNAL-BYTES"
				os.MkdirAll(filepath.Join(dir, "secret", "txns"), 0o755)
				os.WriteFile(filepath.Join(dir, "secret", "planted"), []byte("DENIED-BYTES\n"), 0o644)
				os.WriteFile(filepath.Join(dir, "secret", "only-denied-name"), []byte("DENIED-BYTES\n"), 0o644)
				if target == "secret" {
					marker = "DENIED-BYTES"
				}
				os.MkdirAll(filepath.Join(dir, "d", "txns"), 0o755)
				os.WriteFile(filepath.Join(dir, "d", "planted"), []byte("harmless\n"), 0o644)
				if err := os.Symlink(target, filepath.Join(dir, "x")); err != nil {
					t.Fatal(err)
				}
				args := []string{"mcp", "--toolset", toolset, "--no-read-check", "--deny-read", "secret/**", "--deny-write", "secret/**"}
				if toolset == "filesystem" {
					args = append(args, dir)
				} else {
					args = append(args, "--root", dir)
				}
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
				defer cancel()
				cmd := exec.Command(bin, args...)
				cs, err := mcp.NewClient(&mcp.Implementation{Name: "racer", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
				if err != nil {
					t.Fatalf("connect: %v", err)
				}
				defer cs.Close()
				stop := make(chan struct{})
				var flips atomic.Int64
				var wg sync.WaitGroup
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						select {
						case <-stop:
							return
						default:
						}
						if exchangeNames(unix.AT_FDCWD, filepath.Join(dir, "d"), unix.AT_FDCWD, filepath.Join(dir, "x")) == nil {
							flips.Add(1)
						}
					}
				}()
				type call struct {
					tool string
					args func(i int) map[string]any
				}
				p := func(rel string) string { return filepath.Join(dir, rel) }
				var calls []call
				if toolset == "filesystem" {
					calls = []call{
						{"read_text_file", func(i int) map[string]any { return map[string]any{"path": p("d/planted")} }},
						{"write_file", func(i int) map[string]any {
							return map[string]any{"path": p(fmt.Sprintf("d/txns/pwn-%d", i)), "content": "pwned\n"}
						}},
						{"list_directory", func(i int) map[string]any { return map[string]any{"path": p("d")} }},
					}
				} else {
					calls = []call{
						{"Read", func(i int) map[string]any { return map[string]any{"file_path": p("d/planted")} }},
						{"Write", func(i int) map[string]any {
							return map[string]any{"file_path": p(fmt.Sprintf("d/txns/pwn-%d", i)), "content": "pwned\n"}
						}},
					}
				}
				leaks, n := 0, 0
				for i := 0; i < rounds; i++ {
					for _, c := range calls {
						r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args(i)})
						if err != nil {
							t.Fatalf("%s: %v", c.tool, err)
						}
						n++
						if s := resultText(r); strings.Contains(s, marker) || strings.Contains(s, "LOCK") || strings.Contains(s, "only-denied-name") {
							if leaks++; leaks <= 3 {
								t.Errorf("%s gave the target away: %.200s", c.tool, s)
							}
						}
					}
				}
				close(stop)
				wg.Wait()
				written := 0
				filepath.Walk(filepath.Join(dir, target), func(q string, fi os.FileInfo, err error) error {
					if err == nil && strings.Contains(fi.Name(), "pwn") {
						written++
						t.Errorf("written in %s through the race: %s", target, q)
					}
					return nil
				})
				t.Logf("%s, %s: %d calls, %d flips of d, %d answers that gave the target away, %d writes in it", target, toolset, n, flips.Load(), leaks, written)
			})
		}
	}
}
