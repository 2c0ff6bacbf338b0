package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/plan"
)

func TestClaude(t *testing.T) {
	env, dir := setup(t, map[string]string{"a.go": "package a\n\nfunc Foo() {}\nfunc Foo2() {}\n", "img.png": "\x89PNG\r\n\x1a\nrest"}, nil)
	r := call(t, env, "claude", "Read", `{"file_path":"a.go","offset":3,"limit":1,"extra_field_clients_send":true}`)
	tr := r.Value.(ToolResult)
	if !r.OK || tr.Content != "3\tfunc Foo() {}" || tr.FilePath != "a.go" || !strings.Contains(tr.ShortResult, "Read 1 lines (3-3 of 5)") {
		t.Errorf("Read: %+v", tr)
	}
	if r := call(t, env, "claude", "Read", `{"file_path":"img.png"}`); !r.OK || r.Value.(ToolResult).Images[0].MediaType != "image/png" {
		t.Errorf("Read image: %+v", r.Value)
	}
	r = call(t, env, "claude", "Edit", `{"file_path":"a.go","old_string":"Foo","new_string":"Bar"}`)
	if tr := r.Value.(ToolResult); r.OK || r.Code != plan.CodeAmbiguous || !strings.HasPrefix(tr.Error, "Found 2 matches of the string to replace") {
		t.Errorf("ambiguous Edit: %+v", tr)
	}
	r = call(t, env, "claude", "Edit", `{"file_path":"a.go","old_string":"func Foo() {}","new_string":"func Bar() {}"}`)
	if tr := r.Value.(ToolResult); !r.OK || tr.ShortResult != "Updated a.go (+1 -1)" {
		t.Errorf("Edit: %+v", tr)
	}
	r = call(t, env, "claude", "MultiEdit", `{"file_path":"a.go","edits":[{"old_string":"Bar","new_string":"Baz"},{"old_string":"nothing here","new_string":"x"}]}`)
	if r.OK || read(t, dir, "a.go") != "package a\n\nfunc Bar() {}\nfunc Foo2() {}\n" {
		t.Errorf("MultiEdit must be all or nothing: %+v\n%s", r.Value, read(t, dir, "a.go"))
	}
	r = call(t, env, "claude", "Write", `{"file_path":"new/dir/b.txt","content":"hello\n"}`)
	if tr := r.Value.(ToolResult); !r.OK || tr.ShortResult != "Created new/dir/b.txt (+1 -0)" || read(t, dir, "new/dir/b.txt") != "hello\n" {
		t.Errorf("Write: %+v", tr)
	}
	if r := call(t, env, "claude", "LS", `{"path":"new"}`); r.Value.(ToolResult).Content != "- "+dir+"/\n  - new/\n    - dir/\n      - b.txt\n"+lsNote {
		t.Errorf("LS: %q", r.Value.(ToolResult).Content)
	}
	if r := call(t, env, "claude", "Glob", `{"pattern":"**/*.txt"}`); r.Value.(ToolResult).Content != "new/dir/b.txt" {
		t.Errorf("Glob: %+v", r.Value)
	}
	if r := call(t, env, "claude", "Grep", `{"pattern":"Bar","output_mode":"content","-n":true}`); r.Value.(ToolResult).Content != "a.go:3:func Bar() {}" {
		t.Errorf("Grep content: %q", r.Value.(ToolResult).Content)
	}
	if r := call(t, env, "claude", "Grep", `{"pattern":"func"}`); r.Value.(ToolResult).Content != "Found 1 file\na.go" {
		t.Errorf("Grep files: %q", r.Value.(ToolResult).Content)
	}
	// Every write went through the journal: undo takes back the Write.
	if _, err := env.W.Undo(context.Background(), engine.UndoOptions{}); err != nil || read(t, dir, "new/dir/b.txt") != "<missing>" {
		t.Errorf("undo of Write: %v", err)
	}
}

