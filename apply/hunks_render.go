package apply

import (
	"slices"
	"strings"
	"unsafe"

	"github.com/txedit/txedit/plan"
)

// render returns m's text with the placed hunks applied (those neither
// already applied nor pending). Lines outside the hunks are copied byte for
// byte; a hunk's context lines (the lines its Old and New share) keep the
// file's bytes, so a fuzzy match leaves them as they were; added lines end
// as the patch says (an exact patch) or as the lines around them
// (addedEnds).
func (m *hunkMatcher) render(st style, ps []*placed) ([]byte, []Span) {
	t := m.t
	todo := make([]*placed, 0, len(ps))
	for _, p := range ps {
		if !p.already {
			todo = append(todo, p)
		}
	}
	// Appends at the end of the file may precede later hunks in patch
	// order: apply by position, keeping patch order at equal positions.
	slices.SortStableFunc(todo, func(a, b *placed) int { return a.pos - b.pos })
	// out's raws are the untouched stretches, each one string where it
	// can be (copyLines), and the regions' lines; lines counts the lines
	// of out, for the spans.
	out := &hunkText{raws: make([]string, 0, 2*len(todo)+8), exact: t.exact}
	spans := make([]Span, 0, len(todo))
	cur, lines := 0, 0
	var atEOF *placed
	for _, p := range todo {
		if p.pos < cur {
			continue // unreachable: hunks are placed in order
		}
		out.raws = copyLines(out.raws, t.raws[cur:p.pos], !t.spliced)
		lines += p.pos - cur
		region, pair := m.region(p, st)
		spans = appendRuns(spans, p.pos, lines, p.end-p.pos, pair)
		out.raws = append(out.raws, region...)
		lines += len(region)
		cur = p.end
		if p.end == t.n() {
			atEOF = p
		}
	}
	out.raws = copyLines(out.raws, t.raws[cur:], !t.spliced)
	closeLines(out, 0, len(out.raws), st)
	if atEOF != nil {
		endFile(out, m.wantFinalNL(atEOF.h), st)
	}
	return out.bytes(), spans
}

// copyLines appends the untouched lines raws to out: as one string when
// they are views of one body, in order (oneBody: newHunkText's lines, no
// splice since), so that rendering a large file with a few hunks copies
// its bytes once instead of handling each line three times; line by line
// otherwise. Every line but a body's last ends with "\n", and a last line
// without one stays an element of its own, so closeLines and endFile,
// which look at each element's line break and the one before it, do as
// they would line by line: a stretch's line break is its last line's.
func copyLines(out, raws []string, oneBody bool) []string {
	n := len(raws)
	if n > 0 && !strings.HasSuffix(raws[n-1], "\n") {
		return append(copyLines(out, raws[:n-1], oneBody), raws[n-1])
	}
	if n < 2 || !oneBody {
		return append(out, raws...)
	}
	// Adjacent views of one body: the stretch runs from the first line's
	// start to the last line's end.
	start := unsafe.StringData(raws[0])
	size := int(uintptr(unsafe.Pointer(unsafe.StringData(raws[n-1])))-uintptr(unsafe.Pointer(start))) + len(raws[n-1])
	return append(out, unsafe.String(start, size))
}

// appendRuns appends to spans the runs of a placed hunk's region that
// change, by its pairing (pair[j]: the old line new line j keeps, or -1):
// the old lines between two kept ones became the new lines between them.
// The region starts at old line pos and new line at, and has n old lines.
func appendRuns(spans []Span, pos, at, n int, pair []int) []Span {
	i, j0 := 0, 0 // the next old line, the first new line of the run
	for j := 0; j <= len(pair); j++ {
		k := n // the old line kept next (the region's end, after the last)
		if j < len(pair) {
			if k = pair[j]; k < 0 {
				continue // an added line: part of the run
			}
		}
		if k > i || j > j0 {
			spans = append(spans, Span{Old0: pos + i, Old1: pos + k, New0: at + j0, New1: at + j})
		}
		i, j0 = k+1, j+1
	}
	return spans
}

