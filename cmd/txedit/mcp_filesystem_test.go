package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The filesystem toolset with the official TypeScript MCP client: several
// directories, MCP roots, and a client configuration written for the
// official server, its command replaced by txedit.

func fileURI(p string) string { return "file://" + filepath.ToSlash(p) }

// TestFilesystemRootsWithTypeScriptClient: the client's roots replace the
// directories txedit was started with, roots/list_changed replaces them
// again, and each directory keeps its own journal (a write in one is
// undone there).
func TestFilesystemRootsWithTypeScriptClient(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a, b, c := filepath.Join(base, "a"), filepath.Join(base, "b"), filepath.Join(base, "c")
	writeFiles(t, base, map[string]string{"a/a.txt": "in a\n", "b/b.txt": "in b\n", "c/c.txt": "in c\n"})
	res := runScenario(t, scenario{Root: a, Servers: map[string]server{
		"roots": {Argv: []string{"mcp", "--toolset", "filesystem", a}, Roots: []string{fileURI(b)}},
		"plain": {Argv: []string{"mcp", "--toolset", "filesystem", a, "--root", c}},
	}, Steps: []map[string]any{
		step("r1", "roots", "list_allowed_directories", map[string]any{}),
		step("r2", "roots", "read_text_file", map[string]any{"path": filepath.Join(b, "b.txt")}),
		step("r3", "roots", "read_text_file", map[string]any{"path": filepath.Join(a, "a.txt")}),
		{"server": "roots", "roots": []string{fileURI(c), fileURI(a), fileURI(filepath.Join(base, "missing"))}},
		step("r4", "roots", "list_allowed_directories", map[string]any{}),
		step("r5", "roots", "read_text_file", map[string]any{"path": "a.txt"}),
		step("r6", "roots", "write_file", map[string]any{"path": filepath.Join(c, "new.txt"), "content": "made\n"}),
		step("r7", "roots", "move_file", map[string]any{"source": filepath.Join(a, "a.txt"), "destination": filepath.Join(c, "a.txt")}),
		step("r8", "roots", "undo", map[string]any{}),
		step("p1", "plain", "list_allowed_directories", map[string]any{}),
		step("p2", "plain", "read_text_file", map[string]any{"path": filepath.Join(c, "c.txt")}),
	}})
	want := map[string]struct {
		isError bool
		text    string
	}{
		"r1": {false, "Allowed directories:\n" + b},
		"r2": {false, "in b\n"},
		"r3": {true, "Access denied - path outside allowed directories: " + filepath.Join(a, "a.txt") + " not in " + b},
		"r4": {false, "Allowed directories:\n" + c + "\n" + a},
		"r5": {true, "ENOENT: no such file or directory, open '" + filepath.Join(c, "a.txt") + "'"},
		"r6": {false, "Successfully wrote to " + filepath.Join(c, "new.txt")},
		"r7": {true, "two allowed directories"},
		"r8": {false, "Undid "},
		"p1": {false, "Allowed directories:\n" + c + "\n" + a}, // --root first, then the arguments
		"p2": {false, "in c\n"},
	}
	for id, w := range want {
		got := res.byID(t, id)
		if got.IsError != w.isError || !strings.Contains(got.Text, w.text) {
			t.Errorf("%s: isError %v %q, want %v %q", id, got.IsError, got.Text, w.isError, w.text)
		}
	}
	// The write in c went to c's journal, and its undo took it back; a's
	// file was not moved.
	if _, err := os.Stat(filepath.Join(c, "new.txt")); !os.IsNotExist(err) {
		t.Errorf("c/new.txt after undo: %v", err)
	}
	fileIs(t, a, "a.txt", "in a\n")
	if _, err := os.Stat(filepath.Join(c, ".txedit")); err != nil {
		t.Errorf("c has no journal of its own: %v", err)
	}
}

