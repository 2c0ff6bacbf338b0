package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/fsys/memfs"
	"github.com/txedit/txedit/plan"
)

// TestToolsetsOnMemFS: every toolset works on an in-memory workspace (seed
// 004's StateBackend) with the same transactional semantics — writes are
// journaled and undoable, all-or-nothing — and deepagents offers no
// execute there, since nothing can run in a tree that is not on disk.
func TestToolsetsOnMemFS(t *testing.T) {
	mem := memfs.New(map[string]string{"src/a.go": "package a\n\nfunc Foo() {}\n", "notes.txt": "one\r\ntwo\r\n"})
	w, err := engine.Open("/state", &engine.Options{FS: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	env := &Env{W: w.NewSession(engine.SessionOptions{NoReadCheck: true}), AllowExecute: true}
	if w.OnDisk() {
		t.Fatal("an in-memory workspace says it is on disk")
	}
	files := func() map[string]string { return mem.Files() }

	r := call(t, env, "claude", "Edit", `{"file_path":"src/a.go","old_string":"func Foo() {}","new_string":"func Bar() {}"}`)
	if !r.OK || files()["src/a.go"] != "package a\n\nfunc Bar() {}\n" {
		t.Errorf("claude Edit: %+v", r.Value)
	}
	r = call(t, env, "deepagents", "write_file", `{"path":"notes.txt","content":"three\n"}`)
	if !r.OK || files()["notes.txt"] != "three\n" {
		t.Errorf("deepagents write_file (exact bytes over a CRLF file): %+v %q", r.Value, files()["notes.txt"])
	}
	r = call(t, env, "adk", "write_file", `{"file_path":"logs/run.log","text":"start\n","append":true}`)
	if !r.OK || files()["logs/run.log"] != "start\n" {
		t.Errorf("adk append to a missing file: %+v", r.Value)
	}
	if r := call(t, env, "deepagents", "grep", `{"pattern":"Bar","output_mode":"files_with_matches"}`); !r.OK || !strings.Contains(r.TextOf(), "src/a.go") {
		t.Errorf("deepagents grep: %+v", r.Value)
	}
	if r := call(t, env, "claude", "Glob", `{"pattern":"**/*.go"}`); !strings.Contains(r.TextOf(), "src/a.go") {
		t.Errorf("claude Glob: %+v", r.Value)
	}
	r = call(t, env, "txedit", "fs_write", `{"fileEdits":[{"path":"src/a.go","edits":[{"command":"append","new_str":"// end"}]},{"path":"nope.txt","edits":[{"command":"str_replace","old_str":"x","new_str":"y"}]}]}`)
	if r.OK || strings.Contains(files()["src/a.go"], "// end") {
		t.Errorf("atomic fs_write on memfs wrote part of a failing request: %+v", r.Value)
	}
	// Every write is journaled: three undos take the tree back.
	for i := 0; i < 3; i++ {
		if res, err := w.Undo(context.Background(), engine.UndoOptions{}); err != nil || !res.Success {
			t.Fatalf("undo %d: %v", i, err)
		}
	}
	if f := files(); f["src/a.go"] != "package a\n\nfunc Foo() {}\n" || f["notes.txt"] != "one\r\ntwo\r\n" || f["logs/run.log"] != "" {
		t.Errorf("after undo: %v", f)
	}
	if _, ok := files()["logs/"]; ok {
		t.Error("undo left the directory it had created")
	}
	ts, _ := Get("deepagents")
	for _, tl := range ts.Offered(false, env) {
		if tl.Execute {
			t.Error("deepagents offers execute on an in-memory workspace")
		}
	}
	if r := call(t, env, "deepagents", "execute", `{"command":"true"}`); r.OK || r.Code != plan.CodeDenied {
		t.Errorf("execute on memfs: %+v", r.Value)
	}
}
