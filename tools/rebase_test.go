package tools

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/hash"
	"github.com/txedit/txedit/plan"
)

// twoAgents opens one workspace with a file and two sessions on it (the
// read-before-write rule on), as two MCP connections would be.
func twoAgents(t *testing.T, name, content string) (a, b *Env, dir string) {
	t.Helper()
	dir = t.TempDir()
	os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644)
	w, err := engine.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return &Env{W: w.NewSession(engine.SessionOptions{Agent: "alice"}), Mode: ModeAcceptEdits},
		&Env{W: w.NewSession(engine.SessionOptions{Agent: "bob"}), Mode: ModeAcceptEdits}, dir
}

func src(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

// Claude's Edit after another agent's edit elsewhere: Claude Code's own
// success text, then the note of the change; the same line: Claude Code's
// refusal, then the change and the lines as they are now in Read's format;
// the retry from them lands.
func TestClaudeEditRebase(t *testing.T) {
	a, b, dir := twoAgents(t, "f.txt", src(12))
	for _, e := range []*Env{a, b} {
		if r := call(t, e, "claude", "Read", `{"file_path":"f.txt"}`); !r.OK {
			t.Fatal(r.TextOf())
		}
	}
	if r := call(t, a, "claude", "Edit", `{"file_path":"f.txt","old_string":"line 2\n","new_string":"line two\n"}`); !r.OK || strings.Contains(r.TextOf(), "Note (txedit)") {
		t.Fatalf("first edit: %s", r.TextOf())
	}
	r := call(t, b, "claude", "Edit", `{"file_path":"f.txt","old_string":"line 9\n","new_string":"line nine\n"}`)
	want := "The file " + filepath.Join(dir, "f.txt") + " has been updated successfully." + stateNote
	if !r.OK || !strings.HasPrefix(r.TextOf(), want) || !strings.Contains(r.TextOf(), "\n\nNote (txedit): your edit was applied on top of changes made since your last read by alice (transaction ") ||
		!strings.HasSuffix(r.TextOf(), ":\n@@ -2 +2 @@\n-line 2\n+line two") {
		t.Fatalf("rebased edit: %s", r.TextOf())
	}
	if got := read(t, dir, "f.txt"); got != strings.Replace(strings.Replace(src(12), "line 2\n", "line two\n", 1), "line 9\n", "line nine\n", 1) {
		t.Fatalf("file %q", got)
	}
	// Alice now edits the line bob changed, whose old text she saw.
	r = call(t, a, "claude", "Edit", `{"file_path":"f.txt","old_string":"line 9\n","new_string":"line NINE\n"}`)
	if r.OK || r.Code != plan.CodeStaleHash || !strings.HasPrefix(r.TextOf(), "<tool_use_error>"+changedRead+"\n\nNote (txedit): it changed since your last read, by bob (transaction ") ||
		!strings.Contains(r.TextOf(), "@@ -9 +9 @@\n-line 9\n+line nine\n") || !strings.Contains(r.TextOf(), "Lines 8-10 now read:\n8\tline 8\n9\tline nine\n10\tline 10\n") {
		t.Fatalf("edit over the change: %s", r.TextOf())
	}
	if r := call(t, a, "claude", "Edit", `{"file_path":"f.txt","old_string":"line nine\n","new_string":"line NINE\n"}`); !r.OK || strings.Contains(r.TextOf(), "Note (txedit)") {
		t.Fatalf("retry from the region shown: %s", r.TextOf())
	}
	// Nothing changed behind the agent: the real tool's answer alone.
	if r := call(t, a, "claude", "Edit", `{"file_path":"f.txt","old_string":"line 12\n","new_string":"line twelve\n"}`); !r.OK || strings.Contains(r.TextOf(), "Note (txedit)") {
		t.Fatalf("edit of a current file: %s", r.TextOf())
	}
}

// The old_string an agent copied from its read is gone from the file
// because someone changed it: Claude Code says the file was modified since
// read (it checks that first), not that the string is not there.
func TestClaudeEditStaleBeforeNotFound(t *testing.T) {
	a, b, _ := twoAgents(t, "f.txt", src(6))
	call(t, a, "claude", "Read", `{"file_path":"f.txt"}`)
	call(t, b, "claude", "Read", `{"file_path":"f.txt"}`)
	call(t, b, "claude", "Edit", `{"file_path":"f.txt","old_string":"line 3","new_string":"line three"}`)
	r := call(t, a, "claude", "Edit", `{"file_path":"f.txt","old_string":"line 3","new_string":"line 3!"}`)
	if r.OK || r.Code != plan.CodeStaleHash || !strings.Contains(r.TextOf(), changedRead) || !strings.Contains(r.TextOf(), "3\tline three") {
		t.Fatalf("edit of text another agent changed: %s", r.TextOf())
	}
	// Unread files keep today's order: the string's absence first.
	c := &Env{W: a.W.Workspace().NewSession(engine.SessionOptions{Agent: "carol"})}
	if r := call(t, c, "claude", "Edit", `{"file_path":"f.txt","old_string":"nowhere","new_string":"x"}`); r.Code != plan.CodeNotFound {
		t.Fatalf("unread file, missing string: %s", r.TextOf())
	}
}

// MultiEdit is rebased as a whole (its edits in order, computed again on
// the version read and on the current one); Write over a stale read is
// refused with the change.
func TestClaudeMultiEditAndWriteRebase(t *testing.T) {
	a, b, dir := twoAgents(t, "f.txt", src(12))
	call(t, a, "claude", "Read", `{"file_path":"f.txt"}`)
	call(t, b, "claude", "Read", `{"file_path":"f.txt"}`)
	call(t, a, "claude", "Edit", `{"file_path":"f.txt","old_string":"line 1\n","new_string":"line one\n"}`)
	r := call(t, b, "claude", "MultiEdit", `{"file_path":"f.txt","edits":[{"old_string":"line 8","new_string":"line eight"},{"old_string":"line 9","new_string":"line nine"}]}`)
	if !r.OK || !strings.HasPrefix(r.TextOf(), "Applied 2 edits to f.txt:") || !strings.Contains(r.TextOf(), "Note (txedit): your edit was applied on top of changes made since your last read by alice") {
		t.Fatalf("MultiEdit over a stale read: %s", r.TextOf())
	}
	want := strings.Replace(strings.Replace(src(12), "line 1\n", "line one\n", 1), "line 8\nline 9\n", "line eight\nline nine\n", 1)
	if got := read(t, dir, "f.txt"); got != want {
		t.Fatalf("file %q", got)
	}
	// Alice, whose read predates bob's MultiEdit, writes the whole file.
	r = call(t, a, "claude", "Write", `{"file_path":"f.txt","content":"all new\n"}`)
	if r.OK || r.Code != plan.CodeStaleHash || !strings.Contains(r.TextOf(), "+line eight\n") || !strings.Contains(r.TextOf(), "write the file again with the change in it") {
		t.Fatalf("Write over a stale read: %s", r.TextOf())
	}
	if got := read(t, dir, "f.txt"); got != want {
		t.Fatalf("the refused Write wrote: %q", got)
	}
	// A MultiEdit with nothing changed behind it writes what 1.0.96 does.
	r = call(t, b, "claude", "MultiEdit", `{"file_path":"f.txt","edits":[{"old_string":"line 2","new_string":"line two"},{"old_string":"line 3","new_string":"line three"}]}`)
	if !r.OK || strings.Contains(r.TextOf(), "Note (txedit)") || !strings.Contains(read(t, dir, "f.txt"), "line two\nline three\n") {
		t.Fatalf("MultiEdit of a current file: %s", r.TextOf())
	}
}

// The filesystem toolset's edit_file: rebased, its diff of the edits on
// the version they were applied to and the note after it.
func TestFilesystemEditRebase(t *testing.T) {
	a, b, dir := twoAgents(t, "f.txt", src(12))
	for _, e := range []*Env{a, b} {
		fsCall(t, e, "read_text_file", map[string]any{"path": "f.txt"})
	}
	r := fsCall(t, a, "edit_file", map[string]any{"path": "f.txt", "edits": []map[string]any{{"oldText": "line 2", "newText": "line two"}}})
	if !r.OK || strings.Contains(r.TextOf(), "Note (txedit)") {
		t.Fatalf("first edit: %s", r.TextOf())
	}
	r = fsCall(t, b, "edit_file", map[string]any{"path": "f.txt", "edits": []map[string]any{{"oldText": "line 10", "newText": "line ten"}}})
	if !r.OK || !strings.Contains(r.TextOf(), "@@ -6,7 +6,7 @@") || !strings.Contains(r.TextOf(), "-line 10\n+line ten\n") ||
		!strings.Contains(r.TextOf(), "```\n\nNote (txedit): your edit was applied on top of changes made since your last read by alice (transaction ") {
		t.Fatalf("rebased edit_file: %s", r.TextOf())
	}
	if got := read(t, dir, "f.txt"); got != strings.Replace(strings.Replace(src(12), "line 2\n", "line two\n", 1), "line 10\n", "line ten\n", 1) {
		t.Fatalf("file %q", got)
	}
	r = fsCall(t, a, "edit_file", map[string]any{"path": "f.txt", "edits": []map[string]any{{"oldText": "line 10", "newText": "line 10!"}}})
	if r.OK || r.Code != plan.CodeStaleHash || !strings.Contains(r.TextOf(), "10\tline ten") {
		t.Fatalf("edit_file over the change: %s", r.TextOf())
	}
}

// deepagents' edit_file, and fs_write's rebase option: a content_hash
// stays a compare-and-swap unless the request says "rebase": true.
func TestDeepAgentsAndFsWriteRebase(t *testing.T) {
	a, b, dir := twoAgents(t, "f.txt", src(12))
	call(t, a, "deepagents", "read_file", `{"path":"f.txt"}`)
	call(t, b, "deepagents", "read_file", `{"path":"f.txt"}`)
	call(t, a, "deepagents", "edit_file", `{"path":"f.txt","old_string":"line 1\n","new_string":"line one\n"}`)
	r := call(t, b, "deepagents", "edit_file", `{"path":"f.txt","old_string":"line 7","new_string":"line seven"}`)
	if !r.OK || !strings.HasPrefix(r.TextOf(), "replaced the first of 1 occurrence(s) in f.txt\n\nNote (txedit): your edit was applied on top") {
		t.Fatalf("deepagents edit_file rebased: %s", r.TextOf())
	}
	old := hash.Of([]byte(src(12))).String()
	js := `{"fileEdits":[{"path":"f.txt","content_hash":"` + old + `","edits":[{"command":"str_replace","old_str":"line 11","new_str":"line eleven"}]}]%s}`
	if r := call(t, a, "amazonq", "fs_write", fmt.Sprintf(js, "")); r.OK || r.Code != plan.CodeStaleHash {
		t.Fatalf("stale content_hash: %s", r.TextOf())
	}
	r = call(t, a, "amazonq", "fs_write", fmt.Sprintf(js, `,"rebase":true`))
	var files []struct {
		Success bool        `json:"success"`
		Delta   *plan.Delta `json:"delta"`
	}
	if err := json.Unmarshal([]byte(r.TextOf()), &files); err != nil || !r.OK || len(files) != 1 || files[0].Delta == nil || !files[0].Delta.Rebased || len(files[0].Delta.By) != 2 {
		t.Fatalf("fs_write with rebase: %v %s", err, r.TextOf())
	}
	if got := read(t, dir, "f.txt"); !strings.Contains(got, "line one\n") || !strings.Contains(got, "line seven\n") || !strings.Contains(got, "line eleven\n") {
		t.Fatalf("file %q", got)
	}
	r = call(t, b, "txedit", "fs_write", `{"path":"f.txt","command":"str_replace","old_str":"line 11","new_str":"x"}`)
	var res plan.Result
	if err := json.Unmarshal([]byte(r.TextOf()), &res); err != nil || r.OK || res.Files[0].Delta == nil || res.Files[0].Delta.Region == nil {
		t.Fatalf("txedit fs_write over the change: %v %s", err, r.TextOf())
	}
}