func TestAmazonQShapes(t *testing.T) {
	env, dir := setup(t, map[string]string{"a.txt": "one\ntwo\n", "b.txt": "x\n"}, nil)
	r := call(t, env, "amazonq", "fs_write", `{"command":"str_replace","path":"a.txt","old_str":"one","new_str":"1","summary":"s"}`)
	if got := jsonOf(r.Value); !r.OK || !strings.HasPrefix(got, `{"content_hash":"`) || !strings.Contains(got, `"path":"a.txt","success":true}`) {
		t.Errorf("single: %s", got)
	}
	r = call(t, env, "amazonq", "fs_write", `{"command":"str_replace","fileEdits":[{"path":"a.txt","edits":[{"command":"str_replace","old_str":"two","new_str":"2"}]},{"path":"b.txt","edits":[{"command":"str_replace","old_str":"nope","new_str":"y"},{"command":"append","new_str":"z"}]}]}`)
	arr, ok := r.Value.([]map[string]any)
	if !ok || len(arr) != 2 || r.OK || arr[1]["edits_failed"] != 1 || arr[0]["success"] != false {
		t.Fatalf("batch: %s", jsonOf(r.Value))
	}
	fe := arr[1]["failed_edits"].([]map[string]any)[0]
	if fe["command"] != "str_replace" || fe["code"] != plan.CodeNotFound {
		t.Errorf("failed edit: %v", fe)
	}
	if read(t, dir, "a.txt") != "1\ntwo\n" {
		t.Error("atomic batch wrote")
	}
	r = call(t, env, "amazonq", "fs_write", `{"command":"pattern_replace","directory":".","file_pattern":"*.txt","sed_pattern":"s/x/X/","dry_run":true}`)
	if got := jsonOf(r.Value); !strings.Contains(got, `"dry_run":true`) || !strings.Contains(got, `"would_modify":true`) || !strings.Contains(got, `"preview":"diff --git`) {
		t.Errorf("dry run: %s", got)
	}
	r = call(t, env, "amazonq", "fs_write", `{"command":"pattern_replace","directory":".","file_pattern":"*.txt","sed_pattern":"s/x/X/"}`)
	if got := jsonOf(r.Value); !strings.Contains(got, `"files_modified":1`) || !strings.Contains(got, `"replacements":1`) {
		t.Errorf("pattern: %s", got)
	}
	r = call(t, env, "amazonq", "fs_read", `{"mode":"Line","paths":["a.txt","missing"]}`)
	if rs := r.Value.([]any); len(rs) != 2 || rs[0].(map[string]any)["success"] != true || rs[1].(map[string]any)["success"] != false || rs[0].(map[string]any)["last_modified"] == "" {
		t.Errorf("batch read: %s", jsonOf(r.Value))
	}
}

func TestDeepAgents(t *testing.T) {
	env, dir := setup(t, map[string]string{"f.txt": "a\r\nb\r\nc\r\nx x x\r\n"}, nil)
	if r := call(t, env, "deepagents", "read_file", `{"path":"f.txt","offset":1,"limit":2}`); r.Value != "b\nc" {
		t.Errorf("read_file 0-based: %q", r.Value)
	}
	r := call(t, env, "deepagents", "edit_file", `{"path":"f.txt","old_string":"x","new_string":"y"}`)
	if r.Value != "replaced the first of 3 occurrence(s) in f.txt" || read(t, dir, "f.txt") != "a\r\nb\r\nc\r\ny x x\r\n" {
		t.Errorf("edit_file: %v %q", r.Value, read(t, dir, "f.txt"))
	}
	r = call(t, env, "deepagents", "edit_file", `{"path":"f.txt","old_string":"b\nc","new_string":"B\nC"}`)
	if !r.OK || read(t, dir, "f.txt") != "a\r\nB\r\nC\r\ny x x\r\n" {
		t.Errorf("edit_file keeps CRLF: %v %q", r.Value, read(t, dir, "f.txt"))
	}
	if r := call(t, env, "deepagents", "edit_file", `{"path":"f.txt","old_string":"zzz","new_string":"q"}`); r.OK || !strings.HasPrefix(r.Value.(string), "Error: not_found") {
		t.Errorf("edit_file not found: %v", r.Value)
	}
	if r := call(t, env, "deepagents", "write_file", `{"path":"d/n.txt","content":"hi"}`); r.Value != "wrote d/n.txt" {
		t.Errorf("write_file: %v", r.Value)
	}
	if r := call(t, env, "deepagents", "ls", `{"path":"."}`); jsonOf(r.Value) != `[{"is_dir":true,"name":"d","size":null},{"is_dir":false,"name":"f.txt","size":16}]` {
		t.Errorf("ls: %s", jsonOf(r.Value))
	}
	if r := call(t, env, "deepagents", "grep", `{"pattern":"hi","output_mode":"content"}`); r.Value != "d/n.txt:1:hi" {
		t.Errorf("grep: %v", r.Value)
	}
	// execute is refused unless allowed; when allowed it runs in the root.
	if r := call(t, env, "deepagents", "execute", `{"command":"echo hi"}`); r.OK || r.Code != plan.CodeDenied {
		t.Errorf("execute not allowed: %+v", r)
	}
	// Allowed but with nobody to approve it (the zero Env's default
	// mode and no Approve): fail closed, nothing runs.
	env.AllowExecute = true
	if r := call(t, env, "deepagents", "execute", `{"command":"touch ran"}`); r.OK || r.Code != plan.CodeDenied || read(t, dir, "ran") != "<missing>" {
		t.Errorf("execute without approval: %+v", r)
	}
	env.Mode = ModeAcceptEdits // commands still ask there
	if r := call(t, env, "deepagents", "execute", `{"command":"touch ran"}`); r.OK || r.Code != plan.CodeDenied || read(t, dir, "ran") != "<missing>" {
		t.Errorf("execute in acceptEdits without approval: %+v", r)
	}
	approved := 0
	env.Approve = func(ctx context.Context, tool string, args json.RawMessage) (bool, error) {
		approved++
		return true, nil
	}
	r = call(t, env, "deepagents", "execute", `{"command":"cat f.txt | wc -l; echo err >&2; exit 3"}`)
	if approved != 1 {
		t.Errorf("Approve asked %d times", approved)
	}
	if v := r.Value.(map[string]any); v["stdout"] != "4\n" || v["stderr"] != "err\n" || v["exit_code"] != 3 {
		t.Errorf("execute: %v", v)
	}
	r = call(t, env, "deepagents", "execute", `{"command":"sleep 5","timeout":1}`)
	if v := r.Value.(map[string]any); v["exit_code"] != -1 || !strings.Contains(v["stderr"].(string), "killed") {
		t.Errorf("execute timeout: %v", v)
	}
	ts, _ := Get("deepagents")
	off := &Env{W: env.W}
	if len(ts.Offered(false, off)) != 6 || len(ts.Offered(false, env)) != 7 || len(ts.Offered(true, env)) != 4 {
		t.Error("offered tools: execute only when allowed; read-only offers only reads")
	}
}

