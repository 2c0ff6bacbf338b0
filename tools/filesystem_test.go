package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/plan"
)

// The answers of the filesystem toolset against the official server are
// tested by tools/mcpserver's TestFilesystemGoldens; these tests cover
// what the goldens cannot: undo of every write, the read-before-write
// rule against another writer, and the pieces that imitate JavaScript
// libraries, on more inputs (expected values recorded from Node 20,
// minimatch 10 and ICU as the official server runs them).

// fsEnv is a filesystem toolset environment on dir, with a session that
// keeps the read-before-write rule.
func fsEnv(t *testing.T, dir string) *Env {
	t.Helper()
	w, err := engine.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return &Env{W: w.NewSession(engine.SessionOptions{Agent: "test"}), Mode: ModeAcceptEdits}
}

func fsCall(t *testing.T, env *Env, name string, args any) Result {
	t.Helper()
	ts, err := Get("filesystem")
	if err != nil {
		t.Fatal(err)
	}
	tool := ts.Tool(name)
	if tool == nil {
		t.Fatalf("no tool %s", name)
	}
	data, _ := json.Marshal(args)
	return Call(context.Background(), env, tool, data)
}

// snapshot lists every file (with its bytes) and directory under dir,
// the journal left out.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		rel, _ := filepath.Rel(dir, p)
		if d.Name() == ".txedit" {
			return filepath.SkipDir
		}
		if d.IsDir() {
			out = append(out, rel+"/")
		} else {
			data, _ := os.ReadFile(p)
			fi, _ := os.Lstat(p)
			out = append(out, fmt.Sprintf("%s %v %q", rel, fi.Mode().Perm(), data))
		}
		return nil
	})
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// TestFilesystemEveryWriteUndoes: each write tool's change is one
// transaction, and the undo tool takes them back one by one, to the tree
// as it was before each (directories and modes included); redo works too.
func TestFilesystemEveryWriteUndoes(t *testing.T) {
	dir := t.TempDir()
	writeFile := func(p, s string) {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeFile("a.txt", "one\r\ntwo\r\n")
	writeFile("tree/x.txt", "x\n")
	writeFile("tree/deep/y.txt", "y\n")
	os.MkdirAll(filepath.Join(dir, "tree/empty"), 0o700)
	env := fsEnv(t, dir)
	if r := fsCall(t, env, "read_text_file", map[string]any{"path": "a.txt"}); !r.OK {
		t.Fatal(r.TextOf())
	}
	steps := []struct {
		tool string
		args map[string]any
	}{
		{"write_file", map[string]any{"path": "new.txt", "content": "new\n"}},
		{"edit_file", map[string]any{"path": "a.txt", "edits": []map[string]any{{"oldText": "two", "newText": "2"}}}},
		{"write_file", map[string]any{"path": "a.txt", "content": "whole\n"}},
		{"create_directory", map[string]any{"path": "made/deeper"}},
		{"move_file", map[string]any{"source": "tree", "destination": "made/tree"}},
		{"move_file", map[string]any{"source": "new.txt", "destination": "made/new.txt"}},
	}
	var before []string
	for _, s := range steps {
		before = append(before, snapshot(t, dir))
		if r := fsCall(t, env, s.tool, s.args); !r.OK {
			t.Fatalf("%s %v: %s", s.tool, s.args, r.TextOf())
		}
	}
	after := snapshot(t, dir)
	if !strings.Contains(after, `made/deeper/`) || !strings.Contains(after, `made/tree/empty/`) || !strings.Contains(after, `a.txt -rw-r--r-- "whole\r\n"`) {
		t.Fatalf("after the writes:\n%s", after)
	}
	for i := len(steps) - 1; i >= 0; i-- {
		if r := fsCall(t, env, "undo", map[string]any{}); !r.OK {
			t.Fatalf("undo of %s: %s", steps[i].tool, r.TextOf())
		}
		if got := snapshot(t, dir); got != before[i] {
			t.Fatalf("undo of %s %v left\n%s\nwant\n%s", steps[i].tool, steps[i].args, got, before[i])
		}
	}
	r := fsCall(t, env, "history", map[string]any{"limit": 50})
	if !r.OK || strings.Count(r.TextOf(), `"id"`) != 2*len(steps) {
		t.Fatalf("history: %s", r.TextOf())
	}
}

// TestFilesystemReadBeforeWrite: a write of a file the session has not
// read is refused; one read, then changed by another writer, is refused
// as stale; a dry run needs no read. Nothing refused is written.
func TestFilesystemReadBeforeWrite(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte("mine\n"), 0o644)
	env := fsEnv(t, dir)
	edit := map[string]any{"path": "f.txt", "edits": []map[string]any{{"oldText": "mine", "newText": "ours"}}}
	for _, tool := range []string{"write_file", "edit_file"} {
		args := map[string]any{"path": "f.txt", "content": "blind\n"}
		if tool == "edit_file" {
			args = edit
		}
		r := fsCall(t, env, tool, args)
		if r.OK || r.Code != plan.CodeNotRead || !strings.Contains(r.TextOf(), "read it first (read_text_file") {
			t.Errorf("%s unread: %v %s", tool, r.Code, r.TextOf())
		}
	}
	dry := map[string]any{"path": "f.txt", "edits": edit["edits"], "dryRun": true}
	if r := fsCall(t, env, "edit_file", dry); !r.OK || !strings.Contains(r.TextOf(), "+ours") {
		t.Errorf("dry run without a read: %s", r.TextOf())
	}
	for _, tool := range []string{"write_file", "edit_file"} {
		os.WriteFile(filepath.Join(dir, "f.txt"), []byte("mine\n"), 0o644)
		fsCall(t, env, "read_multiple_files", map[string]any{"paths": []string{"f.txt"}})
		os.WriteFile(filepath.Join(dir, "f.txt"), []byte("theirs\n"), 0o644)
		args := map[string]any{"path": "f.txt", "content": "clobber\n"}
		if tool == "edit_file" {
			args = map[string]any{"path": "f.txt", "edits": []map[string]any{{"oldText": "theirs", "newText": "x"}}}
		}
		// Refused, with what changed and the line as it is now (the
		// session remembers what it read: docs/design.md, "Concurrency").
		r := fsCall(t, env, tool, args)
		if r.OK || r.Code != plan.CodeStaleHash || !strings.Contains(r.TextOf(), "-mine\n+theirs\n") || !strings.Contains(r.TextOf(), "Nothing was written") {
			t.Errorf("%s after another writer: %v %s", tool, r.Code, r.TextOf())
		}
		if tool == "edit_file" && !strings.Contains(r.TextOf(), "Lines 1-1 now read:\n1\ttheirs\n") {
			t.Errorf("%s after another writer: no region: %s", tool, r.TextOf())
		}
		if data, _ := os.ReadFile(filepath.Join(dir, "f.txt")); string(data) != "theirs\n" {
			t.Fatalf("the other writer's save was overwritten: %q", data)
		}
	}
}

