package apply

import (
	"bytes"
	"encoding/binary"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unsafe"
)

// Change describes one file's change for [Unified]. An empty OldPath means
// the file is created; an empty NewPath that it is deleted; different paths
// a rename. Paths are root-relative with "/".
type Change struct {
	OldPath, NewPath string
	Old, New         []byte
	OldMode, NewMode fs.FileMode
	// Spans, if set, says where New differs from Old (Outcome.Spans: a
	// patch's changes as its hunks were placed): the diff is written from
	// them, not computed from both texts. Spans that do not hold (a line
	// outside them differs) are ignored.
	Spans []Span
}

// Span is a stretch of lines that a change replaced: lines [Old0, Old1)
// of the old content (0-based) became lines [New0, New1) of the new.
// A list of spans, in order, claims that every line outside them is the
// same in both, in the same order.
type Span struct{ Old0, Old1, New0, New1 int }

// context is the number of unchanged lines around each hunk.
const context = 3

// Stat counts the lines a diff adds and removes; Binary is set when the
// content is binary (named, not diffed).
type Stat struct {
	Added, Removed int
	Binary         bool
}

// Unified renders c as a git-style unified diff with a/ and b/ prefixes and
// /dev/null for a missing side. It returns "" when nothing changed. The
// output applies with `git apply` and `patch -p1`; binary content is only
// named ("Binary files … differ"), as git does without --binary.
func Unified(c Change) string {
	d, _ := Render(c)
	return d
}

// Render is [Unified] that also counts the lines the diff adds and
// removes, as it writes them.
func Render(c Change) (string, Stat) {
	var st Stat
	if c.OldPath == c.NewPath && string(c.Old) == string(c.New) && gitMode(c.OldMode) == gitMode(c.NewMode) {
		return "", st
	}
	var b strings.Builder
	aName, bName := c.OldPath, c.NewPath
	if aName == "" {
		aName = bName
	}
	if bName == "" {
		bName = aName
	}
	if c.OldPath != "" && c.NewPath != "" && (c.OldMode&fs.ModeSymlink != 0) != (c.NewMode&fs.ModeSymlink != 0) {
		// A file replaced by a symbolic link, or a link by a file: git
		// writes the deletion and the creation.
		d1, s1 := Render(Change{OldPath: c.OldPath, Old: c.Old, OldMode: c.OldMode})
		d2, s2 := Render(Change{NewPath: c.NewPath, New: c.New, NewMode: c.NewMode})
		return d1 + d2, Stat{Added: s1.Added + s2.Added, Removed: s1.Removed + s2.Removed, Binary: s1.Binary || s2.Binary}
	}
	b.WriteString("diff --git " + quote("a/"+aName) + " " + quote("b/"+bName) + "\n")
	switch {
	case c.OldPath == "":
		b.WriteString("new file mode " + gitMode(c.NewMode) + "\n")
	case c.NewPath == "":
		b.WriteString("deleted file mode " + gitMode(c.OldMode) + "\n")
	default:
		if gitMode(c.OldMode) != gitMode(c.NewMode) {
			b.WriteString("old mode " + gitMode(c.OldMode) + "\nnew mode " + gitMode(c.NewMode) + "\n")
		}
		if c.OldPath != c.NewPath {
			b.WriteString("rename from " + quote(c.OldPath) + "\nrename to " + quote(c.NewPath) + "\n")
		}
	}
	if string(c.Old) == string(c.New) {
		return b.String(), st
	}
	from, to := "/dev/null", "/dev/null"
	if c.OldPath != "" {
		from = quote("a/" + c.OldPath)
	}
	if c.NewPath != "" {
		to = quote("b/" + c.NewPath)
	}
	if IsBinary(c.Old) || IsBinary(c.New) {
		b.WriteString("Binary files " + from + " and " + to + " differ\n")
		st.Binary = true
		return b.String(), st
	}
	b.WriteString("--- " + from + tabIfSpace(from) + "\n")
	b.WriteString("+++ " + to + tabIfSpace(to) + "\n")
	if (len(c.Old) == 0 || len(c.New) == 0) && !noWholeText {
		// A created or emptied file, or a deleted one: one hunk of
		// every line, written without cutting the text into lines.
		if len(c.Old) == 0 {
			st.Added = writeWhole(&b, c.New, '+')
		} else {
			st.Removed = writeWhole(&b, c.Old, '-')
		}
		return b.String(), st
	}
	// The lines are views of c's bytes, not copies, in slices reused from
	// call to call: they do not outlive this call (the diff is written
	// into b).
	la, lb := linesPool.Get().(*[]string), linesPool.Get().(*[]string)
	defer func() {
		for _, l := range []*[]string{la, lb} {
			clear(*l) // no view of c's bytes stays behind
			if cap(*l) <= 1<<16 {
				linesPool.Put(l)
			}
		}
	}()
	if gs, ok := spanGroups(c.Old, c.New, c.Spans, la, lb); ok {
		// The spans hold: each group of them is diffed and written
		// alone, and no other line is split or compared but by bytes.
		writeGroups(&b, gs, &st)
		return b.String(), st
	}
	oldW, newW, off := window(c.Old, c.New)
	if spans, ok := alignedSpans(oldW, newW, off); ok && !noAlignedSpans {
		// Line for line (a substitution within lines): the lines that
		// differ, found by comparing bytes, are the spans, and only
		// their groups are split into lines; the diff is the one
		// alignedDiff makes of the window's lines.
		if gs, ok := spanGroups(c.Old, c.New, spans, la, lb); ok {
			writeGroups(&b, gs, &st)
			return b.String(), st
		}
	}
	clear(*la) // what spanGroups cut before it declined
	clear(*lb)
	*la = appendLines((*la)[:0], unsafe.String(unsafe.SliceData(oldW), len(oldW)))
	*lb = appendLines((*lb)[:0], unsafe.String(unsafe.SliceData(newW), len(newW)))
	st = writeHunks(&b, *la, *lb, off)
	return b.String(), st
}