func TestADK(t *testing.T) {
	env, dir := setup(t, map[string]string{"src/a.py": "import os\nprint('x')\n", "src/b.py": "pass\n", "src/c.txt": "print\n", "x": "1\n", "y": "1\n"}, nil)
	if r := call(t, env, "adk", "file_search", `{"dir_path":"src","pattern":"*.py"}`); r.Value != "a.py\nb.py" {
		t.Errorf("file_search: %v", r.Value)
	}
	if r := call(t, env, "adk", "list_directory", `{"dir_path":"src"}`); r.Value != "a.py\nb.py\nc.txt" {
		t.Errorf("list_directory: %v", r.Value)
	}
	if r := call(t, env, "adk", "write_file", `{"file_path":"x","text":"2","append":true}`); r.Value != "File written successfully to x." || read(t, dir, "x") != "1\n2" {
		t.Errorf("append: %v %q", r.Value, read(t, dir, "x"))
	}
	if r := call(t, env, "adk", "copy_file", `{"source_path":"y","destination_path":"z/y"}`); r.Value != "Error: [Errno 2] No such file or directory: '"+dir+"/z/y'" {
		t.Errorf("copy into a missing directory: %v", r.Value)
	}
	if r := call(t, env, "adk", "copy_file", `{"source_path":"y","destination_path":"src/y"}`); r.Value != "File copied successfully from y to src/y." {
		t.Errorf("copy: %v", r.Value)
	}
	if r := call(t, env, "adk", "move_file", `{"source_path":"y","destination_path":"x"}`); r.OK || !strings.Contains(r.Value.(string), "conflict") {
		t.Errorf("move onto an existing file: %v", r.Value)
	}
	if r := call(t, env, "adk", "file_delete", `{"file_path":"src/y"}`); r.Value != "File deleted successfully: src/y." {
		t.Errorf("delete: %v", r.Value)
	}
	r := call(t, env, "adk", "grep_file", `{"file_path":"src","pattern":"print","recursive":true,"show_line_numbers":true}`)
	if v := r.Value.(map[string]any); v["status"] != "success" || v["output"] != "src/a.py:2:print('x')\nsrc/c.txt:1:print" {
		t.Errorf("grep_file: %v", v)
	}
	r = call(t, env, "adk", "grep_file", `{"file_path":"src/a.py","pattern":"print","invert_match":true}`)
	if v := r.Value.(map[string]any); v["output"] != "import os" {
		t.Errorf("grep_file -v: %v", v)
	}
	r = call(t, env, "adk", "grep_file", `{"file_path":"src/a.py","pattern":"nothing"}`)
	if v := r.Value.(map[string]any); v["output"] != "No lines found matching the pattern 'nothing' in src/a.py." {
		t.Errorf("grep_file no match: %v", v)
	}
	if r := call(t, env, "adk", "grep_file", `{"file_path":"src","pattern":"x"}`); r.OK || r.Value.(map[string]any)["status"] != "error" {
		t.Errorf("grep_file on a directory without recursive: %v", r.Value)
	}
	if r := call(t, env, "adk", "find_files", `{"dir_path":".","type":"d"}`); jsonOf(r.Value.(map[string]any)["output"]) != `[".","src"]` {
		t.Errorf("find_files: %v", r.Value)
	}
	if r := call(t, env, "adk", "diff_files", `{"file_path1":"src/a.py","file_path2":"src/a.py"}`); r.Value.(map[string]any)["output"] != "Files are identical." {
		t.Errorf("diff_files: %v", r.Value)
	}
}

