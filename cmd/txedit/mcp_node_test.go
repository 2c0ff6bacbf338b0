package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/txedit/txedit/tools"
)

// The TypeScript MCP client tests drive `txedit mcp` with the official
// client (@modelcontextprotocol/sdk, installed by `npm ci --prefix
// cmd/txedit/testdata/mcpclient`) through testdata/mcpclient/client.mjs,
// which runs a scenario: one or more servers on one tree, each its own
// process and session, and the calls to make.

type scenario struct {
	Bin     string            `json:"bin"`
	Root    string            `json:"root"`
	Servers map[string]server `json:"servers"`
	Steps   []map[string]any  `json:"steps"`
}

type server struct {
	Toolset string   `json:"toolset"`
	Client  string   `json:"client,omitempty"`
	Args    []string `json:"args,omitempty"`
	// Command and Argv, if set, start the server exactly so (Command
	// defaults to the txedit built for the tests); Roots are file:// URIs
	// the client offers as MCP roots.
	Command string   `json:"command,omitempty"`
	Argv    []string `json:"argv,omitempty"`
	Roots   []string `json:"roots,omitempty"`
}

type callResult struct {
	ID, Server, Name string
	IsError          bool
	Text             string
	Images           []struct{ MimeType, Data string }
	Structured       bool
	// Code is the result's _meta txedit/code (a failure whose text is the
	// dialect's own).
	Code string
}

// hasCode reports whether r is a failure with code: in its _meta, or
// leading its text ("[code] …").
func (r callResult) hasCode(code string) bool {
	return r.IsError && (r.Code == code || strings.HasPrefix(r.Text, "["+code+"]"))
}

type scenarioResult struct {
	Tools map[string][]struct {
		Name        string
		ReadOnly    bool
		Destructive *bool
	}
	Results []callResult
}

// byID returns the result of the call with the given id.
func (r *scenarioResult) byID(t *testing.T, id string) callResult {
	t.Helper()
	for _, c := range r.Results {
		if c.ID == id {
			return c
		}
	}
	t.Fatalf("no result %s", id)
	return callResult{}
}

func step(id, srv, name string, args map[string]any) map[string]any {
	return map[string]any{"id": id, "server": srv, "name": name, "arguments": args}
}

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// nodeClient returns node, the client's directory and a built txedit, or
// skips the test (outside CI) when Node or the client is missing.
func nodeClient(t *testing.T) (node, clientDir, bin string) {
	t.Helper()
	missing := t.Skip
	if os.Getenv("CI") != "" {
		missing = t.Fatal
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not installed: this test drives txedit mcp with the TypeScript MCP client; install Node.js to run it")
		return
	}
	clientDir, _ = filepath.Abs("testdata/mcpclient")
	if _, err := os.Stat(filepath.Join(clientDir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		missing("the TypeScript MCP client is not installed: run npm ci --prefix cmd/txedit/testdata/mcpclient (the README's test command does)")
		return
	}
	return node, clientDir, txeditBinary(t)
}

// txeditBinary builds txedit once for the tests that run it as a process.
func txeditBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "txedit-mcp-test")
		if err != nil {
			buildErr = err
			return
		}
		builtBin = filepath.Join(dir, "txedit")
		// txedit mcp becomes txedit-mcp, found beside it.
		if out, err := exec.Command("go", "build", "-o", dir+"/", ".", "../txedit-mcp").CombinedOutput(); err != nil {
			buildErr = &buildFailure{err, out}
		}
	})
	if buildErr != nil {
		t.Fatalf("go build: %v", buildErr)
	}
	return builtBin
}

type buildFailure struct {
	err error
	out []byte
}

func (b *buildFailure) Error() string { return b.err.Error() + "\n" + string(b.out) }

func runScenario(t *testing.T, sc scenario) *scenarioResult {
	t.Helper()
	node, clientDir, bin := nodeClient(t)
	sc.Bin = bin
	data, _ := json.Marshal(sc)
	file := filepath.Join(t.TempDir(), "scenario.json")
	os.WriteFile(file, data, 0o644)
	cmd := exec.Command(node, filepath.Join(clientDir, "client.mjs"), file)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("client: %v\n%s", err, out)
	}
	var res scenarioResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("client output %s: %v", out, err)
	}
	return &res
}

func fileIs(t *testing.T, root, name, want string) {
	t.Helper()
	if b, err := os.ReadFile(filepath.Join(root, name)); err != nil || string(b) != want {
		t.Errorf("%s = %q, %v; want %q", name, b, err, want)
	}
}