var linesPool = sync.Pool{New: func() any { return new([]string) }}

// noWholeText turns writeWhole's path off (tests: its diff must be the
// one the lines give).
var noWholeText bool

// writeWhole writes the one hunk of a change from or to an empty text,
// every line of text added (prefix '+') or removed ('-'), and returns the
// number of lines: what writeHunks writes for it, without cutting text
// into lines first. A module release's new 1.1 MB test file spent most
// of its staging there: a slice of its 42,000 lines, grown by doubling,
// copied, then dropped (bench/README.md, "round 5 (stage5)").
func writeWhole(w *strings.Builder, text []byte, prefix byte) int {
	n := lineCount(text)
	hdr := "@@ -0,0 +" + hunkRange(0, n) + " @@\n"
	if prefix == '-' {
		hdr = "@@ -" + hunkRange(0, n) + " +0,0 @@\n"
	}
	const noNewline = "\n\\ No newline at end of file\n"
	w.Grow(len(hdr) + len(text) + n + len(noNewline))
	w.WriteString(hdr)
	for len(text) > 0 {
		i := bytes.IndexByte(text, '\n') + 1
		w.WriteByte(prefix)
		if i == 0 {
			w.Write(text)
			w.WriteString(noNewline)
			break
		}
		w.Write(text[:i])
		text = text[i:]
	}
	return n
}

// writeGroups writes the hunks of span groups (spanGroups) to b and adds
// their lines to st.
func writeGroups(b *strings.Builder, gs []spanGroup, st *Stat) {
	n := 0
	for _, g := range gs {
		n += hunksSize(g.edits, g.a, g.b)
	}
	b.Grow(n)
	for _, g := range gs {
		d := writeEdits(b, g.a, g.b, g.offA, g.offB, g.edits)
		st.Added, st.Removed = st.Added+d.Added, st.Removed+d.Removed
	}
}

// noAlignedSpans turns alignedSpans' path off (tests: the diff it writes
// must be the one the window's lines give).
var noAlignedSpans bool

