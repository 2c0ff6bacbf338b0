package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/tools"
)

// connect serves a toolset over in-memory transports and returns a client
// session from the Go SDK's own client.
func connect(t *testing.T, dir, toolset string, readOnly bool, progress func(*mcp.ProgressNotificationClientRequest)) *mcp.ClientSession {
	t.Helper()
	w, err := engine.Open(dir, &engine.Options{ReadOnly: readOnly})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	ts, err := tools.Get(toolset)
	if err != nil {
		t.Fatal(err)
	}
	server := New(ts, w, Options{ReadOnly: readOnly, Version: "test", NoReadCheck: true})
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := server.Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	copts := &mcp.ClientOptions{}
	if progress != nil {
		copts.ProgressNotificationHandler = func(ctx context.Context, r *mcp.ProgressNotificationClientRequest) { progress(r) }
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, copts).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func text(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func TestMCPServer(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o644)
	ctx := context.Background()
	cs := connect(t, dir, "claude", false, nil)
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	hints := map[string]bool{}
	for _, tl := range list.Tools {
		hints[tl.Name] = tl.Annotations.ReadOnlyHint
		if !tl.Annotations.ReadOnlyHint && (tl.Annotations.DestructiveHint == nil || !*tl.Annotations.DestructiveHint) {
			t.Errorf("%s writes but is not marked destructive", tl.Name)
		}
	}
	if len(list.Tools) != 7 || !hints["Read"] || hints["Edit"] {
		t.Errorf("tools: %v", hints)
	}
	// Extra fields real clients send are not refused.
	r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "Edit", Arguments: map[string]any{"file_path": "a.txt", "old_string": "hello", "new_string": "bye", "_client_note": 1}})
	if err != nil || r.IsError || !strings.Contains(text(r), "has been updated successfully") {
		t.Fatalf("Edit: %v %s", err, text(r))
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "bye\n" {
		t.Errorf("a.txt = %q", b)
	}
	// A failure is an isError result in Claude Code's words, its code in
	// _meta.
	r, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "Edit", Arguments: map[string]any{"file_path": "a.txt", "old_string": "nope", "new_string": "x"}})
	if err != nil || !r.IsError || !strings.HasPrefix(text(r), "<tool_use_error>String to replace not found") || r.Meta["txedit/code"] != "not_found" {
		t.Errorf("failed Edit: %v %v %q %v", err, r.IsError, text(r), r.Meta)
	}
	// Read-only offers only reads.
	ro := connect(t, dir, "txedit", true, nil)
	list, _ = ro.ListTools(ctx, nil)
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
	}
	if strings.Join(names, ",") != "fs_read,glob,grep,history,list_allowed_directories" {
		t.Errorf("read-only tools: %v", names)
	}
	// A failure in txedit's own words starts with its code, which _meta
	// carries too.
	r, err = ro.CallTool(ctx, &mcp.CallToolParams{Name: "fs_read", Arguments: map[string]any{"mode": "Line", "path": "missing.txt"}})
	if err != nil || !r.IsError || !strings.HasPrefix(text(r), "[file_not_found]") || r.Meta["txedit/code"] != "file_not_found" {
		t.Errorf("failed fs_read: %v %v %q %v", err, r.IsError, text(r), r.Meta)
	}
}

func TestMCPProgress(t *testing.T) {
	dir := t.TempDir()
	for i := 0; i < 300; i++ {
		os.WriteFile(filepath.Join(dir, "f"+itoa(i)+".txt"), []byte("old value\n"), 0o644)
	}
	var mu sync.Mutex
	var got []string
	cs := connect(t, dir, "txedit", false, func(r *mcp.ProgressNotificationClientRequest) {
		mu.Lock()
		got = append(got, r.Params.Message)
		mu.Unlock()
	})
	params := &mcp.CallToolParams{Name: "fs_write", Arguments: map[string]any{"command": "pattern_replace", "directory": ".", "file_pattern": "*.txt", "sed_pattern": "s/old/new/"}}
	params.SetProgressToken("tok-1")
	r, err := cs.CallTool(context.Background(), params)
	if err != nil || r.IsError {
		t.Fatalf("pattern_replace: %v %s", err, text(r))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) < 2 || !contains(got, "scan") || !contains(got, "stage") {
		t.Errorf("progress notifications: %v", got)
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestMCPWriteAnswerBudget: over MCP, a pattern_replace over 2,000 files
// answers at most the txedit toolset's budget of diffs (32,000 bytes),
// counts the rest, and history hands them over a page at a time, the
// same diffs the transaction's journal holds.
func TestMCPWriteAnswerBudget(t *testing.T) {
	const n, budget = 2000, 32000
	dir := t.TempDir()
	for i := 0; i < n; i++ {
		os.WriteFile(filepath.Join(dir, "f"+itoa(i)+".txt"), []byte("old value "+itoa(i)+"\n"), 0o644)
	}
	cs := connect(t, dir, "txedit", false, nil)
	ctx := context.Background()
	r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fs_write", Arguments: map[string]any{"command": "pattern_replace", "directory": ".", "file_pattern": "*.txt", "sed_pattern": "s/old/new/"}})
	if err != nil || r.IsError {
		t.Fatalf("pattern_replace: %v %s", err, text(r))
	}
	var ans struct {
		TransactionID string `json:"transaction_id"`
		Files         []struct {
			Path, Diff, Status string
		}
		DiffsOmitted int    `json:"diffs_omitted"`
		MoreDiffs    string `json:"more_diffs"`
	}
	if err := json.Unmarshal([]byte(text(r)), &ans); err != nil {
		t.Fatal(err)
	}
	size, kept := 0, 0
	for _, f := range ans.Files {
		if f.Status != "modified" {
			t.Fatalf("%s: %s", f.Path, f.Status)
		}
		if f.Diff != "" {
			size += len(f.Diff)
			kept++
		}
	}
	if len(text(r)) > 45000 || size > budget || kept == 0 || ans.DiffsOmitted != n-kept || !strings.Contains(ans.MoreDiffs, ans.TransactionID) {
		t.Fatalf("answer: %d files, %d diffs kept (%d bytes), %d omitted, %q", len(ans.Files), kept, size, ans.DiffsOmitted, ans.MoreDiffs)
	}
	w, err := engine.Open(dir, &engine.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	want := map[string]string{}
	var order []string
	w.ShowFiles(ctx, ans.TransactionID, func(*engine.TxnInfo) error { return nil }, func(p, d string) error { want[p] = d; order = append(order, p); return nil })
	r, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "history", Arguments: map[string]any{"transaction_id": ans.TransactionID, "offset": kept}})
	if err != nil || r.IsError {
		t.Fatalf("history: %v %s", err, text(r))
	}
	var page struct {
		Diffs      []struct{ Path, Diff string }
		NextOffset int `json:"next_offset"`
		Total      int `json:"diffs_total"`
	}
	if err := json.Unmarshal([]byte(text(r)), &page); err != nil {
		t.Fatal(err)
	}
	psize := 0
	for i, d := range page.Diffs {
		psize += len(d.Diff)
		if d.Path != order[kept+i] || d.Diff != want[d.Path] || d.Diff == "" {
			t.Fatalf("history diff %d: %s %q", i, d.Path, d.Diff)
		}
	}
	if page.Total != n || psize > budget || page.NextOffset != kept+len(page.Diffs) {
		t.Errorf("history page: %d diffs, %d bytes, next %d, total %d", len(page.Diffs), psize, page.NextOffset, page.Total)
	}
}
