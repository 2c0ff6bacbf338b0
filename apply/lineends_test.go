package apply

import (
	"testing"

	"github.com/txedit/txedit/plan"
)

// Line ends (docs/patch-formats.md, "Line ends"). A patch whose lines
// carry their "\r" (every line of a git diff of a CRLF file does) is exact:
// applied byte for byte, as git apply does; the expected contents of the
// exact cases are what git apply 2.39.5 writes for the same diff. A patch
// with none (LF only) is converted: its added lines end as the file lines
// around them.
var lineEndCases = []hunkCase{
	// Exact: the patch's own line ends are written.
	{name: "exact: a change of line ends only, CRLF to LF", in: "a\r\nb\r\n",
		hunks: []plan.Hunk{{Old: L("a\r\nb\r"), New: L("a\nb"), Marks: "--++", Line: 1}}, want: "a\nb\n", rungs: "exact"},
	{name: "exact: a change of line ends only, LF to CRLF", in: "a\nb\n",
		hunks: []plan.Hunk{{Old: L("a\nb"), New: L("a\r\nb\r"), Marks: "--++", Line: 1}}, want: "a\r\nb\r\n", rungs: "exact"},
	{name: "exact: an LF line added to a CRLF file stays LF", in: "a\r\nb\r\n",
		hunks: []plan.Hunk{{Old: L("a\r\nb\r"), New: L("a\r\nx\nb\r"), Marks: " + ", Line: 1}}, want: "a\r\nx\nb\r\n", rungs: "exact"},
	{name: "exact: a mixed file keeps every line's own end", in: "a\r\nb\nc\r\nd\n",
		hunks: []plan.Hunk{{Old: L("a\r\nb\nc\r"), New: L("a\r\nB\nc\r\nC\r"), Marks: " -+ +", Line: 1}}, want: "a\r\nB\nc\r\nC\r\nd\n", rungs: "exact"},
	{name: "exact: one CRLF line of a file converted to LF", in: "a\nb\r\nc\n",
		hunks: []plan.Hunk{{Old: L("a\nb\r\nc"), New: L("a\nb\nc"), Marks: " -+ ", Line: 1}}, want: "a\nb\nc\n", rungs: "exact"},
	{name: "exact: an LF context line does not match a CRLF one exactly", in: "a\r\nb\r\n",
		hunks: []plan.Hunk{{Old: L("a\nb\r"), New: L("a\nB\r"), Marks: " -+", Line: 1}}, want: "a\r\nB\r\n", rungs: "trailing_whitespace"},
	{name: "exact: the final newline removed keeps the line's CR", in: "a\r\nb\r\n",
		hunks: []plan.Hunk{{Old: L("a\r\nb\r"), New: L("a\r\nb\r"), Marks: " -+", NewNoEOL: true, Line: 1}}, want: "a\r\nb\r"},
	{name: "exact: the final newline removed with the CR", in: "a\r\nb\r\n",
		hunks: []plan.Hunk{{Old: L("a\r\nb\r"), New: L("a\r\nb"), Marks: " -+", NewNoEOL: true, Line: 1}}, want: "a\r\nb"},
	{name: "exact: a new last line after one without a newline", in: "a\r\nb",
		hunks: []plan.Hunk{{Old: L("a\r\nb"), New: L("a\r\nb\r\nc\r"), Marks: " -++", OldNoEOL: true, Line: 1}}, want: "a\r\nb\r\nc\r\n"},
	{name: "exact: the change already made is nothing to change, not a guess", in: "a\nb\n",
		hunks: []plan.Hunk{{Old: L("a\r\nb\r"), New: L("a\nb"), Marks: "--++", Line: 1}}, want: "a\nb\n"},

	// Converted: an LF-only patch follows the lines around what it adds.
	{name: "converted: CRLF file, every added line CRLF", in: "a\r\nb\r\n",
		hunks: []plan.Hunk{{Old: L("a\nb"), New: L("a\nx\ny\nb")}}, want: "a\r\nx\r\ny\r\nb\r\n"},
	{name: "converted: mixed file, between two LF lines", in: "a\r\nb\r\nc\nd\n",
		hunks: []plan.Hunk{{Old: L("c\nd"), New: L("c\nx\nd")}}, want: "a\r\nb\r\nc\nx\nd\n"},
	{name: "converted: mixed file, between two CRLF lines", in: "a\r\nb\r\nc\nd\ne\n",
		hunks: []plan.Hunk{{Old: L("a\nb"), New: L("a\nx\nb")}}, want: "a\r\nx\r\nb\r\nc\nd\ne\n"},
	{name: "converted: mixed file, between a CRLF and an LF line: LF, as written", in: "a\r\nb\r\nc\nd\n",
		hunks: []plan.Hunk{{Old: L("b\nc"), New: L("b\nx\nc")}}, want: "a\r\nb\r\nx\nc\nd\n"},
	{name: "converted: a replaced line keeps the removed line's end", in: "a\nb\r\nc\n",
		hunks: []plan.Hunk{{Old: L("a\nb\nc"), New: L("a\nB\nc")}}, want: "a\nB\r\nc\n"},
	{name: "converted: replaced lines take the removed lines' ends in order", in: "a\nb\r\nc\nd\n",
		hunks: []plan.Hunk{{Old: L("a\nb\nc\nd"), New: L("a\nB\nC\nC2\nd")}}, want: "a\nB\r\nC\nC2\nd\n"},
	{name: "converted: added at the top follows the first line", in: "a\r\nb\n",
		hunks: []plan.Hunk{{Old: L("a"), New: L("x\na"), Line: 1}}, want: "x\r\na\r\nb\n"},
	{name: "converted: appended at the end follows the last line", in: "a\r\nb\n",
		hunks: []plan.Hunk{{Old: nil, New: L("c")}}, want: "a\r\nb\nc\n"},
	{name: "converted: after a last line without a newline, the line before it", in: "a\r\nb",
		hunks: []plan.Hunk{{Old: L("b"), New: L("b\nc"), AtEOF: true}}, want: "a\r\nb\r\nc"},
}