func TestTxeditToolset(t *testing.T) {
	env, dir := setup(t, map[string]string{"a.txt": "one\n"}, &engine.Options{})
	r := call(t, env, "txedit", "fs_read", `{"mode":"Line","path":"a.txt"}`)
	tok := r.Value.(*plan.ReadResult).ContentHash
	r = call(t, env, "txedit", "fs_write", `{"fileEdits":[{"path":"a.txt","content_hash":"`+tok+`","edits":[{"command":"append","new_str":"two"}]}]}`)
	if res := r.Value.(*plan.Result); !r.OK || res.TransactionID == "" || read(t, dir, "a.txt") != "one\ntwo\n" {
		t.Fatalf("fs_write: %s", jsonOf(r.Value))
	}
	if r := call(t, env, "txedit", "history", `{}`); !strings.Contains(jsonOf(r.Value), `"state":"committed"`) {
		t.Errorf("history: %s", jsonOf(r.Value))
	}
	if r := call(t, env, "txedit", "undo", `{}`); !r.OK || read(t, dir, "a.txt") != "one\n" {
		t.Errorf("undo: %s", jsonOf(r.Value))
	}
	if r := call(t, env, "txedit", "grep", `{"pattern":"one","output_mode":"count"}`); jsonOf(r.Value.(*plan.GrepResult).Counts) != `[{"path":"a.txt","count":1}]` {
		t.Errorf("grep: %s", jsonOf(r.Value))
	}
	if r := call(t, env, "txedit", "glob", `{"pattern":"*.txt"}`); jsonOf(r.Value.(*plan.GlobResult).Files) != `["a.txt"]` {
		t.Errorf("glob: %s", jsonOf(r.Value))
	}
	if r := call(t, env, "txedit", "fs_write", `{"command":"insert","path":"a.txt","insert_line":"two","new_str":"x"}`); r.OK || r.Code != plan.CodeInvalidRequest {
		t.Errorf("a mistyped argument: %+v", r)
	}
	// Policy reaches the tools: a read-only workspace refuses writes, and
	// so does the permission mode plan.
	ro, rodir := setup(t, map[string]string{"a.txt": "x\n"}, &engine.Options{ReadOnly: true})
	if r := call(t, ro, "claude", "Write", `{"file_path":"a.txt","content":"y"}`); r.OK || r.Code != plan.CodeDenied || read(t, rodir, "a.txt") != "x\n" {
		t.Errorf("write in a read-only workspace: %+v", r)
	}
	pm, pmdir := setup(t, map[string]string{"a.txt": "x\n"}, nil)
	pm.Mode = ModePlan
	if r := call(t, pm, "claude", "Write", `{"file_path":"a.txt","content":"y"}`); r.OK || r.Code != plan.CodeDenied || read(t, pmdir, "a.txt") != "x\n" {
		t.Errorf("write in plan mode: %+v", r)
	}
	if r := call(t, pm, "claude", "Read", `{"file_path":"a.txt"}`); !r.OK {
		t.Errorf("read in plan mode: %+v", r)
	}
	// Default mode asks Approve before writes; acceptEdits does not.
	asked := 0
	pm.Mode, pm.Approve = ModeDefault, func(ctx context.Context, tool string, args json.RawMessage) (bool, error) { asked++; return false, nil }
	if r := call(t, pm, "claude", "Write", `{"file_path":"a.txt","content":"y"}`); r.OK || r.Code != plan.CodeDenied || asked != 1 || read(t, pmdir, "a.txt") != "x\n" {
		t.Errorf("refused approval: %+v (asked %d)", r, asked)
	}
	pm.Mode = ModeAcceptEdits
	if r := call(t, pm, "claude", "Write", `{"file_path":"a.txt","content":"y"}`); !r.OK || asked != 1 || read(t, pmdir, "a.txt") != "y" {
		t.Errorf("acceptEdits: %+v (asked %d)", r, asked)
	}
}
