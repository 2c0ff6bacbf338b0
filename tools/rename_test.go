package tools

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"github.com/txedit/txedit/internal/teststate"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/plan"
)

// The rename driver against a scripted language server: this test
// binary, run with TXEDIT_FAKE_RENAME naming a script (fakeScript), plays
// the server the way gopls does (a document not opened comes back with
// version 0, an opened one with its version). The real gopls runs in
// cmd/txedit's rename tests.

func TestMain(m *testing.M) {
	if script := os.Getenv("TXEDIT_FAKE_RENAME"); script != "" {
		fakeRenameServer(script)
		os.Exit(0)
	}
	// A key store of the tests' own (internal/teststate): no test writes
	// into the real home directory.
	cleanup := teststate.Isolate()
	code := m.Run()
	cleanup()
	os.Exit(code)
}

// fakeScript is what the scripted server does.
type fakeScript struct {
	Root string `json:"root"`
	// Edits, by root-relative path: [line, char, line, char, text].
	Edits map[string][][]any `json:"edits"`
	// Order lists Edits' files in the order of the answer.
	Order []string `json:"order"`
	// Ops are more documentChanges, @ standing for the root's URI.
	Ops      []string       `json:"ops"`
	Annotate map[string]any `json:"annotate"` // changeAnnotations
	// Error answers rename with this message; PrepareNull answers
	// prepareRename with null; Crash exits at the rename.
	Error       string `json:"error"`
	PrepareNull bool   `json:"prepare_null"`
	Crash       bool   `json:"crash"`
	// Encoding is the positionEncoding the server picks ("": none said).
	Encoding string `json:"encoding"`
	// Version, if set, is the version every TextDocumentEdit claims.
	Version *int `json:"version"`
	// Mutate is a file the server rewrites (as another writer would)
	// while it answers its last rename.
	Mutate string `json:"mutate"`
	// Log is where the server writes what it received, a line a message.
	Log string `json:"log"`
}

