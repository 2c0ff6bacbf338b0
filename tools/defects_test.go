package tools

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/plan"
)

// The dialects' defects found by using them as a model would, each with the test that would have caught
// it. The comparisons with the real programs are in conformance_test.go.

func content(r Result) string { return r.Value.(ToolResult).Content }

// Claude Code's Grep: head_limit counts output lines (context and "--"
// included), not matches, and the cut says so.
func TestClaudeGrepHeadLimitCountsLines(t *testing.T) {
	env, _ := setup(t, map[string]string{"a.txt": "foo\nx\ny\nz\nfoo\nq\n"}, nil)
	got := content(call(t, env, "claude", "Grep", `{"pattern":"foo","output_mode":"content","-C":1,"head_limit":3}`))
	if got != "a.txt:1:foo\na.txt-2-x\n--\n\n[Showing results with pagination = limit: 3]" {
		t.Errorf("head_limit 3: %q", got)
	}
	got = content(call(t, env, "claude", "Grep", `{"pattern":"foo","output_mode":"content","-C":1,"offset":3,"head_limit":0}`))
	if got != "a.txt-4-z\na.txt:5:foo\na.txt-6-q\n\n[Showing results with pagination = offset: 3]" {
		t.Errorf("offset 3: %q", got)
	}
	// Claude Code's default head_limit is 250 lines.
	env, _ = setup(t, map[string]string{"many.txt": strings.Repeat("foo\n", 300)}, nil)
	got = content(call(t, env, "claude", "Grep", `{"pattern":"foo","output_mode":"content"}`))
	if n := strings.Count(got, "many.txt:"); n != 250 || !strings.HasSuffix(got, "[Showing results with pagination = limit: 250]") {
		t.Errorf("default head_limit: %d lines, ends %q", n, got[len(got)-60:])
	}
}

// Claude Code's Grep: a multiline match prints every line with its
// path:line: prefix, and . crosses newlines (-U --multiline-dotall).
func TestClaudeGrepMultiline(t *testing.T) {
	env, _ := setup(t, map[string]string{"a.txt": "x\nstart\nmid\nend\n"}, nil)
	got := content(call(t, env, "claude", "Grep", `{"pattern":"start.*end","output_mode":"content","multiline":true}`))
	if got != "a.txt:2:start\na.txt:3:mid\na.txt:4:end" {
		t.Errorf("multiline: %q", got)
	}
}

// Claude Code's Grep: files newest first; count mode says "No matches
// found" and the totals when nothing matched.
func TestClaudeGrepNewestFirstAndEmptyCount(t *testing.T) {
	env, dir := setup(t, map[string]string{"a.txt": "foo\n", "b.txt": "foo\n", "c/c.txt": "foo\n"}, nil)
	now := time.Now()
	for name, age := range map[string]time.Duration{"a.txt": 3, "b.txt": 1, "c/c.txt": 2} {
		os.Chtimes(filepath.Join(dir, name), now.Add(-age*time.Hour), now.Add(-age*time.Hour))
	}
	if got := content(call(t, env, "claude", "Grep", `{"pattern":"foo"}`)); got != "Found 3 files\nb.txt\nc/c.txt\na.txt" {
		t.Errorf("files: %q", got)
	}
	if got := content(call(t, env, "claude", "Grep", `{"pattern":"nope","output_mode":"count"}`)); got != "No matches found\n\nFound 0 total occurrences across 0 files." {
		t.Errorf("count, no match: %q", got)
	}
	if got := content(call(t, env, "claude", "Grep", `{"pattern":"foo","output_mode":"count"}`)); got != "a.txt:1\nb.txt:1\nc/c.txt:1\n\nFound 3 total occurrences across 3 files." {
		t.Errorf("count: %q", got)
	}
	if got := content(call(t, env, "claude", "Grep", `{"pattern":"nope"}`)); got != "No files found" {
		t.Errorf("files, no match: %q", got)
	}
}

