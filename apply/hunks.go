package apply

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/txedit/txedit/plan"
)

// HunkOutcome is the result of placing a file's hunks.
type HunkOutcome struct {
	// Content is the new content. It is the input unchanged when any hunk
	// failed (a file's patch applies whole or not at all) and when every
	// hunk was already applied.
	Content []byte
	// Reports says where each hunk that could be placed went, in hunk
	// order (failed hunks have none).
	Reports []plan.HunkReport
	// Failed lists every failure, sorted by hunk index: Index is the hunk's
	// index, or -1 for the file as a whole.
	Failed []*plan.Error
	// AlreadyApplied: every hunk that would change the file is already in
	// it (and at least one would), so nothing changed: the caller reports
	// the file as already_applied.
	AlreadyApplied bool

	// spans are where Content differs from the input: the placed hunks'
	// regions (Outcome.Spans).
	spans []Span
	t     *hunkText // for tests of the cost
}

// OK reports whether every hunk could be placed.
func (o *HunkOutcome) OK() bool { return len(o.Failed) == 0 }

// ApplyHunks applies a file's hunks as apply_patch and diffs mean them: in
// order, each located after the end of the previous one, all of them
// against the content as it was.
//
// Each hunk is located by the matching ladder (plan.Rungs): the first rung
// that finds any place wins, and more than one place is ambiguous (every
// place is listed), never a guess. A hunk with anchors is placed at the
// first match at or after its last anchor line (an anchor found only
// before the previous hunk's end is taken there: hunks repeat their @@
// line). A hunk with a stated Line (unified diffs) is taken at that line,
// shifted by the offset of the hunks before it, when it matches there, and
// otherwise wherever it matches once (reported with its offset). A pure
// addition goes right after its last anchor, before its stated Line, or at
// the end of the file (as Codex does; such an append does not move where
// later hunks are looked for).
//
// Retries are recognised, and "already applied" is claimed only with
// proof (hunks_proof.go; docs/patch-formats.md). A hunk whose old lines are
// absent but whose new lines stand, once, where it would go is already
// applied when it adds a non-blank line and its old side does not nearly
// match there, or, for a pure deletion, when its context before and after
// stand adjacent and no near match of the deleted lines remains in the
// file; otherwise it is not_found, the nearest text named. So is one whose
// old lines are found with its new lines (which contain them, plus some
// non-blank line) already around them, at its stated line if it has one
// (a retried insertion); so is a pure addition whose non-blank lines
// already stand where it would put them. A deletion without context is
// never taken as done here (the engine's journal may prove it). A file
// where some hunks are already applied and others are not is refused with
// conflict, naming the hunks.
//
// Line endings, a UTF-8 BOM, a missing final newline and bytes that are
// not UTF-8 are kept: context lines keep the file's exact bytes; added
// lines end as the patch says when its lines carry their own ends (an
// exact patch: carriesEnds), else as the file lines around them
// (hunkMatcher.addedEnds; docs/patch-formats.md, "Line ends"). Only a unified hunk that says so changes the
// final newline (OldNoEOL != NewNoEOL), and only a hunk at the top whose
// first old and new lines differ in a BOM adds or removes one. Every hunk
// is evaluated and every failure reported. ApplyHunks never panics, and its
// time is linear in the file's size per hunk; failure hints are bounded.
func ApplyHunks(path string, content []byte, hunks []plan.Hunk) *HunkOutcome {
	o := &HunkOutcome{Content: content}
	if IsBinary(content) {
		o.Failed = append(o.Failed, plan.Errorf(plan.CodeBinaryFile, path, "binary file: patches apply to text only"))
		return o
	}
	st, body := split(content)
	m := &hunkMatcher{path: path, t: newHunkText(body, carriesEnds(hunks)), hints: hintBudget}
	var ps []*placed
	start, shift := 0, 0
	for k := range hunks {
		h := &hunks[k]
		p, err := m.place(k, h, start, shift)
		if err != nil {
			o.Failed = append(o.Failed, err)
			continue
		}
		ps = append(ps, p)
		if p.appendEOF {
			continue // an append at the end does not move later hunks (Codex)
		}
		start = p.end
		if h.Line > 0 {
			shift = p.pos - (h.Line - 1)
			if p.already { // p.pos is where New starts: later hunks sit after it
				shift += len(p.new) - len(p.old)
			}
		}
	}
	m.settle(o, ps)
	o.t = m.t
	if o.OK() && !o.AlreadyApplied {
		st = bomChange(st, ps)
		var body []byte
		body, o.spans = m.render(st, ps)
		o.Content = join(st, body)
	}
	return o
}

