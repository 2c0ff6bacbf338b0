package patch

import (
	"encoding/json"
	"path"
	"sort"
	"strings"
	"testing"

	"github.com/txedit/txedit/plan"
)

// memTree is a Tree over a set of files and directories under /w.
type memTree struct {
	files map[string]bool
	dirs  map[string]bool
}

func newTree(paths ...string) *memTree {
	t := &memTree{files: map[string]bool{}, dirs: map[string]bool{}}
	for _, p := range paths {
		if d, ok := strings.CutSuffix(p, "/"); ok {
			t.dirs[d] = true
		} else {
			t.files[p] = true
		}
		for d := path.Dir(strings.TrimSuffix(p, "/")); d != "."; d = path.Dir(d) {
			t.dirs[d] = true
		}
	}
	return t
}

func (t *memTree) Resolve(p string) (string, error) {
	rel, ok := strings.CutPrefix(p, "/w/")
	if p == "/w" {
		return ".", nil
	}
	if !ok {
		return "", plan.Errorf(plan.CodeOutsideRoot, p, "path is outside the workspace root /w")
	}
	return rel, nil
}

func (t *memTree) Stat(rel string) (bool, bool, error) {
	return t.files[rel] || t.dirs[rel], t.dirs[rel], nil
}

func (t *memTree) List(rel string) (files, dirs []string, err error) {
	dirs = []string{""}
	for f := range t.files {
		if r, ok := strings.CutPrefix(f, rel+"/"); ok {
			files = append(files, r)
		}
	}
	for d := range t.dirs {
		if r, ok := strings.CutPrefix(d, rel+"/"); ok {
			dirs = append(dirs, r)
		}
	}
	sort.Strings(files)
	sort.Strings(dirs)
	return files, dirs, nil
}

func (t *memTree) Spell(rel string) string { return rel }

func (t *memTree) IsLink(p string) bool { return strings.HasSuffix(p, ".link") }

// compileLSP compiles input against tree and returns the request as
// JSON (the file entries) plus its Dirs.
func compileLSP(t *testing.T, tree Tree, input string, o LSPOptions) (string, *plan.DirChanges, *WorkspaceEdit, error) {
	t.Helper()
	o.Tree = tree
	req, we, err := CompileLSP([]byte(input), o)
	if err != nil {
		return "", nil, we, err
	}
	for i := range req.FileEdits {
		for j := range req.FileEdits[i].Edits {
			e := &req.FileEdits[i].Edits[j]
			for k := range e.TextEdits {
				e.TextEdits[k].Where = ""
			}
		}
	}
	b, _ := json.Marshal(req.FileEdits)
	return string(b), req.Dirs, we, nil
}

const (
	insA = `{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"newText":"A"}`
	insB = `{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"newText":"B"}`
)

func edit(uri, edits string) string {
	return `{"textDocument":{"uri":"` + uri + `","version":null},"edits":[` + edits + `]}`
}

