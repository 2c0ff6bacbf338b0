package apply

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/txedit/txedit/plan"
)

// what names the lines being looked for, as the agent wrote them.
func (m *hunkMatcher) what() string {
	if m.blocks {
		return "the SEARCH text"
	}
	return "the hunk's old lines"
}

var rungNote = [rungCount]string{"", " (ignoring trailing whitespace)", " (ignoring indentation)", " (ignoring indentation and Unicode punctuation)"}

// ambiguous reports a pattern that matched several places.
func (m *hunkMatcher) ambiguous(k int, h *plan.Hunk, pat *pattern, cands []int, r int, ends []int) *plan.Error {
	places := make([]string, 0, len(cands))
	for i, c := range cands {
		if i == maxCands {
			places = append(places, "…")
			break
		}
		places = append(places, spanText(c+1, c+len(pat.lines)))
	}
	count := fmt.Sprint(len(cands))
	if len(cands) > maxCands {
		count = fmt.Sprintf("more than %d", maxCands)
	}
	var fix string
	switch {
	case m.blocks:
		fix = "add surrounding lines to SEARCH so it matches once"
	case ends != nil:
		fix = fmt.Sprintf("the @@ lines %s occur %d times and lead to different places: add an @@ line for the enclosing class or function (@@ lines may be stacked)", quoteAnchors(h.Anchors), len(ends))
	case h.Line > 0:
		fix = fmt.Sprintf("the patch says line %d, where they do not match; add context lines so they match once", h.Line)
	default:
		fix = "add context lines, or an @@ line naming the enclosing function or class, so they match once"
	}
	return m.fail(k, plan.CodeAmbiguous, "%s match %s places%s: %s; %s", m.what(), count, rungNote[r], strings.Join(places, ", "), fix)
}

// notFound reports a pattern that matched nowhere. newCands are the places
// where the hunk's new lines stand, if several; note (a phrase starting
// with "; ") says why new lines found once are no proof of a retry.
func (m *hunkMatcher) notFound(k int, h *plan.Hunk, pat *pattern, ends []int, start int, newCands []int, note string) *plan.Error {
	var b strings.Builder
	what := m.what()
	if len(h.New) == 0 {
		what = "the lines to delete"
	}
	fmt.Fprintf(&b, "%s (first: %q) are not in the file", what, clipText(firstNonBlank(pat.lines), 80))
	if m.blocks {
		b.Reset()
		fmt.Fprintf(&b, "%s (first line: %q) is not in the file", m.what(), clipText(firstNonBlank(pat.lines), 80))
	}
	from := start
	if ends != nil {
		from = max(start, ends[0])
		fmt.Fprintf(&b, " after the @@ line %q (line %d)", clipText(h.Anchors[len(h.Anchors)-1], 80), ends[0]+1)
	} else if start > 0 {
		b.WriteString(afterLine(start))
	}
	if h.EndsAtEOF() {
		b.WriteString(" at its end")
	}
	b.WriteString(", even ignoring whitespace and Unicode punctuation")
	before := -1
	if start > 0 && !m.blocks {
		before = m.t.next(rungUnicode, pat, 0, start-1)
	}
	elsewhere := m.t.next(rungUnicode, pat, from, m.t.n())
	switch {
	case before >= 0:
		fmt.Fprintf(&b, "; they match at %s, before the previous hunk's end: hunks must be in file order", spanText(before+1, before+len(pat.lines)))
	case elsewhere >= 0 && h.OldNoEOL != h.NewNoEOL && elsewhere+len(pat.lines) == m.t.n():
		fmt.Fprintf(&b, "; they end the file at %s, but the file %s a final newline, unlike what the patch says", spanText(elsewhere+1, m.t.n()), map[bool]string{true: "has", false: "lacks"}[m.t.finalNL()])
	case elsewhere >= 0 && h.EndsAtEOF():
		fmt.Fprintf(&b, "; they occur at %s, which does not end the file (the hunk says it must: *** End of File or \\ No newline at end of file)", spanText(elsewhere+1, elsewhere+len(pat.lines)))
	default:
		b.WriteString(m.nearest(pat.lines, from))
	}
	if len(newCands) > 1 {
		fmt.Fprintf(&b, "; the new lines already stand at %s: if the change was made already, there is nothing to do", lineList(newCands, 1))
	}
	b.WriteString(note)
	b.WriteString("; copy the lines exactly as the file has them (read it again if it changed)")
	return m.fail(k, plan.CodeNotFound, "%s", b.String())
}

