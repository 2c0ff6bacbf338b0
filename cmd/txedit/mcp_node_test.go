package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMCPWithTypeScriptClient drives `txedit mcp` with the official
// TypeScript client (@modelcontextprotocol/sdk, installed by
// `npm ci --prefix cmd/txedit/testdata/mcpclient`) for every toolset: it
// lists the tools, calls reads and writes, and checks the files on disk.
func TestMCPWithTypeScriptClient(t *testing.T) {
	// Outside CI a machine without Node (or without the client installed)
	// skips this test with a message; in CI (CI set) it must run.
	missing := t.Skip
	if os.Getenv("CI") != "" {
		missing = t.Fatal
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not installed: this test drives txedit mcp with the TypeScript MCP client; install Node.js to run it")
		return
	}
	clientDir, _ := filepath.Abs("testdata/mcpclient")
	if _, err := os.Stat(filepath.Join(clientDir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		missing("the TypeScript MCP client is not installed: run npm ci --prefix cmd/txedit/testdata/mcpclient (the README's test command does)")
		return
	}
	bin := filepath.Join(t.TempDir(), "txedit")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	type call struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
		wantError bool
		wantText  string
	}
	cases := []struct {
		toolset string
		calls   []call
		files   map[string]string // expected on disk afterwards
	}{
		{"txedit", []call{
			{Name: "fs_read", Arguments: map[string]any{"mode": "Line", "path": "a.txt"}, wantText: `"content":"hello\n"`},
			{Name: "fs_write", Arguments: map[string]any{"command": "str_replace", "path": "a.txt", "old_str": "hello", "new_str": "bye"}, wantText: `"success":true`},
			{Name: "fs_write", Arguments: map[string]any{"command": "str_replace", "path": "a.txt", "old_str": "nope", "new_str": "x"}, wantError: true, wantText: "[not_found]"},
			{Name: "grep", Arguments: map[string]any{"pattern": "bye", "output_mode": "count"}, wantText: `"count":1`},
			{Name: "history", Arguments: map[string]any{}, wantText: `"state":"committed"`},
		}, map[string]string{"a.txt": "bye\n"}},
		{"claude", []call{
			{Name: "Read", Arguments: map[string]any{"file_path": "a.txt"}, wantText: "     1\thello"},
			{Name: "Edit", Arguments: map[string]any{"file_path": "a.txt", "old_string": "hello", "new_string": "bye"}, wantText: "has been edited"},
			{Name: "Write", Arguments: map[string]any{"file_path": "sub/new.txt", "content": "made\n"}, wantText: "has been created"},
			{Name: "Glob", Arguments: map[string]any{"pattern": "**/*.txt"}, wantText: "sub/new.txt"},
		}, map[string]string{"a.txt": "bye\n", "sub/new.txt": "made\n"}},
		{"amazonq", []call{
			{Name: "fs_read", Arguments: map[string]any{"mode": "Line", "paths": []string{"a.txt", "missing.txt"}}, wantError: true, wantText: `"success":false`},
			{Name: "fs_write", Arguments: map[string]any{"command": "create", "fileEdits": []map[string]any{
				{"path": "a.txt", "edits": []map[string]any{{"command": "append", "new_str": "world"}}},
				{"path": "b.txt", "edits": []map[string]any{{"command": "create", "file_text": "b\n"}}}}}, wantText: `"edits_applied":1`},
		}, map[string]string{"a.txt": "hello\nworld\n", "b.txt": "b\n"}},
		{"deepagents", []call{
			{Name: "ls", Arguments: map[string]any{"path": "."}, wantText: `"name":"a.txt"`},
			{Name: "read_file", Arguments: map[string]any{"path": "a.txt", "offset": 0}, wantText: "hello"},
			{Name: "write_file", Arguments: map[string]any{"path": "w.txt", "content": "w\n"}, wantText: "wrote w.txt"},
			{Name: "edit_file", Arguments: map[string]any{"path": "a.txt", "old_string": "l", "new_string": "L"}, wantText: "first of 2"},
		}, map[string]string{"a.txt": "heLlo\n", "w.txt": "w\n"}},
		{"adk", []call{
			{Name: "list_directory", Arguments: map[string]any{"dir_path": "."}, wantText: "a.txt"},
			// The session's read-before-write rule: an append to an
			// unread file is refused, a read lets it through.
			{Name: "write_file", Arguments: map[string]any{"file_path": "a.txt", "text": "more\n", "append": true}, wantError: true, wantText: "[not_read]"},
			{Name: "read_file", Arguments: map[string]any{"file_path": "a.txt"}, wantText: "hello"},
			{Name: "write_file", Arguments: map[string]any{"file_path": "a.txt", "text": "more\n", "append": true}, wantText: "File written successfully"},
			{Name: "copy_file", Arguments: map[string]any{"source_path": "a.txt", "destination_path": "c/a.txt"}, wantText: "File copied successfully"},
			{Name: "grep_file", Arguments: map[string]any{"file_path": ".", "pattern": "more", "recursive": true}, wantText: `"status":"success"`},
			{Name: "diff_files", Arguments: map[string]any{"file_path1": "a.txt", "file_path2": "c/a.txt"}, wantText: "Files are identical."},
		}, map[string]string{"a.txt": "hello\nmore\n", "c/a.txt": "hello\nmore\n"}},
	}
	for _, tc := range cases {
		t.Run(tc.toolset, func(t *testing.T) {
			root := t.TempDir()
			os.WriteFile(filepath.Join(root, "a.txt"), []byte("hello\n"), 0o644)
			calls, _ := json.Marshal(tc.calls)
			cmd := exec.Command(node, filepath.Join(clientDir, "client.mjs"), bin, tc.toolset, root, string(calls))
			cmd.Stderr = os.Stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("client: %v\n%s", err, out)
			}
			var got struct {
				Tools []struct {
					Name        string
					ReadOnly    bool
					Destructive *bool
				}
				Results []struct {
					Name    string
					IsError bool
					Text    string
				}
			}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("client output %s: %v", out, err)
			}
			if len(got.Tools) == 0 || len(got.Results) != len(tc.calls) {
				t.Fatalf("client saw %d tools and %d results", len(got.Tools), len(got.Results))
			}
			for _, tl := range got.Tools {
				if !tl.ReadOnly && (tl.Destructive == nil || !*tl.Destructive) {
					t.Errorf("%s: a write tool without destructiveHint", tl.Name)
				}
			}
			for i, r := range got.Results {
				c := tc.calls[i]
				if r.IsError != c.wantError || !strings.Contains(r.Text, c.wantText) {
					t.Errorf("%s: isError=%v text=%q; want isError=%v and %q", c.Name, r.IsError, r.Text, c.wantError, c.wantText)
				}
			}
			for name, want := range tc.files {
				if b, err := os.ReadFile(filepath.Join(root, name)); err != nil || string(b) != want {
					t.Errorf("%s = %q, %v; want %q", name, b, err, want)
				}
			}
		})
	}
}