// bomChange follows a hunk at the top of the file whose first old and new
// lines differ in a leading BOM (a diff that adds or removes one); every
// other hunk keeps the file's BOM, or its lack of one.
func bomChange(st style, ps []*placed) style {
	for _, p := range ps {
		if p.pos != 0 || p.already || len(p.h.Old) == 0 {
			continue
		}
		ob := strings.HasPrefix(p.h.Old[0], "\ufeff")
		nb := len(p.h.New) > 0 && strings.HasPrefix(p.h.New[0], "\ufeff")
		if ob != nb {
			st.bom = nb
		}
	}
	return st
}

// ApplyBlocks applies SEARCH/REPLACE blocks as Aider does: one after
// another, each located anywhere in the result of the blocks before it. A
// block must match exactly one place (by the same ladder as ApplyHunks);
// an empty SEARCH fills an empty or missing file (nil content) and is
// ambiguous on a file with content (Aider appends, Cline replaces the whole
// file), unless the file already holds exactly its text. Report lines refer
// to the content each block was applied to. Otherwise it behaves as
// ApplyHunks: already applied blocks, conflicts, line endings, atomicity.
func ApplyBlocks(path string, content []byte, hunks []plan.Hunk) *HunkOutcome {
	o := &HunkOutcome{Content: content}
	if IsBinary(content) {
		o.Failed = append(o.Failed, plan.Errorf(plan.CodeBinaryFile, path, "binary file: SEARCH/REPLACE applies to text only"))
		return o
	}
	st, body := split(content)
	t := newHunkText(body, carriesEnds(hunks))
	budget := hintBudget
	var ps []*placed
	m := &hunkMatcher{path: path, t: t, blocks: true}
	for k := range hunks {
		m := &hunkMatcher{path: path, t: t, blocks: true, hints: budget}
		p, err := m.placeBlock(k, &hunks[k])
		budget = m.hints
		if err != nil {
			o.Failed = append(o.Failed, err)
			continue
		}
		ps = append(ps, p)
		if p.already || !p.h.Changes() {
			continue
		}
		// Apply the block now: the next one looks in the result.
		st = bomChange(st, []*placed{p})
		want, eof := m.wantFinalNL(p.h), p.end == t.n()
		region, pair := m.region(p, st)
		fresh := make([]bool, len(region))
		for j, i := range pair {
			fresh[j] = i < 0 || t.freshIn(p.pos+i, 1) // added, or kept from an earlier block's
		}
		t.splice(p.pos, p.end, region, fresh)
		closeLines(t, p.pos-1, p.pos+len(region), st)
		if eof {
			endFile(t, want, st)
		}
	}
	m.settle(o, ps)
	o.t = t
	if o.OK() && !o.AlreadyApplied {
		o.Content = join(st, t.bytes())
	}
	return o
}

// hintBudget bounds how many failures per file get the costly
// most-similar-line search.
const hintBudget = 4

// maxCands bounds the places an ambiguity lists.
const maxCands = 20

type hunkMatcher struct {
	path   string
	t      *hunkText
	blocks bool // SEARCH/REPLACE: wording of messages
	hints  int
}

// placed is a hunk located in the file.
type placed struct {
	m        *hunkMatcher // the text it was placed in
	k        int
	h        *plan.Hunk
	old, new []string // the hunk's lines, cleaned
	pos, end int      // the region replaced: t's lines [pos, end); New's region if already
	rung     int
	offset   int
	// already: New stands at [pos, end), which proves the hunk applied
	// (hunks_proof.go). appendEOF: an unanchored addition.
	already, appendEOF bool
}

func (m *hunkMatcher) fail(k int, code plan.Code, format string, args ...any) *plan.Error {
	cmd := "hunk"
	if m.blocks {
		cmd = "search_replace"
	}
	return plan.EditErrorf(code, m.path, k, cmd, format, args...)
}

