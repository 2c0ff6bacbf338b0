package patch

import (
	"bytes"
	"strings"
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
	s := bytes.TrimSpace(bytes.TrimPrefix(input, []byte("\ufeff")))
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
	ls := textLines(s)
	seen := 0
	for _, l := range ls {
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		if t == beginPatch {
			return FormatApplyPatch
		}
		if seen++; seen == 3 {
			break
		}
	}
	for _, l := range ls {
		if isSearch(strings.TrimSpace(l)) {
			return FormatSearchReplace
		}
	}
	d := &diffReader{lines: ls}
	for i, l := range ls {
		if strings.HasPrefix(l, "diff --git ") || d.fileHeader(i) || isHunkHead(l) {
			return FormatDiff
		}
	}
	return ""
}

func isHunkHead(l string) bool { _, ok := hunkHead(l); return ok }