func fakeRenameServer(scriptPath string) {
	data, _ := os.ReadFile(scriptPath)
	var sc fakeScript
	json.Unmarshal(data, &sc)
	logf, _ := os.OpenFile(sc.Log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	r := bufio.NewReader(os.Stdin)
	opened := map[string]int{}
	for {
		m, err := readFramed(r)
		if err != nil {
			return
		}
		fmt.Fprintf(logf, "%s %s\n", m.Method, m.Params)
		id := m.ID
		var result any
		switch m.Method {
		case "initialize":
			caps := map[string]any{"renameProvider": map[string]any{"prepareProvider": true}}
			if sc.Encoding != "" {
				caps["positionEncoding"] = sc.Encoding
			}
			result = map[string]any{"capabilities": caps}
		case "textDocument/didOpen":
			var p struct {
				TextDocument struct {
					URI     string `json:"uri"`
					Version int    `json:"version"`
				} `json:"textDocument"`
			}
			json.Unmarshal(m.Params, &p)
			opened[p.TextDocument.URI] = p.TextDocument.Version
		case "textDocument/prepareRename":
			if !sc.PrepareNull {
				result = map[string]any{"range": map[string]any{"start": map[string]int{"line": 0, "character": 0}, "end": map[string]int{"line": 0, "character": 1}}, "placeholder": "Old"}
			}
		case "textDocument/rename":
			if sc.Crash {
				fmt.Fprintln(os.Stderr, "fatal: the scripted server crashed")
				os.Exit(2)
			}
			if sc.Error != "" {
				writeFramed(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": -32803, "message": sc.Error}})
				continue
			}
			result = sc.answer(opened)
		case "shutdown":
		case "exit":
			return
		}
		if len(id) > 0 {
			writeFramed(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
		}
	}
}

// answer is the scripted WorkspaceEdit, versions as gopls gives them.
func (sc *fakeScript) answer(opened map[string]int) any {
	var changes []any
	all := true
	for _, f := range sc.Order {
		uri := "file://" + filepath.Join(sc.Root, f)
		v, ok := opened[uri]
		all = all && ok
		if sc.Version != nil {
			v = *sc.Version
		}
		var edits []any
		for _, e := range sc.Edits[f] {
			edits = append(edits, map[string]any{"range": map[string]any{"start": map[string]any{"line": e[0], "character": e[1]}, "end": map[string]any{"line": e[2], "character": e[3]}}, "newText": e[4]})
		}
		changes = append(changes, map[string]any{"textDocument": map[string]any{"uri": uri, "version": v}, "edits": edits})
	}
	for _, op := range sc.Ops {
		var x any
		json.Unmarshal([]byte(strings.ReplaceAll(op, "@", "file://"+sc.Root)), &x)
		changes = append(changes, x)
	}
	if all && sc.Mutate != "" {
		os.WriteFile(filepath.Join(sc.Root, sc.Mutate), []byte("changed meanwhile\n"), 0o644)
	}
	out := map[string]any{"documentChanges": changes}
	if sc.Annotate != nil {
		out["changeAnnotations"] = sc.Annotate
	}
	return out
}

type framed struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

func readFramed(r *bufio.Reader) (*framed, error) {
	n := -1
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			n, _ = strconv.Atoi(v)
		}
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, err
	}
	var m framed
	err := json.Unmarshal(body, &m)
	return &m, err
}

func writeFramed(v any) {
	b, _ := json.Marshal(v)
	fmt.Fprintf(os.Stdout, "Content-Length: %d\r\n\r\n%s", len(b), b)
}

// renameRig is a workspace and the scripted server for it.
type renameRig struct {
	dir, log string
	s        *engine.Session
	sc       fakeScript
}

func newRenameRig(t *testing.T, files map[string]string) *renameRig {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644)
	}
	w, err := engine.Open(dir, &engine.Options{Durability: engine.NotDurable})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return &renameRig{dir: dir, log: filepath.Join(t.TempDir(), "log"), s: w.NewSession(engine.SessionOptions{Agent: "test"}), sc: fakeScript{Root: w.RealRoot()}}
}

// rename runs Rename against the scripted server.
func (rg *renameRig) rename(t *testing.T, o RenameOptions) *plan.Result {
	t.Helper()
	rg.sc.Log = rg.log
	b, _ := json.Marshal(rg.sc)
	script := filepath.Join(t.TempDir(), "script.json")
	os.WriteFile(script, b, 0o644)
	exe, _ := os.Executable()
	t.Setenv("TXEDIT_FAKE_RENAME", script)
	o.Server = []string{exe}
	o.Timeout = 30 * time.Second
	res, err := Rename(context.Background(), rg.s, o)
	if (err == nil) != res.Success {
		t.Fatalf("Rename: success %v but error %v", res.Success, err)
	}
	return res
}

func (rg *renameRig) read(name string) string {
	b, _ := os.ReadFile(filepath.Join(rg.dir, name))
	return string(b)
}

func (rg *renameRig) received() string {
	b, _ := os.ReadFile(rg.log)
	return string(b)
}