// TestGrepToolSort: the txedit and codex grep tools take sort "modified"
// (newest first, ties by path) and refuse an order they do not know with
// invalid_request before searching; claude's Grep does not offer it (it
// always lists the newest first).
func TestGrepToolSort(t *testing.T) {
	env, dir := setup(t, map[string]string{"a.txt": "foo\n", "b.txt": "foo\n", "c/c.txt": "foo\n", "d.txt": "foo\n"}, nil)
	now := time.Now()
	for name, age := range map[string]time.Duration{"a.txt": 3, "b.txt": 1, "c/c.txt": 2, "d.txt": 2} {
		os.Chtimes(filepath.Join(dir, name), now.Add(-age*time.Hour), now.Add(-age*time.Hour))
	}
	for _, ts := range []string{"txedit", "codex"} {
		r := call(t, env, ts, "grep", `{"pattern":"foo","sort":"modified"}`)
		if res, ok := r.Value.(*plan.GrepResult); !r.OK || !ok || strings.Join(res.Files, " ") != "b.txt c/c.txt d.txt a.txt" {
			t.Errorf("%s: sort modified: %+v", ts, r.Value)
		}
		r = call(t, env, ts, "grep", `{"pattern":"foo"}`)
		if res, ok := r.Value.(*plan.GrepResult); !r.OK || !ok || strings.Join(res.Files, " ") != "a.txt b.txt c/c.txt d.txt" {
			t.Errorf("%s: by path: %+v", ts, r.Value)
		}
		if r := call(t, env, ts, "grep", `{"pattern":"foo","sort":"size"}`); r.OK || r.Code != plan.CodeInvalidRequest {
			t.Errorf("%s: sort size: %+v", ts, r)
		}
	}
	ts, _ := Get("claude")
	if _, ok := ts.Tool("Grep").Schema["properties"].(map[string]any)["sort"]; ok {
		t.Error("claude's Grep offers sort")
	}
}

// Claude Code 2.1.x's Glob: rg's sense of a pattern (without "/" it
// matches names at any depth), hidden files included, oldest first,
// absolute patterns, the 100-file cap with its count.
func TestClaudeGlob(t *testing.T) {
	files := map[string]string{"top.txt": "", "sub/deep.txt": "", "sub/x.go": "", ".dot.txt": ""}
	for i := 0; i < 120; i++ {
		files[fmt.Sprintf("many/f%03d.log", i)] = ""
	}
	env, dir := setup(t, files, nil)
	for i, f := range []string{"sub/deep.txt", ".dot.txt", "top.txt"} {
		mt := time.Now().Add(time.Duration(i-10) * time.Minute)
		os.Chtimes(filepath.Join(dir, f), mt, mt)
	}
	if got := content(call(t, env, "claude", "Glob", `{"pattern":"*.txt"}`)); got != "sub/deep.txt\n.dot.txt\ntop.txt" {
		t.Errorf("*.txt, at any depth, oldest first: %q", got)
	}
	if got := content(call(t, env, "claude", "Glob", `{"pattern":"sub/*.txt"}`)); got != "sub/deep.txt" {
		t.Errorf("sub/*.txt: %q", got)
	}
	if got := content(call(t, env, "claude", "Glob", `{"pattern":"`+dir+`/sub/*.go"}`)); got != "sub/x.go" {
		t.Errorf("absolute pattern: %q", got)
	}
	if got := content(call(t, env, "claude", "Glob", `{"pattern":"*.go","path":"sub"}`)); got != "sub/x.go" {
		t.Errorf("path: %q", got)
	}
	got := content(call(t, env, "claude", "Glob", `{"pattern":"many/*.log"}`))
	if n := strings.Count(got, ".log"); n != 100 || !strings.HasSuffix(got, "\n(Showing 100 of 120 matching files; 20 more are not listed. Narrow the pattern or path to see the rest.)") {
		t.Errorf("cap: %d files: ...%q", n, got[len(got)-80:])
	}
	if got := content(call(t, env, "claude", "Glob", `{"pattern":"*.none"}`)); got != "No files found" {
		t.Errorf("none: %q", got)
	}
}

