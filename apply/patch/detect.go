package patch

import (
	"bytes"
)

// Detect tells input's format from its content, or returns "" when it
// cannot: a JSON object with changes or documentChanges (or a
// workspace/applyEdit holding one) is FormatLSP; JSON (an object or
// array) is FormatResponses when it holds apply_patch_call items or
// operations and FormatJSON otherwise; text whose
// first non-blank lines (within three, to allow a heredoc or fence line)
// include "*** Begin Patch" is FormatApplyPatch; text with a line opening
// a SEARCH block (<<<<<<< SEARCH, ------- SEARCH) is FormatSearchReplace;
// text with a diff header (diff --git, ---
// followed by +++, or an @@ -N hunk header) is FormatDiff. It never returns
// FormatAuto.
func Detect(input []byte) Format {
	s := bytes.TrimSpace(bytes.TrimPrefix(input, bom))
	if len(s) == 0 {
		return ""
	}
	if s[0] == '{' || s[0] == '[' {
		if s[0] == '{' && isWorkspaceEdit(s) {
			return FormatLSP
		}
		if isResponses(s) {
			return FormatResponses
		}
		return FormatJSON
	}
	// The lines, as lines would split them (its own BOM trim included),
	// walked in place: a diff of megabytes is told by its first line, and
	// nothing here copies or splits the whole input (bench/README.md, round 5,
	// "Detect").
	s = bytes.TrimPrefix(s, bom)
	seen := 0
	for rest := s; len(rest) > 0 && seen < 3; {
		var l []byte
		l, rest = cutLine(rest)
		t := bytes.TrimSpace(l)
		if len(t) == 0 {
			continue
		}
		if string(t) == beginPatch {
			return FormatApplyPatch
		}
		seen++
	}
	// Every SEARCH marker isSearch accepts holds " SEARCH".
	if bytes.Contains(s, searchWord) {
		for rest := s; len(rest) > 0; {
			var l []byte
			l, rest = cutLine(rest)
			if bytes.Contains(l, searchWord) && isSearch(string(bytes.TrimSpace(l))) {
				return FormatSearchReplace
			}
		}
	}
	var prev []byte
	for rest := s; len(rest) > 0; {
		var l []byte
		l, rest = cutLine(rest)
		l = bytes.TrimSuffix(l, []byte("\r"))
		if bytes.HasPrefix(l, []byte("diff --git ")) ||
			bytes.HasPrefix(prev, []byte("--- ")) && bytes.HasPrefix(l, []byte("+++ ")) ||
			bytes.HasPrefix(l, []byte("@@ -")) && isHunkHead(string(l)) {
			return FormatDiff
		}
		prev = l
	}
	return ""
}

var (
	bom        = []byte("\ufeff")
	searchWord = []byte(" SEARCH")
)

// cutLine returns s's first line without its "\n", and the rest after it.
func cutLine(s []byte) (line, rest []byte) {
	line, rest, _ = bytes.Cut(s, []byte("\n"))
	return line, rest
}

func isHunkHead(l string) bool { _, ok := hunkHead(l); return ok }
