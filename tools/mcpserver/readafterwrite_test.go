package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/tools"
)

// TestReadAfterWrite: within an MCP session, a read sent after a write's
// answer sees that write: history lists the write's
// transaction (and, after an undo, the undo and the write as undone),
// fs_read returns the bytes written, grep and glob find them. Two other
// sessions of the same server write other files meanwhile, so the answers
// race with their commits; none may reflect a state older than the
// session's own last write.
func TestReadAfterWrite(t *testing.T) {
	dir := t.TempDir()
	w, err := engine.Open(dir, &engine.Options{Durability: engine.NotDurable})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	ts, _ := tools.Get("txedit")
	server := New(ts, w, Options{Version: "test"})
	ctx := context.Background()
	session := func(name string) *mcp.ClientSession {
		st, ct := mcp.NewInMemoryTransports()
		if _, err := server.Connect(ctx, st, nil); err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	call := func(cs *mcp.ClientSession, tool string, args map[string]any) (map[string]any, string) {
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		var m map[string]any
		b, _ := json.Marshal(r.StructuredContent)
		json.Unmarshal(b, &m)
		if r.IsError {
			return nil, text(r)
		}
		return m, text(r)
	}
	const rounds = 25
	var wg sync.WaitGroup
	stop := make(chan struct{})
	// The other sessions write a few files per round (tokens): enough to
	// race with every answer, and bounded, so that on a slow machine the
	// agent's transaction is not pushed out of history's 200 newest (or
	// retired by retention) while the agent's own calls wait.
	tokens := make(chan struct{}, 8)
	for _, name := range []string{"other1", "other2"} {
		cs := session(name)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				case <-tokens:
				}
				call(cs, "fs_write", map[string]any{"command": "create", "path": fmt.Sprintf("%s/f%d.txt", name, i), "file_text": "x\n"})
			}
		}()
	}
	cs := session("agent")
	history := func() []map[string]any {
		m, msg := call(cs, "history", map[string]any{"limit": 200})
		if m == nil {
			t.Fatalf("history: %s", msg)
		}
		var out []map[string]any
		for _, x := range m["transactions"].([]any) {
			out = append(out, x.(map[string]any))
		}
		return out
	}
	find := func(txs []map[string]any, id string) map[string]any {
		for _, tx := range txs {
			if tx["id"] == id {
				return tx
			}
		}
		return nil
	}
	for i := 0; i < rounds; i++ {
		for len(tokens) < cap(tokens) {
			tokens <- struct{}{}
		}
		name := fmt.Sprintf("mine/r%03d.txt", i)
		content := fmt.Sprintf("round %d marker%d\n", i, i)
		res, msg := call(cs, "fs_write", map[string]any{"command": "create", "path": name, "file_text": content})
		if res == nil {
			t.Fatalf("round %d: write: %s", i, msg)
		}
		id, _ := res["transaction_id"].(string)
		if tx := find(history(), id); id == "" || tx == nil || tx["state"] != "committed" {
			t.Fatalf("round %d: history after the write's answer does not show %q committed: %v", i, id, tx)
		}
		if r, msg := call(cs, "fs_read", map[string]any{"mode": "Line", "path": name}); r == nil || !strings.Contains(msg, fmt.Sprintf("marker%d", i)) {
			t.Fatalf("round %d: fs_read after the write: %v %s", i, r, msg)
		}
		if _, msg := call(cs, "grep", map[string]any{"pattern": fmt.Sprintf("marker%d$", i), "output_mode": "files_with_matches"}); !strings.Contains(msg, name) {
			t.Fatalf("round %d: grep after the write: %s", i, msg)
		}
		if _, msg := call(cs, "glob", map[string]any{"pattern": name}); !strings.Contains(msg, name) {
			t.Fatalf("round %d: glob after the write: %s", i, msg)
		}
		if i%5 == 4 {
			u, msg := call(cs, "undo", map[string]any{"transaction_id": id})
			if u == nil {
				t.Fatalf("round %d: undo: %s", i, msg)
			}
			uid, _ := u["transaction_id"].(string)
			txs := history()
			if tx := find(txs, id); tx == nil || tx["state"] != "undone" || tx["undone_by"] != uid {
				t.Fatalf("round %d: history after the undo's answer: %v (undo %s)", i, tx, uid)
			}
			if _, err := os.Stat(filepath.Join(dir, name)); !os.IsNotExist(err) {
				t.Fatalf("round %d: the undone file is still there", i)
			}
			if r, _ := call(cs, "fs_read", map[string]any{"mode": "Line", "path": name}); r != nil {
				t.Fatalf("round %d: fs_read of the undone file: %v", i, r)
			}
		}
	}
	close(stop)
	wg.Wait()
}