// TestFilesystemDropIn: a client configuration written for the official
// filesystem server works unchanged once txedit mcp install --replace has
// put txedit in its place: the client starts what the entry says, gets the
// official tools (and history, undo), its directories, answers, and every
// write can be undone.
func TestFilesystemDropIn(t *testing.T) {
	_, _, bin := nodeClient(t)
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home, src, notes := filepath.Join(base, "home"), filepath.Join(base, "src"), filepath.Join(base, "notes")
	writeFiles(t, base, map[string]string{"src/main.go": "package main\n\nfunc main() {}\n", "notes/todo.md": "- one\n"})
	official := map[string]any{"mcpServers": map[string]any{"filesystem": map[string]any{
		"command": "npx", "args": []string{"-y", "@modelcontextprotocol/server-filesystem", src, notes}}}}
	data, _ := json.MarshalIndent(official, "", "  ")
	writeFiles(t, base, map[string]string{"home/.cursor/mcp.json": string(data)})

	cmd := exec.Command(bin, "mcp", "install", "--client", "cursor", "--scope", "user", "--replace", "filesystem", "--command", bin)
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME=")
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "Replaced the official filesystem server") {
		t.Fatalf("install --replace: %v\n%s", err, out)
	}
	var cfg struct {
		MCPServers map[string]struct {
			Command string
			Args    []string
		} `json:"mcpServers"`
	}
	raw, err := os.ReadFile(filepath.Join(home, ".cursor/mcp.json"))
	if err != nil || json.Unmarshal(raw, &cfg) != nil {
		t.Fatalf("config: %v\n%s", err, raw)
	}
	entry := cfg.MCPServers["filesystem"]
	if entry.Command != bin || strings.Join(entry.Args, " ") != "mcp --toolset filesystem "+src+" "+notes {
		t.Fatalf("the entry runs %s %v", entry.Command, entry.Args)
	}

	res := runScenario(t, scenario{Root: src, Servers: map[string]server{"fs": {Command: entry.Command, Argv: entry.Args}},
		Steps: []map[string]any{
			step("dirs", "fs", "list_allowed_directories", map[string]any{}),
			step("read", "fs", "read_text_file", map[string]any{"path": filepath.Join(src, "main.go")}),
			step("edit", "fs", "edit_file", map[string]any{"path": filepath.Join(src, "main.go"),
				"edits": []map[string]any{{"oldText": "func main() {}", "newText": "func main() { println(1) }"}}}),
			step("write", "fs", "write_file", map[string]any{"path": filepath.Join(notes, "new.md"), "content": "new\n"}),
			step("mkdir", "fs", "create_directory", map[string]any{"path": filepath.Join(notes, "archive/2026")}),
			step("undo1", "fs", "undo", map[string]any{}),
			step("undo2", "fs", "undo", map[string]any{}),
			step("undo3", "fs", "undo", map[string]any{}),
		}})
	var names []string
	for _, tl := range res.Tools["fs"] {
		names = append(names, tl.Name)
	}
	sort.Strings(names)
	if got := strings.Join(names, " "); got != "create_directory directory_tree edit_file get_file_info history list_allowed_directories list_directory list_directory_with_sizes move_file read_file read_media_file read_multiple_files read_text_file search_files undo write_file" {
		t.Errorf("tools: %s", got)
	}
	for id, want := range map[string]string{"dirs": "Allowed directories:\n" + src + "\n" + notes, "read": "func main() {}",
		"edit": "+func main() { println(1) }", "write": "Successfully wrote to", "mkdir": "Successfully created directory"} {
		if r := res.byID(t, id); r.IsError || !strings.Contains(r.Text, want) {
			t.Errorf("%s: %v %q, want %q", id, r.IsError, r.Text, want)
		}
	}
	for _, id := range []string{"undo1", "undo2", "undo3"} {
		if r := res.byID(t, id); r.IsError {
			t.Errorf("%s: %q", id, r.Text)
		}
	}
	// Every write undone, in both directories.
	fileIs(t, src, "main.go", "package main\n\nfunc main() {}\n")
	for _, p := range []string{"new.md", "archive"} {
		if _, err := os.Stat(filepath.Join(notes, p)); !os.IsNotExist(err) {
			t.Errorf("notes/%s after the undos: %v", p, err)
		}
	}
}
