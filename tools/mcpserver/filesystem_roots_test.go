package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestFilesystemFollowsRoots: the client's roots replace the allowed
// directories the server was started with; a change of them
// (notifications/roots/list_changed) replaces them again; roots that are
// not existing directories are skipped, and none valid keeps the list.
// The client speaks protocol 2025-11-25, as the official TypeScript
// client does: 2026-07-28 deprecates roots and lets no server ask for
// them.
//
//lint:file-ignore SA1019 roots are deprecated but followed (server.go says why)
func TestFilesystemFollowsRoots(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	a, b, c := filepath.Join(base, "a"), filepath.Join(base, "b"), filepath.Join(base, "c")
	for _, d := range []string{a, b, c} {
		must(t, os.MkdirAll(d, 0o755))
	}
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "roots-test", Version: "1"}, nil)
	client.AddRoots(&mcp.Root{URI: "file://" + b})
	cs := fsServerWith(t, []string{a}, client, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	allowed := func() string {
		t.Helper()
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_allowed_directories", Arguments: map[string]any{}})
		if err != nil || r.IsError {
			t.Fatalf("list_allowed_directories: %v %v", err, r)
		}
		return strings.TrimPrefix(text(r), "Allowed directories:\n")
	}
	if got := allowed(); got != b {
		t.Fatalf("allowed %q, want the client's root %s", got, b)
	}
	client.AddRoots(&mcp.Root{URI: "file://" + c}, &mcp.Root{URI: "file://" + filepath.Join(base, "nowhere")})
	if got := allowed(); got != b+"\n"+c {
		t.Fatalf("allowed %q after roots changed, want %s and %s", got, b, c)
	}
	client.RemoveRoots("file://"+b, "file://"+c)
	if got := allowed(); got != b+"\n"+c {
		t.Fatalf("allowed %q after the client's roots became invalid, want them kept", got)
	}
}

// TestFilesystemModernClientKeepsDirectories: a client on protocol
// 2026-07-28 is served the directories the server was given, at once.
func TestFilesystemModernClientKeepsDirectories(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	client := mcp.NewClient(&mcp.Implementation{Name: "modern", Version: "1"}, nil)
	client.AddRoots(&mcp.Root{URI: "file://" + t.TempDir()})
	cs := fsServerWith(t, []string{dir}, client, nil)
	start := time.Now()
	r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "list_allowed_directories", Arguments: map[string]any{}})
	if err != nil || text(r) != "Allowed directories:\n"+dir {
		t.Fatalf("%v %v", err, r)
	}
	if d := time.Since(start); d > initialRootsWait/2 {
		t.Errorf("the call waited %v for roots the client cannot be asked for", d)
	}
}
