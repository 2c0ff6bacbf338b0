package apply

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/txedit/txedit/plan"
)

// The three-way merge of a rebase (docs/design.md, "Concurrency"): an
// edit made against the version of a file an agent read (the base) is
// applied to the version there is now when what it changes and what
// changed since do not touch.

// LineChange replaces lines [Old0, Old1) of one text by lines [New0,
// New1) of another (0-based, half-open; Old0 == Old1 inserts before line
// Old0). Lines are cut after each "\n", so a CRLF line ends in "\r\n" and
// a last line without a newline is a line of its own.
type LineChange struct{ Old0, Old1, New0, New1 int }

// LineChanges returns the changes turning a into b, in order: the line
// diff a unified diff of the two shows.
func LineChanges(a, b []byte) []LineChange {
	return changesOf(appendLines(nil, string(a)), appendLines(nil, string(b)))
}

func changesOf(la, lb []string) []LineChange {
	// The common head and tail cost a comparison per line, not a diff.
	p := 0
	for p < len(la) && p < len(lb) && la[p] == lb[p] {
		p++
	}
	s := 0
	for s < len(la)-p && s < len(lb)-p && la[len(la)-1-s] == lb[len(lb)-1-s] {
		s++
	}
	edits := lineDiff(la[p:len(la)-s], lb[p:len(lb)-s])
	out := make([]LineChange, len(edits))
	for i, e := range edits {
		out[i] = LineChange{e.A0 + p, e.A1 + p, e.B0 + p, e.B1 + p}
	}
	return out
}

// touches reports whether two changes of one base conflict: their lines
// overlap, or no line that neither changes stands between them (changes of
// adjacent lines, two insertions at one place, an insertion next to a
// changed line). Equal changes (the same lines made the same) do not.
func touches(o, t LineChange, ol, tl []string) bool {
	if o.Old0 > t.Old1 || t.Old0 > o.Old1 {
		return false
	}
	return !(o.Old0 == t.Old0 && o.Old1 == t.Old1 && equalLines(ol[o.New0:o.New1], tl[t.New0:t.New1]))
}