// region returns the lines that replace p's region: the hunk's new lines,
// context lines as the file has them, added lines with their line breaks
// (an exact patch's lines carry their "\r": they end with "\n"; others
// end as addedEnds says); and the pairing it went by (pair[j]: the old
// line new line j keeps, or -1).
func (m *hunkMatcher) region(p *placed, st style) (out []string, pair []int) {
	pair = p.pairing()
	indent := noIndent
	if p.rung >= rungTrim {
		indent = indentShift(m.t.lines[p.pos:p.end], p.old, p.new, m.t.lines)
	}
	var ends []string
	if !m.t.exact {
		ends = m.addedEnds(p, pair, st)
	}
	out = make([]string, len(p.new))
	for j, l := range p.new {
		switch i := pair[j]; {
		case i >= 0:
			out[j] = m.t.raws[p.pos+i]
		case m.t.exact:
			out[j] = indent(l) + "\n"
		default:
			out[j] = indent(l) + ends[j]
		}
	}
	return out, pair
}

// addedEnds returns the line break each added line of p (pair[j] < 0) is
// written with when the patch carries no line ends of its own (an LF-only
// patch; carriesEnds), following the lines around it in the file
// (docs/patch-formats.md, "Line ends"):
//   - a line that replaces removed lines ends as the removed line at its
//     place in the change does (the last one, for lines beyond them);
//   - otherwise, as the file lines before and after the added run end when
//     they agree, or as the one of them that has a line break;
//   - where they disagree (one CRLF, one LF), as the patch wrote it: LF;
//   - with neither (an empty file), the file's convention.
//
// In a file whose line breaks are all CRLF every added line is CRLF, in an
// LF file LF; only a file with both needs the neighbours.
func (m *hunkMatcher) addedEnds(p *placed, pair []int, st style) []string {
	t := m.t
	ends := make([]string, len(pair))
	prev := -1 // the old index of the last kept line before the run
	for j := 0; j < len(pair); {
		if pair[j] >= 0 {
			prev = pair[j]
			j++
			continue
		}
		k := j
		for k < len(pair) && pair[k] < 0 {
			k++
		}
		next := len(p.old) // the old index of the kept line after the run
		if k < len(pair) {
			next = pair[k]
		}
		removed := next - prev - 1
		for r := j; r < k; r++ {
			e := ""
			if removed > 0 {
				e = t.ending(p.pos + prev + 1 + min(r-j, removed-1))
			}
			if e == "" {
				e = t.around(p.pos+prev, p.pos+next, st)
			}
			ends[r] = e
		}
		prev, j = next, k
	}
	return ends
}

// around returns the line break for a line added between lines a and b
// of t (either may be out of range): theirs when they agree or only one
// has one, LF when they disagree, the file's convention when neither has.
func (t *hunkText) around(a, b int, st style) string {
	ea, eb := t.ending(a), t.ending(b)
	switch {
	case ea != "" && eb != "" && ea != eb:
		return "\n"
	case ea != "":
		return ea
	case eb != "":
		return eb
	}
	return st.nl()
}

// wantFinalNL says whether the file must end with a line break after a
// hunk that reaches its end: as the hunk's new side says when it changes
// the final newline, else as the file did.
func (m *hunkMatcher) wantFinalNL(h *plan.Hunk) bool {
	if h.OldNoEOL != h.NewNoEOL {
		return !h.NewNoEOL
	}
	return m.t.finalNL()
}

// closeLines gives a line break to every line of t.raws[from:to] but the
// file's last that lacks one (the old last line, when lines now follow it).
func closeLines(t *hunkText, from, to int, st style) {
	raws := t.raws
	for i := max(from, 0); i < min(to, len(raws)-1); i++ {
		if !strings.HasSuffix(raws[i], "\n") {
			raws[i] += t.breakAfter(i, st)
		}
	}
}

// breakAfter is the line break line i gains when it has none: "\n" in an
// exact text (a "\r" is the line's own), else the line before's, or the
// file's convention.
func (t *hunkText) breakAfter(i int, st style) string {
	if t.exact {
		return "\n"
	}
	if e := t.ending(i - 1); e != "" {
		return e
	}
	return st.nl()
}

// endFile makes the last line end with a line break or not. Removing it
// removes "\r\n" unless the text is exact (there a "\r" is the line's).
func endFile(t *hunkText, want bool, st style) {
	raws := t.raws
	if len(raws) == 0 {
		return
	}
	last := &raws[len(raws)-1]
	switch has := strings.HasSuffix(*last, "\n"); {
	case want && !has:
		*last += t.breakAfter(len(raws)-1, st)
	case !want && has:
		*last = strings.TrimSuffix(*last, "\n")
		if !t.exact {
			*last = strings.TrimSuffix(*last, "\r")
		}
	}
}