// TestMCPWithTypeScriptClient: for every toolset, lists the tools, calls
// reads and writes, and checks the files on disk.
func TestMCPWithTypeScriptClient(t *testing.T) {
	type call struct {
		name      string
		args      map[string]any
		wantError bool
		wantText  string
	}
	cases := []struct {
		toolset string
		calls   []call
		files   map[string]string // expected on disk afterwards
	}{
		{"txedit", []call{
			// The file's text as text (its hashes are the structured
			// content); a batch reports a missing file in its place.
			{"fs_read", map[string]any{"mode": "Line", "path": "a.txt"}, false, "hello\n"},
			{"fs_read", map[string]any{"mode": "Line", "paths": []string{"missing.txt", "a.txt"}}, false, "==> missing.txt <==\n[file_not_found] missing.txt: no such file\n\n==> a.txt <==\nhello\n"},
			{"fs_write", map[string]any{"command": "str_replace", "path": "a.txt", "old_str": "hello", "new_str": "bye"}, false, `"success":true`},
			{"fs_write", map[string]any{"command": "str_replace", "path": "a.txt", "old_str": "nope", "new_str": "x"}, true, "[not_found]"},
			{"grep", map[string]any{"pattern": "bye", "output_mode": "count"}, false, "a.txt:1"},
			{"history", map[string]any{}, false, `"state":"committed"`},
		}, map[string]string{"a.txt": "bye\n"}},
		{"claude", []call{
			{"Read", map[string]any{"file_path": "a.txt"}, false, "1\thello"},
			{"Edit", map[string]any{"file_path": "a.txt", "old_string": "hello", "new_string": "bye"}, false, "has been updated successfully"},
			{"Write", map[string]any{"file_path": "sub/new.txt", "content": "made\n"}, false, "File created successfully at:"},
			{"Glob", map[string]any{"pattern": "**/*.txt"}, false, "sub/new.txt"},
		}, map[string]string{"a.txt": "bye\n", "sub/new.txt": "made\n"}},
		{"amazonq", []call{
			{"fs_read", map[string]any{"mode": "Line", "paths": []string{"a.txt", "missing.txt"}}, true, `"success":false`},
			{"fs_read", map[string]any{"mode": "Line", "path": "a.txt"}, false, `"content":"hello\n"`},
			{"fs_write", map[string]any{"command": "create", "fileEdits": []map[string]any{
				{"path": "a.txt", "edits": []map[string]any{{"command": "append", "new_str": "world"}}},
				{"path": "b.txt", "edits": []map[string]any{{"command": "create", "file_text": "b\n"}}}}}, false, `"edits_applied":1`},
		}, map[string]string{"a.txt": "hello\nworld\n", "b.txt": "b\n"}},
		{"deepagents", []call{
			{"ls", map[string]any{"path": "."}, false, `"name":"a.txt"`},
			{"read_file", map[string]any{"path": "a.txt", "offset": 0}, false, "hello"},
			{"write_file", map[string]any{"path": "w.txt", "content": "w\n"}, false, "wrote w.txt"},
			{"edit_file", map[string]any{"path": "a.txt", "old_string": "l", "new_string": "L"}, false, "first of 2"},
		}, map[string]string{"a.txt": "heLlo\n", "w.txt": "w\n"}},
		{"adk", []call{
			{"list_directory", map[string]any{"dir_path": "."}, false, "a.txt"},
			// The session's read-before-write rule: an append to an
			// unread file is refused, a read lets it through.
			{"write_file", map[string]any{"file_path": "a.txt", "text": "more\n", "append": true}, true, "Error: not_read: a.txt"},
			{"read_file", map[string]any{"file_path": "a.txt"}, false, "hello"},
			{"write_file", map[string]any{"file_path": "a.txt", "text": "more\n", "append": true}, false, "File written successfully"},
			// As LangChain's: copy_file makes no directory, write_file
			// makes the file's own.
			{"copy_file", map[string]any{"source_path": "a.txt", "destination_path": "c/a.txt"}, true, "[Errno 2] No such file or directory"},
			{"write_file", map[string]any{"file_path": "c/keep.txt", "text": "k\n"}, false, "File written successfully"},
			{"copy_file", map[string]any{"source_path": "a.txt", "destination_path": "c/a.txt"}, false, "File copied successfully"},
			{"grep_file", map[string]any{"file_path": ".", "pattern": "more", "recursive": true}, false, `"status":"success"`},
			{"diff_files", map[string]any{"file_path1": "a.txt", "file_path2": "c/a.txt"}, false, "Files are identical."},
		}, map[string]string{"a.txt": "hello\nmore\n", "c/a.txt": "hello\nmore\n", "c/keep.txt": "k\n"}},
	}
	for _, tc := range cases {
		t.Run(tc.toolset, func(t *testing.T) {
			root := t.TempDir()
			writeFiles(t, root, map[string]string{"a.txt": "hello\n"})
			sc := scenario{Root: root, Servers: map[string]server{"A": {Toolset: tc.toolset}}}
			for _, c := range tc.calls {
				sc.Steps = append(sc.Steps, step("", "A", c.name, c.args))
			}
			got := runScenario(t, sc)
			if len(got.Tools["A"]) == 0 || len(got.Results) != len(tc.calls) {
				t.Fatalf("client saw %d tools and %d results", len(got.Tools["A"]), len(got.Results))
			}
			for _, tl := range got.Tools["A"] {
				if !tl.ReadOnly && (tl.Destructive == nil || !*tl.Destructive) {
					t.Errorf("%s: a write tool without destructiveHint", tl.Name)
				}
			}
			for i, r := range got.Results {
				c := tc.calls[i]
				if r.IsError != c.wantError || !strings.Contains(r.Text, c.wantText) {
					t.Errorf("%s: isError=%v text=%q; want isError=%v and %q", c.name, r.IsError, r.Text, c.wantError, c.wantText)
				}
			}
			for name, want := range tc.files {
				fileIs(t, root, name, want)
			}
		})
	}
}

