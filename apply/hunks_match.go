package apply

import (
	"hash/maphash"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/txedit/txedit/plan"
)

// The matching ladder's rungs, as indexes into plan.Rungs.
const (
	rungExact = iota
	rungTrailing
	rungTrim
	rungUnicode
	rungCount
)

// rungKey is what a line is compared by on rung r.
func rungKey(r int, s string) string {
	switch r {
	case rungExact:
		return s
	case rungTrailing:
		return strings.TrimRightFunc(s, unicode.IsSpace)
	case rungTrim:
		return strings.TrimSpace(s)
	}
	return foldPunct(strings.TrimSpace(s))
}

// foldPunct maps Unicode dashes, quotes and spaces to their ASCII
// counterparts. Bytes that are not UTF-8 are kept as they are.
func foldPunct(s string) string {
	i := 0
	for i < len(s) && s[i] < utf8.RuneSelf {
		i++
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			b.WriteByte(s[i])
		case r >= 0x2010 && r <= 0x2015, r == 0x2212:
			b.WriteByte('-')
		case r >= 0x2018 && r <= 0x201B:
			b.WriteByte('\'')
		case r >= 0x201C && r <= 0x201F:
			b.WriteByte('"')
		case r == 0xA0, r >= 0x2000 && r <= 0x200A, r == 0x202F, r == 0x205F, r == 0x3000:
			b.WriteByte(' ')
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// hashBase is the multiplier of the rolling hash over line hashes.
const hashBase = 0x9E3779B97F4A7C15

// hunkText is a file's body (its BOM removed) split into lines for
// matching.
type hunkText struct {
	raws  []string // every line as the file has it, its line break included
	lines []string // the same without "\n" and (unless exact) a "\r" before it
	// exact: the patch carries its own line ends (carriesEnds), so a
	// line's "\r" is part of what it is compared by and written with.
	exact bool
	seed  maphash.Seed
	rungs [rungCount]*rungIndex
	// spliced: lines were replaced since the text was read (blocks),
	// which the positions of keys do not follow.
	spliced bool
	// fresh marks the lines an earlier block of the same request wrote
	// (nil until the first splice). Such a line is no evidence that a
	// later block was applied before: the request itself put it there
	// (see hunkMatcher.locate and newAround).
	fresh []bool
	// work counts the places looked at and builds the rung indexes
	// made, for tests of the cost.
	work, builds int
}

// rungIndex holds every line's key on one rung, with a prefix hash for
// finding several-line patterns in linear time, how often each key occurs
// (a pattern with a line the text lacks is not looked for), and (built on
// demand) the positions of each key, for anchors and hints.
type rungIndex struct {
	keys   []string
	hashes []uint64
	prefix []uint64 // prefix[i] hashes keys[:i]; stale from dirty+1 on
	dirty  int      // prefix[:dirty+1] is current
	count  map[string]int
	pos    map[string][]int
}

func newHunkText(body []byte, exact bool) *hunkText {
	t := &hunkText{seed: maphash.MakeSeed(), exact: exact}
	// The lines are views of body, not a copy of it: ApplyHunks and
	// ApplyBlocks never write body, and nothing they return holds a line
	// (Content is built anew; messages are formatted).
	s := unsafe.String(unsafe.SliceData(body), len(body))
	n := strings.Count(s, "\n")
	if len(s) > 0 && s[len(s)-1] != '\n' {
		n++
	}
	t.raws = make([]string, 0, n)
	for s != "" {
		i := strings.IndexByte(s, '\n') + 1
		if i == 0 {
			i = len(s)
		}
		t.raws = append(t.raws, s[:i])
		s = s[i:]
	}
	t.lines = make([]string, len(t.raws))
	for i, r := range t.raws {
		t.lines[i] = t.trimEOL(r)
	}
	return t
}

func (t *hunkText) n() int { return len(t.lines) }

// finalNL reports whether the last line ends with a line break (or there
// are no lines).
func (t *hunkText) finalNL() bool {
	return len(t.raws) == 0 || strings.HasSuffix(t.raws[len(t.raws)-1], "\n")
}

// bytes returns the body.
func (t *hunkText) bytes() []byte {
	size := 0
	for _, r := range t.raws {
		size += len(r)
	}
	b := make([]byte, 0, size)
	for _, r := range t.raws {
		b = append(b, r...)
	}
	return b
}

// trimEOL removes a line's "\n" and, unless the text is exact, one "\r"
// before it.
func (t *hunkText) trimEOL(s string) string {
	s = strings.TrimSuffix(s, "\n")
	if t.exact {
		return s
	}
	return strings.TrimSuffix(s, "\r")
}

// ending returns the line break of line i ("\r\n", "\n"), or "" when it
// has none (the last line of a file without a final newline) or there is
// no line i.
func (t *hunkText) ending(i int) string {
	if i < 0 || i >= len(t.raws) {
		return ""
	}
	switch r := t.raws[i]; {
	case strings.HasSuffix(r, "\r\n"):
		return "\r\n"
	case strings.HasSuffix(r, "\n"):
		return "\n"
	}
	return ""
}

// rung returns the index of rung r, built on first use and brought up to
// date after splices.
func (t *hunkText) rung(r int) *rungIndex {
	ix := t.rungs[r]
	if ix == nil {
		n := len(t.lines)
		t.builds++
		ix = &rungIndex{keys: t.lines, hashes: make([]uint64, n), prefix: make([]uint64, n+1), count: make(map[string]int)}
		if r != rungExact {
			ix.keys = make([]string, n)
		}
		for i, l := range t.lines {
			if r != rungExact {
				ix.keys[i] = rungKey(r, l)
			}
			ix.hashes[i] = maphash.String(t.seed, ix.keys[i])
			ix.count[ix.keys[i]]++
		}
		t.rungs[r] = ix
	}
	if ix.dirty < len(ix.keys) {
		for i := ix.dirty; i < len(ix.keys); i++ {
			ix.prefix[i+1] = ix.prefix[i]*hashBase + ix.hashes[i]
		}
		ix.dirty = len(ix.keys)
	}
	return ix
}

// lacks reports whether some line of p does not occur in the text on rung
// r: then p matches nowhere on it, which is known without a scan.
func (t *hunkText) lacks(r int, p *pattern) bool {
	ix := t.rung(r)
	for _, k := range p.keysOf(r) {
		if ix.count[k] == 0 {
			return true
		}
	}
	return false
}

// splice replaces lines [pos, end) with raws; fresh says which of raws
// the request wrote (the others are old lines a block kept). The rung
// indexes built so far are kept current: keys, hashes and counts of the
// lines replaced only; their prefix hashes are recomputed from pos when
// next used. A SEARCH/REPLACE block costs the lines it touches, not a
// rebuild of every rung (10,000 blocks on one file took 40 s that way).
func (t *hunkText) splice(pos, end int, raws []string, fresh []bool) {
	lines := make([]string, len(raws))
	for i, r := range raws {
		lines[i] = t.trimEOL(r)
	}
	if t.fresh == nil {
		t.fresh = make([]bool, len(t.lines))
	}
	t.fresh = slices.Replace(t.fresh, pos, end, fresh...)
	t.spliced = true
	t.raws = slices.Replace(t.raws, pos, end, raws...)
	old := slices.Clone(t.lines[pos:end])
	t.lines = slices.Replace(t.lines, pos, end, lines...)
	for r, ix := range t.rungs {
		if ix == nil {
			continue
		}
		keys := lines
		if r != rungExact {
			keys = make([]string, len(lines))
			for i, l := range lines {
				keys[i] = rungKey(r, l)
			}
		}
		for i := pos; i < end; i++ {
			k := old[i-pos]
			if r != rungExact {
				k = ix.keys[i]
			}
			if ix.count[k]--; ix.count[k] <= 0 {
				delete(ix.count, k)
			}
		}
		hs := make([]uint64, len(keys))
		for i, k := range keys {
			hs[i] = maphash.String(t.seed, k)
			ix.count[k]++
		}
		if r == rungExact {
			ix.keys = t.lines
		} else {
			ix.keys = slices.Replace(ix.keys, pos, end, keys...)
		}
		ix.hashes = slices.Replace(ix.hashes, pos, end, hs...)
		ix.prefix = slices.Grow(ix.prefix[:pos+1], len(t.lines)-pos)[:len(t.lines)+1]
		ix.dirty = min(ix.dirty, pos)
		ix.pos = nil
	}
}

// freshIn reports whether any of lines [i, i+n) was written by an
// earlier block of the request.
func (t *hunkText) freshIn(i, n int) bool {
	if t.fresh == nil {
		return false
	}
	return slices.Contains(t.fresh[max(i, 0):min(i+n, len(t.fresh))], true)
}

// positions returns the ascending indexes of the lines whose rung-r key is
// key.
func (t *hunkText) positions(r int, key string) []int {
	ix := t.rung(r)
	if ix.pos == nil {
		ix.pos = make(map[string][]int, len(ix.keys))
		for i, k := range ix.keys {
			ix.pos[k] = append(ix.pos[k], i)
		}
	}
	return ix.pos[key]
}

// pattern is a hunk's lines to find. Their keys and rolling hash on each
// rung are computed on first use: a hunk of a unified diff is usually
// found where its header says, by comparing its lines there, which needs
// neither (nor the text's rung index).
type pattern struct {
	lines []string
	seed  maphash.Seed
	keys  [rungCount][]string // nil until keysOf(r)
	hash  [rungCount]uint64
	hashd [rungCount]bool
	pow   uint64 // hashBase^len(lines)
}

func newPattern(t *hunkText, lines []string) *pattern {
	p := &pattern{lines: lines, seed: t.seed, pow: 1}
	for range lines {
		p.pow *= hashBase
	}
	return p
}

// keysOf returns p's lines as rung r compares them.
func (p *pattern) keysOf(r int) []string {
	if p.keys[r] == nil {
		ks := p.lines
		if r != rungExact {
			ks = make([]string, len(p.lines))
			for j, l := range p.lines {
				ks[j] = rungKey(r, l)
			}
		}
		if ks == nil {
			ks = []string{}
		}
		p.keys[r] = ks
	}
	return p.keys[r]
}

// hashOf returns the rolling hash of p's keys on rung r.
func (p *pattern) hashOf(r int) uint64 {
	if !p.hashd[r] {
		var h uint64
		for _, k := range p.keysOf(r) {
			h = h*hashBase + maphash.String(p.seed, k)
		}
		p.hash[r], p.hashd[r] = h, true
	}
	return p.hash[r]
}

// at reports whether p matches t at line i on rung r. Without the rung's
// index (not built yet) it compares the lines there directly: a place
// given costs the pattern's lines, not an index of the whole text.
func (t *hunkText) at(r int, p *pattern, i int) bool {
	m := len(p.lines)
	if i < 0 || i+m > t.n() {
		return false
	}
	keys := p.keysOf(r)
	if t.rungs[r] == nil {
		for j, k := range keys {
			l := t.lines[i+j]
			if r != rungExact {
				l = rungKey(r, l)
			}
			if l != k {
				return false
			}
		}
		return true
	}
	ix := t.rung(r)
	if ix.prefix[i+m]-ix.prefix[i]*p.pow != p.hashOf(r) {
		return false
	}
	for j, k := range keys {
		if ix.keys[i+j] != k {
			return false
		}
	}
	return true
}

// next returns the first line i in [from, to] where p matches on rung r, or
// -1. Its cost is linear in the distance scanned.
func (t *hunkText) next(r int, p *pattern, from, to int) int {
	to = min(to, t.n()-len(p.lines))
	if max(from, 0) > to || t.lacks(r, p) {
		return -1
	}
	ix, m := t.rung(r), len(p.lines)
	if !t.spliced {
		// The places of p's rarest line are its only candidates: a
		// patch's hunks cost their own lines, not a scan of the file
		// each (a failing 3,000-hunk patch took 28 s that way).
		best, j := []int(nil), -1
		for k, key := range p.keysOf(r) {
			if ps := t.positions(r, key); j < 0 || len(ps) < len(best) {
				best, j = ps, k
			}
		}
		for q := sort.SearchInts(best, max(from, 0)+j); q < len(best) && best[q]-j <= to; q++ {
			t.work++
			if i := best[q] - j; t.at(r, p, i) {
				return i
			}
		}
		return -1
	}
	for i := max(from, 0); i <= to; i++ {
		t.work++
		if ix.prefix[i+m]-ix.prefix[i]*p.pow == p.hashOf(r) && t.at(r, p, i) {
			return i
		}
	}
	return -1
}

// firstAfter returns the first position in ps (ascending) at or after i, or
// -1.
func firstAfter(ps []int, i int) int {
	k := sort.SearchInts(ps, i)
	if k == len(ps) {
		return -1
	}
	return ps[k]
}

// rungName names rung r for reports.
func rungName(r int) plan.Rung { return plan.Rungs[r] }

// carriesEnds reports whether a patch's lines carry their own line ends:
// some old or new line of its hunks ends with "\r", as every line of a git
// diff of a CRLF file does. Such a patch is exact: it is matched and
// written byte for byte, as git apply does, "\r" and all, so a diff that
// changes only line ends changes them. One that carries none (LF only) is
// converted: its lines match CRLF lines too, and each line it adds takes
// the line break of the lines around it (hunkMatcher.addedEnds).
func carriesEnds(hunks []plan.Hunk) bool {
	for i := range hunks {
		for _, side := range [][]string{hunks[i].Old, hunks[i].New} {
			for _, l := range side {
				if strings.HasSuffix(l, "\r") {
					return true
				}
			}
		}
	}
	return false
}

// cleanLines returns lines without a trailing "\r" each, sharing lines when
// none has one.
func cleanLines(lines []string) []string {
	for i, l := range lines {
		if strings.HasSuffix(l, "\r") {
			out := make([]string, len(lines))
			copy(out, lines[:i])
			for j := i; j < len(lines); j++ {
				out[j] = strings.TrimSuffix(lines[j], "\r")
			}
			return out
		}
	}
	return lines
}

// blank reports whether every line is empty or whitespace.
func blank(lines []string) bool {
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			return false
		}
	}
	return true
}