// Claude Code 1.0.96's LS: a recursive tree of paths relative to the
// workspace root, without dot-files or __pycache__, node_modules listed
// but not entered, ignore globs, cut after 40000 characters of paths with
// its note, and its closing NOTE.
func TestClaudeLS(t *testing.T) {
	env, dir := setup(t, map[string]string{"a.txt": "", "src/b.go": "", "src/z/c.go": "", "src-x.txt": "", ".git/config": "", "src/.env": "",
		"__pycache__/m.pyc": "", "src/__pycache__/n.pyc": "", "node_modules/p/i.js": ""}, nil)
	// In byte order, as Claude Code sorts: "src-x.txt" < "src/".
	want := "- " + dir + "/\n  - a.txt\n  - node_modules/\n  - src-x.txt\n  - src/\n    - b.go\n    - z/\n      - c.go\n" + lsNote
	if got := content(call(t, env, "claude", "LS", `{"path":"."}`)); got != want {
		t.Errorf("LS .:\n%s\nwant:\n%s", got, want)
	}
	if got := content(call(t, env, "claude", "LS", `{"path":"`+dir+`/src","ignore":["z"]}`)); got != "- "+dir+"/\n  - src/\n    - b.go\n"+lsNote {
		t.Errorf("LS src, ignore z:\n%s", got)
	}
	if got := content(call(t, env, "claude", "LS", `{"path":"node_modules"}`)); got != "- "+dir+"/\n  - node_modules/\n    - p/\n      - i.js\n"+lsNote {
		t.Errorf("LS node_modules:\n%s", got)
	}
	files := map[string]string{}
	long := strings.Repeat("x", 40)
	for i := 0; i < 1100; i++ {
		files[fmt.Sprintf("d%d/%s%04d", i%3, long, i)] = ""
	}
	env, _ = setup(t, files, nil)
	got := content(call(t, env, "claude", "LS", `{"path":"."}`))
	n := strings.Count(got, "\n    - x")
	if !strings.HasPrefix(got, lsTruncated) || n < 800 || n > 900 {
		t.Errorf("cap: %d files listed, starts %q", n, got[:80])
	}
}

// Claude Code 1.0.96's MultiEdit checks every edit against the file as
// it is (so a second edit of a file the first creates finds no file),
// creates a file with a single empty old_string, and answers with its
// own words.
func TestClaudeMultiEdit(t *testing.T) {
	env, dir := setup(t, map[string]string{"a.txt": "one two\n"}, nil)
	r := call(t, env, "claude", "MultiEdit", `{"file_path":"new/n.txt","edits":[{"old_string":"","new_string":"alpha beta\n"}]}`)
	if !r.OK || read(t, dir, "new/n.txt") != "alpha beta\n" || !strings.HasPrefix(content(r), "Applied 1 edit to new/n.txt:\n1. Replaced \"\" with \"alpha beta\n\"") {
		t.Errorf("create: %+v %q", r.Value, read(t, dir, "new/n.txt"))
	}
	r = call(t, env, "claude", "MultiEdit", `{"file_path":"new/m.txt","edits":[{"old_string":"","new_string":"alpha beta\n"},{"old_string":"beta","new_string":"gamma"}]}`)
	if r.OK || r.Value.(ToolResult).Error != "File does not exist." {
		t.Errorf("create and edit: %+v", r.Value)
	}
	r = call(t, env, "claude", "MultiEdit", `{"file_path":"a.txt","edits":[{"old_string":"one","new_string":"1"},{"old_string":"two","new_string":"two"}]}`)
	if r.OK || r.Code != plan.CodeInvalidRequest || r.Value.(ToolResult).Error != "No changes to make: old_string and new_string are exactly the same." || read(t, dir, "a.txt") != "one two\n" {
		t.Errorf("no-op edit: %+v", r.Value)
	}
	r = call(t, env, "claude", "MultiEdit", `{"file_path":"a.txt","edits":[{"old_string":"one","new_string":"1"},{"old_string":"three","new_string":"3"}]}`)
	if e := r.Value.(ToolResult).Error; r.OK || e != "String to replace not found in file.\nString: three" {
		t.Errorf("not found: %q", e)
	}
	r = call(t, env, "claude", "MultiEdit", `{"file_path":"a.txt","edits":[{"old_string":"one","new_string":"1 one"},{"old_string":"one","new_string":"x"}]}`)
	if e := r.Value.(ToolResult).Error; r.OK || e != "Cannot edit file: old_string is a substring of a new_string from a previous edit." || read(t, dir, "a.txt") != "one two\n" {
		t.Errorf("old_string inside an earlier new_string: %q", e)
	}
	r = call(t, env, "claude", "MultiEdit", `{"file_path":"missing.txt","edits":[{"old_string":"x","new_string":"y"}]}`)
	if e := r.Value.(ToolResult).Error; r.OK || e != "File does not exist." {
		t.Errorf("missing file: %q", e)
	}
	r = call(t, env, "claude", "MultiEdit", `{"file_path":"a.txt","edits":[{"old_string":"","new_string":"x"}]}`)
	if e := r.Value.(ToolResult).Error; r.OK || e != "Cannot create new file - file already exists." {
		t.Errorf("create over content: %q", e)
	}
}

