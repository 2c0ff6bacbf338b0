package apply

import (
	"fmt"
	"strings"
)

// hint says where text that was not found most likely is: a match that
// differs only in whitespace or line endings, or failing that the most
// similar line. It returns "" when nothing is close, else a phrase starting
// with "; ". For many failing edits of one body, use a [hinter].
func hint(body []byte, old string) string {
	var h hinter
	return h.hint(body, old)
}

// simBudget bounds the bytes the similarity search of one hinter compares
// over all its hints: 3,000 failing edits of a 20,000-line file searched
// every line for each and took 23.6 s. The first failures (a few dozen
// searches of a 1 MiB file) still get the most similar line; later ones
// are told to read the file again.
const simBudget = 64 << 20

// hinter computes [hint] for many failing edits of one body: the body is
// split and normalised once, the whitespace-insensitive match is looked
// up in an index, and the similarity search is bounded by a budget. A
// hinter is reused while the body is the same slice (failing edits do not
// change it); it prepares itself again for another. The zero value is
// ready to use; it is not safe for concurrent use.
type hinter struct {
	body     []byte
	lines    []string         // without their line endings
	norm     []string         // with all whitespace removed
	byNorm   map[string][]int // the lines whose norm is the key
	spent    int              // bytes compared by similarity so far
	counts   []int32          // scratch: old's bigrams, by bigram
	used     []int32          // scratch: a line's matched bigrams
	prepared bool
}

func (h *hinter) prepare(body []byte) {
	h.body, h.prepared, h.spent = body, true, 0
	h.lines = strings.Split(string(body), "\n")
	h.norm = make([]string, len(h.lines))
	h.byNorm = make(map[string][]int, len(h.lines))
	for i, l := range h.lines {
		l = strings.TrimSuffix(l, "\r")
		h.lines[i] = l
		h.norm[i] = squash(l)
		if h.norm[i] != "" {
			h.byNorm[h.norm[i]] = append(h.byNorm[h.norm[i]], i)
		}
	}
}

// same reports whether body is the slice the hinter was prepared for.
func (h *hinter) same(body []byte) bool {
	if !h.prepared || len(body) != len(h.body) {
		return false
	}
	return len(body) == 0 || &body[0] == &h.body[0]
}

// hint is [hint] for body, which must not change while it is the body the
// hinter was prepared for.
func (h *hinter) hint(body []byte, old string) string {
	if len(body) > 16<<20 {
		return ""
	}
	want := nonBlankLines(old)
	if len(want) == 0 {
		return ""
	}
	if !h.same(body) {
		h.prepare(body)
	}
	lines, norm := h.lines, h.norm
	// 1. The same lines with whitespace and line endings ignored: only
	// the lines equal to old's first are candidates, found in the index.
	for _, i := range h.byNorm[want[0]] {
		if i+len(want) > len(lines) {
			break
		}
		{
			j, k := i, 0
			for ; j < len(lines) && k < len(want); j++ {
				if norm[j] == "" {
					continue // blank lines are whitespace too
				}
				if norm[j] != want[k] {
					break
				}
				k++
			}
			if k == len(want) {
				return fmt.Sprintf("; a match that differs only in whitespace or line endings is at %s — copy the text exactly as the file has it", lineRange(i+1, j))
			}
		}
	}
	// 2. The line most similar to old's first non-blank line.
	if len(lines) > 200000 {
		return ""
	}
	if h.spent >= simBudget {
		return "; no match (not searched for similar lines: too many edits of this file failed): read the file again"
	}
	first := want[0]
	h.loadBigrams(first)
	best, bestLine := 0.0, -1
	for i, l := range norm {
		if l == "" || len(l) > 2000 {
			continue
		}
		h.spent += len(l)
		if s := h.similarity(first, l); s > best {
			best, bestLine = s, i
		}
	}
	h.unloadBigrams(first)
	if bestLine < 0 || best < 0.5 {
		return "; no similar text found: read the file again"
	}
	return fmt.Sprintf("; the most similar line is %d: %q", bestLine+1, clip(strings.TrimSpace(lines[bestLine]), 120))
}

func bigram(s string, i int) int { return int(s[i])<<8 | int(s[i+1]) }

// loadBigrams counts a's bigrams into the scratch table.
func (h *hinter) loadBigrams(a string) {
	if h.counts == nil {
		h.counts, h.used = make([]int32, 1<<16), make([]int32, 1<<16)
	}
	for i := 0; i+1 < len(a); i++ {
		h.counts[bigram(a, i)]++
	}
}

func (h *hinter) unloadBigrams(a string) {
	for i := 0; i+1 < len(a); i++ {
		h.counts[bigram(a, i)] = 0
	}
}

// similarity is the Dice coefficient of the two strings' byte bigrams; a's
// are in the scratch table (loadBigrams).
func (h *hinter) similarity(a, b string) float64 {
	if a == b {
		return 1
	}
	if len(a) < 2 || len(b) < 2 {
		return 0
	}
	inter := 0
	for i := 0; i+1 < len(b); i++ {
		k := bigram(b, i)
		if h.used[k] < h.counts[k] {
			h.used[k]++
			inter++
		}
	}
	for i := 0; i+1 < len(b); i++ {
		h.used[bigram(b, i)] = 0
	}
	return 2 * float64(inter) / float64(len(a)-1+len(b)-1)
}

func lineRange(a, b int) string {
	if a == b {
		return fmt.Sprintf("line %d", a)
	}
	return fmt.Sprintf("lines %d-%d", a, b)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// squash removes all whitespace inside a line.
func squash(s string) string {
	return strings.Join(strings.Fields(s), "")
}

func nonBlankLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if q := squash(l); q != "" {
			out = append(out, q)
		}
	}
	return out
}