func TestLSPCompile(t *testing.T) {
	tree := newTree("a.go", "b.go", "pkg/x.go", "pkg/sub/y.go", "pkg/empty/", "old/z.txt")
	te := func(text string) string {
		return `{"command":"text_edits","text_edits":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"newText":"` + text + `"}],"position_encoding":"utf-16"}`
	}
	tests := []struct {
		name, edit, want string
		make             []plan.DirMake
		remove           []string
	}{
		{"changes, in input order", `{"changes":{"file:///w/b.go":[` + insB + `],"file:///w/a.go":[` + insA + `]}}`,
			`[{"path":"b.go","edits":[` + te("B") + `]},{"path":"a.go","edits":[` + te("A") + `]}]`, nil, nil},
		{"edit, rename, edit the new name", `{"documentChanges":[` + edit("file:///w/a.go", insA) + `,{"kind":"rename","oldUri":"file:///w/a.go","newUri":"file:///w/c.go"},` + edit("file:///w/c.go", insB) + `]}`,
			`[{"path":"a.go","edits":[` + te("A") + `,` + te("B") + `,{"command":"move","new_path":"c.go"}]}]`, nil, nil},
		{"create then edit", `{"documentChanges":[{"kind":"create","uri":"file:///w/new/n.go"},` + edit("file:///w/new/n.go", insA) + `]}`,
			`[{"path":"new/n.go","edits":[{"command":"write","file_text":"","if_absent":true},` + te("A") + `]}]`, nil, nil},
		{"create with overwrite empties the file", `{"documentChanges":[` + edit("file:///w/a.go", insB) + `,{"kind":"create","uri":"file:///w/a.go","options":{"overwrite":true,"ignoreIfExists":true}},` + edit("file:///w/a.go", insA) + `]}`,
			`[{"path":"a.go","edits":[{"command":"write","file_text":""},` + te("A") + `]}]`, nil, nil},
		{"create with ignoreIfExists", `{"documentChanges":[{"kind":"create","uri":"file:///w/a.go","options":{"ignoreIfExists":true}},` + edit("file:///w/a.go", insA) + `]}`,
			`[{"path":"a.go","edits":[` + te("A") + `]}]`, nil, nil},
		{"rename over a file with overwrite", `{"documentChanges":[{"kind":"rename","oldUri":"file:///w/a.go","newUri":"file:///w/b.go","options":{"overwrite":true}}]}`,
			`[{"path":"a.go","edits":[{"command":"move","new_path":"b.go","overwrite":true}]}]`, nil, nil},
		{"rename with ignoreIfExists over a file does nothing", `{"documentChanges":[{"kind":"rename","oldUri":"file:///w/a.go","newUri":"file:///w/b.go","options":{"ignoreIfExists":true}},` + edit("file:///w/a.go", insA) + `]}`,
			`[{"path":"a.go","edits":[` + te("A") + `]}]`, nil, nil},
		{"a directory renamed, a file in it edited at its new name", `{"documentChanges":[{"kind":"rename","oldUri":"file:///w/pkg","newUri":"file:///w/lib/pkg2"},` + edit("file:///w/lib/pkg2/sub/y.go", insA) + `]}`,
			`[{"path":"pkg/sub/y.go","edits":[` + te("A") + `,{"command":"move","new_path":"lib/pkg2/sub/y.go"}]},{"path":"pkg/x.go","edits":[{"command":"move","new_path":"lib/pkg2/x.go"}]}]`,
			[]plan.DirMake{{Path: "lib/pkg2", ModeOf: "pkg"}, {Path: "lib/pkg2/empty", ModeOf: "pkg/empty"}, {Path: "lib/pkg2/sub", ModeOf: "pkg/sub"}}, []string{"pkg/sub", "pkg/empty", "pkg"}},
		{"a directory deleted recursively", `{"documentChanges":[{"kind":"delete","uri":"file:///w/pkg","options":{"recursive":true}}]}`,
			`[{"path":"pkg/sub/y.go","edits":[{"command":"delete"}]},{"path":"pkg/x.go","edits":[{"command":"delete"}]}]`, nil, []string{"pkg/sub", "pkg/empty", "pkg"}},
		{"an empty directory deleted", `{"documentChanges":[{"kind":"delete","uri":"file:///w/pkg/empty/"}]}`, `null`, nil, []string{"pkg/empty"}},
		{"files moved out, then their directory deleted (gopls's package rename)", `{"documentChanges":[` + edit("file:///w/old/z.txt", insA) +
			`,{"kind":"rename","oldUri":"file:///w/old/z.txt","newUri":"file:///w/new/z.txt"},{"kind":"delete","uri":"file:///w/old"}]}`,
			`[{"path":"old/z.txt","edits":[` + te("A") + `,{"command":"move","new_path":"new/z.txt"}]}]`, nil, []string{"old"}},
		{"delete with ignoreIfNotExists", `{"documentChanges":[{"kind":"delete","uri":"file:///w/nope","options":{"ignoreIfNotExists":true}},` + edit("file:///w/a.go", insA) + `]}`,
			`[{"path":"a.go","edits":[` + te("A") + `]}]`, nil, nil},
		{"deleted, then made again", `{"documentChanges":[{"kind":"delete","uri":"file:///w/a.go"},{"kind":"create","uri":"file:///w/a.go"},` + edit("file:///w/a.go", insA) + `]}`,
			`[{"path":"a.go","edits":[{"command":"write","file_text":""},` + te("A") + `]}]`, nil, nil},
		{"a directory renamed twice: made at the last name only", `{"documentChanges":[{"kind":"rename","oldUri":"file:///w/pkg","newUri":"file:///w/tmp"},{"kind":"rename","oldUri":"file:///w/tmp","newUri":"file:///w/lib"}]}`,
			`[{"path":"pkg/sub/y.go","edits":[{"command":"move","new_path":"lib/sub/y.go"}]},{"path":"pkg/x.go","edits":[{"command":"move","new_path":"lib/x.go"}]}]`,
			[]plan.DirMake{{Path: "lib", ModeOf: "pkg"}, {Path: "lib/empty", ModeOf: "pkg/empty"}, {Path: "lib/sub", ModeOf: "pkg/sub"}}, []string{"pkg/sub", "pkg/empty", "pkg"}},
		{"percent-decoded URIs", `{"changes":{"file://localhost/w/my%20dir/%C3%A9.go":[` + insA + `]}}`,
			`[{"path":"my dir/é.go","edits":[` + te("A") + `]}]`, nil, nil},
	}
	tree.files["my dir/é.go"] = true
	tree.dirs["my dir"] = true
	for _, tc := range tests {
		got, dirs, _, err := compileLSP(t, tree, tc.edit, LSPOptions{})
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
		if !dirs.KeepParents || !equalJSON(dirs.Make, tc.make) || !equalJSON(dirs.Remove, tc.remove) {
			t.Errorf("%s: dirs %+v, want make %v remove %v (keeping parents)", tc.name, dirs, tc.make, tc.remove)
		}
	}
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y) || (string(x) == "null" && string(y) == "[]") || (string(x) == "[]" && string(y) == "null")
}