func equalLines(a, b []string) bool {
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

// Merged is the outcome of [Merge3].
type Merged struct {
	// Content is the merge when no change of ours touches one of
	// theirs; nil otherwise.
	Content []byte
	// Ours and Theirs are the changes each side made to the base.
	Ours, Theirs []LineChange
	// Touched lists the indexes into Theirs of the changes some change
	// of ours touches (sorted, each once).
	Touched []int
}

// Merge3 merges two versions made from one base, ours and theirs, line by
// line: every change of each applies when no change of ours touches one of
// theirs (see touches: at least one line neither changed must separate
// them); a change both made alike counts once.
func Merge3(base, ours, theirs []byte) *Merged {
	bl := appendLines(nil, string(base))
	ol := appendLines(nil, string(ours))
	tl := appendLines(nil, string(theirs))
	m := &Merged{Ours: changesOf(bl, ol), Theirs: changesOf(bl, tl)}
	j0 := 0
	for _, o := range m.Ours {
		for j0 < len(m.Theirs) && m.Theirs[j0].Old1 < o.Old0 {
			j0++
		}
		for j := j0; j < len(m.Theirs) && m.Theirs[j].Old0 <= o.Old1; j++ {
			if touches(o, m.Theirs[j], ol, tl) {
				m.Touched = append(m.Touched, j)
			}
		}
	}
	if len(m.Touched) > 0 {
		slices.Sort(m.Touched)
		m.Touched = slices.Compact(m.Touched)
		return m
	}
	var b bytes.Buffer
	b.Grow(len(theirs) + len(ours) - len(base) + 64)
	pos, i, j := 0, 0, 0
	put := func(c LineChange, side []string) {
		for _, l := range bl[pos:c.Old0] {
			b.WriteString(l)
		}
		for _, l := range side[c.New0:c.New1] {
			b.WriteString(l)
		}
		pos = c.Old1
	}
	for i < len(m.Ours) || j < len(m.Theirs) {
		switch {
		case j == len(m.Theirs) || i < len(m.Ours) && m.Ours[i].Old0 < m.Theirs[j].Old0:
			put(m.Ours[i], ol)
			i++
		case i == len(m.Ours) || m.Theirs[j].Old0 < m.Ours[i].Old0:
			put(m.Theirs[j], tl)
			j++
		default: // the same change on both sides (touches said so)
			put(m.Theirs[j], tl)
			i, j = i+1, j+1
		}
	}
	for _, l := range bl[pos:] {
		b.WriteString(l)
	}
	m.Content = b.Bytes()
	return m
}

// Rebased is the outcome of [Rebase].
type Rebased struct {
	// Outcome is, when the rebase succeeded (Why is empty), the edit's
	// outcome on the current version: its Content is what to write.
	Outcome *Outcome
	// Change is what changed from the base to the current version.
	Change []LineChange
	// Edit is what the edit changes in the base (nil when it does not
	// apply to the base); Here, when it does not, what it would change in
	// the current version (nil when it does not apply there either).
	Edit, Here []LineChange
	// Touched lists the indexes into Change that the edit touches.
	Touched []int
	// Why says, when the rebase failed, why.
	Why string
	// Code is the failure's code: stale_hash, or the edit's own failure's
	// when the edit fails on the very version it was made against.
	Code plan.Code
}

// Rebase applies f, whose edits were made against base (the version of the
// file the agent read), to cur, the file's current content, as a
// three-way merge (docs/design.md, "Concurrency"):
//
//   - f applies to base (ours = f(base));
//   - what f changes in base and what changed from base to cur do not
//     touch ([Merge3]);
//   - edits placed by content (str_replace, patches, a create computed by
//     its Rewrite, appends) also apply to cur on their own, and give the
//     merge exactly: their text is intact in cur and found there at the
//     place the merge maps it to, and nowhere else where it counts (a
//     unique match still unique; replace_all finding no new occurrence).
//     Edits placed by line number (replace_lines, insert) refer to the
//     lines of base, so the merge places them.
//
// A create without Rewrite (a whole-file write), and a delete, move or copy,
// are never rebased: they would replace or remove what changed.
func Rebase(f *plan.FileOps, base, cur []byte) *Rebased {
	r := &Rebased{Code: plan.CodeStaleHash}
	if !Rebaseable(f) {
		r.Change = LineChanges(base, cur)
		r.Why = "it replaces or removes the whole file"
		if f.Positional() {
			r.Why = "its positions are those of the version it was made on"
		}
		return r
	}
	ours := Edit(f, base, true)
	if !ours.OK() {
		r.Change = LineChanges(base, cur)
		r.Why = "it does not apply to the version this session read: " + firstMsg(ours)
		if here := Edit(f, cur, true); here.OK() {
			r.Here = LineChanges(cur, here.Content)
		}
		return r
	}
	m := Merge3(base, ours.Content, cur)
	r.Change, r.Edit, r.Touched = m.Theirs, m.Ours, m.Touched
	if m.Content == nil {
		r.Why = "it changes lines that changed since this session read the file, or lines next to them"
		return r
	}
	if len(f.LineEdits) > 0 {
		out := *ours
		out.Content = m.Content
		r.Outcome = &out
		return r
	}
	direct := Edit(f, cur, true)
	switch {
	case !direct.OK():
		r.Why = "the text it replaces is not found once in the current file: " + firstMsg(direct)
	case !bytes.Equal(direct.Content, m.Content):
		r.Why = "the text it replaces is found in the current file at another place than the one this session read, or at more places"
	default:
		r.Outcome = direct
	}
	return r
}

// Rebaseable reports whether f is an edit a rebase may apply: text edits
// (str_replace, patches, line edits, appends, a create computed by its
// Rewrite), no whole-file write, no delete, move or copy, no text_edits
// (their positions are of the version they were made on).
func Rebaseable(f *plan.FileOps) bool {
	if f.Final != nil || len(f.Invalid) > 0 || f.Mode != nil || f.Positional() {
		return false // positions (text_edits) name places of one version only
	}
	if f.Create != nil {
		return f.Create.Rewrite != nil && !f.TextEdits()
	}
	return f.TextEdits()
}

func firstMsg(o *Outcome) string {
	if len(o.Failed) == 0 {
		return "it failed"
	}
	return o.Failed[0].Msg
}

// MapRange maps lines [a0, a1) of a base to the lines of the version the
// changes made from it (0-based, half-open): moved by the changes before
// it, and widened to the new lines of any change it overlaps or touches.
func MapRange(changes []LineChange, a0, a1 int) (int, int) {
	shift := 0
	lo, hi := -1, -1
	for _, c := range changes {
		switch {
		case c.Old1 < a0 || c.Old1 == a0 && c.Old0 < a0:
			shift += (c.New1 - c.New0) - (c.Old1 - c.Old0)
		case c.Old0 > a1:
		default:
			if lo < 0 || c.New0 < lo {
				lo = c.New0
			}
			if c.New1 > hi {
				hi = c.New1
			}
		}
	}
	b0, b1 := a0+shift, a1+shift
	if lo >= 0 {
		b0, b1 = min(b0, lo), max(b1, hi)
	}
	return b0, b1
}

// Region is the lines of cur, 1-based and inclusive, that a refused
// rebase concerns: the edit's lines mapped to cur (or, when it does not
// apply to the base, what it would change in cur), and the changes they
// touch, with ctx lines around; (0, 0) when there is nothing to show. At
// most max lines: past that, the window is centred on the edit's own
// lines.
func (r *Rebased) Region(cur []byte, ctx, max int) (start, end int) {
	n := len(appendLines(nil, string(cur)))
	type span struct{ lo, hi int }
	focus, all := span{-1, -1}, span{-1, -1}
	widen := func(s *span, a, b int) {
		if s.lo < 0 || a < s.lo {
			s.lo = a
		}
		if b > s.hi {
			s.hi = b
		}
	}
	for _, e := range r.Edit {
		a, b := MapRange(r.Change, e.Old0, e.Old1)
		lo, hi := a, b
		// The edit's own lines: where it stands in cur, not the whole of
		// a change it touches.
		if e.Old0 == e.Old1 || e.Old1-e.Old0 < b-a {
			lo, hi = mapPoint(r.Change, e.Old0), mapPoint(r.Change, e.Old1)
		}
		widen(&focus, lo, max0(hi))
		widen(&all, a, b)
	}
	for _, e := range r.Here {
		widen(&focus, e.Old0, e.Old1)
		widen(&all, e.Old0, e.Old1)
	}
	for _, k := range r.Touched {
		widen(&all, r.Change[k].New0, r.Change[k].New1)
	}
	if all.lo < 0 || n == 0 {
		return 0, 0
	}
	lo, hi := max0(all.lo-ctx), min(n, all.hi+ctx)
	if hi-lo > max {
		mid := (focus.lo + focus.hi) / 2
		lo = max0(min(mid-max/2, n-max))
		hi = min(n, lo+max)
	}
	if hi <= lo {
		hi = min(n, lo+1)
		lo = min(lo, hi-1)
	}
	return lo + 1, hi
}

// mapPoint maps a line position of the base (a boundary between lines) to
// cur's, clamped into any change that covers it.
func mapPoint(changes []LineChange, p int) int {
	shift := 0
	for _, c := range changes {
		switch {
		case c.Old1 <= p:
			shift += (c.New1 - c.New0) - (c.Old1 - c.Old0)
		case c.Old0 < p: // inside the change: the same offset into its new lines
			return min(c.New0+(p-c.Old0), c.New1)
		}
	}
	return p + shift
}

func max0(a int) int {
	if a < 0 {
		return 0
	}
	return a
}

// CompactDiff renders changes (from a to b) as hunks without context,
// each "@@ -A,N +B,M @@" then the old lines with "-" and the new ones with
// "+", line ends shown as "\n" (a CRLF's "\r" dropped; "\ No newline at end
// of file" after a last line without one), until the text would pass
// limit bytes: the changes left out are returned as the 1-based, inclusive
// line ranges of b they cover (an empty range names the line before
// which lines were removed).
func CompactDiff(a, b []byte, changes []LineChange, limit int) (string, [][2]int) {
	al, bl := appendLines(nil, string(a)), appendLines(nil, string(b))
	var out strings.Builder
	var rest [][2]int
	for k, c := range changes {
		var h strings.Builder
		h.WriteString("@@ -" + hunkRange(c.Old0, c.Old1-c.Old0) + " +" + hunkRange(c.New0, c.New1-c.New0) + " @@\n")
		for _, l := range al[c.Old0:c.Old1] {
			compactLine(&h, '-', l)
		}
		for _, l := range bl[c.New0:c.New1] {
			compactLine(&h, '+', l)
		}
		if out.Len()+h.Len() > limit && rest == nil {
			// The rest as line ranges of b, those a few lines apart
			// joined (a range to read again, not a list of lines).
			for _, c := range changes[k:] {
				lo, hi := c.New0+1, max(c.New1, c.New0+1)
				if n := len(rest); n > 0 && lo-rest[n-1][1] <= 4 {
					rest[n-1][1] = hi
					continue
				}
				rest = append(rest, [2]int{lo, hi})
			}
			break
		}
		out.WriteString(h.String())
	}
	return out.String(), rest
}

func compactLine(w *strings.Builder, prefix byte, l string) {
	w.WriteByte(prefix)
	nl := strings.HasSuffix(l, "\n")
	l = strings.TrimSuffix(strings.TrimSuffix(l, "\n"), "\r")
	w.WriteString(l)
	w.WriteByte('\n')
	if !nl {
		w.WriteString("\\ No newline at end of file\n")
	}
}

// Lines returns lines start..end (1-based, inclusive) of data, each without
// its line ending.
func Lines(data []byte, start, end int) []string {
	ls := appendLines(nil, string(data))
	if start < 1 {
		start = 1
	}
	if end > len(ls) {
		end = len(ls)
	}
	var out []string
	for i := start; i <= end; i++ {
		out = append(out, strings.TrimSuffix(strings.TrimSuffix(ls[i-1], "\n"), "\r"))
	}
	return out
}

// RangeString formats 1-based inclusive line ranges as "3-5, 9".
func RangeString(rs [][2]int) string {
	var parts []string
	for _, r := range rs {
		if r[0] >= r[1] {
			parts = append(parts, strconv.Itoa(r[0]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", r[0], r[1]))
		}
	}
	return strings.Join(parts, ", ")
}