// TestRenameOpensWhatTheEditNames: the server's first answer edits a
// file it read from disk itself (version 0); txedit sends it that file
// and asks again, and commits the answer whose every document it sent,
// guarded by their hashes. What it advertised is what the protocol needs.
func TestRenameOpensWhatTheEditNames(t *testing.T) {
	rg := newRenameRig(t, map[string]string{"a.go": "package a\n\nfunc Old() {}\n", "b/b.go": "package b\n\nvar _ = a.Old\n"})
	rg.sc.Order = []string{"a.go", "b/b.go"}
	rg.sc.Edits = map[string][][]any{"a.go": {{2, 5, 2, 8, "New"}}, "b/b.go": {{2, 10, 2, 13, "New"}}}
	res := rg.rename(t, RenameOptions{Path: "a.go", Line: 3, Column: 6, NewName: "New"})
	if !res.Success || res.FilesModified != 2 || rg.read("a.go") != "package a\n\nfunc New() {}\n" || rg.read("b/b.go") != "package b\n\nvar _ = a.New\n" {
		t.Fatalf("%+v\na.go=%q b.go=%q", res, rg.read("a.go"), rg.read("b/b.go"))
	}
	got := rg.received()
	if n := strings.Count(got, "textDocument/rename "); n != 2 {
		t.Errorf("%d renames asked, want 2 (again once b.go was sent):\n%s", n, got)
	}
	for _, want := range []string{`"documentChanges":true`, `"resourceOperations":["create","rename","delete"]`, `"failureHandling":"transactional"`,
		`"positionEncodings":["utf-8","utf-32","utf-16"]`, `"prepareSupport":true`, `"text":"package b\n\nvar _ = a.Old\n"`, "textDocument/prepareRename", "shutdown", "exit"} {
		if !strings.Contains(got, want) {
			t.Errorf("the server never got %s:\n%s", want, got)
		}
	}
	if !strings.Contains(res.Summary, "rename Old to New (a.go:3:6") {
		t.Errorf("summary %q", res.Summary)
	}
}

// TestRenameConflictWritesNothing: a file changed after it was sent (by
// another writer, while the server computed the rename) fails the whole
// rename as a conflict; no file is written.
func TestRenameConflictWritesNothing(t *testing.T) {
	rg := newRenameRig(t, map[string]string{"a.go": "package a\n\nfunc Old() {}\n", "b.go": "package a\n\nvar _ = Old\n"})
	rg.sc.Order = []string{"a.go", "b.go"}
	rg.sc.Edits = map[string][][]any{"a.go": {{2, 5, 2, 8, "New"}}, "b.go": {{2, 8, 2, 11, "New"}}}
	rg.sc.Mutate = "b.go"
	res := rg.rename(t, RenameOptions{Path: "a.go", Line: 3, Column: 6, NewName: "New"})
	if res.Success || res.Code != plan.CodeConflict || !strings.Contains(res.Error, "changed while") || res.TransactionID != "" {
		t.Fatalf("got %+v", res)
	}
	if rg.read("a.go") != "package a\n\nfunc Old() {}\n" || rg.read("b.go") != "changed meanwhile\n" {
		t.Errorf("a.go=%q b.go=%q", rg.read("a.go"), rg.read("b.go"))
	}
}

