package apply

import (
	"slices"
	"strings"

	"github.com/txedit/txedit/plan"
)

// render returns m's text with the placed hunks applied (those neither
// already applied nor pending). Lines outside the hunks are copied byte for
// byte; a hunk's context lines (the lines its Old and New share) keep the
// file's bytes, so a fuzzy match leaves them as they were; added lines take
// the file's line ending.
func (m *hunkMatcher) render(st style, ps []*placed) []byte {
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
	out := &hunkText{raws: make([]string, 0, t.n()+8)}
	cur := 0
	var atEOF *placed
	for _, p := range todo {
		if p.pos < cur {
			continue // unreachable: hunks are placed in order
		}
		out.raws = append(out.raws, t.raws[cur:p.pos]...)
		region, _ := m.region(p, st.nl())
		out.raws = append(out.raws, region...)
		cur = p.end
		if p.end == t.n() {
			atEOF = p
		}
	}
	out.raws = append(out.raws, t.raws[cur:]...)
	closeLines(out.raws, 0, len(out.raws), st.nl())
	if atEOF != nil {
		endFile(out.raws, m.wantFinalNL(atEOF.h), st)
	}
	return out.bytes()
}

// region returns the lines that replace p's region: the hunk's new lines,
// context lines as the file has them, added lines ending with nl; and the
// pairing it went by (pair[j]: the old line new line j keeps, or -1).
func (m *hunkMatcher) region(p *placed, nl string) (out []string, pair []int) {
	pair = p.pairing()
	indent := noIndent
	if p.rung >= rungTrim {
		indent = indentShift(m.t.lines[p.pos:p.end], p.old, p.new, m.t.lines)
	}
	out = make([]string, len(p.new))
	for j, l := range p.new {
		if i := pair[j]; i >= 0 {
			out[j] = m.t.raws[p.pos+i]
		} else {
			out[j] = indent(l) + nl
		}
	}
	return out, pair
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

// closeLines gives a line break to every line of raws[from:to] but the
// file's last that lacks one (the old last line, when lines now follow it).
func closeLines(raws []string, from, to int, nl string) {
	for i := max(from, 0); i < min(to, len(raws)-1); i++ {
		if !strings.HasSuffix(raws[i], "\n") {
			raws[i] += nl
		}
	}
}

// endFile makes the last line end with a line break or not.
func endFile(raws []string, want bool, st style) {
	if len(raws) == 0 {
		return
	}
	last := &raws[len(raws)-1]
	switch has := strings.HasSuffix(*last, "\n"); {
	case want && !has:
		*last += st.nl()
	case !want && has:
		*last = strings.TrimSuffix(*last, "\n")
		if st.crlf {
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