// TestFilesystemEditMatching: edit_file's matching ladder: exact text
// once, whitespace-tolerant lines (reported, indentation kept), Unicode
// punctuation, ambiguity refused, all edits or none.
func TestFilesystemEditMatching(t *testing.T) {
	cases := []struct {
		name, content string
		edits         []fsEditArg
		want          string // the new content, or the error's start
		wantErr       bool
		note          string
	}{
		{"exact", "a\nb\nc\n", []fsEditArg{{"b", "B"}}, "a\nB\nc\n", false, ""},
		{"sequential", "x = 1\n", []fsEditArg{{"x = 1", "x = 2"}, {"x = 2", "x = 3"}}, "x = 3\n", false, ""},
		{"indent kept", "def f():\n    if x:\n        go()\n", []fsEditArg{{"if x:\n    go()", "if y:\n    stop()\n    go()"}},
			"def f():\n    if y:\n        stop()\n        go()\n", false, "leading and trailing whitespace"},
		{"two spaces for four: the file's indentation", "func f(a, b int) int {\n    return a + b\n}\n",
			[]fsEditArg{{"func f(a, b int) int {\n  return a + b\n}", "func f(a, b int) int {\n  return b + a\n}"}},
			"func f(a, b int) int {\n    return b + a\n}\n", false, "its newText was written at the file's indentation"},
		{"tabs for spaces, a deeper added line", "func f() {\n\tif x {\n\t\treturn\n\t}\n}\n",
			[]fsEditArg{{"    if x {\n        return\n    }", "    if x {\n        if y {\n            panic(1)\n        }\n        return\n    }"}},
			"func f() {\n\tif x {\n\t\tif y {\n\t\t\tpanic(1)\n\t\t}\n\t\treturn\n\t}\n}\n", false, "leading and trailing whitespace"},
		{"trailing spaces", "a  \nb\n", []fsEditArg{{"a\nb", "A\nB"}}, "A\nB\n", false, "trailing whitespace"},
		{"unicode dash", "say – hi\n", []fsEditArg{{"say - hi", "say hello"}}, "say hello\n", false, "Unicode punctuation"},
		{"ambiguous exact", "x\ny\nx\n", []fsEditArg{{"x", "z"}}, "[ambiguous] edit 1: its oldText occurs 2 times in f (at lines 1, 3)", true, ""},
		{"ambiguous loose", "  x\n\tx\n", []fsEditArg{{"x\n", "z\n"}}, "[ambiguous]", true, ""},
		{"all or none", "a\nb\n", []fsEditArg{{"a", "A"}, {"missing", "M"}}, "Could not find exact match for edit:\nmissing", true, ""},
		{"empty oldText", "body\n", []fsEditArg{{"", "head\n"}}, "head\nbody\n", false, ""},
	}
	for _, c := range cases {
		got, notes, err := applyFsEdits("f", c.content, c.edits)
		switch {
		case c.wantErr && (err == nil || !strings.HasPrefix(err.Error(), c.want)):
			t.Errorf("%s: %q %v, want error %q", c.name, got, err, c.want)
		case !c.wantErr && (err != nil || got != c.want):
			t.Errorf("%s: %q %v, want %q", c.name, got, err, c.want)
		case c.note != "" && (len(notes) != 1 || !strings.Contains(notes[0], c.note)):
			t.Errorf("%s: notes %q, want one saying %q", c.name, notes, c.note)
		case c.note == "" && len(notes) > 0:
			t.Errorf("%s: notes %q for an exact match", c.name, notes)
		}
	}
}

