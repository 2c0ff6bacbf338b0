package apply

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/txedit/txedit/internal/testlong"
	"github.com/txedit/txedit/plan"
)

// L splits s into hunk lines ("" is no lines).
func L(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

type hunkCase struct {
	name    string
	in      string
	hunks   []plan.Hunk
	want    string   // content after, when no error is expected
	rungs   string   // the reports' rungs, space-separated ("" to skip)
	lines   string   // the reports' lines, space-separated ("" to skip)
	already bool     // want AlreadyApplied
	errs    []string // "code:index:substring" per expected failure
}

var hunkCases = []hunkCase{
	// The ladder, one rung per case.
	{name: "exact", in: "a\nb\nc\n", hunks: []plan.Hunk{{Old: L("b"), New: L("B")}}, want: "a\nB\nc\n", rungs: "exact", lines: "2"},
	{name: "trailing whitespace", in: "a  \nb\t\nc\n", hunks: []plan.Hunk{{Old: L("a\nb"), New: L("a\nB")}}, want: "a  \nB\nc\n", rungs: "trailing_whitespace"},
	{name: "leading whitespace reindents added lines", in: "func f() {\n\tif x {\n\t\treturn\n\t}\n}\n",
		hunks: []plan.Hunk{{Old: L("if x {\n    return\n}"), New: L("if x {\n    log()\n    return\n}")}},
		want:  "func f() {\n\tif x {\n\t\tlog()\n\t\treturn\n\t}\n}\n", rungs: "whitespace"},
	{name: "unicode punctuation", in: "say “hi” — now\nx\u00a0=\u00a01\n", hunks: []plan.Hunk{{Old: L(`say "hi" - now` + "\nx = 1"), New: L(`say "hi" - later` + "\nx = 1")}},
		want: "say \"hi\" - later\nx\u00a0=\u00a01\n", rungs: "unicode"},
	{name: "stricter rung wins over an earlier looser match", in: "  k\nz\nk\n", hunks: []plan.Hunk{{Old: L("k"), New: L("K")}}, want: "  k\nz\nK\n", rungs: "exact", lines: "3"},
	{name: "ambiguous exact", in: "x\ny\nx\n", hunks: []plan.Hunk{{Old: L("x"), New: L("z")}}, errs: []string{"ambiguous:0:match 2 places: line 1, line 3"}},
	{name: "ambiguous on a looser rung", in: " x\ny\n\tx\n", hunks: []plan.Hunk{{Old: L("x"), New: L("z")}}, errs: []string{"ambiguous:0:(ignoring indentation): line 1, line 3"}},
	{name: "not found names the closest text", in: "alpha\nbeta\ngamma\n", hunks: []plan.Hunk{{Old: L("alpha\nbetta"), New: L("x")}},
		errs: []string{`not_found:0:closest text is at lines 1-2 (1 of 2 non-blank lines match ignoring whitespace): line 2 reads "beta" where yours has "betta"`}},
	{name: "not found, most similar line", in: "fmt.Println(value)\nother\n", hunks: []plan.Hunk{{Old: L("fmt.Printn(value)"), New: L("x")}},
		errs: []string{`not_found:0:the most similar line is 1: "fmt.Println(value)"`}},

	// Anchors (apply_patch @@ lines).
	{name: "anchor picks the first match after it", in: "func a() {\n\treturn nil\n}\nfunc b() {\n\treturn nil\n}\n",
		hunks: []plan.Hunk{{Anchors: L("func b() {"), Old: L("\treturn nil"), New: L("\treturn err")}},
		want:  "func a() {\n\treturn nil\n}\nfunc b() {\n\treturn err\n}\n", lines: "5"},
	{name: "anchored retry: the new lines nearer the anchor than the old ones", in: "def main():\n    print('new')\n\ndef other():\n    print('old')\n",
		hunks: []plan.Hunk{{Anchors: L("def main():"), Old: L("    print('old')"), New: L("    print('new')")}},
		want:  "def main():\n    print('new')\n\ndef other():\n    print('old')\n", already: true},
	{name: "blank new lines standing elsewhere say nothing", in: "x\n\nold\n", hunks: []plan.Hunk{{Old: L("old"), New: []string{""}}}, want: "x\n\n\n", lines: "3"},
	{name: "new lines standing only on a looser rung than the old ones say nothing", in: "x = new() \ny\nx = old()\n", hunks: []plan.Hunk{{Old: L("x = old()"), New: L("x = new()")}}, want: "x = new() \ny\nx = new()\n", lines: "3"},
	{name: "old and new lines both stand, no anchor, no line: not guessed", in: "x = new()\ny\nx = old()\n",
		hunks: []plan.Hunk{{Old: L("x = old()"), New: L("x = new()")}}, errs: []string{"ambiguous:0:its new lines already stand at line 1"}},
	{name: "stacked anchors", in: "class A:\n  def f():\n    pass\nclass B:\n  def f():\n    pass\n",
		hunks: []plan.Hunk{{Anchors: L("class B:\n  def f():"), Old: L("    pass"), New: L("    return 1")}},
		want:  "class A:\n  def f():\n    pass\nclass B:\n  def f():\n    return 1\n", lines: "6"},
	{name: "anchor repeated from the previous hunk", in: "def f():\n  a = 1\n  b = 2\n",
		hunks: []plan.Hunk{{Anchors: L("def f():"), Old: L("  a = 1"), New: L("  a = 10")}, {Anchors: L("def f():"), Old: L("  b = 2"), New: L("  b = 20")}},
		want:  "def f():\n  a = 10\n  b = 20\n"},
	{name: "anchor that is also the first old line", in: "x\ndef f():\n  pass\n", hunks: []plan.Hunk{{Anchors: L("def f():"), Old: L("def f():\n  pass"), New: L("def f():\n  return")}},
		want: "x\ndef f():\n  return\n"},
	{name: "anchor not found", in: "a\n", hunks: []plan.Hunk{{Anchors: L("def nope():"), Old: L("a"), New: L("b")}}, errs: []string{`not_found:0:the @@ line "def nope():" is not in the file`}},
	{name: "ambiguous anchor leading to different places", in: "def f():\n  pass\ndef f():\n  pass\n",
		hunks: []plan.Hunk{{Anchors: L("def f():"), Old: L("  pass"), New: L("  x")}}, errs: []string{"ambiguous:0:occur 2 times"}},

	// Pure additions.
	{name: "addition appends at the end", in: "a\nb\n", hunks: []plan.Hunk{{New: L("c\nd")}}, want: "a\nb\nc\nd\n", lines: "3"},
	{name: "addition after its anchor", in: "class A:\n  x = 1\nclass B:\n  y = 2\n", hunks: []plan.Hunk{{Anchors: L("class A:"), New: L("  w = 0")}},
		want: "class A:\n  w = 0\n  x = 1\nclass B:\n  y = 2\n"},
	{name: "addition to a file without final newline keeps it missing", in: "a\nb", hunks: []plan.Hunk{{New: L("c")}}, want: "a\nb\nc"},
	{name: "addition into an empty file", in: "", hunks: []plan.Hunk{{New: L("a\nb")}}, want: "a\nb\n"},
	{name: "append does not move later hunks", in: "a\nb\nc\n", hunks: []plan.Hunk{{New: L("z")}, {Old: L("b"), New: L("B")}}, want: "a\nB\nc\nz\n"},
	{name: "unified addition at its line (-U0)", in: "a\nb\nc\n", hunks: []plan.Hunk{{New: L("x"), Line: 3}}, want: "a\nb\nx\nc\n", lines: "3"},
	{name: "blank addition is never already applied", in: "a\n\n", hunks: []plan.Hunk{{New: []string{""}}}, want: "a\n\n\n"},

	// End of file.
	{name: "AtEOF takes the last occurrence", in: "x\ny\nx\n", hunks: []plan.Hunk{{Old: L("x"), New: L("z"), AtEOF: true}}, want: "x\ny\nz\n", lines: "3"},
	{name: "AtEOF requires the end", in: "x\ny\n", hunks: []plan.Hunk{{Old: L("x"), New: L("z"), AtEOF: true}}, errs: []string{"not_found:0:which does not end the file"}},
	{name: "missing final newline stays missing", in: "a\nb", hunks: []plan.Hunk{{Old: L("b"), New: L("B\nC")}}, want: "a\nB\nC"},
	{name: "deleting the last line keeps no final newline", in: "a\nb", hunks: []plan.Hunk{{Old: L("a\nb"), New: L("a")}}, want: "a"},
	{name: "unified hunk adds the final newline", in: "a\nb", hunks: []plan.Hunk{{Old: L("b"), New: L("b"), OldNoEOL: true, Line: 2}}, want: "a\nb\n"},
	{name: "unified hunk removes the final newline", in: "a\nb\n", hunks: []plan.Hunk{{Old: L("b"), New: L("c"), NewNoEOL: true, Line: 2}}, want: "a\nc"},
	{name: "unified EOL change already made", in: "a\nb\n", hunks: []plan.Hunk{{Old: L("b"), New: L("b"), OldNoEOL: true, Line: 2}}, want: "a\nb\n", already: true},
	{name: "unified EOL change needs the old side's ending", in: "a\nb\n", hunks: []plan.Hunk{{Old: L("b"), New: L("c"), OldNoEOL: true, Line: 2}}, errs: []string{"not_found:0:but the file has a final newline"}},

	// Line endings, BOM, bytes.
	{name: "CRLF file, LF patch", in: "a\r\nb\r\nc\r\n", hunks: []plan.Hunk{{Old: L("b"), New: L("B\nB2")}}, want: "a\r\nB\r\nB2\r\nc\r\n"},
	{name: "CRLF patch lines", in: "a\r\nb\r\n", hunks: []plan.Hunk{{Old: L("b\r"), New: L("c\r")}}, want: "a\r\nc\r\n"},
	{name: "BOM kept, BOM in patch ignored", in: "\ufeffa\nb\n", hunks: []plan.Hunk{{Old: L("\ufeffa"), New: L("\ufeffA"), Line: 1}}, want: "\ufeffA\nb\n"},
	{name: "a diff removing the BOM", in: "\ufeffa\nb\n", hunks: []plan.Hunk{{Old: L("\ufeffa\nb"), New: L("a\nb"), Line: 1}}, want: "a\nb\n"},
	{name: "a diff adding a BOM", in: "a\nb\n", hunks: []plan.Hunk{{Old: L("a"), New: L("\ufeffa"), Line: 1}}, want: "\ufeffa\nb\n"},
	{name: "BOM kept by a hunk that does not say", in: "\ufeffa\nb\n", hunks: []plan.Hunk{{Old: L("a"), New: L("A")}}, want: "\ufeffA\nb\n"},
	{name: "bytes that are not UTF-8 are kept", in: "\xff\xfe x\nb\n", hunks: []plan.Hunk{{Old: L("b"), New: L("c")}}, want: "\xff\xfe x\nc\n"},
	{name: "context keeps the file's bytes on a loose rung", in: "keep   \nold\n", hunks: []plan.Hunk{{Old: L("keep\nold"), New: L("keep\nnew")}}, want: "keep   \nnew\n"},

	// Stated lines (unified diffs).
	{name: "stated line settles duplicates", in: "x\ny\nx\n", hunks: []plan.Hunk{{Old: L("x"), New: L("z"), Line: 3}}, want: "x\ny\nz\n", lines: "3"},
	{name: "offset when the line moved", in: "p\np\np\na\nb\n", hunks: []plan.Hunk{{Old: L("a\nb"), New: L("a\nB"), Line: 1}}, want: "p\np\np\na\nB\n"},
	{name: "wrong line and duplicates is ambiguous", in: "x\ny\nx\ny\n", hunks: []plan.Hunk{{Old: L("x\ny"), New: L("z"), Line: 2}}, errs: []string{"ambiguous:0:the patch says line 2"}},
	{name: "later hunks follow the earlier offset", in: "new\nx\na\nx\nb\n", hunks: []plan.Hunk{{Old: L("x\na"), New: L("x\nA"), Line: 1}, {Old: L("x\nb"), New: L("x\nB"), Line: 3}},
		want: "new\nx\nA\nx\nB\n", lines: "2 4"},

	// Order.
	{name: "hunks in order", in: "a\nb\nc\nd\n", hunks: []plan.Hunk{{Old: L("b"), New: L("B")}, {Old: L("d"), New: L("D")}}, want: "a\nB\nc\nD\n"},
	{name: "hunk out of order", in: "a\nb\nc\n", hunks: []plan.Hunk{{Old: L("c"), New: L("C")}, {Old: L("a"), New: L("A")}},
		errs: []string{"not_found:1:before the previous hunk's end: hunks must be in file order"}},
	{name: "every failure is reported", in: "a\nb\nc\n", hunks: []plan.Hunk{{Old: L("q"), New: L("Q")}, {Old: L("b"), New: L("B")}, {Old: L("r"), New: L("R")}},
		errs: []string{"not_found:0:", "not_found:2:"}},
	{name: "empty hunk", in: "a\n", hunks: []plan.Hunk{{}}, errs: []string{"invalid_request:0:no lines"}},

	// Retries.
	{name: "already applied", in: "a\nB\nc\nD\n", hunks: []plan.Hunk{{Old: L("a\nb"), New: L("a\nB")}, {Old: L("c\nd"), New: L("c\nD")}}, want: "a\nB\nc\nD\n", already: true, lines: "1 3"},
	{name: "retried insertion after context", in: "a\nnew\nb\n", hunks: []plan.Hunk{{Old: L("a"), New: L("a\nnew")}}, want: "a\nnew\nb\n", already: true},
	{name: "retried insertion before context", in: "new\nb\n", hunks: []plan.Hunk{{Old: L("b"), New: L("new\nb")}}, want: "new\nb\n", already: true},
	{name: "retried append", in: "a\nz\n", hunks: []plan.Hunk{{New: L("z")}}, want: "a\nz\n", already: true},
	{name: "retried append before a change", in: "a\nB\nz\n", hunks: []plan.Hunk{{New: L("z")}, {Old: L("b"), New: L("B")}}, want: "a\nB\nz\n", already: true},
	{name: "partly applied is a conflict", in: "a\nB\nc\nd\n", hunks: []plan.Hunk{{Old: L("a\nb"), New: L("a\nB")}, {Old: L("c\nd"), New: L("c\nD")}},
		// Hunks are named as people count them: hunk 2 is the one missing
		// (the message used to name hunk 1 twice).
		errs: []string{"conflict:0:this hunk is already applied (its new lines stand at lines 1-2) but hunk 2 is not"}},
	{name: "absent deletion alone is not found", in: "a\n", hunks: []plan.Hunk{{Old: L("gone"), New: nil}}, errs: []string{"not_found:0:the lines to delete"}},
	{name: "absent deletion without context is no proof, even in a retried patch", in: "a\nB\n", hunks: []plan.Hunk{{Old: L("gone")}, {Old: L("b"), New: L("B")}},
		errs: []string{"not_found:0:a deletion without context lines is taken as done only when txedit's journal shows it made it"}},
	{name: "pure context changes nothing", in: "a\nb\n", hunks: []plan.Hunk{{Old: L("b"), New: L("b")}}, want: "a\nb\n"},
	{name: "new lines in several places", in: "a\nX\nX\n", hunks: []plan.Hunk{{Old: L("q"), New: L("X")}}, errs: []string{"not_found:0:the new lines already stand at lines 2, 3"}},

	{name: "binary", in: "a\x00b\n", hunks: []plan.Hunk{{Old: L("a"), New: L("b")}}, errs: []string{"binary_file:-1:"}},
}

func TestApplyHunks(t *testing.T) {
	for _, tc := range hunkCases {
		t.Run(tc.name, func(t *testing.T) {
			checkOutcome(t, tc, ApplyHunks("f.txt", []byte(tc.in), tc.hunks))
		})
	}
}

func checkOutcome(t *testing.T, tc hunkCase, o *HunkOutcome) {
	t.Helper()
	var got []string
	for _, e := range o.Failed {
		got = append(got, fmt.Sprintf("%s:%d:%s", e.Code, e.Index, e.Msg))
		if e.Path != "f.txt" {
			t.Errorf("error path %q", e.Path)
		}
	}
	if len(got) != len(tc.errs) {
		t.Fatalf("failures:\n%s\nwant %d: %q", strings.Join(got, "\n"), len(tc.errs), tc.errs)
	}
	for i, w := range tc.errs {
		code, rest, _ := strings.Cut(w, ":")
		idx, sub, _ := strings.Cut(rest, ":")
		if !strings.HasPrefix(got[i], code+":"+idx+":") || !strings.Contains(got[i], sub) {
			t.Errorf("failure %d:\n%s\nwant %s", i, got[i], w)
		}
	}
	if len(tc.errs) > 0 {
		if !bytes.Equal(o.Content, []byte(tc.in)) {
			t.Errorf("content changed on failure: %q", o.Content)
		}
		return
	}
	if string(o.Content) != tc.want {
		t.Errorf("content %q, want %q", o.Content, tc.want)
	}
	if o.AlreadyApplied != tc.already {
		t.Errorf("AlreadyApplied %v, want %v", o.AlreadyApplied, tc.already)
	}
	var rungs, lines []string
	for _, r := range o.Reports {
		rungs = append(rungs, string(r.Rung))
		lines = append(lines, fmt.Sprint(r.Line))
	}
	if tc.rungs != "" && strings.Join(rungs, " ") != tc.rungs {
		t.Errorf("rungs %q, want %q", rungs, tc.rungs)
	}
	if tc.lines != "" && strings.Join(lines, " ") != tc.lines {
		t.Errorf("lines %q, want %q", lines, tc.lines)
	}
}

var blockCases = []hunkCase{
	{name: "one block", in: "a\nb\nc\n", hunks: []plan.Hunk{{Old: L("b"), New: L("B")}}, want: "a\nB\nc\n"},
	{name: "blocks in any order", in: "a\nb\nc\n", hunks: []plan.Hunk{{Old: L("c"), New: L("C")}, {Old: L("a"), New: L("A")}}, want: "A\nb\nC\n", lines: "3 1"},
	{name: "a block edits what the previous wrote", in: "a\nb\n", hunks: []plan.Hunk{{Old: L("a"), New: L("x\ny")}, {Old: L("y"), New: L("z")}}, want: "x\nz\nb\n", lines: "1 2"},
	{name: "ambiguous block", in: "x\nx\n", hunks: []plan.Hunk{{Old: L("x"), New: L("y")}}, errs: []string{"ambiguous:0:add surrounding lines to SEARCH"}},
	{name: "empty SEARCH fills an empty file", in: "", hunks: []plan.Hunk{{New: L("hello")}}, want: "hello\n"},
	{name: "empty SEARCH on content is ambiguous", in: "x\n", hunks: []plan.Hunk{{New: L("hello")}}, errs: []string{"ambiguous:0:Aider appends, Cline replaces"}},
	{name: "empty SEARCH already applied", in: "hello\r\n", hunks: []plan.Hunk{{New: L("hello")}}, want: "hello\r\n", already: true},
	{name: "retried blocks", in: "A\nb\nC\n", hunks: []plan.Hunk{{Old: L("a"), New: L("A")}, {Old: L("c"), New: L("C")}}, want: "A\nb\nC\n", already: true},
	{name: "retried append-after block", in: "foo()\nbar()\n", hunks: []plan.Hunk{{Old: L("foo()"), New: L("foo()\nbar()")}}, want: "foo()\nbar()\n", already: true},
	{name: "partly applied blocks", in: "A\nb\nc\n", hunks: []plan.Hunk{{Old: L("a"), New: L("A")}, {Old: L("c"), New: L("C")}}, errs: []string{"conflict:0:this block is already applied (its new lines stand at line 1) but block 2 is not"}},
	{name: "block not found", in: "a\n", hunks: []plan.Hunk{{Old: L("q q"), New: L("r")}}, errs: []string{"not_found:0:the SEARCH text (first line: \"q q\") is not in the file"}},
	// What an earlier block of the request wrote is no sign that a later
	// one was applied before (FuzzApplyBlocks found the first).
	{name: "two blocks write the same line", in: "b\n0\n", hunks: []plan.Hunk{{Old: L("b"), New: L("X")}, {Old: L("0"), New: L("X")}}, want: "X\nX\n", lines: "1 2"},
	{name: "a block's REPLACE written only by an earlier block: not found, not already applied", in: "b\nc\n", hunks: []plan.Hunk{{Old: L("b"), New: L("X")}, {Old: L("q"), New: L("X")}},
		errs: []string{`not_found:1:the SEARCH text (first line: "q") is not in the file`}},
	{name: "an insertion after a line an earlier block inserted", in: "a\nb\n", hunks: []plan.Hunk{{Old: L("a"), New: L("a\nc")}, {Old: L("b"), New: L("c\nb")}}, want: "a\nc\nc\nb\n"},
	{name: "an append that an earlier block's line looks like", in: "foo()\nz\n", hunks: []plan.Hunk{{Old: L("z"), New: L("bar()")}, {Old: L("foo()"), New: L("foo()\nbar()")}}, want: "foo()\nbar()\nbar()\n"},
	{name: "a REPLACE text the file held before the request still makes the place ambiguous", in: "X\nb\n0\n", hunks: []plan.Hunk{{Old: L("b"), New: L("Y")}, {Old: L("0"), New: L("X")}},
		errs: []string{"ambiguous:1:the SEARCH text is at line 3 and the REPLACE text already stands at line 1 (not written by an earlier block)"}},
	{name: "a line an earlier block kept is the file's own", in: "X\na\n0\n", hunks: []plan.Hunk{{Old: L("X\na"), New: L("X\nA")}, {Old: L("0"), New: L("X")}},
		errs: []string{"ambiguous:1:the REPLACE text already stands at line 1"}},
	{name: "a REPLACE of blank lines where the file has a blank line", in: "b\n\n0\n", hunks: []plan.Hunk{{Old: L("b"), New: L("1")}, {Old: L("0"), New: L(" ")}}, want: "1\n\n \n"},
	{name: "a REPLACE text standing only with a trailing space", in: "0 \nb", hunks: []plan.Hunk{{Old: L("b"), New: L("0")}, {Old: L("0"), New: L("1")}}, want: "0 \n1"},
	{name: "an empty SEARCH whose REPLACE an earlier block made the file", in: "a\n", hunks: []plan.Hunk{{Old: L("a"), New: L("b")}, {New: L("b")}},
		errs: []string{"ambiguous:1:an empty SEARCH on a file that has content"}},
	{name: "a block on an earlier block's lines is no retry, whatever stands elsewhere", in: "b\n0", hunks: []plan.Hunk{{Old: L("b"), New: L("@")}, {Old: L("@"), New: L("0")}}, want: "0\n0"},
	{name: "an insertion around an earlier block's line is no retry", in: "c\nb\nx\n", hunks: []plan.Hunk{{Old: L("b"), New: L("@")}, {Old: L("@"), New: L("c\n@")}}, want: "c\nc\n@\nx\n"},
	{name: "failed block skipped, later ones still evaluated", in: "a\nb\n", hunks: []plan.Hunk{{Old: L("zz"), New: L("r")}, {Old: L("b"), New: L("B")}, {Old: L("b"), New: L("X")}},
		errs: []string{"not_found:0:", "not_found:2:"}},
}

func TestApplyBlocks(t *testing.T) {
	for _, tc := range blockCases {
		t.Run(tc.name, func(t *testing.T) {
			checkOutcome(t, tc, ApplyBlocks("f.txt", []byte(tc.in), tc.hunks))
		})
	}
}

// A 20,000-line file with 200 hunks, some of which fail (their hints
// search the whole file), applies; the cost grows linearly with the file
// (200 hunks) and with the number of hunks (20,000 lines), and so does
// that of a file of identical lines under a long hunk of them. The growth
// is checked by testlong.Linear, a ratio of CPU times: a wall-clock limit
// failed on a loaded or slow machine.
func TestApplyHunksLinear(t *testing.T) {
	var b strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&b, "line %d: %s\n", i, strings.Repeat("x", i%40))
	}
	content := []byte(b.String())
	var hunks []plan.Hunk
	for i := 50; i < 20000; i += 100 {
		old := fmt.Sprintf("line %d: %s", i, strings.Repeat("x", i%40))
		if i%1000 == 50 {
			old += " typo"
		}
		hunks = append(hunks, plan.Hunk{Old: []string{old}, New: []string{"changed"}})
	}
	o := ApplyHunks("big", content, hunks)
	if len(o.Failed) != 20 || len(o.Reports) != 180 {
		t.Errorf("%d failed, %d placed; want 20, 180", len(o.Failed), len(o.Reports))
	}
	// n lines and h hunks spread over them, 5 of which fail (a failure's
	// hint reads the whole file).
	spread := func(n, h int) ([]byte, []plan.Hunk) {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "line %d: %s\n", i, strings.Repeat("x", i%40))
		}
		var hunks []plan.Hunk
		for k := range h {
			i := k*(n/h) + n/h/2
			old := fmt.Sprintf("line %d: %s", i, strings.Repeat("x", i%40))
			if k%(h/5) == 0 {
				old += " typo"
			}
			hunks = append(hunks, plan.Hunk{Old: []string{old}, New: []string{"changed"}})
		}
		return []byte(b.String()), hunks
	}
	testlong.Linear(t, "200 hunks on n lines", 20000, func(n int) {
		content, hunks := spread(n, 200)
		ApplyHunks("big", content, hunks)
	})
	testlong.Linear(t, "n hunks on 20,000 lines", 200, func(n int) {
		content, hunks := spread(20000, n)
		ApplyHunks("big", content, hunks)
	})
	// Pathological: every line the same, a long hunk of them.
	sameHunks := []plan.Hunk{{Old: L(strings.Repeat("}\n", 500) + "x"), New: L("y")}, {Old: L(strings.Repeat("}\n", 499) + "}"), New: L("y")}}
	o = ApplyHunks("same", bytes.Repeat([]byte("}\n"), 20000), sameHunks)
	if len(o.Failed) != 2 || o.Failed[1].Code != plan.CodeAmbiguous {
		t.Errorf("failures %v", o.Failed)
	}
	testlong.Linear(t, "n identical lines", 20000, func(n int) {
		ApplyHunks("same", bytes.Repeat([]byte("}\n"), n), sameHunks)
	})
}

