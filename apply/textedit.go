package apply

import (
	"bytes"
	"fmt"
	"sort"
	"unicode/utf8"

	"github.com/txedit/txedit/plan"
)

// LSP text edits (docs/lsp.md, "Positions"): ranges of 0-based lines and
// characters, the character counted in the edit's position encoding.
//
//   - "\r\n", "\n" and "\r" end a line, as the protocol says.
//   - A character past the end of its line means the end of the line (the
//     protocol's rule), except one exactly past it on a line that ends in
//     "\r\n": that is the place between "\r" and "\n" as a reader that
//     splits lines at "\n" alone counts it, which the protocol says no
//     position denotes. It is refused (invalid_request), as is a
//     character inside a UTF-16 surrogate pair or inside a UTF-8
//     sequence: none of them is a place in the text.
//   - The line just past the last one, character 0, is the end of the
//     document (as gopls and VS Code take it); a line beyond is
//     line_out_of_range.
//   - Bytes that are not UTF-8 count one unit each in every encoding (a
//     reader decodes each to U+FFFD). A BOM counts like any character:
//     the positions are the document's as sent, byte for byte.

// lspLines returns the start offset of every line of content as LSP
// counts lines; the last line is what follows the last line end (empty
// when content ends with one).
func lspLines(content []byte) []int {
	starts := []int{0}
	for i := 0; i < len(content); i++ {
		switch content[i] {
		case '\n':
			starts = append(starts, i+1)
		case '\r':
			if i+1 < len(content) && content[i+1] == '\n' {
				i++
			}
			starts = append(starts, i+1)
		}
	}
	return starts
}

// lineText returns the bounds of line i's text (its line end left out)
// and whether the line ends in "\r\n".
func lineText(content []byte, starts []int, i int) (lo, hi int, crlf bool) {
	lo, hi = starts[i], len(content)
	if i+1 < len(starts) {
		hi = starts[i+1] - 1
		if hi > lo && content[hi] == '\n' && content[hi-1] == '\r' {
			hi, crlf = hi-1, true
		}
	}
	return lo, hi, crlf
}

// units returns how many units of enc the rune r, of size bytes in the
// text, counts (an invalid byte counts one).
func units(r rune, size int, enc plan.PositionEncoding) int {
	switch {
	case enc == plan.EncodingUTF8:
		return size
	case enc == plan.EncodingUTF16 && r >= 0x10000 && size == 4:
		return 2
	}
	return 1
}

// posError is a position that is not a place in the text.
type posError struct {
	code plan.Code
	msg  string
}

// offsetOf converts p to a byte offset of content, whose line starts are
// starts.
func offsetOf(content []byte, starts []int, p plan.Position, enc plan.PositionEncoding) (int, *posError) {
	if p.Line == len(starts) && p.Character == 0 {
		return len(content), nil // the end of the document
	}
	if p.Line >= len(starts) {
		return 0, &posError{plan.CodeLineOutOfRange, fmt.Sprintf("line %d is past the end: the document has %d lines (0-based, 0-%d)", p.Line, len(starts), len(starts)-1)}
	}
	lo, hi, crlf := lineText(content, starts, p.Line)
	at, n := lo, 0
	for at < hi && n < p.Character {
		r, size := utf8.DecodeRune(content[at:hi])
		u := units(r, size, enc)
		if n+u > p.Character {
			what := fmt.Sprintf("the UTF-16 surrogate pair of %U", r)
			if enc == plan.EncodingUTF8 {
				what = fmt.Sprintf("the UTF-8 bytes of %U", r)
			}
			return 0, &posError{plan.CodeInvalidRequest, fmt.Sprintf("character %d of line %d falls inside %s: it is no place in the text (check the position encoding: %s)", p.Character, p.Line, what, enc)}
		}
		n += u
		at += size
	}
	if n < p.Character && crlf && p.Character == n+1 {
		return 0, &posError{plan.CodeInvalidRequest, fmt.Sprintf("character %d of line %d falls between the \\r and the \\n of its line end (the line has %d characters): no position denotes that place", p.Character, p.Line, n)}
	}
	return at, nil // past the end of the line: the end of the line
}