func TestLSPCompileRefusals(t *testing.T) {
	tree := newTree("a.go", "b.go", "pkg/x.go", "pkg/sub/y.go")
	tests := []struct {
		name, edit string
		code       plan.Code
		msg        string
	}{
		{"an edit of a file renamed away", `{"documentChanges":[{"kind":"rename","oldUri":"file:///w/a.go","newUri":"file:///w/c.go"},` + edit("file:///w/a.go", insA) + `]}`,
			plan.CodeFileNotFound, "documentChanges[1]: no such file at this point of the edit"},
		{"an edit of a missing file", `{"changes":{"file:///w/nope.go":[` + insA + `]}}`, plan.CodeFileNotFound, "changes[file:///w/nope.go]: no such file"},
		{"rename onto a file", `{"documentChanges":[{"kind":"rename","oldUri":"file:///w/a.go","newUri":"file:///w/b.go"}]}`, plan.CodeConflict, "neither overwrite nor ignoreIfExists"},
		{"rename of nothing", `{"documentChanges":[{"kind":"rename","oldUri":"file:///w/z.go","newUri":"file:///w/y.go"}]}`, plan.CodeFileNotFound, "nothing to rename"},
		{"rename into itself", `{"documentChanges":[{"kind":"rename","oldUri":"file:///w/pkg","newUri":"file:///w/pkg/sub/pkg"}]}`, plan.CodeInvalidRequest, "into itself"},
		{"rename over a directory", `{"documentChanges":[{"kind":"rename","oldUri":"file:///w/a.go","newUri":"file:///w/pkg","options":{"overwrite":true}}]}`, plan.CodeConflict, "does not replace a directory"},
		{"create over a file", `{"documentChanges":[{"kind":"create","uri":"file:///w/a.go"}]}`, plan.CodeConflict, "the file exists"},
		{"create inside a file", `{"documentChanges":[{"kind":"create","uri":"file:///w/a.go/x"}]}`, plan.CodeConflict, "a.go is a file"},
		{"delete of a full directory, not recursive", `{"documentChanges":[{"kind":"delete","uri":"file:///w/pkg"}]}`, plan.CodeConflict, "not empty (2 files, 1 directories in it)"},
		{"delete of nothing", `{"documentChanges":[{"kind":"delete","uri":"file:///w/nope"}]}`, plan.CodeFileNotFound, "nothing to delete"},
		{"outside the root", `{"changes":{"file:///etc/passwd":[` + insA + `]}}`, plan.CodeOutsideRoot, "changes[file:///etc/passwd]: path is outside"},
		{"the root itself", `{"documentChanges":[{"kind":"delete","uri":"file:///w","options":{"recursive":true}}]}`, plan.CodeInvalidRequest, "is the workspace root"},
		{"a swap", `{"documentChanges":[{"kind":"rename","oldUri":"file:///w/a.go","newUri":"file:///w/t.go"},{"kind":"rename","oldUri":"file:///w/b.go","newUri":"file:///w/a.go"}]}`,
			plan.CodeInvalidRequest, "moves a.go away and puts another file at its place"},
		{"a rename of a symlink", `{"documentChanges":[{"kind":"rename","oldUri":"file:///w/l.link","newUri":"file:///w/m"}]}`, plan.CodeNotRegular, "is a symlink"},
		{"an edit of a directory", `{"changes":{"file:///w/pkg":[` + insA + `]}}`, plan.CodeNotRegular, "is a directory"},
		{"not a file URI", `{"changes":{"untitled:Untitled-1":[` + insA + `]}}`, plan.CodeInvalidRequest, "is not a file URI"},
		{"another host", `{"changes":{"file://server/w/a.go":[` + insA + `]}}`, plan.CodeInvalidRequest, `names host "server"`},
		{"no range", `{"changes":{"file:///w/a.go":[{"newText":"x"}]}}`, plan.CodeInvalidRequest, "changes[file:///w/a.go].edits[0]: the edit has no range"},
		{"no newText", `{"documentChanges":[` + edit("file:///w/a.go", `{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}}}`) + `]}`, plan.CodeInvalidRequest, "documentChanges[0].edits[0]: the edit has no newText"},
		{"unknown kind", `{"documentChanges":[{"kind":"chmod","uri":"file:///w/a.go"}]}`, plan.CodeInvalidRequest, `unknown kind "chmod"`},
		{"neither edit nor operation", `{"documentChanges":[{"uri":"file:///w/a.go"}]}`, plan.CodeInvalidRequest, "want a TextDocumentEdit"},
		{"a version that is no number", `{"documentChanges":[{"textDocument":{"uri":"file:///w/a.go","version":"1"},"edits":[]}]}`, plan.CodeInvalidRequest, "want an integer or null"},
		{"nothing", `{"documentChanges":[]}`, plan.CodeInvalidRequest, "changes nothing"},
		{"renamed there and back", `{"documentChanges":[{"kind":"rename","oldUri":"file:///w/a.go","newUri":"file:///w/t.go"},{"kind":"rename","oldUri":"file:///w/t.go","newUri":"file:///w/a.go"}]}`,
			plan.CodeInvalidRequest, "leave every file where it was"},
		{"every operation ignored", `{"documentChanges":[{"kind":"delete","uri":"file:///w/nope","options":{"ignoreIfNotExists":true}}]}`, plan.CodeInvalidRequest, "were ignored"},
		{"an unknown annotation", `{"documentChanges":[{"kind":"delete","uri":"file:///w/a.go","annotationId":"x"}]}`, plan.CodeInvalidRequest, `annotation "x" is not in changeAnnotations`},
		{"a key twice", `{"changes":{"file:///w/a.go":[],"file:///w/a.go":[]}}`, plan.CodeInvalidRequest, "given twice"},
	}
	for _, tc := range tests {
		_, _, _, err := compileLSP(t, tree, tc.edit, LSPOptions{})
		if err == nil {
			t.Errorf("%s: compiled", tc.name)
			continue
		}
		if e := plan.As(err); e.Code != tc.code || !strings.Contains(e.Error(), tc.msg) {
			t.Errorf("%s: got %v (%s), want %s containing %q", tc.name, err, e.Code, tc.code, tc.msg)
		}
	}
}