// Claude Code 2.1.x's Read shows a long line whole, and answers an empty
// file and an offset past the end (the empty string after the final
// newline is a line) with its notices.
func TestClaudeReadLongLinesAndNotices(t *testing.T) {
	line := strings.Repeat("é", 2500) // 2 bytes each
	env, _ := setup(t, map[string]string{"u.txt": line + "\n", "e.txt": "", "s.txt": "1\n2\n"}, nil)
	got := content(call(t, env, "claude", "Read", `{"file_path":"u.txt"}`))
	if want := "1\t" + line + "\n2\t"; got != want {
		t.Errorf("long line: %d bytes, valid %v", len(got), strings.ToValidUTF8(got, "?") == got)
	}
	if got := content(call(t, env, "claude", "Read", `{"file_path":"e.txt"}`)); got != emptyFileNotice {
		t.Errorf("empty: %q", got)
	}
	if got := content(call(t, env, "claude", "Read", `{"file_path":"s.txt","offset":5}`)); got != "<system-reminder>Warning: the file exists but is shorter than the provided offset (5). The file has 3 lines.</system-reminder>" {
		t.Errorf("past the end: %q", got)
	}
}

// Errors name the dialect's own arguments: no "Image mode" for Claude's
// Read, no old_str, no "edit 0 (str_replace)".
func TestErrorsNameTheDialectsArguments(t *testing.T) {
	env, _ := setup(t, map[string]string{"a.txt": "x x\n", "b.bin": "\x00\x01"}, nil)
	for _, tc := range []struct{ toolset, tool, args string }{
		{"claude", "Read", `{"file_path":"b.bin"}`},
		{"claude", "Edit", `{"file_path":"a.txt","old_string":"nope","new_string":"y"}`},
		{"claude", "Edit", `{"file_path":"a.txt","old_string":"x","new_string":"y"}`},
		{"claude", "MultiEdit", `{"file_path":"a.txt","edits":[{"old_string":"x","new_string":"y"}]}`},
		{"deepagents", "edit_file", `{"path":"a.txt","old_string":"nope","new_string":"y"}`},
		{"deepagents", "read_file", `{"path":"a.txt","offset":7}`},
	} {
		r := call(t, env, tc.toolset, tc.tool, tc.args)
		msg := r.TextOf()
		if r.OK {
			t.Errorf("%s %s succeeded: %s", tc.tool, tc.args, msg)
		}
		for _, foreign := range []string{"Image mode", "old_str ", "old_str:", "new_str", "start_line", "(str_replace)", "edit 0"} {
			if strings.Contains(msg, foreign) {
				t.Errorf("%s %s: the error names %q: %s", tc.tool, tc.args, foreign, msg)
			}
		}
	}
	if got := call(t, env, "deepagents", "read_file", `{"path":"a.txt","offset":7}`).Value; got != "Error: line_out_of_range: Line offset 7 exceeds file length (1 lines)" {
		t.Errorf("read_file past the end: %v", got)
	}
}