// OffsetOf converts p, in encoding enc, to a byte offset of content, by
// the rules above; the error is a *plan.Error (line_out_of_range or
// invalid_request) about path.
func OffsetOf(path string, content []byte, p plan.Position, enc plan.PositionEncoding) (int, error) {
	off, perr := offsetOf(content, lspLines(content), p, enc)
	if perr != nil {
		return 0, plan.Errorf(perr.code, path, "%s", perr.msg)
	}
	return off, nil
}

// PositionOf returns the position of byte offset off of content (at
// most len(content)) in encoding enc. An offset inside a line end is
// the end of its line; one inside a character counts the part before it
// as in enc it would count the whole (callers give rune starts).
func PositionOf(content []byte, off int, enc plan.PositionEncoding) plan.Position {
	off = min(max(off, 0), len(content))
	starts := lspLines(content)
	line := sort.Search(len(starts), func(i int) bool { return starts[i] > off }) - 1
	lo, hi, _ := lineText(content, starts, line)
	n := 0
	for at := lo; at < min(off, hi); {
		r, size := utf8.DecodeRune(content[at:hi])
		n += units(r, size, enc)
		at += size
	}
	return plan.Position{Line: line, Character: n}
}

// textSpan is one text edit placed in the content: bytes lo..hi replaced by
// text; i is its index in the edit's list.
type textSpan struct {
	lo, hi int
	i      int
	text   string
}

// textEdits applies a text_edits op to content: every range refers to
// content, ranges may not overlap, and inserts at one place keep their
// order in the list, followed by at most one edit that replaces text
// from there. It returns the new content, or the edits' failures
// (nothing applied).
func textEdits(path string, content []byte, op *plan.Op) ([]byte, []*plan.Error) {
	if len(op.TextEdits) == 0 {
		return content, nil
	}
	starts := lspLines(content)
	var errs []*plan.Error
	fail := func(code plan.Code, format string, args ...any) {
		errs = append(errs, plan.EditErrorf(code, path, op.Index, string(op.Command), format, args...))
	}
	spans := make([]textSpan, 0, len(op.TextEdits))
	for i, te := range op.TextEdits {
		lo, perr := offsetOf(content, starts, te.Range.Start, op.Encoding)
		if perr == nil {
			var hi int
			if hi, perr = offsetOf(content, starts, te.Range.End, op.Encoding); perr == nil && hi < lo {
				// Both clamped to the end of one line, the start
				// further than the end.
				hi = lo
			}
			if perr == nil {
				spans = append(spans, textSpan{lo: lo, hi: hi, i: i, text: te.NewText})
				continue
			}
		}
		fail(perr.code, "%s: %s", where(op, i), perr.msg)
	}
	sort.SliceStable(spans, func(a, b int) bool { return spans[a].lo < spans[b].lo })
	prev := -1
	for k, s := range spans {
		if prev >= 0 && s.lo < spans[prev].hi {
			p := spans[prev]
			fail(plan.CodeOverlappingEdits, "%s (range %s) overlaps %s (range %s): the edits of one TextDocumentEdit may not touch the same text (inserts at one place go before the edit that replaces text there)",
				where(op, s.i), op.TextEdits[s.i].Range, where(op, p.i), op.TextEdits[p.i].Range)
			continue
		}
		prev = k
	}
	if len(errs) > 0 {
		sortFailed(errs)
		return content, errs
	}
	var b bytes.Buffer
	n := len(content)
	for _, s := range spans {
		n += len(s.text) - (s.hi - s.lo)
	}
	b.Grow(n)
	pos := 0
	for _, s := range spans {
		b.Write(content[pos:s.lo])
		b.WriteString(s.text)
		pos = s.hi
	}
	b.Write(content[pos:])
	return b.Bytes(), nil
}

// ApplyTextEdits applies one TextDocumentEdit's edits, in encoding enc,
// to content by the rules of a text_edits edit: the new content, or every
// edit's failure (nothing applied).
func ApplyTextEdits(path string, content []byte, edits []plan.TextEdit, enc plan.PositionEncoding) ([]byte, []*plan.Error) {
	if enc == "" {
		enc = plan.EncodingUTF16
	}
	return textEdits(path, content, &plan.Op{Command: plan.TextEdits, TextEdits: edits, Encoding: enc})
}

// where names text edit i of op as the input did.
func where(op *plan.Op, i int) string {
	if w := op.TextEdits[i].Where; w != "" {
		return w
	}
	return fmt.Sprintf("text_edits[%d]", i)
}