// TestMinimatch: minimatch(path, pattern, {dot: true}) answers, recorded
// from minimatch 10 under Node.
func TestMinimatch(t *testing.T) {
	cases := []struct {
		path, pattern string
		want          bool
	}{
		{"a", "a/**", false}, {"sub", "**/sub/**", false}, {".hidden.txt", "*.txt", true}, {"sub/deep", "sub/deep/**", false},
		{"x/a.txt", "*.txt", false}, {"a.txt", "**/*.txt", true}, {"a/b/c", "**/b", false}, {"a/b", "**/b", true}, {"b", "**/b", true},
		{"a.md", "*.{md,txt}", true}, {"a", "!b", true}, {"ab", "[!a]b", false}, {"bb", "[!a]b", true}, {"x", "{x}", false},
		{"a1", "a{1..3}", true}, {"a.b", "a?b", true}, {"A", "a", false}, {"a/.git/x", "**/x", true}, {"n", "**", true}, {"n/m", "**", true},
		{"foo.log", "**/*.log", true}, {"src/util/u.log", "**/*.log", true},
	}
	for _, c := range cases {
		if got := minimatch(c.path, c.pattern); got != c.want {
			t.Errorf("minimatch(%q, %q) = %v, want %v", c.path, c.pattern, got, c.want)
		}
	}
}

// TestLocaleCompare: names sorted as Node's localeCompare sorts them.
func TestLocaleCompare(t *testing.T) {
	want := []string{"_under.txt", "-x", ".x", "#x", "~x", "10.txt", "9.txt", "a", "A", "Ä", "a b", "a_b", "a-very-long.txt", "a.txt", "ab", "aB", "b.txt", "B.txt", "e", "é", "z", "Zeta.md"}
	got := append([]string(nil), want...)
	sort.Slice(got, func(i, j int) bool { return got[i] > got[j] }) // scrambled
	sort.SliceStable(got, func(i, j int) bool { return localeCompare(got[i], got[j]) < 0 })
	if strings.Join(got, " | ") != strings.Join(want, " | ") {
		t.Errorf("sorted\n %s\nwant\n %s", strings.Join(got, " | "), strings.Join(want, " | "))
	}
}