// A PNG read returns an image — Result.Images, which MCP sends as image
// content — in Claude's Read and in fs_read's Image mode, and the text an
// agent reads does not carry the base64.
func TestImagesAreImages(t *testing.T) {
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDRrest"
	b64 := base64.StdEncoding.EncodeToString([]byte(png))
	env, _ := setup(t, map[string]string{"p.png": png}, nil)
	for _, tc := range []struct{ toolset, tool, args string }{
		{"claude", "Read", `{"file_path":"p.png"}`},
		{"amazonq", "fs_read", `{"mode":"Image","image_paths":["p.png"]}`},
		{"txedit", "fs_read", `{"mode":"Image","image_paths":["p.png"]}`},
	} {
		r := call(t, env, tc.toolset, tc.tool, tc.args)
		if !r.OK || len(r.Images) != 1 || r.Images[0].Data != b64 || r.Images[0].MediaType != "image/png" {
			t.Errorf("%s %s: images %+v", tc.toolset, tc.tool, r.Images)
		}
		if strings.Contains(r.TextOf(), b64) {
			t.Errorf("%s %s: the text carries the base64", tc.toolset, tc.tool)
		}
		if !strings.Contains(jsonOf(r.Value), b64) {
			t.Errorf("%s %s: the value (txedit tool's output) lost the image", tc.toolset, tc.tool)
		}
	}
}

// Amazon Q, atomic false: a file whose edits all applied was written and
// is reported so, beside one that failed.
func TestAmazonQNonAtomicReportsWrittenFiles(t *testing.T) {
	env, dir := setup(t, map[string]string{"a.txt": "one\n", "b.txt": "two\n"}, nil)
	r := call(t, env, "amazonq", "fs_write", `{"command":"str_replace","atomic":false,"fileEdits":[{"path":"a.txt","edits":[{"command":"str_replace","old_str":"one","new_str":"1"}]},{"path":"b.txt","edits":[{"command":"str_replace","old_str":"nope","new_str":"x"}]}]}`)
	arr := r.Value.([]map[string]any)
	if read(t, dir, "a.txt") != "1\n" || arr[0]["success"] != true || arr[0]["edits_applied"] != 1 || arr[1]["success"] != false {
		t.Errorf("atomic false: %s (a.txt = %q)", jsonOf(r.Value), read(t, dir, "a.txt"))
	}
	// Atomic (the default): nothing written, nothing reported written.
	r = call(t, env, "amazonq", "fs_write", `{"command":"str_replace","fileEdits":[{"path":"a.txt","edits":[{"command":"str_replace","old_str":"1","new_str":"one"}]},{"path":"b.txt","edits":[{"command":"str_replace","old_str":"nope","new_str":"x"}]}]}`)
	arr = r.Value.([]map[string]any)
	if read(t, dir, "a.txt") != "1\n" || arr[0]["success"] != false || arr[0]["edits_applied"] != 0 {
		t.Errorf("atomic: %s", jsonOf(r.Value))
	}
}

// Amazon Q: every successful read carries content, even when it is empty.
func TestAmazonQContentOnEverySuccess(t *testing.T) {
	env, _ := setup(t, map[string]string{"empty.txt": "", "d/.keep": "", "a.txt": "abc\n"}, nil)
	for _, args := range []string{
		`{"mode":"Line","path":"empty.txt"}`,
		`{"mode":"Search","path":"a.txt","pattern":"zzz"}`,
		`{"mode":"Line","paths":["empty.txt","a.txt"]}`,
	} {
		r := call(t, env, "amazonq", "fs_read", args)
		if !r.OK || !strings.Contains(jsonOf(r.Value), `"content":`) {
			t.Errorf("fs_read %s: %s", args, jsonOf(r.Value))
		}
	}
}

// deepagents' glob (synaptic's): the pattern is matched against the path
// below path, and the paths are relative to path.
func TestDeepAgentsGlob(t *testing.T) {
	env, _ := setup(t, map[string]string{"src/a.rs": "", "src/sub/b.rs": "", "c.rs": ""}, nil)
	for args, want := range map[string]string{
		`{"pattern":"*.rs"}`:                 "c.rs",
		`{"pattern":"**/*.rs"}`:              "c.rs\nsrc/a.rs\nsrc/sub/b.rs",
		`{"pattern":"*.rs","path":"src"}`:    "a.rs",
		`{"pattern":"**/*.rs","path":"src"}`: "a.rs\nsub/b.rs",
	} {
		if got := call(t, env, "deepagents", "glob", args).Value; got != want {
			t.Errorf("glob %s: %q, want %q", args, got, want)
		}
	}
}

