package apply

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/txedit/txedit/hash"
	"github.com/txedit/txedit/plan"
)

// compile builds the FileOps of one file from a JSON edit list.
func compile(t *testing.T, editsJSON string) *plan.FileOps {
	t.Helper()
	var edits []plan.Edit
	if err := json.Unmarshal([]byte(editsJSON), &edits); err != nil {
		t.Fatalf("bad test edits: %v", err)
	}
	p, err := plan.Compile(&plan.Request{FileEdits: []plan.FileEdit{{Path: "f", Edits: edits}}})
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	return p.Files[0]
}

func TestEdit(t *testing.T) {
	tests := []struct {
		name    string
		in      string // "<absent>" for no file
		edits   string
		want    string
		codes   []plan.Code // failed edits' codes, in order
		applied int
	}{
		{name: "str_replace unique", in: "a\nb\nc\n", edits: `[{"command":"str_replace","old_str":"b","new_str":"B"}]`, want: "a\nB\nc\n", applied: 1},
		{name: "str_replace ambiguous", in: "x\nx\n", edits: `[{"command":"str_replace","old_str":"x","new_str":"y"}]`, want: "x\nx\n", codes: []plan.Code{plan.CodeAmbiguous}},
		{name: "str_replace replace_all", in: "x\nx\n", edits: `[{"command":"str_replace","old_str":"x","new_str":"y","replace_all":true}]`, want: "y\ny\n", applied: 1},
		{name: "str_replace not found", in: "a\n", edits: `[{"command":"str_replace","old_str":"zzz","new_str":"y"}]`, want: "a\n", codes: []plan.Code{plan.CodeNotFound}},
		{name: "str_replace chain", in: "a\n", edits: `[{"command":"str_replace","old_str":"a","new_str":"b"},{"command":"str_replace","old_str":"b","new_str":"c"}]`, want: "c\n", applied: 2},
		{name: "str_replace dollar kept literal", in: "a\n", edits: `[{"command":"str_replace","old_str":"a","new_str":"$1 ${x} \\1 &"}]`, want: "$1 ${x} \\1 &\n", applied: 1},
		{name: "crlf file: LF in old and new means CRLF", in: "one\r\ntwo\r\nthree\r\n", edits: `[{"command":"str_replace","old_str":"one\ntwo","new_str":"1\n2\n2b"}]`, want: "1\r\n2\r\n2b\r\nthree\r\n", applied: 1},
		{name: "crlf file: insert and append whole lines", in: "a\r\nb\r\n", edits: `[{"command":"insert","insert_line":1,"new_str":"x"},{"command":"append","new_str":"z\nw"}]`, want: "a\r\nx\r\nb\r\nz\r\nw\r\n", applied: 2},
		{name: "mixed file: raw LF match still found", in: "a\r\nb\r\nc\nd\r\ne\r\n", edits: `[{"command":"str_replace","old_str":"c\nd","new_str":"C\nD"}]`, want: "a\r\nb\r\nC\nD\r\ne\r\n", applied: 1},
		{name: "bom kept on replace of line 1", in: "\ufeffhead\nbody\n", edits: `[{"command":"replace_lines","start_line":1,"end_line":1,"new_str":"HEAD"}]`, want: "\ufeffHEAD\nbody\n", applied: 1},
		{name: "no final newline: str_replace keeps it missing", in: "a\nb", edits: `[{"command":"str_replace","old_str":"b","new_str":"c"}]`, want: "a\nc", applied: 1},
		{name: "no final newline: replace last line keeps it missing", in: "a\nb", edits: `[{"command":"replace_lines","start_line":2,"end_line":2,"new_str":"c\n"}]`, want: "a\nc", applied: 1},
		{name: "no final newline: append adds lines after it", in: "a\nb", edits: `[{"command":"append","new_str":"c"}]`, want: "a\nb\nc\n", applied: 1},
		{name: "no final newline: insert after last line", in: "a\nb", edits: `[{"command":"insert","insert_line":2,"new_str":"c"}]`, want: "a\nb\nc\n", applied: 1},
		{name: "no final newline: replace last then insert after it", in: "a\nb", edits: `[{"command":"replace_lines","start_line":2,"end_line":2,"new_str":"B"},{"command":"insert","insert_line":2,"new_str":"c"}]`, want: "a\nB\nc\n", applied: 2},
		{name: "write keeps the exact bytes over a CRLF file", in: "a\r\nb\r\n", edits: `[{"command":"write","file_text":"x\ny\n"}]`, want: "x\ny\n", applied: 1},
		{name: "create converts to the file's CRLF", in: "a\r\nb\r\n", edits: `[{"command":"create","file_text":"x\ny\n"}]`, want: "x\r\ny\r\n", applied: 1},
		{name: "write drops a BOM it is not given", in: "\ufeffa\n", edits: `[{"command":"write","file_text":"b\n"}]`, want: "b\n", applied: 1},
		{name: "write creates", in: "<absent>", edits: `[{"command":"write","file_text":"new"}]`, want: "new", applied: 1},
		{name: "append_text adds exact bytes, no line break", in: "a\r\nb", edits: `[{"command":"append_text","new_str":"c\nd"}]`, want: "a\r\nbc\nd", applied: 1},
		{name: "append_text creates a missing file", in: "<absent>", edits: `[{"command":"append_text","new_str":"log\n"},{"command":"append_text","new_str":"more"}]`, want: "log\nmore", applied: 2},
		{name: "append on a missing file still fails", in: "<absent>", edits: `[{"command":"append","new_str":"x"}]`, codes: []plan.Code{plan.CodeFileNotFound}},
		{name: "str_replace first of several", in: "x\nx\nx\n", edits: `[{"command":"str_replace","old_str":"x","new_str":"y","first":true}]`, want: "y\nx\nx\n", applied: 1},
		{name: "str_replace first of one", in: "a\nx\n", edits: `[{"command":"str_replace","old_str":"x","new_str":"y","first":true}]`, want: "a\ny\n", applied: 1},
		{name: "insert at 0", in: "a\n", edits: `[{"command":"insert","insert_line":0,"new_str":"top"}]`, want: "top\na\n", applied: 1},
		{name: "insert into empty file", in: "", edits: `[{"command":"insert","insert_line":0,"new_str":"x"}]`, want: "x\n", applied: 1},
		{name: "insert past end", in: "a\n", edits: `[{"command":"insert","insert_line":2,"new_str":"x"}]`, want: "a\n", codes: []plan.Code{plan.CodeLineOutOfRange}},
		{name: "replace past end", in: "a\nb\n", edits: `[{"command":"replace_lines","start_line":2,"end_line":3,"new_str":"x"}]`, want: "a\nb\n", codes: []plan.Code{plan.CodeLineOutOfRange}},
		{name: "line numbers refer to the base content", in: "1\n2\n3\n4\n5\n",
			edits: `[{"command":"replace_lines","start_line":1,"end_line":1,"new_str":"one\nuno"},{"command":"replace_lines","start_line":4,"end_line":5,"new_str":"four-five"},{"command":"insert","insert_line":2,"new_str":"after2"}]`,
			want:  "one\nuno\n2\nafter2\n3\nfour-five\n", applied: 3},
		{name: "inserts at one line keep request order", in: "a\nb\n", edits: `[{"command":"insert","insert_line":1,"new_str":"x"},{"command":"insert","insert_line":1,"new_str":"y"}]`, want: "a\nx\ny\nb\n", applied: 2},
		{name: "insert at a range edge does not overlap", in: "1\n2\n3\n4\n", edits: `[{"command":"replace_lines","start_line":2,"end_line":3,"new_str":"X"},{"command":"insert","insert_line":3,"new_str":"after"},{"command":"insert","insert_line":1,"new_str":"before"}]`, want: "1\nbefore\nX\nafter\n4\n", applied: 3},
		{name: "overlapping ranges", in: "1\n2\n3\n4\n", edits: `[{"command":"replace_lines","start_line":1,"end_line":2,"new_str":"x"},{"command":"replace_lines","start_line":2,"end_line":3,"new_str":"y"}]`, want: "x\n3\n4\n", codes: []plan.Code{plan.CodeOverlappingEdits}, applied: 1},
		{name: "insert inside a range overlaps", in: "1\n2\n3\n4\n", edits: `[{"command":"replace_lines","start_line":1,"end_line":3,"new_str":"x"},{"command":"insert","insert_line":2,"new_str":"y"}]`, want: "x\n4\n", codes: []plan.Code{plan.CodeOverlappingEdits}, applied: 1},
		{name: "replace_lines with empty new_str deletes", in: "1\n2\n3\n", edits: `[{"command":"replace_lines","start_line":2,"end_line":2,"new_str":""}]`, want: "1\n3\n", applied: 1},
		{name: "create new file", in: "<absent>", edits: `[{"command":"create","file_text":"hello"}]`, want: "hello", applied: 1},
		{name: "create then edit", in: "<absent>", edits: `[{"command":"create","file_text":"a\nb\n"},{"command":"str_replace","old_str":"b","new_str":"B"},{"command":"append","new_str":"c"}]`, want: "a\nB\nc\n", applied: 3},
		{name: "create over a CRLF file keeps CRLF and BOM", in: "\ufeffold\r\n", edits: `[{"command":"create","file_text":"new\nlines\n"}]`, want: "\ufeffnew\r\nlines\r\n", applied: 1},
		{name: "edit of a missing file", in: "<absent>", edits: `[{"command":"str_replace","old_str":"a","new_str":"b"},{"command":"append","new_str":"x"}]`, codes: []plan.Code{plan.CodeFileNotFound, plan.CodeFileNotFound}},
		{name: "binary refuses text edits", in: "a\x00b", edits: `[{"command":"str_replace","old_str":"a","new_str":"b"}]`, want: "a\x00b", codes: []plan.Code{plan.CodeBinaryFile}},
		{name: "binary may be moved", in: "a\x00b", edits: `[{"command":"move","new_path":"g"}]`, want: "a\x00b", applied: 1},
		{name: "every failure is reported", in: "a\nb\n", edits: `[{"command":"str_replace","old_str":"zz","new_str":"y"},{"command":"insert","insert_line":9,"new_str":"y"},{"command":"str_replace","old_str":"a","new_str":"A"},{"command":"str_replace","old_str":"","new_str":"y"}]`,
			want: "A\nb\n", codes: []plan.Code{plan.CodeNotFound, plan.CodeLineOutOfRange, plan.CodeInvalidRequest}, applied: 1},
		{name: "non-UTF-8 bytes are kept", in: "caf\xe9\nna\xefve\n", edits: `[{"command":"str_replace","old_str":"na","new_str":"NA"}]`, want: "caf\xe9\nNA\xefve\n", applied: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := compile(t, tc.edits)
			exists := tc.in != "<absent>"
			in := tc.in
			if !exists {
				in = ""
			}
			out := Edit(f, []byte(in), exists)
			var codes []plan.Code
			for _, e := range out.Failed {
				codes = append(codes, e.Code)
				if e.Path != "f" {
					t.Errorf("failure %v does not name the path", e)
				}
			}
			if strings.Join(codeStrings(codes), ",") != strings.Join(codeStrings(tc.codes), ",") {
				t.Fatalf("failure codes = %v, want %v (%v)", codes, tc.codes, out.Failed)
			}
			if len(tc.codes) == 0 || tc.want != "" {
				if got := string(out.Content); got != tc.want && !(len(tc.codes) > 0 && tc.want == "") {
					t.Errorf("content = %q, want %q", got, tc.want)
				}
			}
			if out.Applied != tc.applied {
				t.Errorf("applied = %d, want %d", out.Applied, tc.applied)
			}
		})
	}
}