// alignedSpans finds, without splitting the window into lines, the lines
// that differ in a diff alignedDiff would make line for line: the windows
// (off lines into their files) have as many lines, and at most one line
// in eight of them differs. Each differing line is a span of one line
// (numbered in the files). ok false: alignedDiff would decline, and the
// window's lines are diffed as before.
func alignedSpans(oldW, newW []byte, off int) (spans []Span, ok bool) {
	n := lineCount(oldW)
	if n != lineCount(newW) {
		return nil, false
	}
	budget := n/8 + 1
	xo, xn, line := 0, 0, 0 // both at the start of line `line` of the windows
	for {
		p := commonPrefix(oldW[xo:], newW[xn:])
		if xo+p == len(oldW) && xn+p == len(newW) {
			return spans, true
		}
		// The line the first difference is on starts at the same
		// offset on both sides: everything before it is common.
		ls := bytes.LastIndexByte(oldW[xo:xo+p], '\n') + 1
		line += bytes.Count(oldW[xo:xo+ls], []byte{'\n'})
		xo, xn = xo+ls, xn+ls
		if budget--; budget < 0 {
			return nil, false
		}
		spans = append(spans, Span{off + line, off + line + 1, off + line, off + line + 1})
		xo, xn, line = lineEnd(oldW, xo), lineEnd(newW, xn), line+1
	}
}

// lineCount is the number of lines of text, a last one without a line
// break included.
func lineCount(text []byte) int {
	n := bytes.Count(text, []byte{'\n'})
	if len(text) > 0 && text[len(text)-1] != '\n' {
		n++
	}
	return n
}

// lineEnd is the offset after the line of text that starts at x (after
// its line break, or the end of text).
func lineEnd(text []byte, x int) int {
	if i := bytes.IndexByte(text[x:], '\n'); i >= 0 {
		return x + i + 1
	}
	return len(text)
}

// appendLines appends the lines of s, each with its "\n", to dst.
func appendLines(dst []string, s string) []string {
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n') + 1
		if i == 0 {
			i = len(s)
		}
		dst = append(dst, s[:i])
		s = s[i:]
	}
	return dst
}

// window cuts from two different texts the lines that can appear in
// their diff: from the context before the first line that differs to the
// context after the last, found by comparing bytes from both ends, not
// by splitting every line. off is the number of lines before the window.
func window(old, new []byte) (oldW, newW []byte, off int) {
	n := commonPrefix(old, new)
	p := bytes.LastIndexByte(old[:n], '\n') + 1 // the first differing line
	s := commonSuffix(old[p:], new[p:])
	oe, ne := len(old)-s, len(new)-s // the common suffix, moved to a line start
	if (oe > 0 && old[oe-1] != '\n') || (ne > 0 && new[ne-1] != '\n') {
		if i := bytes.IndexByte(old[oe:], '\n'); i >= 0 {
			oe, ne = oe+i+1, ne+i+1
		} else {
			oe, ne = len(old), len(new)
		}
	}
	q := p
	for k := 0; k < context && q > 0; k++ {
		q = bytes.LastIndexByte(old[:q-1], '\n') + 1
	}
	for k := 0; k < context && oe < len(old); k++ {
		i := bytes.IndexByte(old[oe:], '\n')
		if i < 0 {
			ne += len(old) - oe
			oe = len(old)
			break
		}
		oe, ne = oe+i+1, ne+i+1
	}
	return old[q:oe], new[q:ne], bytes.Count(old[:q], []byte{'\n'})
}

// equalBlock is the stride of commonPrefix and commonSuffix's first
// pass: bytes.Equal of 64 bytes is one call of the runtime's vector
// compare, against eight word compares (a commit's diffs spent 8% of their
// instructions finding where a 4 KiB file's one-line change ends).
const equalBlock = 64

// commonPrefix is the length of the longest common prefix of a and b,
// compared a block, then eight bytes, at a time.
func commonPrefix(a, b []byte) int {
	m := min(len(a), len(b))
	n := 0
	for n+equalBlock <= m && bytes.Equal(a[n:n+equalBlock], b[n:n+equalBlock]) {
		n += equalBlock
	}
	for n+8 <= m && binary.LittleEndian.Uint64(a[n:]) == binary.LittleEndian.Uint64(b[n:]) {
		n += 8
	}
	for n < m && a[n] == b[n] {
		n++
	}
	return n
}