// write_file of deepagents and of the ADK writes the bytes as given: LF
// content over a CRLF file stays LF (synaptic's and Python's writes).
func TestWriteFileBytesAsGiven(t *testing.T) {
	env, dir := setup(t, map[string]string{"crlf.txt": "a\r\nb\r\n"}, nil)
	if r := call(t, env, "deepagents", "write_file", `{"path":"crlf.txt","content":"x\ny\n"}`); !r.OK || read(t, dir, "crlf.txt") != "x\ny\n" {
		t.Errorf("deepagents: %v %q", r.Value, read(t, dir, "crlf.txt"))
	}
	os.WriteFile(filepath.Join(dir, "crlf.txt"), []byte("a\r\nb\r\n"), 0o644)
	if r := call(t, env, "adk", "write_file", `{"file_path":"crlf.txt","text":"x\ny\n"}`); !r.OK || read(t, dir, "crlf.txt") != "x\ny\n" {
		t.Errorf("adk: %v %q", r.Value, read(t, dir, "crlf.txt"))
	}
}

// The ADK's LangChain tools: copy and move into a directory put the file
// inside it (shutil), file_search sees dot-files, and the errors are
// LangChain's own strings.
func TestADKLangChainSemantics(t *testing.T) {
	env, dir := setup(t, map[string]string{"a.txt": "a\r\nb\n", "dest/.keep": "", ".hidden/h.py": "", "x.py": "", "bad.txt": "ok \xe4\xb8x"}, nil)
	if r := call(t, env, "adk", "copy_file", `{"source_path":"a.txt","destination_path":"dest"}`); r.Value != "File copied successfully from a.txt to dest." || read(t, dir, "dest/a.txt") != "a\r\nb\n" {
		t.Errorf("copy into a directory: %v", r.Value)
	}
	if r := call(t, env, "adk", "move_file", `{"source_path":"x.py","destination_path":"dest/"}`); r.Value != "File moved successfully from x.py to dest/." || read(t, dir, "dest/x.py") != "" || read(t, dir, "x.py") != "<missing>" {
		t.Errorf("move into a directory: %v", r.Value)
	}
	if r := call(t, env, "adk", "file_search", `{"pattern":"*.py"}`); r.Value != ".hidden/h.py\ndest/x.py" {
		t.Errorf("file_search: %v", r.Value)
	}
	if r := call(t, env, "adk", "read_file", `{"file_path":"a.txt"}`); r.Value != "a\nb\n" {
		t.Errorf("read_file reads text as Python does (universal newlines): %q", r.Value)
	}
	abs := func(p string) string { return filepath.Join(dir, p) }
	for _, tc := range []struct{ tool, args, want string }{
		{"read_file", `{"file_path":"nope.txt"}`, "Error: no such file or directory: nope.txt"},
		{"read_file", `{"file_path":"dest"}`, "Error: [Errno 21] Is a directory: '" + abs("dest") + "'"},
		{"read_file", `{"file_path":"bad.txt"}`, "Error: 'utf-8' codec can't decode bytes in position 3-4: invalid continuation byte"},
		{"read_file", `{"file_path":"/etc/passwd"}`, "Error: Access denied to file_path: /etc/passwd. Permission granted exclusively to the current working directory"},
		{"file_delete", `{"file_path":"nope.txt"}`, "Error: no such file or directory: nope.txt"},
		{"move_file", `{"source_path":"nope.txt","destination_path":"b.txt"}`, "Error: no such file or directory nope.txt"},
		{"copy_file", `{"source_path":"nope.txt","destination_path":"b.txt"}`, "Error: [Errno 2] No such file or directory: '" + abs("nope.txt") + "'"},
		{"list_directory", `{"dir_path":"nope"}`, "Error: [Errno 2] No such file or directory: '" + abs("nope") + "'"},
		{"list_directory", `{"dir_path":"a.txt"}`, "Error: [Errno 20] Not a directory: '" + abs("a.txt") + "'"},
		{"file_search", `{"dir_path":"nope","pattern":"*"}`, "No files found for pattern * in directory nope"},
	} {
		if r := call(t, env, "adk", tc.tool, tc.args); r.Value != tc.want {
			t.Errorf("%s %s:\n%v\nwant\n%s", tc.tool, tc.args, r.Value, tc.want)
		}
	}
}

