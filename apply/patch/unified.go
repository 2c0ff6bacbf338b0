package patch

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/txedit/txedit/plan"
)

const devNull = "/dev/null"

// hunkHead reads a unified hunk header, "@@ -S[,C] +S[,C] @@TEXT": the
// four numbers as written (a count left out is "") and the section text.
// It is the regular expression ^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))?
// @@(.*)$ (TestHunkHeadAsTheRegexp) without a regexp run per hunk.
func hunkHead(l string) (m [6]string, ok bool) {
	rest, ok := strings.CutPrefix(l, "@@ -")
	if !ok {
		return m, false
	}
	digits := func() string {
		i := 0
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		d := rest[:i]
		rest = rest[i:]
		return d
	}
	side := func(k int) bool {
		if m[k] = digits(); m[k] == "" {
			return false
		}
		if r, ok := strings.CutPrefix(rest, ","); ok {
			rest = r
			if m[k+1] = digits(); m[k+1] == "" {
				return false
			}
		}
		return true
	}
	if !side(1) {
		return m, false
	}
	if rest, ok = strings.CutPrefix(rest, " +"); !ok || !side(3) {
		return m, false
	}
	if rest, ok = strings.CutPrefix(rest, " @@"); !ok || strings.IndexByte(rest, '\n') >= 0 {
		return m, false
	}
	m[0], m[5] = l, rest
	return m, true
}