func codeStrings(cs []plan.Code) []string {
	var s []string
	for _, c := range cs {
		s = append(s, string(c))
	}
	return s
}

func TestEditHashPreconditions(t *testing.T) {
	in := []byte("1\n2\n3\n4\n5\n6\n")
	tok, _ := hash.Lines(in, 2, 4)
	whole := hash.Of(in).String()
	// An edit within the range its token covers succeeds even when another
	// part of the file changed.
	changed := []byte("1\n2\n3\n4\n5\nSIX\n")
	f := compile(t, `[{"command":"replace_lines","start_line":3,"end_line":4,"new_str":"x","content_hash":"`+tok.String()+`"}]`)
	if out := Edit(f, changed, true); !out.OK() || string(out.Content) != "1\n2\nx\n5\nSIX\n" {
		t.Fatalf("disjoint edit with range token: %v %q", out.Failed, out.Content)
	}
	// A change inside the range fails with the current token.
	inside := []byte("1\n2\nTHREE\n4\n5\n6\n")
	out := Edit(f, inside, true)
	if len(out.Failed) != 1 || out.Failed[0].Code != plan.CodeStaleHash {
		t.Fatalf("edit inside a changed range: %v", out.Failed)
	}
	wantCur, _ := hash.Lines(inside, 2, 4)
	if out.Failed[0].Current != wantCur.String() || !strings.Contains(out.Failed[0].Msg, wantCur.String()) {
		t.Errorf("stale report %q / current %q, want current token %s", out.Failed[0].Msg, out.Failed[0].Current, wantCur)
	}
	// An edit outside its token's range is refused when compiled.
	f = compile(t, `[{"command":"replace_lines","start_line":5,"end_line":5,"new_str":"x","content_hash":"`+tok.String()+`"}]`)
	if len(f.Invalid) != 1 || f.Invalid[0].Code != plan.CodeInvalidRequest {
		t.Errorf("edit outside its token's range: %v", f.Invalid)
	}
	// A file-level whole hash guards every edit.
	p, _ := plan.Compile(&plan.Request{FileEdits: []plan.FileEdit{{Path: "f", ContentHash: whole, Edits: []plan.Edit{
		{Command: "append", NewStr: ptr("x")}, {Command: "str_replace", OldStr: ptr("1"), NewStr: ptr("one")}}}}})
	if out := Edit(p.Files[0], in, true); !out.OK() {
		t.Errorf("matching file hash: %v", out.Failed)
	}
	out = Edit(p.Files[0], changed, true)
	if len(out.Failed) != 2 || out.Failed[0].Code != plan.CodeStaleHash || out.Failed[1].Code != plan.CodeStaleHash {
		t.Errorf("stale file hash: %v", out.Failed)
	}
}