// pairing pairs p's new lines with its old ones (pair[j] is the old index
// of new line j, or -1 for an added line): as the patch's markers say when
// it has them, which tells a kept line from a deleted one equal to it in
// the patch, else by alignLines.
func (p *placed) pairing() []int {
	marks := p.h.Marks
	nOld, nNew := 0, 0
	for i := 0; i < len(marks); i++ {
		switch marks[i] {
		case ' ':
			nOld, nNew = nOld+1, nNew+1
		case '-':
			nOld++
		case '+':
			nNew++
		default:
			nOld = -1
		}
	}
	if marks == "" || nOld != len(p.old) || nNew != len(p.new) {
		return alignLines(p.old, p.new)
	}
	pair := make([]int, len(p.new))
	i, j := 0, 0
	for k := 0; k < len(marks); k++ {
		switch marks[k] {
		case ' ':
			pair[j] = i
			i, j = i+1, j+1
		case '-':
			i++
		case '+':
			pair[j] = -1
			j++
		}
	}
	return pair
}

// alignLines pairs equal lines of a and b in order (a longest common
// subsequence): pair[j] is the index in a of b[j]'s partner, or -1 for a
// line of b that a does not have. Past a bounded size the middle of the two
// (after their common prefix and suffix) is left unpaired.
func alignLines(a, b []string) []int {
	pair := make([]int, len(b))
	for j := range pair {
		pair[j] = -1
	}
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		pair[i] = i
		i++
	}
	ea, eb := len(a), len(b)
	for ea > i && eb > i && a[ea-1] == b[eb-1] {
		ea, eb = ea-1, eb-1
		pair[eb] = ea
	}
	ma, mb := ea-i, eb-i
	if ma == 0 || mb == 0 || ma*mb > 1<<18 {
		return pair
	}
	// lcs[x][y] is the LCS length of a[i+x:ea] and b[i+y:eb].
	w := mb + 1
	lcs := make([]int32, (ma+1)*w)
	for x := ma - 1; x >= 0; x-- {
		for y := mb - 1; y >= 0; y-- {
			switch {
			case a[i+x] == b[i+y]:
				lcs[x*w+y] = lcs[(x+1)*w+y+1] + 1
			case lcs[(x+1)*w+y] >= lcs[x*w+y+1]:
				lcs[x*w+y] = lcs[(x+1)*w+y]
			default:
				lcs[x*w+y] = lcs[x*w+y+1]
			}
		}
	}
	for x, y := 0, 0; x < ma && y < mb; {
		switch {
		case a[i+x] == b[i+y]:
			pair[i+y] = i + x
			x, y = x+1, y+1
		case lcs[(x+1)*w+y] >= lcs[x*w+y+1]:
			x++
		default:
			y++
		}
	}
	return pair
}

func noIndent(s string) string { return s }

// indentShift returns how to re-indent added lines when a hunk matched
// with leading whitespace ignored. Each non-blank old line's indentation
// maps to its file line's; when that mapping is consistent, an added
// line's indentation is rewritten through its longest mapped prefix (so a
// patch indented with spaces for a tab-indented file, or uniformly too
// little, lands indented as the file is, as Aider's leading-whitespace
// fallback does), and what is left of it beyond that prefix is converted
// unit by unit: one level of the patch's indentation (four spaces, say)
// becomes one of the file's (a tab), so a line deeper than every old line
// lands at the right depth too. A line shallower than every mapped
// indentation loses the file's units for the levels it lacks. When the
// mapping is inconsistent, added lines are kept as written. patch is the
// hunk's new lines and text the whole file, for the units when the old
// lines show only one level.
func indentShift(file, old, patch, text []string) func(string) string {
	to := map[string]string{}
	for i, o := range old {
		if strings.TrimSpace(o) == "" {
			continue
		}
		ol, fl := leading(o), leading(file[i])
		if prev, ok := to[ol]; ok && prev != fl {
			return noIndent
		}
		to[ol] = fl
	}
	same := true
	for k, v := range to {
		same = same && k == v
	}
	if same {
		return noIndent
	}
	ou, fu := indentUnits(to, old, patch, text)
	keys := make([]string, 0, len(to))
	for k := range to {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return len(a) - len(b) })
	return func(s string) string {
		if strings.TrimSpace(s) == "" {
			return s
		}
		lead := leading(s)
		for k := len(lead); k >= 0; k-- {
			if v, ok := to[lead[:k]]; ok {
				return v + convertIndent(lead[k:], ou, fu) + s[len(lead):]
			}
		}
		// Shallower than every mapped indentation: take the nearest
		// deeper one and drop the file's units for the levels between.
		for _, k := range keys {
			if rest, ok := strings.CutPrefix(k, lead); ok && ou != "" {
				if c, left := countUnits(rest, ou); left == "" {
					if v, ok := strings.CutSuffix(to[k], strings.Repeat(fu, c)); ok {
						return v + s[len(lead):]
					}
				}
				break
			}
		}
		return s
	}
}