// txeditCLI runs a txedit command in-process and returns its stdout.
func txeditCLI(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(args, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("txedit %v: exit %d: %s", args, code, errb.String())
	}
	return out.String()
}

// TestMCPTwoSessionsWithTypeScriptClient: two MCP sessions on one tree,
// two `txedit mcp` processes with clients named agent-a and agent-b.
// A call with a missing required argument writes nothing, in every
// toolset; an edit of an unread file, or of one changed since it was
// read, is refused, while a change of its modification time alone is
// not; of two writers racing on what both read, the second is refused;
// `txedit log` names each transaction's agent and `undo --agent` reverts
// one agent's work only.
func TestMCPTwoSessionsWithTypeScriptClient(t *testing.T) {
	root := t.TempDir()
	start := map[string]string{"a.txt": "one\n", "r.txt": "race\n", "keep.txt": "keep\n"}
	writeFiles(t, root, start)
	sc := scenario{Root: root, Servers: map[string]server{
		"A": {Toolset: "claude", Client: "agent-a"},
		"B": {Toolset: "claude", Client: "agent-b"},
	}}
	// Missing required arguments, in every toolset: each write tool
	// called with all its required arguments but one (a served tool's
	// schema says which), on files that exist.
	for _, name := range tools.Names() {
		ts, _ := tools.Get(name)
		srv := "M-" + name
		sc.Servers[srv] = server{Toolset: name, Client: "agent-m", Args: []string{"--no-read-check"}}
		for _, tl := range ts.Tools {
			if tl.ReadOnly || tl.Execute {
				continue
			}
			args := map[string]any{}
			req, _ := tl.Schema["required"].([]string)
			if len(req) == 0 {
				continue // nothing required (undo; fs_write's command is checked by the engine)
			}
			props := tl.Schema["properties"].(map[string]any)
			for i, field := range req {
				if i == len(req)-1 {
					break // the one left out
				}
				switch props[field].(map[string]any)["type"] {
				case "array":
					args[field] = []any{}
				case "boolean":
					args[field] = true
				case "integer":
					args[field] = 1
				default:
					args[field] = "a.txt"
				}
			}
			sc.Steps = append(sc.Steps, step("missing "+name+"."+tl.Name, srv, tl.Name, args))
		}
	}
	sc.Steps = append(sc.Steps,
		// Read before write: not read, then read, changed by B, read
		// again, touched, written.
		step("A edits unread", "A", "Edit", map[string]any{"file_path": "a.txt", "old_string": "one", "new_string": "1"}),
		step("A reads", "A", "Read", map[string]any{"file_path": "a.txt"}),
		step("B reads", "B", "Read", map[string]any{"file_path": "a.txt"}),
		step("B edits", "B", "Edit", map[string]any{"file_path": "a.txt", "old_string": "one", "new_string": "uno"}),
		step("A edits changed", "A", "Edit", map[string]any{"file_path": "a.txt", "old_string": "uno", "new_string": "1"}),
		step("A reads again", "A", "Read", map[string]any{"file_path": "a.txt"}),
		map[string]any{"touch": "a.txt"},
		step("A edits touched", "A", "Edit", map[string]any{"file_path": "a.txt", "old_string": "uno", "new_string": "1"}),
		// Two writers race on what both read.
		step("A reads r", "A", "Read", map[string]any{"file_path": "r.txt"}),
		step("B reads r", "B", "Read", map[string]any{"file_path": "r.txt"}),
		map[string]any{"parallel": []any{
			step("A races", "A", "Write", map[string]any{"file_path": "r.txt", "content": "A won\n"}),
			step("B races", "B", "Write", map[string]any{"file_path": "r.txt", "content": "B won\n"}),
		}},
		// Attribution: one new file each, A's first.
		step("A creates", "A", "Write", map[string]any{"file_path": "from-a.txt", "content": "a\n"}),
		step("B creates", "B", "Write", map[string]any{"file_path": "from-b.txt", "content": "b\n"}),
	)
	got := runScenario(t, sc)

	for _, r := range got.Results {
		if strings.HasPrefix(r.ID, "missing ") && !r.hasCode("invalid_request") {
			t.Errorf("%s: isError=%v %q; want an invalid_request", r.ID, r.IsError, r.Text)
		}
	}
	for _, c := range []struct {
		id, want string
		isError  bool
	}{
		{"A edits unread", "File has not been read yet", true},
		{"A reads", "one", false},
		{"B edits", "has been updated successfully", false},
		{"A edits changed", "File has been modified since read", true},
		{"A edits touched", "has been updated successfully", false},
		{"A creates", "File created successfully at:", false},
		{"B creates", "File created successfully at:", false},
	} {
		if r := got.byID(t, c.id); r.IsError != c.isError || !strings.Contains(r.Text, c.want) {
			t.Errorf("%s: isError=%v %q; want isError=%v and %q", c.id, r.IsError, r.Text, c.isError, c.want)
		}
	}
	for id, code := range map[string]string{"A edits unread": "not_read", "A edits changed": "stale_hash"} {
		if r := got.byID(t, id); !r.hasCode(code) {
			t.Errorf("%s: code %q (text %q), want %s", id, r.Code, r.Text, code)
		}
	}
	a, b := got.byID(t, "A races"), got.byID(t, "B races")
	if a.IsError == b.IsError {
		t.Errorf("racing writers: A isError=%v %q, B isError=%v %q; want one refused", a.IsError, a.Text, b.IsError, b.Text)
	}
	loser, winner := a, "B won\n"
	if b.IsError {
		loser, winner = b, "A won\n"
	}
	if !loser.hasCode("stale_hash") {
		t.Errorf("the second writer: %q, want stale_hash", loser.Text)
	}
	fileIs(t, root, "r.txt", winner)
	fileIs(t, root, "a.txt", "1\n")
	fileIs(t, root, "keep.txt", "keep\n") // nothing with a missing argument wrote

	// txedit log names each transaction's agent.
	var log []struct {
		Agent string
		Files []struct{ Path string }
	}
	json.Unmarshal([]byte(txeditCLI(t, "log", "--json", "--root", root)), &log)
	agents := map[string]string{}
	for _, tx := range log {
		for _, f := range tx.Files {
			if _, seen := agents[f.Path]; !seen {
				agents[f.Path] = tx.Agent // newest first
			}
		}
	}
	if agents["from-a.txt"] != "agent-a" || agents["from-b.txt"] != "agent-b" || agents["a.txt"] != "agent-a" {
		t.Errorf("log agents: %v", agents)
	}
	// undo --agent agent-a reverts agent-a's newest transaction only.
	txeditCLI(t, "undo", "--agent", "agent-a", "--root", root)
	if _, err := os.Stat(filepath.Join(root, "from-a.txt")); !os.IsNotExist(err) {
		t.Errorf("undo --agent agent-a left from-a.txt: %v", err)
	}
	fileIs(t, root, "from-b.txt", "b\n")
	fileIs(t, root, "a.txt", "1\n")
}

