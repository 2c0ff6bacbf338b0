package patch

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/txedit/txedit/plan"
)

const (
	beginPatch = "*** Begin Patch"
	endPatch   = "*** End Patch"
	addFile    = "*** Add File:"
	deleteFile = "*** Delete File:"
	updateFile = "*** Update File:"
	moveTo     = "*** Move to:"
	endOfFile  = "*** End of File"
)

// heredocOpen matches the first line of a shell heredoc wrapper:
// apply_patch <<'EOF', <<EOF, <<"EOF", <<-EOF.
var heredocOpen = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:(?:apply_patch|applypatch)\s+)?<<-?\s*(['"]?)([A-Za-z_][A-Za-z0-9_]*)(['"]?)$`)
})

// unifiedAt matches a unified hunk header's numbers after "@@", which some
// models write in apply_patch hunks.
var unifiedAt = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^-(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@`) })

// parseApplyPatch parses a Codex apply_patch envelope.
func parseApplyPatch(input []byte) ([]*File, error) {
	ls := lines(input)
	lo, hi := trimBlank(ls, 0, len(ls))
	// A heredoc or a Markdown fence around the envelope.
	for range 2 {
		if hi-lo < 2 {
			break
		}
		first, last := strings.TrimSpace(ls[lo]), strings.TrimSpace(ls[hi-1])
		if m := heredocOpen().FindStringSubmatch(first); m != nil && m[1] == m[3] && last == m[2] {
			lo, hi = trimBlank(ls, lo+1, hi-1)
		} else if strings.HasPrefix(first, "```") && last == "```" {
			lo, hi = trimBlank(ls, lo+1, hi-1)
		}
	}
	if lo == hi {
		return nil, plan.Errorf(plan.CodeInvalidRequest, "", "the patch is empty: it must start with %q and end with %q", beginPatch, endPatch)
	}
	if strings.TrimSpace(ls[lo]) != beginPatch {
		return nil, errAt(lo+1, "", "%q: the patch must start with %q", clip(ls[lo]), beginPatch)
	}
	if strings.TrimSpace(ls[hi-1]) != endPatch || hi-1 == lo {
		return nil, errAt(hi, "", "%q: the patch must end with %q", clip(ls[hi-1]), endPatch)
	}
	p := &v4a{lines: ls, i: lo + 1, end: hi - 1}
	var files []*File
	for p.i < p.end {
		l := strings.TrimSpace(p.lines[p.i])
		num := p.i + 1
		switch {
		case l == "":
			p.i++
		case strings.HasPrefix(l, addFile):
			f := &File{Op: OpAdd, Path: strings.TrimSpace(l[len(addFile):]), Overwrite: true, Line: num}
			if f.Path == "" {
				return nil, errAt(num, "", "%q names no path", clip(l))
			}
			p.i++
			f.Content = p.addLines()
			files = append(files, f)
		case strings.HasPrefix(l, deleteFile):
			f := &File{Op: OpDelete, Path: strings.TrimSpace(l[len(deleteFile):]), Line: num}
			if f.Path == "" {
				return nil, errAt(num, "", "%q names no path", clip(l))
			}
			files = append(files, f)
			p.i++
		case strings.HasPrefix(l, updateFile):
			f := &File{Op: OpUpdate, Path: strings.TrimSpace(l[len(updateFile):]), Line: num}
			if f.Path == "" {
				return nil, errAt(num, "", "%q names no path", clip(l))
			}
			p.i++
			if p.i < p.end {
				if m := strings.TrimSpace(p.lines[p.i]); strings.HasPrefix(m, moveTo) {
					f.MoveTo = strings.TrimSpace(m[len(moveTo):])
					if f.MoveTo == "" {
						return nil, errAt(p.i+1, f.Path, "%q names no path", moveTo)
					}
					p.i++
				}
			}
			hunks, err := p.hunks(f.Path)
			if err != nil {
				return nil, err
			}
			if len(hunks) == 0 && f.MoveTo == "" {
				return nil, errAt(num, f.Path, "%q has no hunks: add @@ hunks with ' ', '-' and '+' lines", l)
			}
			f.Hunks = hunks
			files = append(files, f)
		case l == endPatch:
			return nil, errAt(num, "", "%q before the end of the input", endPatch)
		default:
			return nil, errAt(num, "", "%q is not a file operation: expected '*** Add File: PATH', '*** Delete File: PATH' or '*** Update File: PATH'", clip(l))
		}
	}
	if len(files) == 0 {
		return nil, errAt(lo+1, "", "the patch changes no files")
	}
	return files, nil
}

// trimBlank narrows [lo, hi) to exclude blank lines at both ends.
func trimBlank(ls []string, lo, hi int) (int, int) {
	for lo < hi && strings.TrimSpace(ls[lo]) == "" {
		lo++
	}
	for hi > lo && strings.TrimSpace(ls[hi-1]) == "" {
		hi--
	}
	return lo, hi
}

// v4a reads the body of V4A file operations: Add File lines and Update
// File hunks (also the diff of a Responses operation).
type v4a struct {
	lines   []string
	i, end  int
	runEnd  int  // moreAdds: the end of the last run of blank lines
	runMore bool // and whether a "+" line follows it
}

// isMarker reports whether trimmed line l ends a hunk: a file operation or
// the end of the patch.
func isMarker(l string) bool {
	return strings.HasPrefix(l, addFile) || strings.HasPrefix(l, deleteFile) || strings.HasPrefix(l, updateFile) ||
		strings.HasPrefix(l, moveTo) || l == endPatch || l == beginPatch
}

// addLines reads an Add File's "+" lines: each is a line of the new file.
// A blank line followed by more "+" lines is an empty line (models drop
// the "+" on blank lines).
func (p *v4a) addLines() []byte {
	var b strings.Builder
	for p.i < p.end {
		l := p.lines[p.i]
		switch {
		case strings.HasPrefix(l, "+"):
			b.WriteString(l[1:])
		case strings.TrimSpace(l) == "" && p.moreAdds():
		default:
			return []byte(b.String())
		}
		b.WriteByte('\n')
		p.i++
	}
	return []byte(b.String())
}

// moreAdds reports whether a "+" line follows the blank line p.i; the
// answer for a run of blank lines is kept, so a run costs its length once.
func (p *v4a) moreAdds() bool {
	if p.i < p.runEnd {
		return p.runMore
	}
	j := p.i + 1
	for j < p.end && strings.TrimSpace(p.lines[j]) == "" {
		j++
	}
	p.runEnd, p.runMore = j, j < p.end && strings.HasPrefix(p.lines[j], "+")
	return p.runMore
}

// hunks reads Update File hunks up to the next file operation. Each hunk
// starts with one or more @@ lines ("@@" alone, or "@@ text": an anchor to
// find first); the first hunk may omit them. Its lines start with ' '
// (context), '-' (removed) or '+' (added); an empty line is an empty
// context line, except at the end of a hunk, where it is dropped (Codex
// would demand a blank line there that the file may not have).
// "*** End of File" ends a hunk that must end the file.
func (p *v4a) hunks(path string) ([]plan.Hunk, error) {
	var out []plan.Hunk
	for {
		for p.i < p.end && emptyLine(p.lines[p.i]) {
			p.i++
		}
		if p.i >= p.end || isMarker(strings.TrimSpace(p.lines[p.i])) {
			return out, nil
		}
		start := p.i + 1
		var h plan.Hunk
		headers := false
		for p.i < p.end && strings.HasPrefix(p.lines[p.i], "@@") {
			text := strings.TrimRight(p.lines[p.i][2:], " \t")
			text = strings.TrimPrefix(text, " ")
			if m := unifiedAt().FindStringSubmatch(text); m != nil {
				h.Line, _ = strconv.Atoi(m[1])
			} else if strings.TrimSpace(text) != "" && strings.TrimSpace(text) != "@@" {
				h.Anchors = append(h.Anchors, text)
			}
			headers = true
			p.i++
		}
		if !headers && len(out) > 0 {
			return nil, errAt(p.i+1, path, "%q: every line of an update hunk starts with ' ' (context), '-' (removed) or '+' (added), and a new hunk starts with @@", clip(p.lines[p.i]))
		}
		blankTail := 0 // empty lines at the end of the hunk so far
		n := 0
		var marks []byte
	body:
		for ; p.i < p.end; p.i++ {
			l := p.lines[p.i]
			if strings.HasPrefix(l, "@@") {
				break
			}
			if t := strings.TrimSpace(l); t == endOfFile {
				h.AtEOF = true
				p.i++
				break
			} else if isMarker(t) {
				break
			}
			if emptyLine(l) {
				h.Old, h.New = append(h.Old, l), append(h.New, l)
				marks = append(marks, ' ')
				blankTail++
				n++
				continue
			}
			switch l[0] {
			case ' ':
				h.Old, h.New = append(h.Old, l[1:]), append(h.New, l[1:])
			case '-':
				h.Old = append(h.Old, l[1:])
			case '+':
				h.New = append(h.New, l[1:])
			default:
				if n == 0 {
					return nil, errAt(p.i+1, path, "%q: every line of an update hunk starts with ' ' (context), '-' (removed) or '+' (added)", clip(l))
				}
				break body
			}
			marks = append(marks, l[0])
			blankTail = 0
			n++
		}
		h.Old, h.New = orNil(h.Old[:len(h.Old)-blankTail]), orNil(h.New[:len(h.New)-blankTail])
		h.Marks = string(marks[:len(marks)-blankTail])
		if len(h.Old) == 0 && len(h.New) == 0 {
			return nil, errAt(start, path, "the hunk has no lines: after its @@ line(s) come ' ', '-' and '+' lines")
		}
		out = append(out, h)
	}
}

// emptyLine reports whether l is an empty line, which may carry its "\r".
func emptyLine(l string) bool { return l == "" || l == "\r" }

// orNil returns nil for an empty slice, so that no lines is always nil.
func orNil(ls []string) []string {
	if len(ls) == 0 {
		return nil
	}
	return ls
}