func TestRenameServerAnswers(t *testing.T) {
	files := map[string]string{"a.go": "package a\n\nfunc Old() {}\n"}
	seven := 7
	for _, tc := range []struct {
		name  string
		setup func(*fakeScript)
		code  plan.Code
		msg   string
	}{
		{"refused", func(sc *fakeScript) { sc.Error = `renaming "Old" to "New" conflicts with func New` }, plan.CodeRefused, `renaming "Old" to "New" conflicts with func New (nothing was written)`},
		{"nothing there", func(sc *fakeScript) { sc.PrepareNull = true }, plan.CodeNotFound, "finds nothing to rename at 3:6"},
		{"crash", func(sc *fakeScript) { sc.Crash = true }, plan.CodeIOError, "fatal: the scripted server crashed"},
		{"another version", func(sc *fakeScript) { sc.Version = &seven }, plan.CodeConflict, "version 7 of the document, but version 1 was sent"},
		{"needs confirmation", func(sc *fakeScript) {
			sc.Ops = []string{`{"kind":"create","uri":"@/c.go","annotationId":"x"}`}
			sc.Annotate = map[string]any{"x": map[string]any{"label": "Create c.go", "needsConfirmation": true}}
		}, plan.CodeNeedsConfirmation, `labelled "Create c.go" need confirmation`},
	} {
		rg := newRenameRig(t, files)
		rg.sc.Order = []string{"a.go"}
		rg.sc.Edits = map[string][][]any{"a.go": {{2, 5, 2, 8, "New"}}}
		tc.setup(&rg.sc)
		res := rg.rename(t, RenameOptions{Path: "a.go", Line: 3, Column: 6, NewName: "New"})
		if res.Success || res.Code != tc.code || !strings.Contains(res.Error, tc.msg) {
			t.Errorf("%s: got %s %q, want %s %q", tc.name, res.Code, res.Error, tc.code, tc.msg)
		}
		if rg.read("a.go") != files["a.go"] {
			t.Errorf("%s: a.go was written", tc.name)
		}
	}
	// Confirmed, the annotated create goes through.
	rg := newRenameRig(t, files)
	rg.sc.Order, rg.sc.Edits = []string{"a.go"}, map[string][][]any{"a.go": {{2, 5, 2, 8, "New"}}}
	rg.sc.Ops = []string{`{"kind":"create","uri":"@/c.go","annotationId":"x"}`}
	rg.sc.Annotate = map[string]any{"x": map[string]any{"label": "Create c.go", "needsConfirmation": true}}
	if res := rg.rename(t, RenameOptions{Path: "a.go", Line: 3, Column: 6, NewName: "New", Confirm: true}); !res.Success || rg.read("c.go") != "" {
		t.Errorf("confirmed: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(rg.dir, "c.go")); err != nil {
		t.Errorf("c.go: %v", err)
	}
}

// TestRenamePositionEncoding: the position sent is the byte column
// converted into the encoding the server chose, and its edits are read
// in that encoding (an emoji before the identifier: 2 UTF-16 units, 4
// bytes, 1 code point).
func TestRenamePositionEncoding(t *testing.T) {
	const src = "package a\n\nvar s, Old = \"😀\", 1\n"
	for _, tc := range []struct{ enc string }{{""}, {"utf-16"}, {"utf-8"}, {"utf-32"}} {
		rg := newRenameRig(t, map[string]string{"a.go": src, "b.go": "package a\n\nvar x = \"😀\" + Old\n"})
		rg.sc.Encoding = tc.enc
		// In b.go, Old follows the emoji: UTF-16 char 15, bytes 17, code points 14.
		col := map[string]int{"": 15, "utf-16": 15, "utf-8": 17, "utf-32": 14}[tc.enc]
		rg.sc.Order = []string{"a.go", "b.go"}
		rg.sc.Edits = map[string][][]any{"a.go": {{2, 7, 2, 10, "New"}}, "b.go": {{2, col, 2, col + 3, "New"}}}
		res := rg.rename(t, RenameOptions{Path: "a.go", Line: 3, Column: 8, NewName: "New"})
		if !res.Success || rg.read("b.go") != "package a\n\nvar x = \"😀\" + New\n" {
			t.Errorf("%q: %+v, b.go=%q", tc.enc, res, rg.read("b.go"))
		}
		if !strings.Contains(rg.received(), `"position":{"line":2,"character":7}`) {
			t.Errorf("%q: the position sent:\n%s", tc.enc, rg.received())
		}
	}
}

// TestRenameRefusesBadPositions before any server starts.
func TestRenameRefusesBadPositions(t *testing.T) {
	rg := newRenameRig(t, map[string]string{"a.go": "package a\n\nvar s = \"😀\"\n"})
	for _, tc := range []struct {
		line, col int
		code      plan.Code
	}{{9, 1, plan.CodeLineOutOfRange}, {3, 30, plan.CodeLineOutOfRange}, {3, 11, plan.CodeInvalidRequest}, {0, 1, plan.CodeInvalidRequest}} {
		res, _ := Rename(context.Background(), rg.s, RenameOptions{Path: "a.go", Line: tc.line, Column: tc.col, NewName: "x", Server: []string{"txedit-never-started"}})
		if res.Code != tc.code {
			t.Errorf("%d:%d: got %s %s, want %s", tc.line, tc.col, res.Code, res.Error, tc.code)
		}
	}
}