// place locates hunk k, searching from line index start; shift is the
// offset of the previous unified hunk.
func (m *hunkMatcher) place(k int, h *plan.Hunk, start, shift int) (*placed, *plan.Error) {
	p := &placed{m: m, k: k, h: h, old: m.hunkLines(h.Old), new: m.hunkLines(h.New)}
	if len(p.old) == 0 && len(p.new) == 0 {
		return nil, m.fail(k, plan.CodeInvalidRequest, "the hunk has no lines")
	}
	var ends []int
	if len(h.Anchors) > 0 {
		var err *plan.Error
		if ends, p.rung, err = m.anchorEnds(k, h, start); err != nil {
			return nil, err
		}
	}
	if len(p.old) == 0 {
		return m.placeAddition(p, ends, start, shift)
	}
	t := m.t
	op := newPattern(t, p.old)
	cands, r := m.locate(h, op, ends, start, shift, false)
	switch {
	case len(cands) == 1:
		p.pos, p.end, p.rung = cands[0], cands[0]+len(p.old), max(p.rung, r)
		p.offset = p.pos - (h.Line - 1)
		// A unified hunk says where its new lines start in a retried
		// file: only there do they count (in a run of equal lines they
		// may stand elsewhere before the hunk is applied).
		if q, ok := m.newAround(p, r, start); ok && (h.Line == 0 || q == h.Line-1+shift) {
			p.already, p.pos, p.end = true, q, q+len(p.new)
			return p, nil
		}
		return m.oldOrNew(p, ends, start, shift)
	case len(cands) > 1:
		return nil, m.ambiguous(k, h, op, cands, r, ends)
	}
	// The old lines are absent: are the new ones already there, and is
	// that proof the change was made (hunks_proof.go)?
	var newCands []int
	note := ""
	if h.Changes() && len(p.new) > 0 {
		np := newPattern(t, p.new)
		var r int
		newCands, r = m.locate(h, np, ends, start, shift, true)
		if len(newCands) == 1 {
			q := newCands[0]
			if note = m.proveNew(p, q); note == "" {
				p.already, p.pos, p.end, p.rung = true, q, q+len(p.new), max(p.rung, r)
				return p, nil
			}
		}
	}
	if h.Changes() && len(p.new) == 0 {
		note = "; a deletion without context lines is taken as done only when txedit's journal shows it made it"
	}
	return nil, m.notFound(k, h, op, ends, start, newCands, note)
}

// oldOrNew settles a hunk whose old lines were found once when, with no
// line number to go by, its new lines also stand elsewhere in the region
// searched: after an @@ line, the nearer of the two is the hunk's place
// (new lines first: already applied, as when a patch is sent twice —
// otherwise the first old lines after the anchor would take the edit to
// the next function); without one, either could be meant, and txedit
// does not guess.
func (m *hunkMatcher) oldOrNew(p *placed, ends []int, start, shift int) (*placed, *plan.Error) {
	h := p.h
	if h.Line > 0 || !h.Changes() || len(p.new) == 0 || blank(p.new) {
		// Blank new lines stand in most files: where they do says
		// nothing (the content proof of docs/patch-formats.md, "Already
		// applied only with proof", likewise needs a non-blank line).
		return p, nil
	}
	np := newPattern(m.t, p.new)
	newCands, r := m.locate(h, np, ends, start, shift, true)
	if len(newCands) != 1 || newCands[0] == p.pos || r > p.rung || m.t.freshIn(p.pos, p.end-p.pos) {
		// A match of the new lines looser than the old lines' own (say
		// only with trailing spaces ignored, where the old lines
		// matched exactly) is no sign the hunk was applied there; nor
		// is anything when an earlier block of the request wrote some
		// of the old lines (the block could not have been applied
		// before the request: its old text was not there).
		return p, nil
	}
	q := newCands[0]
	if q < p.end && p.pos < q+len(p.new) {
		return p, nil // they overlap: one text, not two places
	}
	if ends != nil {
		if q < p.pos {
			if note := m.proveNew(p, q); note != "" {
				return nil, m.fail(p.k, plan.CodeAmbiguous, "the hunk's old lines are at %s and its new lines stand at %s, nearer the @@ line%s; add context lines so one place fits, or read the file again",
					spanText(p.pos+1, p.end), spanText(q+1, q+len(p.new)), note)
			}
			p.already, p.pos, p.end, p.rung = true, q, q+len(p.new), max(p.rung, r)
		}
		return p, nil
	}
	if m.blocks {
		return nil, m.fail(p.k, plan.CodeAmbiguous, "the SEARCH text is at %s and the REPLACE text already stands at %s (not written by an earlier block): it may be already applied there, or meant for here; add surrounding lines to SEARCH so one place fits",
			spanText(p.pos+1, p.end), spanText(q+1, q+len(p.new)))
	}
	return nil, m.fail(p.k, plan.CodeAmbiguous, "the hunk's old lines are at %s and its new lines already stand at %s: it may be already applied there, or meant for here; add context lines, or an @@ line naming the enclosing function, so one place fits",
		spanText(p.pos+1, p.end), spanText(q+1, q+len(p.new)))
}