// Each rung of the ladder: what it forgives, and that a stricter rung wins.
var rungCases = []hunkCase{
	{name: "exact: CRLF file, LF hunk", in: "a\r\nb\r\n", hunks: []plan.Hunk{{Old: L("b"), New: L("c")}}, want: "a\r\nc\r\n", rungs: "exact"},
	{name: "exact: anchor", in: "def f():\n  x\n", hunks: []plan.Hunk{{Anchors: L("def f():"), Old: L("  x"), New: L("  y")}}, want: "def f():\n  y\n", rungs: "exact"},
	{name: "exact: trailing blanks differ is not exact", in: "a \n", hunks: []plan.Hunk{{Old: L("a"), New: L("b")}}, want: "b\n", rungs: "trailing_whitespace"},
	{name: "trailing: tab and spaces", in: "x = 1\t \ny\n", hunks: []plan.Hunk{{Old: L("x = 1\ny"), New: L("x = 2\ny")}}, want: "x = 2\ny\n", rungs: "trailing_whitespace"},
	{name: "trailing: patch has the trailing blanks", in: "x\n", hunks: []plan.Hunk{{Old: L("x   "), New: L("z")}}, want: "z\n", rungs: "trailing_whitespace"},
	{name: "trailing: anchor", in: "class A: \n  v\n", hunks: []plan.Hunk{{Anchors: L("class A:"), Old: L("  v"), New: L("  w")}}, want: "class A: \n  w\n", rungs: "trailing_whitespace"},
	{name: "whitespace: indentation differs", in: "    if a:\n        b()\n", hunks: []plan.Hunk{{Old: L("if a:\n    b()"), New: L("if a:\n    c()")}},
		want: "    if a:\n        c()\n", rungs: "whitespace"},
	{name: "whitespace: tabs for spaces", in: "\tx()\n\ty()\n", hunks: []plan.Hunk{{Old: L("  x()\n  y()"), New: L("  x()\n  z()\n  y()")}}, want: "\tx()\n\tz()\n\ty()\n", rungs: "whitespace"},
	{name: "whitespace: does not forgive inner spaces", in: "a  =  1\n", hunks: []plan.Hunk{{Old: L("a = 1"), New: L("a = 2")}}, errs: []string{"not_found:0:"}},
	{name: "unicode: dashes", in: "a – b — c ‐ d − e\n", hunks: []plan.Hunk{{Old: L("a - b - c - d - e"), New: L("x")}}, want: "x\n", rungs: "unicode"},
	{name: "unicode: quotes", in: "say ‘a’ and “b” „c‟\n", hunks: []plan.Hunk{{Old: L(`say 'a' and "b" "c"`), New: L("x")}}, want: "x\n", rungs: "unicode"},
	{name: "unicode: spaces", in: "a\u00a0b\u2009c\u3000d\u202fe\n", hunks: []plan.Hunk{{Old: L("a b c d e"), New: L("x")}}, want: "x\n", rungs: "unicode"},
	{name: "unicode: the file has ASCII, the patch typography", in: "x = \"q\" - 1\n", hunks: []plan.Hunk{{Old: L("x = “q” – 1"), New: L("y")}}, want: "y\n", rungs: "unicode"},
	{name: "unicode: other letters are not folded", in: "café\n", hunks: []plan.Hunk{{Old: L("cafe"), New: L("x")}}, errs: []string{"not_found:0:"}},
	{name: "unicode: anchor", in: "# Section — one\nbody\n", hunks: []plan.Hunk{{Anchors: L("# Section - one"), Old: L("body"), New: L("text")}}, want: "# Section — one\ntext\n", rungs: "unicode"},
	{name: "the loosest rung of anchor and lines is reported", in: "class A:  \n  v = 1\n", hunks: []plan.Hunk{{Anchors: L("class A:"), Old: L("v = 1"), New: L("v = 2")}}, rungs: "whitespace", want: "class A:  \n  v = 2\n"},
	{name: "already applied on a loose rung", in: "  x = 2\n", hunks: []plan.Hunk{{Old: L("x = 1"), New: L("x = 2")}}, want: "  x = 2\n", rungs: "whitespace", already: true},
}