// bareHead matches a hunk header without numbers ("@@", "@@ @@",
// "@@ ... @@"), as Aider's unified diffs write them.
var bareHead = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^@@(?:\s*(?:\.\.\.)?\s*@@)?\s*$`) })

// parseUnified parses unified and git diffs.
func parseUnified(input []byte) ([]*File, error) {
	d := &diffReader{lines: lines(input)}
	var files []*File
	for d.i < len(d.lines) {
		l := d.text(d.i)
		var f *File
		var err error
		switch {
		case strings.HasPrefix(l, "diff --git "):
			f, err = d.gitSection()
		case d.fileHeader(d.i):
			f, err = d.plainSection()
		case strings.HasPrefix(l, "@@"):
			return nil, errAt(d.i+1, "", "%q: a hunk without a file header: put '--- a/PATH' and '+++ b/PATH' lines before it", clip(l))
		case strings.HasPrefix(l, "Binary files ") || l == "GIT binary patch":
			return nil, errAt(d.i+1, "", "%q: binary changes are not supported: write the file another way", clip(l))
		default:
			d.i++ // text around the diff (a commit message, "diff -ruN …", "Index: …")
			continue
		}
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		return nil, plan.Errorf(plan.CodeInvalidRequest, "", "no file changes found: a diff needs '--- a/PATH' and '+++ b/PATH' lines followed by @@ hunks")
	}
	return files, nil
}

type diffReader struct {
	lines   []string // raw lines, "\r" kept
	i       int
	runEnd  int  // moreHunkLines: the end of the last run of empty lines
	runMore bool // and whether hunk lines follow it
}

// text is line i without a trailing "\r".
func (d *diffReader) text(i int) string { return strings.TrimSuffix(d.lines[i], "\r") }

// fileHeader reports whether lines i and i+1 are "--- " and "+++ ".
func (d *diffReader) fileHeader(i int) bool {
	return i+1 < len(d.lines) && strings.HasPrefix(d.text(i), "--- ") && strings.HasPrefix(d.text(i+1), "+++ ")
}

// sectionEnd reports whether line i starts another file's section.
func (d *diffReader) sectionEnd(i int) bool {
	l := d.text(i)
	return strings.HasPrefix(l, "diff ") || d.fileHeader(i)
}

// gitSection reads a "diff --git" section: extended headers, then
// optional ---/+++ names and hunks.
func (d *diffReader) gitSection() (*File, error) {
	start := d.i
	a, b, _ := splitGitHeader(d.text(d.i)[len("diff --git "):])
	a, b = stripPrefixes(a, b)
	d.i++
	f := &File{Op: OpUpdate, Line: start + 1}
	var isNew, isDel bool
	var from, to, ids string
headers:
	for ; d.i < len(d.lines); d.i++ {
		l := d.text(d.i)
		var err error
		switch {
		case cut(l, "old mode ", &f.OldMode):
		case cut(l, "new mode ", &f.NewMode):
		case cut(l, "deleted file mode ", &f.OldMode):
			isDel = true
		case cut(l, "new file mode ", &f.NewMode):
			isNew = true
		case strings.HasPrefix(l, "rename from "):
			from, err = unquote(l[len("rename from "):])
		case strings.HasPrefix(l, "rename old "): // git's older spelling
			from, err = unquote(l[len("rename old "):])
		case strings.HasPrefix(l, "rename to "):
			to, err = unquote(l[len("rename to "):])
		case strings.HasPrefix(l, "rename new "):
			to, err = unquote(l[len("rename new "):])
		case strings.HasPrefix(l, "copy from "), strings.HasPrefix(l, "copy to "):
			return nil, errAt(d.i+1, a, "%q: copies are not supported: make the diff without -C (as a new file)", clip(l))
		case strings.HasPrefix(l, "index "):
			ids = l[len("index "):]
		case strings.HasPrefix(l, "similarity index "), strings.HasPrefix(l, "dissimilarity index "):
		case l == "GIT binary patch":
			if f.Binary, err = d.binaryPatch(a, ids); err != nil {
				return nil, err
			}
			break headers
		case strings.HasPrefix(l, "Binary files "):
			return nil, errAt(d.i+1, a, "%q: the diff does not carry the binary change (make it with git diff --binary)", clip(l))
		default:
			break headers
		}
		if err != nil {
			return nil, errAt(d.i+1, a, "%v", err)
		}
	}
	// The index line's mode ("index a..b 120000") is the mode of both
	// sides when no mode lines say otherwise: a link changed in place.
	if idx := strings.Fields(ids); len(idx) == 2 && idx[1] == "120000" && f.OldMode == "" && f.NewMode == "" && !isNew && !isDel {
		f.OldMode, f.NewMode = idx[1], idx[1]
	}
	for _, m := range []string{f.OldMode, f.NewMode} {
		if m == "160000" {
			return nil, errAt(start+1, a, "mode %s: submodules are not supported", m)
		}
	}
	if f.OldMode != "" && f.NewMode != "" && (f.OldMode == "120000") != (f.NewMode == "120000") {
		return nil, errAt(start+1, a, "mode %s to %s in one section: git writes a type change as a deletion and a creation", f.OldMode, f.NewMode)
	}
	f.Git = true
	// git records and applies only whether a file is executable: any
	// other regular-file mode is read as 100755 or 100644, as git apply
	// does, never applied literally (100777 is not 0777, 100000 not 0000).
	f.OldMode, f.NewMode = gitMode(f.OldMode), gitMode(f.NewMode)
	old, nw := a, b
	if d.i < len(d.lines) && d.fileHeader(d.i) {
		var err error
		if old, nw, err = d.names(); err != nil {
			return nil, err
		}
	}
	if from != "" {
		old = from
	}
	if to != "" {
		nw = to
	}
	if isNew {
		old = devNull
	}
	if isDel {
		nw = devNull
	}
	return d.finish(f, old, nw, start, true)
}

// plainSection reads a section that starts with ---/+++ (diff -u, or a
// git diff whose "diff --git" line was lost).
func (d *diffReader) plainSection() (*File, error) {
	start := d.i
	f := &File{Op: OpUpdate, Line: start + 1}
	oldEpoch, newEpoch := epoch(d.text(d.i)), epoch(d.text(d.i+1))
	old, nw, err := d.names()
	if err != nil {
		return nil, err
	}
	// diff -N marks a missing side by the epoch as its time stamp.
	if oldEpoch && !newEpoch {
		old = devNull
	} else if newEpoch && !oldEpoch {
		nw = devNull
	}
	return d.finish(f, old, nw, start, false)
}

// plainName picks the file a diff without git headers patches when its
// names differ (diff -u file.orig file): as GNU patch breaks ties between
// existing files, the one with fewer directories, then the shorter base
// name, then the shorter name, then the old one.
func plainName(old, nw string) string {
	if old == "" || nw == "" || old == nw {
		return cmp.Or(old, nw)
	}
	key := func(p string) [3]int {
		return [3]int{strings.Count(p, "/"), len(p) - strings.LastIndexByte(p, '/'), len(p)}
	}
	if ko, kn := key(old), key(nw); slices.Compare(kn[:], ko[:]) < 0 {
		return nw
	}
	return old
}

// epoch reports whether a ---/+++ line carries the Unix epoch as its time
// stamp, which diff -N writes for an absent file.
func epoch(l string) bool {
	_, ts, ok := strings.Cut(l, "\t")
	return ok && (strings.HasPrefix(ts, "1970-01-01 ") || strings.HasPrefix(ts, "1969-12-31 "))
}

// names reads the ---/+++ lines at d.i and returns both paths with git's
// prefixes stripped.
func (d *diffReader) names() (string, string, error) {
	old, err := headerPath(d.text(d.i)[4:])
	if err != nil {
		return "", "", errAt(d.i+1, "", "%v", err)
	}
	nw, err := headerPath(d.text(d.i + 1)[4:])
	if err != nil {
		return "", "", errAt(d.i+2, "", "%v", err)
	}
	d.i += 2
	old, nw = stripPrefixes(old, nw)
	return old, nw, nil
}

// finish reads the section's hunks and decides what the file does.
// Only a git section renames; elsewhere plainName picks the file patched.
func (d *diffReader) finish(f *File, old, nw string, start int, git bool) (*File, error) {
	switch {
	case old == "" && nw == "":
		return nil, errAt(start+1, "", "cannot tell the file's path: add '--- a/PATH' and '+++ b/PATH' lines")
	case old == devNull && nw == devNull:
		return nil, errAt(start+1, "", "both sides are /dev/null")
	case old == devNull:
		f.Op, f.Path = OpAdd, nw
	case nw == devNull:
		f.Op, f.Path = OpDelete, old
	case git:
		f.Path = cmp.Or(old, nw)
		if nw != "" && nw != f.Path {
			f.MoveTo = nw
		}
	default:
		f.Path = plainName(old, nw)
	}
	hunks, err := d.hunks(f.Path)
	if err != nil {
		return nil, err
	}
	if f.Binary != nil {
		if len(hunks) > 0 {
			return nil, errAt(start+1, f.Path, "a binary patch and text hunks for one file")
		}
		if f.Op == OpAdd {
			f.Content, f.Binary = f.Binary.Data, nil
		}
		return f, nil
	}
	switch f.Op {
	case OpAdd:
		size := 0
		for _, h := range hunks {
			if len(h.old) > 0 || h.line > 1 {
				return nil, errAt(h.at, f.Path, "a new file's hunk can only add lines (and must be @@ -0,0 +1,N @@)")
			}
			for _, l := range h.new {
				size += len(l) + 1
			}
		}
		// One allocation of the content's size (a new file may be most
		// of a large diff).
		b := make([]byte, 0, size)
		for _, h := range hunks {
			for i, l := range h.new {
				b = append(b, l...)
				if i < len(h.new)-1 || !h.newNoEOL {
					b = append(b, '\n')
				}
			}
		}
		f.Content = b
	case OpDelete:
		for _, h := range hunks {
			if len(h.new) > 0 {
				return nil, errAt(h.at, f.Path, "a deleted file's hunk can only remove lines")
			}
		}
		f.Hunks = toHunks(hunks)
	default:
		if len(hunks) == 0 && f.MoveTo == "" && f.OldMode == f.NewMode {
			return nil, errAt(start+1, f.Path, "the diff of %s has no hunks", f.Path)
		}
		f.Hunks = toHunks(hunks)
	}
	return f, nil
}

// diffHunk is a hunk as read, lines raw ("\r" kept).
type diffHunk struct {
	at                 int // 1-based input line of the header
	line               int // plan.Hunk.Line
	old, new           []string
	marks              []byte // plan.Hunk.Marks
	oldNoEOL, newNoEOL bool
	recounted          bool // plan.Hunk.Recounted
}

func toHunks(hs []diffHunk) []plan.Hunk {
	out := make([]plan.Hunk, len(hs))
	for i, h := range hs {
		out[i] = plan.Hunk{Old: orNil(h.old), New: orNil(h.new), Line: h.line, OldNoEOL: h.oldNoEOL, NewNoEOL: h.newNoEOL, Marks: string(h.marks), Recounted: h.recounted}
	}
	return out
}

// hunks reads the @@ hunks at d.i. Hunks with counts end when the counts
// are met; hunks without numbers ("@@ ... @@") end at the next header or at
// a line that is not a hunk line. When a hunk's counts disagree with its
// body (it ends before them, or more hunk lines follow them) and the body
// is delimited without doubt — by the next @@ header, the next file's
// header or the end of the input — the hunk is recounted from its lines, as
// git apply --recount does, and says so (plan.Hunk.Recounted); a body that
// runs into other text is refused, the counts named.
func (d *diffReader) hunks(path string) ([]diffHunk, error) {
	var out []diffHunk
	for d.i < len(d.lines) {
		l := d.text(d.i)
		h := diffHunk{at: d.i + 1}
		oldLeft, newLeft, os := -1, -1, 0 // -1: not counted
		if m, ok := hunkHead(l); ok {
			var oc, nc, ns int
			os, oc, ns, nc = atoi(m[1]), count(m[2]), atoi(m[3]), count(m[4])
			if oc < 0 || nc < 0 || os < 0 || ns < 0 {
				return nil, errAt(d.i+1, path, "%q: a number is out of range", clip(l))
			}
			oldLeft, newLeft = oc, nc
			if oc+nc <= len(d.lines)-d.i { // room for what the counts promise, once
				h.old, h.new, h.marks = make([]string, 0, oc), make([]string, 0, nc), make([]byte, 0, oc+nc)
			}
		} else if !bareHead().MatchString(l) {
			if strings.HasPrefix(l, "@@") {
				return nil, errAt(d.i+1, path, "%q is not a hunk header: write '@@ -START,COUNT +START,COUNT @@' (or '@@ ... @@' to let txedit locate it by content)", clip(l))
			}
			break
		}
		d.i++
		body := d.i
		var err error
		if oldLeft >= 0 {
			err = d.countedBody(&h, path, oldLeft, newLeft)
			if err != nil || d.moreAfterCount() {
				if rh, ok := d.recount(body, h.at); ok {
					h, err = rh, nil
				} else if err != nil {
					return nil, err
				} else if d.text(d.i) != "-- " {
					// More hunk lines than counted, then other text:
					// not delimited, and not to be dropped silently.
					// (git format-patch's signature, "-- " and its
					// version, follows the last hunk: it is not a hunk
					// line.)
					return nil, errAt(d.i+1, path, "%q: the hunk at line %d has more lines than its header says, and they run into other text: fix the header's counts, or write '@@ ... @@'", clip(d.text(d.i)), h.at)
				}
			}
			h.line = max(os, 1)
			if len(h.old) == 0 {
				h.line = os + 1 // "-5,0": insert after line 5
			}
		} else {
			d.uncountedBody(&h)
		}
		if len(h.old) == 0 && len(h.new) == 0 {
			return nil, errAt(h.at, path, "the hunk has no lines")
		}
		out = append(out, h)
	}
	return out, nil
}

// countedBody reads the lines of a hunk whose header counts them, from d.i
// until the counts are met (a "\ No newline" line after the last counts
// too). A body that ends first, or has more lines than counted, is an
// error.
func (d *diffReader) countedBody(h *diffHunk, path string, oldLeft, newLeft int) error {
	prev := byte(0)
	for d.i < len(d.lines) {
		raw := d.lines[d.i]
		l := strings.TrimSuffix(raw, "\r")
		if oldLeft == 0 && newLeft == 0 && !strings.HasPrefix(l, "\\") {
			break
		}
		op := hunkOp(l)
		switch op {
		case ' ', '-', '+':
			if d.sectionEnd(d.i) {
				return d.short(*h, path, oldLeft, newLeft)
			}
			h.add(op, raw, l)
			if op != '+' {
				oldLeft--
			}
			if op != '-' {
				newLeft--
			}
			if oldLeft < 0 || newLeft < 0 {
				return errAt(d.i+1, path, "%q: the hunk has more lines than its header (line %d) says: fix the header's counts, or write '@@ ... @@'", clip(l), h.at)
			}
		case '\\':
			h.noEOL(prev)
		default:
			return d.short(*h, path, oldLeft, newLeft)
		}
		prev = op
		d.i++
	}
	if oldLeft > 0 || newLeft > 0 {
		return d.short(*h, path, oldLeft, newLeft)
	}
	return nil
}

// uncountedBody reads the lines of a hunk without counts, from d.i up to
// the next @@ line, the next file's header, or a line that is not a hunk
// line (an empty line is an empty context line when hunk lines follow it).
func (d *diffReader) uncountedBody(h *diffHunk) {
	prev := byte(0)
	for d.i < len(d.lines) {
		raw := d.lines[d.i]
		l := strings.TrimSuffix(raw, "\r")
		if strings.HasPrefix(l, "@@") || d.sectionEnd(d.i) || l == "" && !d.moreHunkLines(d.i) {
			break
		}
		op := hunkOp(l)
		switch op {
		case ' ', '-', '+':
			h.add(op, raw, l)
		case '\\':
			h.noEOL(prev)
		default:
			return
		}
		prev = op
		d.i++
	}
}

// moreAfterCount reports whether, after a hunk whose counts are met, the
// next line is one more hunk line (not an empty line, not the next file's
// header): the header may have counted too few.
func (d *diffReader) moreAfterCount() bool {
	if d.i >= len(d.lines) || d.sectionEnd(d.i) {
		return false
	}
	l := d.text(d.i)
	return l != "" && (l[0] == ' ' || l[0] == '-' || l[0] == '+')
}

// recount reads the hunk whose header is at line at-1 and whose body
// starts at line body again, without its counts, and returns it when the
// body is delimited without doubt: it ends at an @@ line, the next file's
// header or the end of the input (empty lines between aside). Otherwise
// d.i is left where it was.
func (d *diffReader) recount(body, at int) (diffHunk, bool) {
	saved := d.i
	d.i = body
	h := diffHunk{at: at, recounted: true}
	d.uncountedBody(&h)
	j := d.i
	for j < len(d.lines) && d.text(j) == "" {
		j++
	}
	if j < len(d.lines) && !strings.HasPrefix(d.text(j), "@@") && !d.sectionEnd(j) {
		d.i = saved
		return diffHunk{}, false
	}
	return h, true
}

// hunkOp is the marker of hunk line l: ' ' for an empty line (an empty
// context line that lost its space).
func hunkOp(l string) byte {
	if l == "" {
		return ' '
	}
	return l[0]
}

// add appends a hunk line: raw as read ("\r" kept), l without it.
func (h *diffHunk) add(op byte, raw, l string) {
	text := raw // an empty context line that lost its ' ' ("" or "\r")
	if l != "" {
		text = raw[1:]
	}
	h.marks = append(h.marks, op)
	if op != '+' {
		h.old = append(h.old, text)
	}
	if op != '-' {
		h.new = append(h.new, text)
	}
}

// noEOL records a "\ No newline at end of file" line after a line of kind
// prev.
func (h *diffHunk) noEOL(prev byte) {
	if prev != '+' {
		h.oldNoEOL = true
	}
	if prev != '-' {
		h.newNoEOL = true
	}
}

// moreHunkLines reports whether hunk lines follow the empty line i (an
// empty line between hunk lines is an empty context line; at the end, it is
// not). The answer for a run of empty lines is kept, so a run costs its
// length once.
func (d *diffReader) moreHunkLines(i int) bool {
	if i < d.runEnd {
		return d.runMore
	}
	j := i + 1
	for j < len(d.lines) && d.text(j) == "" {
		j++
	}
	d.runEnd, d.runMore = j, false
	if j < len(d.lines) {
		l := d.text(j)
		d.runMore = (l[0] == ' ' || l[0] == '-' || l[0] == '+' || l[0] == '\\') && !d.sectionEnd(j)
	}
	return d.runMore
}

func (d *diffReader) short(h diffHunk, path string, oldLeft, newLeft int) error {
	at := min(d.i+1, len(d.lines))
	return errAt(at, path, "the hunk at line %d ends early: its header promises %d more old and %d more new lines; fix the counts, or write '@@ ... @@' to let txedit count", h.at, max(oldLeft, 0), max(newLeft, 0))
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n > 1<<30 {
		return -1
	}
	return n
}

// count is a hunk side's line count: 1 when omitted.
func count(s string) int {
	if s == "" {
		return 1
	}
	return atoi(s)
}

// cut sets *dst to l's rest after prefix and reports whether l has it.
func cut(l, prefix string, dst *string) bool {
	rest, ok := strings.CutPrefix(l, prefix)
	if ok {
		*dst = strings.TrimSpace(rest)
	}
	return ok
}

// gitMode normalises a regular-file mode of a git diff to the two git
// applies: executable (100755) or not (100644). Anything else is kept for
// the caller to refuse.
func gitMode(m string) string {
	if len(m) != 6 || !strings.HasPrefix(m, "100") || strings.Trim(m, "01234567") != "" {
		return m
	}
	if (m[3]-'0')&1 != 0 || (m[4]-'0')&1 != 0 || (m[5]-'0')&1 != 0 {
		return "100755"
	}
	return "100644"
}
