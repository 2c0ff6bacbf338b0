package tools

import (
	"strings"
	"testing"

	"github.com/txedit/txedit/plan"
)

// TestMissingArgumentWritesNothing: every tool that writes, called without
// each of its required arguments (or with one of the wrong type), fails
// with invalid_request naming the argument — in its dialect's shape — and
// writes nothing (Write without content used to empty the file).
func TestMissingArgumentWritesNothing(t *testing.T) {
	cases := []struct {
		toolset, tool, args, field string
	}{
		{"claude", "Write", `{"file_path":"a.txt"}`, "content"},
		{"claude", "Edit", `{"file_path":"a.txt","old_string":"one"}`, "new_string"},
		{"claude", "Edit", `{"file_path":"a.txt","new_string":"x"}`, "old_string"},
		{"claude", "MultiEdit", `{"file_path":"a.txt","edits":[{"old_string":"one"}]}`, "new_string"},
		{"claude", "MultiEdit", `{"file_path":"a.txt"}`, "edits"},
		{"deepagents", "write_file", `{"path":"a.txt"}`, "content"},
		{"deepagents", "edit_file", `{"path":"a.txt","old_string":"one"}`, "new_string"},
		{"adk", "write_file", `{"file_path":"a.txt"}`, "text"},
		{"adk", "move_file", `{"source_path":"a.txt"}`, "destination_path"},
		{"adk", "file_delete", `{}`, "file_path"},
		{"txedit", "fs_write", `{"fileEdits":[{"path":"a.txt"}]}`, "edits"},
		{"claude", "Write", `{"file_path":"a.txt","content":7}`, "content"},
		{"claude", "Grep", `{"pattern":"x","output_mode":"lines"}`, "output_mode"},
	}
	for _, tc := range cases {
		env, dir := setup(t, map[string]string{"a.txt": "one\n"}, nil)
		r := call(t, env, tc.toolset, tc.tool, tc.args)
		if r.OK || r.Code != plan.CodeInvalidRequest {
			t.Errorf("%s.%s %s: ok=%v code=%s, want invalid_request", tc.toolset, tc.tool, tc.args, r.OK, r.Code)
		}
		if txt := r.TextOf(); !strings.Contains(txt, tc.field) {
			t.Errorf("%s.%s %s: the error does not name %s: %s", tc.toolset, tc.tool, tc.args, tc.field, txt)
		}
		if got := read(t, dir, "a.txt"); got != "one\n" {
			t.Errorf("%s.%s %s wrote: a.txt = %q", tc.toolset, tc.tool, tc.args, got)
		}
	}
	// The dialect's shape: claude answers a ToolResult, deepagents and
	// LangChain a string, adk's custom tools {status: error}.
	env, _ := setup(t, map[string]string{"a.txt": "one\n"}, nil)
	if _, ok := call(t, env, "claude", "Write", `{"file_path":"a.txt"}`).Value.(ToolResult); !ok {
		t.Error("claude: the failure is not a ToolResult")
	}
	if _, ok := call(t, env, "deepagents", "write_file", `{"path":"a.txt"}`).Value.(string); !ok {
		t.Error("deepagents: the failure is not a string")
	}
	if v, ok := call(t, env, "adk", "grep_file", `{"file_path":"a.txt"}`).Value.(map[string]any); !ok || v["status"] != "error" {
		t.Errorf("adk grep_file: the failure is not {status: error}: %v", v)
	}
	// Extra fields a client adds are tolerated.
	if r := call(t, env, "claude", "Read", `{"file_path":"a.txt","client_extra":{"x":1}}`); !r.OK {
		t.Errorf("an unknown extra field was refused: %+v", r.Value)
	}
}