// hunkLines returns lines without "\r" endings (unless the patch is exact:
// carriesEnds) and without a BOM on the first line (a diff of a file with a
// BOM shows it there; bomChange decides whether the file keeps it).
func (m *hunkMatcher) hunkLines(lines []string) []string {
	if !m.t.exact {
		lines = cleanLines(lines)
	}
	if len(lines) > 0 && strings.HasPrefix(lines[0], "\ufeff") {
		lines = slices.Clone(lines)
		lines[0] = strings.TrimPrefix(lines[0], "\ufeff")
	}
	return lines
}

// locate returns the places where pat matches at the first rung that finds
// any (at most maxCands+1), and that rung. newSide: pat is the hunk's New
// (looking for an already applied hunk).
func (m *hunkMatcher) locate(h *plan.Hunk, pat *pattern, ends []int, start, shift int, newSide bool) ([]int, int) {
	t := m.t
	n, size := t.n(), len(pat.lines)
	lo, hi := start, n-size
	if h.EndsAtEOF() {
		lo = max(lo, n-size)
	}
	ok := func(i int) bool { // the final newline is what the hunk's side says
		if newSide && t.freshIn(i, size) {
			// Written by an earlier block of this request: no sign
			// that this one was applied before (ApplyBlocks).
			return false
		}
		if h.OldNoEOL == h.NewNoEOL {
			return true
		}
		noEOL := h.OldNoEOL
		if newSide {
			noEOL = h.NewNoEOL
		}
		return i+size == n && t.finalNL() == !noEOL
	}
	next := func(r, from int) int {
		for {
			i := t.next(r, pat, from, hi)
			if i < 0 || ok(i) {
				return i
			}
			from = i + 1
		}
	}
	for r := range rungCount {
		var cands []int
		if ends != nil {
			last := -1
			for _, e := range ends {
				if last >= e {
					continue
				}
				if last = next(r, max(e, lo)); last < 0 {
					break
				}
				cands = append(cands, last)
			}
		} else {
			if h.Line > 0 {
				for _, i := range []int{h.Line - 1 + shift, h.Line - 1} {
					if i >= lo && i <= hi && t.at(r, pat, i) && ok(i) {
						return []int{i}, r
					}
				}
			}
			for i := lo; len(cands) <= maxCands; i++ {
				if i = next(r, i); i < 0 {
					break
				}
				cands = append(cands, i)
			}
		}
		if len(cands) > 0 {
			return cands, r
		}
	}
	return nil, 0
}

// placeAddition places a hunk with no old lines.
func (m *hunkMatcher) placeAddition(p *placed, ends []int, start, shift int) (*placed, *plan.Error) {
	t, h := m.t, p.h
	n := t.n()
	var at int
	switch {
	case ends != nil:
		if len(ends) > 1 {
			return nil, m.fail(p.k, plan.CodeAmbiguous, "the @@ lines %s lead to %d places (after %s): add an @@ line for the enclosing class or function (@@ lines may be stacked) so they lead to one",
				quoteAnchors(h.Anchors), len(ends), lineList(ends, 1))
		}
		at = ends[0] + 1
		if at < start {
			return nil, m.fail(p.k, plan.CodeNotFound, "the @@ line %q (line %d) is before the end of the previous hunk (line %d): hunks must be in file order", h.Anchors[len(h.Anchors)-1], ends[0]+1, start)
		}
	case h.Line > 0 && !h.EndsAtEOF():
		at = h.Line - 1 + shift
		if at < start || at > n {
			at = h.Line - 1
		}
		if at < start || at > n {
			return nil, m.fail(p.k, plan.CodeLineOutOfRange, "the hunk inserts before line %d, but the file has %d lines after the previous hunk's end (line %d)", h.Line, n, start)
		}
	default:
		at, p.appendEOF = n, true
	}
	p.pos, p.end, p.offset = at, at, at-(h.Line-1)
	if blank(p.new) {
		return p, nil // blank lines are too common to say they are already there
	}
	np := newPattern(t, p.new)
	q := at
	if p.appendEOF {
		q = n - len(p.new)
	}
	for r := range rungCount {
		if t.at(r, np, q) {
			p.already, p.pos, p.end, p.rung = true, q, q+len(p.new), max(p.rung, r)
			break
		}
	}
	return p, nil
}

