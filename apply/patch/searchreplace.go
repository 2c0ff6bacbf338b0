package patch

import (
	"strings"

	"github.com/txedit/txedit/plan"
)

// isSearch reports whether trimmed line l opens a block: Aider's
// "<<<<<<< SEARCH" (5 to 9 '<') or Cline's "------- SEARCH" (3 or more '-').
func isSearch(l string) bool {
	return markerRun(l, '<', 5, 9, " SEARCH") || markerRun(l, '<', 5, 9, " SEARCH>") || markerRun(l, '-', 3, 0, " SEARCH")
}

// isDivider reports whether trimmed line l is "=======" (5 to 9 '=').
func isDivider(l string) bool { return markerRun(l, '=', 5, 9, "") }

// isReplace reports whether trimmed line l closes a block: Aider's
// ">>>>>>> REPLACE" or Cline's "+++++++ REPLACE".
func isReplace(l string) bool {
	return markerRun(l, '>', 5, 9, " REPLACE") || markerRun(l, '+', 3, 0, " REPLACE")
}

// markerRun reports whether l is a run of c (between lo and hi long; hi 0
// is unbounded) followed by exactly suffix.
func markerRun(l string, c byte, lo, hi int, suffix string) bool {
	n := 0
	for n < len(l) && l[n] == c {
		n++
	}
	return n >= lo && (hi == 0 || n <= hi) && l[n:] == suffix
}

// parseSearchReplace parses SEARCH/REPLACE blocks. Each block's file is
// named on the line before it, or before the ``` fence lines just above
// it; a block without one belongs to the previous block's file. Text
// outside blocks is ignored. All blocks of a file become that file's hunks,
// in input order.
func parseSearchReplace(input []byte) ([]*File, error) {
	ls := lines(input)
	var files []*File
	byPath := map[string]*File{}
	cur := ""
	for i := 0; i < len(ls); i++ {
		if !isSearch(strings.TrimSpace(ls[i])) {
			continue
		}
		head := i
		path := blockPath(ls, i)
		if path == "" {
			path = cur
		}
		if path == "" {
			return nil, errAt(head+1, "", "no file path before %q: put the path alone on the line before the block (or before its ``` fence)", strings.TrimSpace(ls[i]))
		}
		cur = path
		var search, replace []string
		for i++; i < len(ls) && !isDivider(strings.TrimSpace(ls[i])); i++ {
			if t := strings.TrimSpace(ls[i]); isSearch(t) || isReplace(t) {
				return nil, errAt(i+1, path, "%q inside the SEARCH part of the block at line %d: expected ======= first", t, head+1)
			}
			search = append(search, ls[i])
		}
		if i == len(ls) {
			return nil, errAt(head+1, path, "the block has no ======= line")
		}
		for i++; i < len(ls) && !isReplace(strings.TrimSpace(ls[i])); i++ {
			if t := strings.TrimSpace(ls[i]); isSearch(t) {
				return nil, errAt(i+1, path, "%q inside the REPLACE part of the block at line %d: expected >>>>>>> REPLACE first", t, head+1)
			}
			replace = append(replace, ls[i])
		}
		if i == len(ls) {
			return nil, errAt(head+1, path, "the block has no >>>>>>> REPLACE line")
		}
		f := byPath[path]
		if f == nil {
			f = &File{Op: OpUpdate, Path: path, Blocks: true, Line: head + 1}
			byPath[path] = f
			files = append(files, f)
		}
		h := plan.Hunk{Old: search, New: replace}
		if blankLines(search) {
			h.Old = nil
			if len(f.Hunks) == 0 {
				f.CreateIfMissing = true
			}
		}
		f.Hunks = append(f.Hunks, h)
	}
	if len(files) == 0 {
		return nil, plan.Errorf(plan.CodeInvalidRequest, "", "no SEARCH/REPLACE blocks found: a block is a path line, then <<<<<<< SEARCH, the old lines, =======, the new lines, >>>>>>> REPLACE")
	}
	return files, nil
}

// blockPath finds the path named before the block opening at line i: the
// line just above, or above the ``` fence lines just above (Aider's rule).
func blockPath(ls []string, i int) string {
	for k := i - 1; k >= 0 && k >= i-3; k-- {
		l := strings.TrimSpace(ls[k])
		if strings.HasPrefix(l, "```") {
			continue
		}
		return cleanPath(l)
	}
	return ""
}

// cleanPath returns the path on line l, or "" when l does not look like
// one: decoration (a trailing colon, leading #, surrounding ` or *) is
// removed; a line with spaces is prose unless it was in backticks.
func cleanPath(l string) string {
	ticked := strings.HasPrefix(strings.TrimLeft(l, "#* "), "`")
	l = strings.TrimSuffix(l, ":")
	l = strings.TrimLeft(l, "# ")
	l = strings.Trim(l, "`*")
	l = strings.TrimSuffix(l, ":")
	l = strings.ReplaceAll(l, `\_`, "_")
	l = strings.TrimSpace(l)
	switch {
	case l == "", l == "...", strings.HasPrefix(l, "```"), isDivider(l), isReplace(l), isSearch(l):
		return ""
	case strings.ContainsAny(l, " \t") && !ticked:
		return ""
	}
	return l
}

func blankLines(ls []string) bool {
	for _, l := range ls {
		if strings.TrimSpace(l) != "" {
			return false
		}
	}
	return true
}