// pyDecodeError says what Python's UTF-8 decoder says.
func TestPyDecodeError(t *testing.T) {
	for in, want := range map[string]string{
		"ok":            "",
		"\x89PNG":       "'utf-8' codec can't decode byte 0x89 in position 0: invalid start byte",
		"ab\xe4x":       "'utf-8' codec can't decode byte 0xe4 in position 2: invalid continuation byte",
		"ab\xe4\xb8":    "'utf-8' codec can't decode bytes in position 2-3: unexpected end of data",
		"\xed\xa0\x80":  "'utf-8' codec can't decode byte 0xed in position 0: invalid continuation byte",
		"é\xff":         "'utf-8' codec can't decode byte 0xff in position 2: invalid start byte",
		"\xf0\x9f\x98x": "'utf-8' codec can't decode bytes in position 0-2: invalid continuation byte",
	} {
		if got := pyDecodeError(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

// TestUndoToolHonoursDenyFlags (docs/testing.md, the second red-team audit): the txedit toolset's undo tool
// (as MCP serves it) went around --deny-write and --deny-read: its dry run
// showed a denied file's diff and the real one rewrote the file.
func TestUndoToolHonoursDenyFlags(t *testing.T) {
	env, dir := setup(t, map[string]string{"secret.env": "KEY=1\n"}, nil)
	if r := call(t, env, "txedit", "fs_write", `{"command":"str_replace","path":"secret.env","old_str":"KEY=1","new_str":"KEY=2"}`); !r.OK {
		t.Fatalf("write: %+v", r.Value)
	}
	for _, opts := range []*engine.Options{{DenyWrite: []string{"*.env"}}, {DenyRead: []string{"secret.*"}}} {
		denied, _ := setupAt(t, dir, opts)
		for _, args := range []string{`{"dry_run":true}`, `{}`} {
			r := call(t, denied, "txedit", "undo", args)
			if r.OK || r.Code != plan.CodeDenied || strings.Contains(jsonOf(r.Value), "KEY=") {
				t.Errorf("%+v undo %s: %s", opts, args, jsonOf(r.Value))
			}
		}
	}
	if got := read(t, dir, "secret.env"); got != "KEY=2\n" {
		t.Errorf("secret.env undone under a deny flag: %q", got)
	}
}

// Amazon Q's fs_read Search answers the RFC's {path, success, content}:
// each line once, however the contexts of nearby matches overlap (no
// matches list repeating them).
func TestAmazonQSearchSendsEachLineOnce(t *testing.T) {
	env, _ := setup(t, map[string]string{"a.txt": "one\nfoo two\nthree\nfoo four\nfive\n"}, nil)
	r := call(t, env, "amazonq", "fs_read", `{"mode":"Search","path":"a.txt","pattern":"foo","context_lines":2}`)
	text := r.TextOf()
	for _, l := range []string{"one", "three", "five"} {
		if n := strings.Count(text, l); n != 1 {
			t.Errorf("%q is sent %d times: %s", l, n, text)
		}
	}
	if !r.OK || !strings.Contains(text, `Line 3: three`) {
		t.Errorf("Search: %s", text)
	}
}

// deepagents' read_file refuses a binary file without pointing at an
// Image mode it does not have, and the refusal counts as having seen the
// file: it can then be replaced.
func TestDeepAgentsBinaryFile(t *testing.T) {
	env, dir := setup(t, map[string]string{"b.bin": "a\x00b"}, &engine.Options{})
	env.W = env.W.Workspace().NewSession(engine.SessionOptions{Agent: "t"})
	r := call(t, env, "deepagents", "read_file", `{"path":"b.bin"}`)
	if r.OK || r.Code != plan.CodeBinaryFile || strings.Contains(r.TextOf(), "Image") {
		t.Errorf("read_file of a binary file: %s", r.TextOf())
	}
	if r := call(t, env, "deepagents", "write_file", `{"path":"b.bin","content":"text\n"}`); !r.OK || read(t, dir, "b.bin") != "text\n" {
		t.Errorf("write_file after the refused read: %s", r.TextOf())
	}
	for _, tl := range []string{"write_file"} {
		ts, _ := Get("deepagents")
		if d := ts.Tool(tl).Description; strings.Contains(d, "keeps its line endings") {
			t.Errorf("%s claims line endings are kept: %s", tl, d)
		}
	}
}
