package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The audit's finding on the journal, through the real binary: txedit mcp
// serving a directory that is, or lies inside, a journal (as --root, as
// positional directories, or as a root the client offers), and the
// symlink-swap race over MCP (docs/testing.md).

// journalTree makes a workspace with a journal (a first write) and a file
// planted in it, and returns the root.
func journalTree(t *testing.T, bin string) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "apply", "--root", dir, "-")
	cmd.Stdin = strings.NewReader(`{"command":"create","path":"first.txt","file_text":"x\n"}`)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("first write: %v\n%s", err, out)
	}
	os.WriteFile(filepath.Join(dir, ".txedit", "planted"), []byte("JOURNAL-BYTES\n"), 0o600)
	return dir
}

// TestServingAJournalIsRefused: txedit mcp refuses at start a directory
// that is a journal or lies inside one, by --root and as the filesystem
// toolset's directories (one: refused; among others: skipped with a
// warning, as the official server skips a directory it cannot serve).
func TestServingAJournalIsRefused(t *testing.T) {
	bin := txeditBinary(t)
	dir := journalTree(t, bin)
	for _, args := range [][]string{
		{"mcp", "--toolset", "filesystem", filepath.Join(dir, ".txedit")},
		{"mcp", "--toolset", "filesystem", filepath.Join(dir, ".txedit", "txns")},
		{"mcp", "--toolset", "claude", "--root", filepath.Join(dir, ".txedit")},
		{"mcp", "--root", filepath.Join(dir, ".txedit")},
	} {
		cmd := exec.Command(bin, args...)
		cmd.Stdin = strings.NewReader("")
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "journal") {
			t.Errorf("txedit %s: %v, %s; want a refusal that names the journal", strings.Join(args, " "), err, out)
		}
	}
	// Among other directories the journal is skipped; the others are
	// served.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var stderr syncBuffer
	cmd := exec.Command(bin, "mcp", "--toolset", "filesystem", dir, filepath.Join(dir, ".txedit"))
	cmd.Stderr = &stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr.String())
	}
	defer cs.Close()
	if got := callText(t, cs, "list_allowed_directories", map[string]any{}); got != "Allowed directories:\n"+dir {
		t.Errorf("allowed directories %q, want only %s", got, dir)
	}
	if !strings.Contains(stderr.String(), "skipping "+filepath.Join(dir, ".txedit")) {
		t.Errorf("no warning for the skipped journal: %s", stderr.String())
	}
}

// TestClientRootInAJournalIsIgnored: a root the client offers that is, or
// lies inside, a journal is not served (the server logs why); the client's
// other roots are.
//
//lint:file-ignore SA1019 roots are deprecated but followed (tools/mcpserver says why)
func TestClientRootInAJournalIsIgnored(t *testing.T) {
	bin := txeditBinary(t)
	dir := journalTree(t, bin)
	other := filepath.Join(dir, "other")
	os.MkdirAll(other, 0o755)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var stderr syncBuffer
	cmd := exec.Command(bin, "mcp", "--toolset", "filesystem", dir)
	cmd.Stderr = &stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	client.AddRoots(&mcp.Root{URI: "file://" + filepath.Join(dir, ".txedit")}, &mcp.Root{URI: "file://" + filepath.Join(dir, ".txedit", "txns")}, &mcp.Root{URI: "file://" + other})
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	if got := callText(t, cs, "list_allowed_directories", map[string]any{}); got != "Allowed directories:\n"+other {
		t.Errorf("allowed directories %q, want only %s", got, other)
	}
	r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_text_file", Arguments: map[string]any{"path": filepath.Join(dir, ".txedit", "planted")}})
	if err != nil || !r.IsError || strings.Contains(resultText(r), "JOURNAL-BYTES") {
		t.Errorf("read of the journal through an offered root: %v %s", err, resultText(r))
	}
	// Only a journal: the server's own directory is kept.
	client.RemoveRoots("file://" + other)
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(stderr.String(), "journal") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(stderr.String(), "skipping root file://"+filepath.Join(dir, ".txedit")) || !strings.Contains(stderr.String(), "journal") {
		t.Errorf("the server did not say why it skipped the roots: %s", stderr.String())
	}
}

// syncBuffer is a bytes.Buffer safe for the process's writes and the
// test's reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func resultText(r *mcp.CallToolResult) string {
	if r == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func callText(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return resultText(r)
}