func TestLSPAnnotations(t *testing.T) {
	tree := newTree("a.go", "b.go")
	in := `{"changeAnnotations":{"r":{"label":"Rename","needsConfirmation":false},"d":{"label":"Delete b.go","needsConfirmation":true,"description":"it goes"}},
		"documentChanges":[{"textDocument":{"uri":"file:///w/a.go","version":null},"edits":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"newText":"A","annotationId":"r"}]},
		{"kind":"delete","uri":"file:///w/b.go","annotationId":"d"}]}`
	_, _, _, err := compileLSP(t, tree, in, LSPOptions{})
	if e := plan.As(err); err == nil || e.Code != plan.CodeNeedsConfirmation || !strings.Contains(e.Error(), `labelled "Delete b.go" need confirmation`) || !strings.Contains(e.Error(), "--confirm") {
		t.Fatalf("unconfirmed: got %v", err)
	}
	for _, o := range []LSPOptions{{Confirm: true}, {DryRun: true}} {
		if _, _, _, err := compileLSP(t, tree, in, o); err != nil {
			t.Errorf("%+v: %v", o, err)
		}
	}
}

func TestLSPVersions(t *testing.T) {
	tree := newTree("a.go", "b.go")
	in := `{"documentChanges":[{"textDocument":{"uri":"file:///w/a.go","version":3},"edits":[` + insA + `]},{"textDocument":{"uri":"file:///w/b.go","version":0},"edits":[` + insB + `]}]}`
	_, _, we, err := compileLSP(t, tree, in, LSPOptions{})
	if err != nil || len(we.Warnings) != 1 || !strings.Contains(we.Warnings[0], "version 3 of a.go cannot be checked") {
		t.Errorf("unchecked versions: err %v, warnings %q", err, we.Warnings)
	}
	_, _, _, err = compileLSP(t, tree, in, LSPOptions{Versions: map[string]int{"a.go": 2}})
	if e := plan.As(err); err == nil || e.Code != plan.CodeConflict || !strings.Contains(e.Error(), "version 3 of the document, but version 2 was sent") {
		t.Errorf("a stale version: got %v", err)
	}
	req, _, err := CompileLSP([]byte(in), LSPOptions{Tree: tree, Versions: map[string]int{"a.go": 3}, Hashes: map[string]string{"a.go": "0123456789abcdef"}})
	if err != nil || req.FileEdits[0].ContentHash != "0123456789abcdef" || req.FileEdits[1].ContentHash != "" {
		t.Errorf("hashes: %v %+v", err, req)
	}
}