// placeBlock places SEARCH/REPLACE block k in the whole of m's text.
func (m *hunkMatcher) placeBlock(k int, h *plan.Hunk) (*placed, *plan.Error) {
	if len(h.Old) > 0 || len(h.Anchors) > 0 || h.Line > 0 {
		return m.place(k, h, 0, 0)
	}
	p := &placed{m: m, k: k, h: h, new: m.hunkLines(h.New)}
	t := m.t
	if t.n() == 0 {
		return p, nil
	}
	if len(p.new) == t.n() && !t.freshIn(0, t.n()) && t.at(rungTrailing, newPattern(t, p.new), 0) {
		p.already, p.end = true, t.n()
		return p, nil
	}
	return nil, m.fail(k, plan.CodeAmbiguous, "an empty SEARCH on a file that has content is ambiguous (Aider appends, Cline replaces the whole file): put the lines to replace in SEARCH, or create the file with a create edit")
}

// newAround reports whether, around p's old lines found on rung r, the
// hunk's new lines already stand (the old lines are part of the new ones,
// with some non-blank line added): applying it again would insert twice.
// It returns where New starts.
func (m *hunkMatcher) newAround(p *placed, r, start int) (int, bool) {
	o, nw := p.old, p.new
	if len(nw) <= len(o) {
		return 0, false
	}
	var np *pattern
	for d := 0; d+len(o) <= len(nw); d++ {
		if len(nw)*len(o) > 1<<20 && d != 0 && d != len(nw)-len(o) {
			continue // bound the work on huge hunks: retried appends and prepends only
		}
		if !slices.Equal(nw[d:d+len(o)], o) || blank(nw[:d]) && blank(nw[d+len(o):]) {
			continue
		}
		// New standing at q holds the old lines: if the request wrote
		// any of them (or of New there), it is no earlier application.
		if q := p.pos - d; q >= start && !m.t.freshIn(q, len(nw)) {
			if np == nil {
				np = newPattern(m.t, nw)
			}
			if m.t.at(r, np, q) {
				return q, true
			}
		}
	}
	return 0, false
}

// settle decides conflicts and fills o's reports.
func (m *hunkMatcher) settle(o *HunkOutcome, ps []*placed) {
	var changed, already []int
	for _, p := range ps {
		switch {
		case !p.h.Changes():
		case p.already:
			already = append(already, p.k)
		default:
			changed = append(changed, p.k)
		}
	}
	retry := len(o.Failed) == 0 && len(changed) == 0 && len(already) > 0
	if len(changed) > 0 && len(already) > 0 {
		for _, p := range ps {
			if p.already {
				what := "hunk"
				if m.blocks {
					what = "block"
				}
				o.Failed = append(o.Failed, m.fail(p.k, plan.CodeConflict, "this %s is already applied (its new lines stand at %s) but %s not: the patch is partly applied; read the file again and send only the changes still missing",
					what, spanText(p.pos+1, p.end), hunkList(what, changed)))
			}
		}
	}
	sort.SliceStable(o.Failed, func(i, j int) bool { return o.Failed[i].Index < o.Failed[j].Index })
	for _, p := range ps {
		rep := plan.HunkReport{Hunk: p.k, Line: p.pos + 1, Rung: rungName(p.rung), AlreadyApplied: p.already, Recounted: p.h.Recounted}
		if p.h.Line > 0 && !p.already && !p.appendEOF {
			rep.Offset = p.offset
		}
		o.Reports = append(o.Reports, rep)
	}
	o.AlreadyApplied = len(o.Failed) == 0 && retry
}

// hunkList names hunks (or blocks) k as people count them, from 1, as
// the errors' own "hunk N" does.
func hunkList(what string, ks []int) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = fmt.Sprint(k + 1)
	}
	if len(ks) == 1 {
		return what + " " + s[0] + " is"
	}
	return what + "s " + strings.Join(s, ", ") + " are"
}