// TestMCPGrepAndImagesWithTypeScriptClient: in every dialect, grep with
// context (where the dialect has it) reads as the real tool prints it —
// rg for Claude's Grep, the txedit toolset's grep and deepagents' grep,
// grep -C for Amazon Q's Search mode, grep -r for the ADK's grep_file —
// and a PNG read arrives as an image content block.
func TestMCPGrepAndImagesWithTypeScriptClient(t *testing.T) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("rg is not installed; .ci/run installs it")
		}
		t.Skip("rg not installed")
	}
	root := t.TempDir()
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + strings.Repeat("img", 100))
	writeFiles(t, root, map[string]string{
		"a.txt":   "one\nfoo two\nthree\nfoo four\nfive\nsix\nseven\neight\nfoo nine\nten\n",
		"b/b.txt": "foo\nbar\nfoo\n",
		"p.png":   string(png),
	})
	sc := scenario{Root: root, Servers: map[string]server{}}
	for _, name := range tools.Names() {
		sc.Servers[name] = server{Toolset: name}
	}
	sc.Steps = []map[string]any{
		step("claude grep", "claude", "Grep", map[string]any{"pattern": "foo", "output_mode": "content", "-C": 2}),
		step("txedit grep", "txedit", "grep", map[string]any{"pattern": "foo", "output_mode": "content", "-C": 2}),
		step("deepagents grep", "deepagents", "grep", map[string]any{"pattern": "foo", "output_mode": "content"}),
		step("amazonq search", "amazonq", "fs_read", map[string]any{"mode": "Search", "path": "a.txt", "pattern": "FOO", "context_lines": 2}),
		step("adk grep", "adk", "grep_file", map[string]any{"file_path": ".", "pattern": "foo", "recursive": true, "show_line_numbers": true}),
		step("claude png", "claude", "Read", map[string]any{"file_path": "p.png"}),
		step("amazonq png", "amazonq", "fs_read", map[string]any{"mode": "Image", "image_paths": []string{"p.png"}}),
		step("txedit png", "txedit", "fs_read", map[string]any{"mode": "Image", "image_paths": []string{"p.png"}}),
	}
	got := runScenario(t, sc)

	peer := func(prog string, args ...string) string {
		cmd := exec.Command(prog, args...)
		cmd.Dir, cmd.Env = root, append(os.Environ(), "LC_ALL=C")
		out, _ := cmd.Output()
		return string(out)
	}
	rgOut := peer(rg, "--no-config", "--no-heading", "--sort", "path", "-n", "-C", "2", "foo")
	if r := got.byID(t, "claude grep"); r.Text != strings.TrimSuffix(rgOut, "\n") {
		t.Errorf("claude Grep:\n%s\nrg -n -C 2:\n%s", r.Text, rgOut)
	}
	if r := got.byID(t, "txedit grep"); r.Text != rgOut || !r.Structured {
		t.Errorf("txedit grep (structured %v):\n%s\nrg -n -C 2:\n%s", r.Structured, r.Text, rgOut)
	}
	if r, want := got.byID(t, "deepagents grep"), peer(rg, "--no-config", "--no-heading", "--sort", "path", "-n", "foo"); r.Text != strings.TrimSuffix(want, "\n") {
		t.Errorf("deepagents grep:\n%s\nrg -n:\n%s", r.Text, want)
	}
	grepC := regexp.MustCompile(`(?m)^(\d+)[:-]`).ReplaceAllString(peer("grep", "-n", "-i", "-F", "-C", "2", "foo", "a.txt"), "Line $1: ")
	var search struct{ Content string }
	if r := got.byID(t, "amazonq search"); json.Unmarshal([]byte(r.Text), &search) != nil || search.Content != grepC {
		t.Errorf("amazonq Search:\n%s\ngrep -n -i -F -C 2:\n%s", r.Text, grepC)
	}
	var adk struct{ Output string }
	want := peer("grep", "-n", "-r", "foo", ".")
	if r := got.byID(t, "adk grep"); json.Unmarshal([]byte(r.Text), &adk) != nil || sortLines(adk.Output) != sortLines(want) {
		t.Errorf("adk grep_file:\n%s\ngrep -n -r:\n%s", r.Text, want)
	}
	b64 := base64.StdEncoding.EncodeToString(png)
	for _, id := range []string{"claude png", "amazonq png", "txedit png"} {
		r := got.byID(t, id)
		if r.IsError || len(r.Images) != 1 || r.Images[0].MimeType != "image/png" || r.Images[0].Data != b64 || strings.Contains(r.Text, b64) {
			t.Errorf("%s: isError=%v, %d images, text %d bytes", id, r.IsError, len(r.Images), len(r.Text))
		}
	}
}

func sortLines(s string) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	sort.Strings(ls)
	return strings.Join(ls, "\n")
}