// commonSuffix is the length of the longest common suffix of a and b.
func commonSuffix(a, b []byte) int {
	m := min(len(a), len(b))
	s := 0
	for s+equalBlock <= m && bytes.Equal(a[len(a)-s-equalBlock:len(a)-s], b[len(b)-s-equalBlock:len(b)-s]) {
		s += equalBlock
	}
	for s+8 <= m && binary.LittleEndian.Uint64(a[len(a)-s-8:]) == binary.LittleEndian.Uint64(b[len(b)-s-8:]) {
		s += 8
	}
	for s < m && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	return s
}

func gitMode(m fs.FileMode) string {
	if m&fs.ModeSymlink != 0 {
		return "120000"
	}
	if m&0o111 != 0 {
		return "100755"
	}
	return "100644"
}

// tabIfSpace ends a ---/+++ name that holds a space with a tab, so patch
// does not cut the name at the space (as diff -u and git do).
func tabIfSpace(name string) string {
	if strings.ContainsRune(name, ' ') && name[0] != '"' {
		return "\t"
	}
	return ""
}

// quote C-quotes a path the way git does when it holds a quote, a backslash
// or a control character; other paths are returned as they are.
func quote(p string) string {
	needs := false
	for i := 0; i < len(p); i++ {
		if c := p[i]; c < 0x20 || c == '"' || c == '\\' || c == 0x7f {
			needs = true
			break
		}
	}
	if !needs {
		return p
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < 0x20 || c == 0x7f {
				b.WriteString("\\" + strconv.FormatInt(int64(c)+0o1000, 8)[1:])
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// edit replaces a[A0:A1] with b[B0:B1].
type edit struct{ A0, A1, B0, B1 int }

// writeHunks writes the hunks turning a into b, which are lines off+1
// and on of their files.
func writeHunks(w *strings.Builder, a, b []string, off int) (st Stat) {
	return writeEdits(w, a, b, off, off, lineDiff(a, b))
}

// writeEdits writes the hunks of edits, which turn a into b: lines offA+1
// and on of the old file, offB+1 and on of the new.
func writeEdits(w *strings.Builder, a, b []string, offA, offB int, edits []edit) (st Stat) {
	for _, e := range edits {
		st.Removed += e.A1 - e.A0
		st.Added += e.B1 - e.B0
	}
	// The diff's size, known before it is written: the builder grows
	// once, not by doubling through copies of a large file's diff.
	w.Grow(hunksSize(edits, a, b))
	for i := 0; i < len(edits); {
		j := i
		for j+1 < len(edits) && edits[j+1].A0-edits[j].A1 <= 2*context {
			j++
		}
		first, last := edits[i], edits[j]
		a0 := max(0, first.A0-context)
		a1 := min(len(a), last.A1+context)
		b0 := first.B0 - (first.A0 - a0)
		b1 := last.B1 + (a1 - last.A1)
		w.WriteString("@@ -" + hunkRange(offA+a0, a1-a0) + " +" + hunkRange(offB+b0, b1-b0) + " @@\n")
		pos := a0
		for _, e := range edits[i : j+1] {
			writeLines(w, ' ', a[pos:e.A0])
			writeLines(w, '-', a[e.A0:e.A1])
			writeLines(w, '+', b[e.B0:e.B1])
			pos = e.A1
		}
		writeLines(w, ' ', a[pos:a1])
		i = j + 1
	}
	return st
}

// hunksSize is about what writeHunks writes for edits (exactly, but for
// the hunk headers' numbers and the missing-newline markers, which it
// allows for generously).
func hunksSize(edits []edit, a, b []string) int {
	n := 0
	size := func(ls []string) {
		for _, l := range ls {
			n += len(l) + 1
		}
	}
	for i := 0; i < len(edits); {
		j := i
		for j+1 < len(edits) && edits[j+1].A0-edits[j].A1 <= 2*context {
			j++
		}
		first, last := edits[i], edits[j]
		a0 := max(0, first.A0-context)
		a1 := min(len(a), last.A1+context)
		n += 64 // the header, and a missing newline's marker
		pos := a0
		for _, e := range edits[i : j+1] {
			size(a[pos:e.A0])
			size(a[e.A0:e.A1])
			size(b[e.B0:e.B1])
			pos = e.A1
		}
		size(a[pos:a1])
		i = j + 1
	}
	return n
}

// hunkRange formats a hunk side: a side with no lines names the line before
// it ("0,0" for an empty file), which is what gotextdiff gets wrong.
func hunkRange(start, count int) string {
	switch count {
	case 0:
		return strconv.Itoa(start) + ",0"
	case 1:
		return strconv.Itoa(start + 1)
	}
	return strconv.Itoa(start+1) + "," + strconv.Itoa(count)
}

func writeLines(w *strings.Builder, prefix byte, lines []string) {
	for _, l := range lines {
		w.WriteByte(prefix)
		w.WriteString(l)
		if !strings.HasSuffix(l, "\n") {
			w.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

// spanGroup is a run of spans (Change.Spans) near enough to share
// context: lines offA+1 and on of the old text (a), offB+1 and on of the
// new (b),
// from the context before its first span to the context after its last,
// and the edits of its spans.
type spanGroup struct {
	a, b       []string
	offA, offB int
	edits      []edit
}

// spanGroups is the diff of a change written from its spans, when they
// hold: the lines before, between and after them are the same in both
// texts (compared as bytes, lines found by counting line breaks, outside
// the groups; only the groups' own lines are split). Each span is one
// edit, less the lines it starts or ends with on both sides: a patch's
// hunk costs its own lines, not the file's, and is not diffed again — a
// git diff's hunks come out as git wrote them (where an added block could
// stand in two places, or a table rewritten whole that Myers would
// search through), with the full context of each group. ok false: no
// spans, or spans that do not hold.
//
// The groups' lines are cut into *la and *lb (reused buffers; their
// lengths on return are what the groups hold).
func spanGroups(old, new []byte, spans []Span, la, lb *[]string) (gs []spanGroup, ok bool) {
	if len(spans) == 0 {
		return nil, false
	}
	d, end := 0, 0
	for _, s := range spans {
		if s.Old0 < end || s.Old0 > s.Old1 || s.New0 > s.New1 || s.New0-s.Old0 != d {
			return nil, false // out of order, or not aligned with the spans before
		}
		d += (s.New1 - s.New0) - (s.Old1 - s.Old0)
		end = s.Old1
	}
	// Walk both texts from the top, line numbers and byte offsets kept.
	var lo, xo, ln, xn int // old line and byte, new line and byte
	*la, *lb = (*la)[:0], (*lb)[:0]
	skipOld := func(to int) { xo, lo = skipLines(old, xo, to-lo), to }
	skipNew := func(to int) { xn, ln = skipLines(new, xn, to-ln), to }
	for i := 0; i < len(spans); {
		// The group: spans whose contexts touch.
		j := i
		for j+1 < len(spans) && spans[j+1].Old0-spans[j].Old1 <= 2*context {
			j++
		}
		a0 := max(0, spans[i].Old0-context)
		b0 := a0 + spans[i].New0 - spans[i].Old0
		if a0 < lo || b0 < ln {
			return nil, false
		}
		// The lines since the last group are the same in both.
		po, pn := xo, xn
		skipOld(a0)
		skipNew(b0)
		if xo-po != xn-pn || !bytes.Equal(old[po:xo], new[pn:xn]) {
			return nil, false
		}
		a1 := spans[j].Old1 + context
		b1 := a1 + spans[j].New1 - spans[j].Old1
		so, sn := xo, xn
		skipOld(a1)
		skipNew(b1)
		g := spanGroup{offA: a0, offB: b0}
		// The groups' lines share two slices, grown as they go (a
		// group keeps its view of the array it was cut from).
		ka, kb := len(*la), len(*lb)
		*la = appendLines(*la, unsafe.String(unsafe.SliceData(old[so:xo]), xo-so))
		*lb = appendLines(*lb, unsafe.String(unsafe.SliceData(new[sn:xn]), xn-sn))
		g.a, g.b = (*la)[ka:len(*la):len(*la)], (*lb)[kb:len(*lb):len(*lb)]
		// Within the group: the lines between its spans are the same.
		pa, pb := 0, 0
		for _, s := range spans[i : j+1] {
			e := edit{s.Old0 - a0, min(s.Old1-a0, len(g.a)), s.New0 - b0, min(s.New1-b0, len(g.b))}
			if e.A0 > len(g.a) || e.B0 > len(g.b) || !sameLines(g.a[pa:e.A0], g.b[pb:e.B0]) {
				return nil, false
			}
			pa, pb = e.A1, e.B1
			// The span's lines are its edit, less the lines it starts
			// or ends with on both sides (a patch that removes a line
			// and adds it back); a span is not diffed again.
			for e.A0 < e.A1 && e.B0 < e.B1 && g.a[e.A0] == g.b[e.B0] {
				e.A0, e.B0 = e.A0+1, e.B0+1
			}
			for e.A0 < e.A1 && e.B0 < e.B1 && g.a[e.A1-1] == g.b[e.B1-1] {
				e.A1, e.B1 = e.A1-1, e.B1-1
			}
			switch k := len(g.edits); {
			case e.A0 == e.A1 && e.B0 == e.B1:
			case k > 0 && g.edits[k-1].A1 == e.A0 && g.edits[k-1].B1 == e.B0:
				// Spans that abut: one edit.
				g.edits[k-1].A1, g.edits[k-1].B1 = e.A1, e.B1
			default:
				g.edits = append(g.edits, e)
			}
		}
		if !sameLines(g.a[pa:], g.b[pb:]) {
			return nil, false
		}
		gs = append(gs, g)
		i = j + 1
	}
	// And the lines after the last group.
	if len(old)-xo != len(new)-xn || !bytes.Equal(old[xo:], new[xn:]) {
		return nil, false
	}
	return gs, true
}

// sameLines reports whether a and b are the same lines.
func sameLines(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// skipLines returns the offset n lines after offset x of text (after the
// n-th line break from there), or the end of text when it has fewer.
// Line breaks are counted a block at a time (bytes.Count), not found one
// by one.
func skipLines(text []byte, x, n int) int {
	const block = 512
	for n > 0 && x < len(text) {
		end := min(x+block, len(text))
		if c := bytes.Count(text[x:end], []byte{'\n'}); c < n {
			n -= c
			x = end
			continue
		}
		for ; n > 0; n-- {
			x += bytes.IndexByte(text[x:], '\n') + 1
		}
	}
	return x
}

// myersLimit bounds the lines handed to the Myers diff (myers.go), whose
// memory grows with D²: 2,000 lines cost at most ~32 MB.
const myersLimit = 2000

// lineDiff returns the edits turning a into b, in order.
func lineDiff(a, b []string) []edit {
	if out, ok := alignedDiff(a, b); ok {
		return out
	}
	var out []edit
	diffRange(a, b, 0, len(a), 0, len(b), &out)
	return out
}

// alignedDiff is the diff of two texts with as many lines, of which few
// differ, line by line: what a substitution within lines (sed, a
// pattern_replace) makes. It pairs line i with line i, as the patience
// diff would for such texts, without indexing every line. It declines
// (false) when the texts differ in length or in more than one line in
// eight: a moved or inserted line shifts everything after it, and that
// needs the real diff.
func alignedDiff(a, b []string) ([]edit, bool) {
	if len(a) != len(b) {
		return nil, false
	}
	var out []edit
	budget := len(a)/8 + 1
	for i := 0; i < len(a); i++ {
		if a[i] == b[i] {
			continue
		}
		if budget--; budget < 0 {
			return nil, false
		}
		if k := len(out); k > 0 && out[k-1].A1 == i {
			out[k-1].A1, out[k-1].B1 = i+1, i+1
			continue
		}
		out = append(out, edit{i, i + 1, i, i + 1})
	}
	return out, true
}

func diffRange(a, b []string, a0, a1, b0, b1 int, out *[]edit) {
	for a0 < a1 && b0 < b1 && a[a0] == b[b0] {
		a0, b0 = a0+1, b0+1
	}
	for a0 < a1 && b0 < b1 && a[a1-1] == b[b1-1] {
		a1, b1 = a1-1, b1-1
	}
	n := (a1 - a0) + (b1 - b0)
	switch {
	case a0 == a1 && b0 == b1:
		return
	case a0 == a1 || b0 == b1 || (a1-a0 == 1 && b1-b0 == 1):
		*out = append(*out, edit{a0, a1, b0, b1})
		return
	case n <= 8:
		myersRange(a, b, a0, a1, b0, b1, out)
		return
	}
	// Patience first: lines unique on both sides anchor the diff (most
	// source lines are), which leaves small gaps and reads well. Myers
	// handles what has no anchors, up to its memory limit.
	anchors := uniqueAnchors(a, b, a0, a1, b0, b1)
	if len(anchors) == 0 {
		if n <= myersLimit {
			myersRange(a, b, a0, a1, b0, b1, out)
		} else {
			*out = append(*out, edit{a0, a1, b0, b1})
		}
		return
	}
	pa, pb := a0, b0
	for _, m := range anchors {
		diffRange(a, b, pa, m[0], pb, m[1], out)
		pa, pb = m[0]+1, m[1]+1
	}
	diffRange(a, b, pa, a1, pb, b1, out)
}

// uniqueAnchors returns pairs (i, j) of lines that occur exactly once in
// a[a0:a1] and once in b[b0:b1], equal, forming the longest sequence
// increasing in both: the anchors of a patience diff. Its cost is
// O(n log n), so big files diff in bounded memory.
func uniqueAnchors(a, b []string, a0, a1, b0, b1 int) [][2]int {
	type seen struct{ ca, cb, ib int32 }
	slots := make([]seen, 0, a1-a0)
	m := make(map[string]int32, a1-a0)
	for i := a0; i < a1; i++ {
		k, ok := m[a[i]]
		if !ok {
			k = int32(len(slots))
			slots = append(slots, seen{})
			m[a[i]] = k
		}
		slots[k].ca++
	}
	for j := b0; j < b1; j++ {
		if k, ok := m[b[j]]; ok {
			slots[k].cb++
			slots[k].ib = int32(j)
		}
	}
	var pairs [][2]int
	for i := a0; i < a1; i++ {
		if s := slots[m[a[i]]]; s.ca == 1 && s.cb == 1 {
			pairs = append(pairs, [2]int{i, int(s.ib)})
		}
	}
	// Longest increasing subsequence of the b indexes (patience sorting).
	var tails []int // index into pairs of the smallest tail of each length
	prev := make([]int, len(pairs))
	for k, p := range pairs {
		n := sort.Search(len(tails), func(x int) bool { return pairs[tails[x]][1] >= p[1] })
		if n > 0 {
			prev[k] = tails[n-1]
		} else {
			prev[k] = -1
		}
		if n == len(tails) {
			tails = append(tails, k)
		} else {
			tails[n] = k
		}
	}
	if len(tails) == 0 {
		return nil
	}
	seq := make([][2]int, len(tails))
	for k, x := len(tails)-1, tails[len(tails)-1]; k >= 0; k, x = k-1, prev[x] {
		seq[k] = pairs[x]
	}
	return seq
}

// Plain renders a `diff -u` style diff of two texts under the given labels,
// without git's headers; "" when they are equal.
func Plain(oldLabel, newLabel string, old, new []byte) string {
	if string(old) == string(new) {
		return ""
	}
	var b strings.Builder
	b.WriteString("--- " + oldLabel + tabIfSpace(oldLabel) + "\n")
	b.WriteString("+++ " + newLabel + tabIfSpace(newLabel) + "\n")
	writeHunks(&b, splitLines(string(old)), splitLines(string(new)), 0)
	return b.String()
}