func TestLadderRungs(t *testing.T) {
	for _, tc := range rungCases {
		t.Run(tc.name, func(t *testing.T) {
			checkOutcome(t, tc, ApplyHunks("f.txt", []byte(tc.in), tc.hunks))
		})
	}
}

// Whitespace-only wrong trees: a hunk matched with leading whitespace
// ignored re-indents every added line, deeper and shallower ones too; a
// kept line and a deleted one equal in the patch keep the right file line.
var reindentCases = []hunkCase{
	{name: "spaces for tabs, an added line deeper than every old one", in: "func f() {\n\tif x {\n\t\treturn\n\t}\n}\n",
		hunks: []plan.Hunk{{Old: L("    if x {\n        return\n    }"), New: L("    if x {\n        if y {\n            panic(1)\n        }\n        return\n    }")}},
		want:  "func f() {\n\tif x {\n\t\tif y {\n\t\t\tpanic(1)\n\t\t}\n\t\treturn\n\t}\n}\n", rungs: "whitespace"},
	{name: "one old level: the units come from the patch and the file", in: "func f() {\n\tif x {\n\t\treturn\n\t}\n}\n",
		hunks: []plan.Hunk{{Old: L("        return"), New: L("        if y {\n            panic(1)\n        }\n        return")}},
		want:  "func f() {\n\tif x {\n\t\tif y {\n\t\t\tpanic(1)\n\t\t}\n\t\treturn\n\t}\n}\n", rungs: "whitespace"},
	{name: "an added line shallower than every old one", in: "func f() {\n\tif x {\n\t\treturn\n\t}\n}\n",
		hunks: []plan.Hunk{{Old: L("        return"), New: L("        return\n    log()")}},
		want:  "func f() {\n\tif x {\n\t\treturn\n\tlog()\n\t}\n}\n", rungs: "whitespace"},
	{name: "dedented by one level, deeper added lines", in: "func f() {\n\tif x {\n\t\treturn\n\t}\n}\n",
		hunks: []plan.Hunk{{Old: L("if x {\n\treturn\n}"), New: L("if x {\n\tif y {\n\t\tpanic(1)\n\t}\n\treturn\n}")}},
		want:  "func f() {\n\tif x {\n\t\tif y {\n\t\t\tpanic(1)\n\t\t}\n\t\treturn\n\t}\n}\n", rungs: "whitespace"},
	{name: "the markers tell the kept line from the deleted one", in: "a\nfoo\nfoo \nb\n",
		hunks: []plan.Hunk{{Old: L("a\nfoo\nfoo\nb"), New: L("a\nfoo\nb"), Marks: "  - "}}, want: "a\nfoo\nb\n"},
	{name: "the markers tell the kept line from the deleted one, the other way", in: "a\nfoo\nfoo \nb\n",
		hunks: []plan.Hunk{{Old: L("a\nfoo\nfoo\nb"), New: L("a\nfoo\nb"), Marks: " -  "}}, want: "a\nfoo \nb\n"},
	{name: "markers that do not fit the lines are ignored", in: "a\nb\n",
		hunks: []plan.Hunk{{Old: L("a\nb"), New: L("a\nB"), Marks: "+"}}, want: "a\nB\n"},
}

func TestReindentAndMarks(t *testing.T) {
	for _, tc := range reindentCases {
		t.Run(tc.name, func(t *testing.T) {
			checkOutcome(t, tc, ApplyHunks("f.txt", []byte(tc.in), tc.hunks))
		})
	}
}