// nearest describes where the text most like lines is, or "" (a phrase
// starting with "; "). Its cost is bounded: only the first 1000 non-blank
// lines vote, lines that occur more than 64 times in the file are not
// followed, and the most-similar-line search runs for a few failures only.
func (m *hunkMatcher) nearest(lines []string, from int) string {
	t := m.t
	if t.n() == 0 {
		return "; the file is empty"
	}
	votes := map[int]int{}
	want := 0
	for j, l := range lines {
		k := rungKey(rungUnicode, l)
		if k == "" {
			continue
		}
		want++
		if ps := t.positions(rungUnicode, k); len(ps) <= 64 && want <= 1000 {
			for _, q := range ps {
				votes[q-j]++
			}
		}
	}
	best, bestV := 0, 0
	for s, v := range votes {
		if v > bestV || v == bestV && closer(s, best, from) {
			best, bestV = s, v
		}
	}
	if bestV > 0 {
		a, b := max(best, 0), min(best+len(lines), t.n())
		note := ""
		for j, l := range lines {
			i := best + j
			if i < 0 || i >= t.n() {
				continue
			}
			if rungKey(rungTrailing, t.lines[i]) != rungKey(rungTrailing, l) {
				note = fmt.Sprintf(": line %d reads %q where yours has %q", i+1, clipText(t.lines[i], 80), clipText(l, 80))
				break
			}
		}
		return fmt.Sprintf("; the closest text is at %s (%d of %d non-blank lines match ignoring whitespace)%s", spanText(a+1, b), bestV, want, note)
	}
	if m.hints <= 0 {
		return ""
	}
	m.hints--
	target := ""
	for _, l := range lines {
		if l = strings.TrimSpace(l); len(l) > len(target) {
			target = l
		}
	}
	if len(target) < 2 {
		return ""
	}
	tb := bigrams(target, nil)
	var buf []uint16
	bestS, bestLine := 0.0, -1
	for i, l := range t.lines[:min(t.n(), 50000)] {
		l = strings.TrimSpace(l)
		if len(l) < 2 || len(l) > 1000 {
			continue
		}
		buf = bigrams(l, buf)
		if s := dice(tb, buf); s > bestS {
			bestS, bestLine = s, i
		}
	}
	if bestLine < 0 || bestS < 0.5 {
		return "; nothing similar found: read the file again"
	}
	return fmt.Sprintf("; the most similar line is %d: %q", bestLine+1, clipText(strings.TrimSpace(t.lines[bestLine]), 100))
}

// closer breaks ties between candidate starts: nearer to from, then first.
func closer(s, best, from int) bool {
	ds, db := abs(s-from), abs(best-from)
	return ds < db || ds == db && s < best
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// bigrams returns s's byte bigrams, sorted, reusing buf.
func bigrams(s string, buf []uint16) []uint16 {
	buf = buf[:0]
	for i := 0; i+1 < len(s); i++ {
		buf = append(buf, uint16(s[i])<<8|uint16(s[i+1]))
	}
	slices.Sort(buf)
	return buf
}

// dice is the Dice coefficient of two sorted bigram lists.
func dice(a, b []uint16) float64 {
	inter := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] == b[j]:
			inter++
			i, j = i+1, j+1
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return 2 * float64(inter) / float64(len(a)+len(b))
}

// spanText names 1-based lines a..b.
func spanText(a, b int) string {
	if b <= a {
		return fmt.Sprintf("line %d", a)
	}
	return fmt.Sprintf("lines %d-%d", a, b)
}

// lineList lists 0-based indexes as 1-based line numbers.
func lineList(is []int, plus int) string {
	s := make([]string, 0, len(is))
	for n, i := range is {
		if n == maxCands {
			s = append(s, "…")
			break
		}
		s = append(s, fmt.Sprint(i+plus))
	}
	if len(is) == 1 {
		return "line " + s[0]
	}
	return "lines " + strings.Join(s, ", ")
}

func afterLine(start int) string {
	if start == 0 {
		return ""
	}
	return fmt.Sprintf(" after line %d (where the previous hunk ends)", start)
}

func quoteAnchors(as []string) string {
	q := make([]string, len(as))
	for i, a := range as {
		q[i] = fmt.Sprintf("%q", clipText(a, 60))
	}
	return strings.Join(q, ", ")
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func firstNonBlank(lines []string) string {
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			return strings.TrimSpace(l)
		}
	}
	return ""
}
