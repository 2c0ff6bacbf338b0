package apply

import (
	"fmt"
	"strings"
)

// "Already applied" is a claim that the agent's intended change is in
// effect, made only with proof (docs/patch-formats.md, "Already applied
// only with proof"). This file holds the content proof; the journal proof
// (a retry of a patch txedit itself applied) is the engine's.
//
// Content proof, for a hunk whose old lines are absent and whose new lines
// stand, once, where the hunk would put them:
//   - a hunk that adds a non-blank line: the old side does not nearly match
//     around that place (most of its lines, and half of the lines it
//     removes, equal there ignoring whitespace: the similarity the
//     not_found hint counts);
//   - a pure deletion (it adds nothing but blank lines): its context before
//     and after stand adjacent (or at the start or end of the file where
//     the hunk has none), and no near match of the deleted lines remains
//     anywhere in the file.
// A deletion without context never has content proof.

// changeSides returns the indexes of p's old lines that it removes and of
// its new lines that it adds (by its pairing).
func (p *placed) changeSides() (removed, added []int) {
	pair := p.pairing()
	kept := make([]bool, len(p.old))
	for j, i := range pair {
		if i >= 0 {
			kept[i] = true
		} else {
			added = append(added, j)
		}
	}
	for i, k := range kept {
		if !k {
			removed = append(removed, i)
		}
	}
	return removed, added
}

// addsText reports whether some added line is not blank.
func (p *placed) addsText(added []int) bool {
	for _, j := range added {
		if strings.TrimSpace(p.new[j]) != "" {
			return true
		}
	}
	return false
}

// telling returns the removed lines that tell the old side from the new:
// not blank, and not equal (ignoring whitespace and punctuation) to an
// added line (a re-indented line is removed and added at once).
func (p *placed) telling(removed, added []int) []int {
	addedKeys := map[string]bool{}
	for _, j := range added {
		addedKeys[rungKey(rungUnicode, p.new[j])] = true
	}
	var out []int
	for _, i := range removed {
		k := rungKey(rungUnicode, p.old[i])
		if k != "" && !addedKeys[k] {
			out = append(out, i)
		}
	}
	return out
}

// nearWork bounds the comparisons a near-match search makes; past it the
// search answers "near" (no proof), which refuses rather than claims.
const nearWork = 1 << 22

// oldNear looks for p's old side nearly standing at an offset in [lo, hi]:
// at least two thirds of its non-blank lines, and half of the telling
// removed ones (at least one), equal there ignoring whitespace and Unicode
// punctuation. It returns the offset and the count of matching non-blank
// lines and of non-blank lines.
func (m *hunkMatcher) oldNear(p *placed, tell []int, lo, hi int) (at, got, of int, near bool) {
	if len(tell) == 0 {
		return 0, 0, 0, false
	}
	t := m.t
	keys := t.rung(rungUnicode).keys
	oldKeys := make([]string, len(p.old))
	var nonBlank []int
	for i, l := range p.old {
		oldKeys[i] = rungKey(rungUnicode, l)
		if oldKeys[i] != "" {
			nonBlank = append(nonBlank, i)
		}
	}
	lo, hi = max(lo, -len(p.old)), min(hi, t.n())
	if (hi-lo+1)*len(p.old) > nearWork {
		return lo, 0, len(nonBlank), true
	}
	needAll, needTell := (2*len(nonBlank)+2)/3, (len(tell)+1)/2
	bestAll := -1
	for s := lo; s <= hi; s++ {
		tv := 0
		for _, i := range tell {
			if q := s + i; q >= 0 && q < t.n() && keys[q] == oldKeys[i] {
				tv++
			}
		}
		if tv < needTell {
			continue
		}
		all := 0
		for _, i := range nonBlank {
			if q := s + i; q >= 0 && q < t.n() && keys[q] == oldKeys[i] {
				all++
			}
		}
		if all >= needAll && all > bestAll {
			at, bestAll = s, all
		}
	}
	if bestAll < 0 {
		return 0, 0, len(nonBlank), false
	}
	return at, bestAll, len(nonBlank), true
}

// deletedNear looks anywhere in the file for a near match of the lines a
// pure deletion removes (tell, indexes into p.old): half of them (at least
// one) equal ignoring whitespace and Unicode punctuation at one offset. It
// returns the best offset and its count.
func (m *hunkMatcher) deletedNear(p *placed, tell []int) (at, got int, near bool) {
	if len(tell) == 0 {
		return 0, 0, false
	}
	t := m.t
	votes := map[int]int{}
	work := 0
	for _, i := range tell {
		ps := t.positions(rungUnicode, rungKey(rungUnicode, p.old[i]))
		if work += len(ps); work > nearWork {
			return 0, 0, true
		}
		for _, q := range ps {
			votes[q-i]++
		}
	}
	best, bestV := 0, 0
	for s, v := range votes {
		if v > bestV || v == bestV && s < best {
			best, bestV = s, v
		}
	}
	return best, bestV, bestV > 0 && bestV >= (len(tell)+1)/2
}

// proveNew decides a hunk whose old lines are absent and whose new lines
// stand once at q: it returns "" when that proves the hunk applied, else
// why it does not (a phrase for the not_found message).
func (m *hunkMatcher) proveNew(p *placed, q int) string {
	removed, added := p.changeSides()
	tell := p.telling(removed, added)
	span := spanText(q+1, q+len(p.new))
	if p.addsText(added) {
		at, got, of, near := m.oldNear(p, tell, q-len(p.old), q+len(p.new))
		if !near {
			return ""
		}
		return fmt.Sprintf("; its new lines stand at %s, but its old lines nearly match at %s too (%d of %d non-blank lines): that is not proof the change was made",
			span, spanText(max(at, 0)+1, min(at+len(p.old), m.t.n())), got, of)
	}
	if len(removed) == 0 {
		return "" // it changes only blank lines, which stand as it says
	}
	// A pure deletion: context on both sides (or the file's edge) adjacent.
	first, last := removed[0], removed[len(removed)-1]
	before, after := first > 0, last < len(p.old)-1
	switch {
	case !before && q != 0:
		return fmt.Sprintf("; its context lines stand at %s, but it has none before the lines it deletes and they are not at the start of the file: a deletion is taken as done only with proof", span)
	case !after && q+len(p.new) != m.t.n():
		return fmt.Sprintf("; its context lines stand at %s, but it has none after the lines it deletes and they do not end the file: a deletion is taken as done only with proof", span)
	}
	if at, got, near := m.deletedNear(p, tell); near {
		return fmt.Sprintf("; its context lines stand together at %s, but the lines it deletes still nearly stand at %s (%d of %d lines match ignoring whitespace): the file may have changed since it was read",
			span, spanText(max(at+first, 0)+1, min(at+last+1, m.t.n())), got, len(tell))
	}
	return ""
}
