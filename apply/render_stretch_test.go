package apply

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/txedit/txedit/plan"
)

// TestCopyLinesWhole: the untouched lines between hunks are appended as
// one string when they are views of one body, and a last line without a
// line break stays an element of its own (closeLines and endFile look at
// it and at the element before it).
func TestCopyLinesWhole(t *testing.T) {
	tx := newHunkText([]byte("a\nb\r\nc\nd"), false)
	if got := copyLines(nil, tx.raws[0:3], true); len(got) != 1 || got[0] != "a\nb\r\nc\n" {
		t.Errorf("three lines: %q", got)
	}
	if got := copyLines(nil, tx.raws, true); len(got) != 2 || got[0] != "a\nb\r\nc\n" || got[1] != "d" {
		t.Errorf("to the end: %q", got)
	}
	if got := copyLines(nil, tx.raws[1:3], false); len(got) != 2 {
		t.Errorf("not one body: %q, want line by line", got)
	}
	if got := copyLines([]string{"x\n"}, tx.raws[3:], true); len(got) != 2 || got[1] != "d" {
		t.Errorf("the last line alone: %q", got)
	}
}

// TestRenderStretchEnds: line breaks decided from the element before a
// line come out as they did line by line: a line added after an old last
// line without a break (the old line gains the break of the line before
// it: CRLF here), an added line in a CRLF stretch, and a hunk that
// removes the final newline after a long untouched stretch.
func TestRenderStretchEnds(t *testing.T) {
	for _, c := range []struct {
		name, content string
		h             plan.Hunk
		want          string
	}{
		{"append after a last line without a break", "a\r\nb\r\nc\r\nd",
			plan.Hunk{Line: 4, Old: []string{"d"}, New: []string{"d", "e"}, OldNoEOL: true, NewNoEOL: true},
			"a\r\nb\r\nc\r\nd\r\ne"},
		{"added line in CRLF", "a\r\nb\r\nc\r\nd\r\n",
			plan.Hunk{Line: 3, Old: []string{"c"}, New: []string{"c", "x"}},
			"a\r\nb\r\nc\r\nx\r\nd\r\n"},
		{"final newline removed", "a\nb\nc\nd\n",
			plan.Hunk{Line: 4, Old: []string{"d"}, New: []string{"D"}, NewNoEOL: true},
			"a\nb\nc\nD"},
	} {
		o := ApplyHunks("f", []byte(c.content), []plan.Hunk{c.h})
		if !o.OK() || string(o.Content) != c.want {
			t.Errorf("%s: %q (%v), want %q", c.name, o.Content, o.Failed, c.want)
		}
	}
}

// TestRenderCopiesOnce: a three-line hunk in a 20,000-line file costs the
// file's bytes and its line index, not a second index of the output (the
// untouched lines were appended one by one, then joined: ~330 KB more
// here, 30-40% of the time).
func TestRenderCopiesOnce(t *testing.T) {
	var b strings.Builder
	const lines = 20000
	for i := range lines {
		fmt.Fprintf(&b, "line %d of the file\n", i)
	}
	content := []byte(b.String())
	h := plan.Hunk{Line: 10000, Old: []string{"line 9999 of the file", "line 10000 of the file", "line 10001 of the file"},
		New: []string{"line 9999 of the file", "changed", "line 10001 of the file"}}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	o := ApplyHunks("f", content, []plan.Hunk{h})
	runtime.ReadMemStats(&after)
	if !o.OK() || !strings.Contains(string(o.Content), "\nchanged\n") {
		t.Fatalf("not applied: %v", o.Failed)
	}
	// The output, and the text's two views of every line (raws, lines:
	// 32 bytes a line); less than 8 bytes a line more.
	got := after.TotalAlloc - before.TotalAlloc
	if bound := uint64(len(content) + 40*lines); got > bound {
		t.Errorf("ApplyHunks allocated %d bytes for a %d-byte file of %d lines, want at most %d", got, len(content), lines, bound)
	}
}