// maxAnchorHits bounds the places a first anchor is followed from.
const maxAnchorHits = 1000

// anchorEnds follows h's anchors from line index start: every place the
// first anchor matches (on the first rung that finds one), then each next
// anchor's first match after the previous. It returns the distinct indexes
// of the last anchor line, ascending, and the loosest rung used. When the
// first anchor only occurs before start (a hunk repeating the previous
// hunk's @@ line), its last occurrence there is used.
func (m *hunkMatcher) anchorEnds(k int, h *plan.Hunk, start int) ([]int, int, *plan.Error) {
	t := m.t
	anchors := h.Anchors
	if !t.exact {
		anchors = cleanLines(anchors)
	}
	var occ []int
	rung := 0
	for r := range rungCount {
		ps := t.positions(r, rungKey(r, anchors[0]))
		if i := sort.SearchInts(ps, start); i < len(ps) {
			occ, rung = ps[i:], r
			break
		}
	}
	if occ == nil {
		for r := range rungCount {
			ps := t.positions(r, rungKey(r, anchors[0]))
			if i := sort.SearchInts(ps, start); i > 0 {
				occ, rung = ps[i-1:i], r
				break
			}
		}
	}
	if occ == nil {
		return nil, 0, m.fail(k, plan.CodeNotFound, "the @@ line %q is not in the file%s%s", clipText(anchors[0], 80), afterLine(start), m.nearest(anchors[:1], start))
	}
	occ = occ[:min(len(occ), maxAnchorHits)]
	var ends []int
	worst, failed, failFrom := rung, -1, 0
	for _, o := range occ {
		pos, r, ok := o, rung, true
		for ai, a := range anchors[1:] {
			q, qr := t.lineAfter(a, pos+1)
			if q < 0 {
				if failed < 0 {
					failed, failFrom = ai+1, pos+1
				}
				ok = false
				break
			}
			pos, r = q, max(r, qr)
		}
		if ok {
			ends = append(ends, pos)
			worst = max(worst, r)
		}
	}
	if len(ends) == 0 {
		return nil, 0, m.fail(k, plan.CodeNotFound, "the @@ line %q is not in the file after the @@ line %q (line %d)%s",
			clipText(anchors[failed], 80), clipText(anchors[failed-1], 80), failFrom, m.nearest(anchors[failed:failed+1], failFrom))
	}
	slices.Sort(ends)
	return slices.Compact(ends), worst, nil
}

// lineAfter returns the first line at or after from matching s, on the
// first rung that finds one, and that rung; -1 if none.
func (t *hunkText) lineAfter(s string, from int) (int, int) {
	for r := range rungCount {
		if q := firstAfter(t.positions(r, rungKey(r, s)), from); q >= 0 {
			return q, r
		}
	}
	return -1, 0
}