// convertIndent turns indentation r, in the patch's units (ou), into the
// file's (fu); what is not a whole unit is kept.
func convertIndent(r, ou, fu string) string {
	if r == "" || ou == "" {
		return r
	}
	c, left := countUnits(r, ou)
	return strings.Repeat(fu, c) + left
}

// countUnits counts the leading copies of unit in r, and returns the rest.
func countUnits(r, unit string) (int, string) {
	c := 0
	for unit != "" && strings.HasPrefix(r, unit) {
		r, c = r[len(unit):], c+1
	}
	return c, r
}

// indentUnits finds one level of indentation in the patch (ou) and in the
// file (fu): from two mapped indentations one inside the other (the
// smallest step), else from the patch's own lines and the file's.
func indentUnits(to map[string]string, old, patch, text []string) (ou, fu string) {
	best := -1
	for k1, v1 := range to {
		for k2, v2 := range to {
			d, ok1 := strings.CutPrefix(k2, k1)
			e, ok2 := strings.CutPrefix(v2, v1)
			if !ok1 || !ok2 || d == "" || e == "" || best >= 0 && len(d) >= best {
				continue
			}
			if u, f, ok := commonUnit(d, e); ok {
				ou, fu, best = u, f, len(d)
			}
		}
	}
	if best >= 0 {
		return ou, fu
	}
	if ou, fu = indentStep(append(slices.Clone(old), patch...)), indentStep(text); ou != "" && fu != "" {
		return ou, fu
	}
	// One mapping alone: its two indentations as the same number of levels.
	for k, v := range to {
		if u, f, ok := commonUnit(k, v); ok && k != "" && v != "" {
			return u, f
		}
	}
	return "", ""
}

// commonUnit splits d and e into the same number c of repeated units, c
// as large as can be.
func commonUnit(d, e string) (string, string, bool) {
	for c := min(len(d), len(e)); c >= 1; c-- {
		if len(d)%c != 0 || len(e)%c != 0 {
			continue
		}
		u, f := d[:len(d)/c], e[:len(e)/c]
		if strings.Repeat(u, c) == d && strings.Repeat(f, c) == e {
			return u, f, true
		}
	}
	return "", "", false
}

// indentStep returns the commonest step of indentation between one
// non-blank line and the next deeper one (at most the first 20,000 lines):
// a tab, four spaces, ….
func indentStep(lines []string) string {
	counts := map[string]int{}
	prev, first := "", true
	for _, l := range lines[:min(len(lines), 20000)] {
		if strings.TrimSpace(l) == "" {
			continue
		}
		lead := leading(l)
		if d, ok := strings.CutPrefix(lead, prev); ok && !first && d != "" && len(d) <= 8 {
			counts[d]++
		}
		prev, first = lead, false
	}
	step, n := "", 0
	for d, c := range counts {
		if c > n || c == n && d < step {
			step, n = d, c
		}
	}
	return step
}

func leading(s string) string {
	return s[:len(s)-len(strings.TrimLeft(s, " \t"))]
}

// Reindent returns a replacement's new lines as the patch formats write a
// hunk whose old lines matched with leading whitespace ignored (the
// whitespace rung): matched is the file's lines where old matched, all the
// whole file (for its unit of indentation). A new line paired with an old
// one (the lines they share, in order) is the file's line; every other is
// re-indented from old's indentation to the file's (indentShift), so a
// block written two spaces deep for a four-space file lands four deep,
// deeper lines too.
func Reindent(matched, old, new, all []string) []string {
	indent := indentShift(matched, old, new, all)
	pair := alignLines(old, new)
	out := make([]string, len(new))
	for j, l := range new {
		if i := pair[j]; i >= 0 {
			out[j] = matched[i]
		} else {
			out[j] = indent(l)
		}
	}
	return out
}