func TestLineEnds(t *testing.T) {
	for _, tc := range lineEndCases {
		t.Run(tc.name, func(t *testing.T) {
			checkOutcome(t, tc, ApplyHunks("f.txt", []byte(tc.in), tc.hunks))
		})
	}
}

// SEARCH/REPLACE blocks follow the same rule: a block whose lines carry
// their "\r" is exact.
var blockLineEndCases = []hunkCase{
	{name: "exact block: CRLF line made LF", in: "a\r\nb\r\n", hunks: []plan.Hunk{{Old: L("a\r"), New: L("a")}}, want: "a\nb\r\n"},
	{name: "exact block: LF line added to a CRLF file", in: "a\r\nb\r\n", hunks: []plan.Hunk{{Old: L("a\r"), New: L("a\r\nx")}}, want: "a\r\nx\nb\r\n"},
	{name: "converted block: mixed file, the replaced line's end", in: "a\nb\r\nc\n", hunks: []plan.Hunk{{Old: L("b"), New: L("B")}}, want: "a\nB\r\nc\n"},
	{name: "converted blocks: the second follows the first's lines", in: "a\r\nb\r\nc\n",
		hunks: []plan.Hunk{{Old: L("a"), New: L("a\nx")}, {Old: L("x\nb"), New: L("x\ny\nb")}}, want: "a\r\nx\r\ny\r\nb\r\nc\n"},
}

func TestBlockLineEnds(t *testing.T) {
	for _, tc := range blockLineEndCases {
		t.Run(tc.name, func(t *testing.T) {
			checkOutcome(t, tc, ApplyBlocks("f.txt", []byte(tc.in), tc.hunks))
		})
	}
}