func TestLSPParseForms(t *testing.T) {
	we := `{"changes":{"file:///w/a.go":[` + insA + `]}}`
	for _, in := range []string{we, `{"label":"Fix","edit":` + we + `}`, `{"jsonrpc":"2.0","id":3,"result":` + we + `}`,
		`{"jsonrpc":"2.0","id":4,"method":"workspace/applyEdit","params":{"label":"Fix","edit":` + we + `}}`} {
		if Detect([]byte(in)) != FormatLSP {
			t.Errorf("Detect(%s) = %q", in, Detect([]byte(in)))
		}
		w, err := ParseWorkspaceEdit([]byte(in))
		if err != nil || len(w.Changes) != 1 || w.Changes[0].Path != "/w/a.go" {
			t.Errorf("%s: %v %+v", in, err, w)
		}
	}
	if Detect([]byte(`{"command":"create","path":"a","file_text":""}`)) != FormatJSON {
		t.Error("a JSON request was taken for a WorkspaceEdit")
	}
	w, err := ParseWorkspaceEdit([]byte(`{"changes":{"file:///w/b.go":[]},"documentChanges":[` + edit("file:///w/a.go", insA) + `]}`))
	if err != nil || len(w.Changes) != 1 || w.Changes[0].Path != "/w/a.go" || len(w.Warnings) != 1 || !strings.Contains(w.Warnings[0], "documentChanges were applied") {
		t.Errorf("both fields: %v %+v", err, w)
	}
	w, err = ParseWorkspaceEdit([]byte(`{"changes":{"file:///w/b.go":[` + insB + `]},"documentChanges":[]}`))
	if err != nil || len(w.Changes) != 1 || w.Changes[0].Path != "/w/b.go" {
		t.Errorf("empty documentChanges beside changes: %v %+v", err, w)
	}
	if _, _, err := Compile(FormatAuto, []byte(we)); err == nil || !strings.Contains(err.Error(), "compiles against the workspace") {
		t.Errorf("Compile of a WorkspaceEdit: %v", err)
	}
}