func ptr[T any](v T) *T { return &v }

func TestHint(t *testing.T) {
	body := []byte("func main() {\n\tif x {\n\t\treturn\n\t}\n}\n")
	h := hint(body, "if x {\n  return\n}")
	if !strings.Contains(h, "lines 2-4") || !strings.Contains(h, "whitespace") {
		t.Errorf("whitespace hint = %q, want it to point at lines 2-4", h)
	}
	h = hint(body, "func mian() {")
	if !strings.Contains(h, "most similar line is 1") {
		t.Errorf("similar-line hint = %q", h)
	}
	if h := hint(body, "completely unrelated text 12345"); !strings.Contains(h, "no similar text") {
		t.Errorf("unrelated hint = %q", h)
	}
}

// TestStrReplaceCounts pins what each kind of str_replace counts: a unique
// match (found with one scan, apply/edit.go), first and replace_all over
// several, a CRLF file, and a mixed file found through its bare-LF lines.
func TestStrReplaceCounts(t *testing.T) {
	for _, c := range []struct {
		in, edits, want string
		occ, repl       int
	}{
		{"a x b\n", `[{"command":"str_replace","old_str":"x","new_str":"yy"}]`, "a yy b\n", 1, 1},
		{"x\n", `[{"command":"str_replace","old_str":"x","new_str":""}]`, "\n", 1, 1},
		{"ab x\n", `[{"command":"str_replace","old_str":"ab x\n","new_str":"z"}]`, "z", 1, 1},
		{"x\n", `[{"command":"str_replace","old_str":"x","new_str":"y","first":true}]`, "y\n", 1, 1},
		{"x x x\n", `[{"command":"str_replace","old_str":"x","new_str":"y","replace_all":true}]`, "y y y\n", 3, 3},
		{"x\n", `[{"command":"str_replace","old_str":"x","new_str":"y","replace_all":true}]`, "y\n", 1, 1},
		{"xx x\n", `[{"command":"str_replace","old_str":"xx","new_str":"y"}]`, "y x\n", 1, 1},
		{"a\r\nb\r\n", `[{"command":"str_replace","old_str":"a\nb","new_str":"c\nd"}]`, "c\r\nd\r\n", 1, 1},
		{"a\r\nb\nc\r\n", `[{"command":"str_replace","old_str":"b\nc","new_str":"B\nC"}]`, "a\r\nB\nC\r\n", 1, 1},
		{"aaaa\n", `[{"command":"str_replace","old_str":"aa","new_str":"b","replace_all":true}]`, "bb\n", 2, 2},
	} {
		out := Edit(compile(t, c.edits), []byte(c.in), true)
		if !out.OK() || string(out.Content) != c.want || out.Occurrences != c.occ || out.Replacements != c.repl || out.Applied != 1 {
			t.Errorf("%q with %s: content %q, occurrences %d, replacements %d, applied %d, failed %v; want %q, %d, %d, 1",
				c.in, c.edits, out.Content, out.Occurrences, out.Replacements, out.Applied, out.Failed, c.want, c.occ, c.repl)
		}
	}
	// Two matches without first or replace_all: ambiguous, counted right
	// when the first match is not at the start.
	out := Edit(compile(t, `[{"command":"str_replace","old_str":"x","new_str":"y"}]`), []byte("a x\nx\nx\n"), true)
	if out.OK() || len(out.Failed) != 1 || !strings.Contains(out.Failed[0].Msg, "occurs 3 times (at lines 1, 2, 3)") {
		t.Errorf("ambiguous: %v; want occurs 3 times at lines 1, 2, 3", out.Failed)
	}
}

// TestOccurrences: first replaces one occurrence and counts them all.
func TestOccurrences(t *testing.T) {
	out := Edit(compile(t, `[{"command":"str_replace","old_str":"x","new_str":"y","first":true}]`), []byte("x x\nx\n"), true)
	if string(out.Content) != "y x\nx\n" || out.Occurrences != 3 || out.Replacements != 1 {
		t.Errorf("content %q, occurrences %d, replacements %d; want 3 found, 1 replaced", out.Content, out.Occurrences, out.Replacements)
	}
	p, err := plan.Compile(&plan.Request{FileEdits: []plan.FileEdit{{Path: "f", Edits: []plan.Edit{{Command: "str_replace", OldStr: ptr("a"), NewStr: ptr("b"), First: true, ReplaceAll: true}}}}})
	if err != nil || len(p.Files[0].Invalid) != 1 {
		t.Errorf("first with replace_all: %v, %v; want an invalid edit", err, p.Files[0].Invalid)
	}
}
