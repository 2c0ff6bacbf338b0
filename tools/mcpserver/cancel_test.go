package mcpserver

import (
	"context"
	"fmt"
	"io/fs"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/fsys/memfs"
	"github.com/txedit/txedit/tools"
)

// slowFS counts the calls a workspace makes, and makes each open and
// listing take a millisecond: a tree that takes seconds to go through.
type slowFS struct {
	fsys.FS
	calls atomic.Int64
}

func (s *slowFS) tick() {
	s.calls.Add(1)
	time.Sleep(time.Millisecond)
}

func (s *slowFS) Open(name string) (fsys.File, error) { s.tick(); return s.FS.Open(name) }
func (s *slowFS) ReadDir(name string) ([]fs.DirEntry, error) {
	s.tick()
	return s.FS.ReadDir(name)
}
func (s *slowFS) Lstat(name string) (fs.FileInfo, error) { s.calls.Add(1); return s.FS.Lstat(name) }
func (s *slowFS) OpenDir(name string) (fsys.Dir, error)  { return fsys.PathDir(s, name) }
func (s *slowFS) HoldDir(name string) (fsys.Dir, func(), error) {
	d, err := fsys.OpenDirBeneath(s, name)
	return d, func() {}, err
}
func (s *slowFS) View() (fsys.FS, func()) { return s, func() {} }

// TestCancelledCallsStop: a call the client cancels (the SDK sends
// notifications/cancelled) stops its work: the walk of a grep, a glob,
// search_files and directory_tree, and a read of many files, each over a
// tree that takes seconds to go through, make few file-system calls after
// the cancellation, not the thousands the whole call would.
func TestCancelledCallsStop(t *testing.T) {
	files := map[string]string{}
	for d := 0; d < 50; d++ {
		for f := 0; f < 60; f++ {
			files[fmt.Sprintf("d%02d/f%02d.txt", d, f)] = "needle\n"
		}
	}
	var many []string
	for f := 0; f < 60; f++ {
		many = append(many, fmt.Sprintf("/w/d00/f%02d.txt", f), fmt.Sprintf("/w/d01/f%02d.txt", f))
	}
	for _, c := range []struct {
		toolset, tool string
		args          map[string]any
	}{
		{"claude", "Grep", map[string]any{"pattern": "needle", "path": "/w", "output_mode": "count"}},
		{"claude", "Glob", map[string]any{"pattern": "**/*.txt", "path": "/w"}},
		{"filesystem", "search_files", map[string]any{"path": "/w", "pattern": "**/*.txt"}},
		{"filesystem", "directory_tree", map[string]any{"path": "/w"}},
		{"filesystem", "read_multiple_files", map[string]any{"paths": append(many, many...)}},
	} {
		t.Run(c.toolset+"/"+c.tool, func(t *testing.T) {
			slow := &slowFS{FS: memfs.New(files)}
			w, err := engine.Open("/w", &engine.Options{FS: slow, Workers: 4})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			ts, _ := tools.Get(c.toolset)
			server := New(ts, w, Options{Version: "test", NoReadCheck: true})
			st, ct := mcp.NewInMemoryTransports()
			if _, err := server.Connect(context.Background(), st, nil); err != nil {
				t.Fatal(err)
			}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "canceller", Version: "1"}, nil).Connect(context.Background(), ct, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			base := slow.calls.Load()
			go func() {
				_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
				done <- err
			}()
			for slow.calls.Load()-base < 100 {
				time.Sleep(time.Millisecond)
			}
			cancel()
			at := slow.calls.Load() - base
			if err := <-done; err == nil {
				t.Fatalf("the cancelled call answered")
			}
			// Wait until the server's work is over: no call for 300 ms.
			deadline := time.Now().Add(20 * time.Second)
			last := slow.calls.Load()
			for stable := time.Now(); time.Since(stable) < 300*time.Millisecond; {
				time.Sleep(20 * time.Millisecond)
				if n := slow.calls.Load(); n != last {
					last, stable = n, time.Now()
				}
				if time.Now().After(deadline) {
					t.Fatalf("still at work 20s after the cancellation (%d calls)", last-base)
				}
			}
			after := last - base - at
			t.Logf("%d file-system calls before the cancellation, %d after (the whole call: about %d)", at, after, 2*len(files))
			if after > 200 {
				t.Errorf("%d file-system calls after the cancellation: the work went on", after)
			}
		})
	}
}