// TestFormatSize: the official sizes, toFixed's rounding of exact halves
// included (recorded from Node).
func TestFormatSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1: "1 B", 1023: "1023 B", 1024: "1.00 KB", 1152: "1.13 KB", 1331: "1.30 KB",
		1536: "1.50 KB", 10240: "10.00 KB", 1048575: "1024.00 KB", 1048576: "1.00 MB", 1059061: "1.01 MB", 5368709120: "5.00 GB",
		3298534883328: "3.00 TB", 2251799813685248: "2048.00 TB"} {
		if got := formatSize(n); got != want {
			t.Errorf("formatSize(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestDecodeUTF8: bytes that are not UTF-8 become U+FFFD per maximal
// ill-formed subsequence, as Node's decoder does.
func TestDecodeUTF8(t *testing.T) {
	for in, want := range map[string]string{
		"caf\xc3\xa9 \xff\xfe ok \xe2\x82\n": "café \uFFFD\uFFFD ok \uFFFD\n",
		"\xf0\x9f\x98":                       "\uFFFD",
		"\xed\xa0\x80":                       "\uFFFD\uFFFD\uFFFD",
		"\xc0\xaf":                           "\uFFFD\uFFFD",
		"\ufeffbom":                          "\ufeffbom",
	} {
		if got := decodeUTF8([]byte(in)); got != want {
			t.Errorf("decodeUTF8(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestFsReadTextAsText: the txedit toolset's fs_read gives the agent a
// file's text as it is (not JSON with the text escaped inside), its
// hashes in the structured content; a batch reports a file it cannot read
// in its place, and fails only when it can read none.
func TestFsReadTextAsText(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n\nvar s = \"q\\t\"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.txt"), []byte("no newline"), 0o644)
	env := fsEnv(t, dir)
	ts, _ := Get("txedit")
	read := func(args string) Result {
		return Call(context.Background(), env, ts.Tool("fs_read"), json.RawMessage(args))
	}

	r := read(`{"mode":"Line","path":"a.go"}`)
	meta, _ := r.Structured.(map[string]any)
	if !r.OK || r.TextOf() != "package a\n\nvar s = \"q\\t\"\n" || meta["content_hash"] == nil || meta["content"] != nil {
		t.Fatalf("single read: %v %q structured %v", r.OK, r.TextOf(), r.Structured)
	}
	if v := jsonOf(r.Value); !strings.Contains(v, `"content":"package a`) {
		t.Errorf("txedit tool's value lost the content: %s", v)
	}
	r = read(`{"mode":"Line","paths":["a.go","missing.txt","b.txt"]}`)
	want := "==> a.go <==\npackage a\n\nvar s = \"q\\t\"\n\n==> missing.txt <==\n[file_not_found] missing.txt: no such file\n\n==> b.txt <==\nno newline\n"
	if !r.OK || r.Code != "" || r.TextOf() != want {
		t.Fatalf("batch: %v %s %q\nwant %q", r.OK, r.Code, r.TextOf(), want)
	}
	if res, _ := r.Structured.(map[string]any)["results"].([]any); len(res) != 3 {
		t.Errorf("batch structured: %v", r.Structured)
	}
	if r = read(`{"mode":"Line","paths":["x","y"]}`); r.OK || r.Code != plan.CodeFileNotFound {
		t.Errorf("a batch of missing files: %v %s", r.OK, r.Code)
	}
	if r = read(`{"mode":"Directory","path":".","depth":1,"exclude":["*.go"]}`); !r.OK || strings.Contains(r.TextOf(), "a.go") || !strings.Contains(r.TextOf(), "b.txt") {
		t.Errorf("Directory with exclude: %q", r.TextOf())
	}
}

// TestGlobExclude: glob leaves out what exclude names, and does not enter
// an excluded directory.
func TestGlobExclude(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"src/a.js", "src/a.min.js", "node_modules/x/i.js", "dist/b.js", "c.js"} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(dir, p), []byte("x\n"), 0o644)
	}
	env := fsEnv(t, dir)
	ts, _ := Get("txedit")
	r := Call(context.Background(), env, ts.Tool("glob"), json.RawMessage(`{"pattern":"**/*.js","exclude":["node_modules","*.min.js","dist/**"]}`))
	if got := jsonOf(r.Value); !r.OK || got != `{"success":true,"files":["c.js","src/a.js"]}` {
		t.Errorf("glob with exclude: %s", got)
	}
	r = Call(context.Background(), env, ts.Tool("glob"), json.RawMessage(`{"pattern":"**/*.js","exclude":["["]}`))
	if r.OK || r.Code != plan.CodeInvalidRequest {
		t.Errorf("a bad exclude: %v %s", r.OK, r.Code)
	}
}

// TestFsReadMedia: Media mode returns images and audio as such, any other
// file as an embedded resource, and a file it cannot read in the
// structured results.
func TestFsReadMedia(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "p.png"), []byte("\x89PNG\r\n\x1a\nrest"), 0o644)
	os.WriteFile(filepath.Join(dir, "noext"), []byte("\x89PNG\r\n\x1a\nrest"), 0o644)
	os.WriteFile(filepath.Join(dir, "s.mp3"), []byte("ID3\x03"), 0o644)
	os.WriteFile(filepath.Join(dir, "d.bin"), []byte{0, 1, 2}, 0o644)
	env := fsEnv(t, dir)
	ts, _ := Get("txedit")
	r := Call(context.Background(), env, ts.Tool("fs_read"), json.RawMessage(`{"mode":"Media","paths":["p.png","noext","s.mp3","d.bin","gone"]}`))
	var kinds []string
	for _, m := range r.Media {
		kinds = append(kinds, m.Kind+" "+m.MimeType)
	}
	if !r.OK || strings.Join(kinds, ", ") != "image image/png, image image/png, audio audio/mpeg, resource application/octet-stream" ||
		!strings.HasPrefix(r.Media[3].URI, "file://") || !strings.Contains(jsonOf(r.Value), `"code":"file_not_found"`) {
		t.Errorf("Media: %v %v %s", r.OK, kinds, jsonOf(r.Value))
	}
}
