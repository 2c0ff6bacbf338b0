package apply

import (
	"bytes"
	"slices"
	"strings"
)

// render returns m's text with the placed hunks applied (those neither
// already applied nor pending). Lines outside the hunks are copied byte for
// byte; a hunk's context lines (the lines its Old and New share) keep the
// file's bytes, so a fuzzy match leaves them as they were; added lines take
// the file's line ending.
func (m *hunkMatcher) render(st style, ps []*placed) []byte {
	t := m.t
	n, nl := t.n(), st.nl()
	todo := make([]*placed, 0, len(ps))
	for _, p := range ps {
		if !p.already && !p.pendingDel {
			todo = append(todo, p)
		}
	}
	// Appends at the end of the file may precede later hunks in patch
	// order: apply by position, keeping patch order at equal positions.
	slices.SortStableFunc(todo, func(a, b *placed) int { return a.pos - b.pos })

	var out bytes.Buffer
	out.Grow(len(t.body) + len(t.body)/8)
	open := false // what was written last lacks its line break
	put := func(b []byte) {
		if len(b) == 0 {
			return
		}
		if open {
			out.WriteString(nl)
		}
		out.Write(b)
		open = b[len(b)-1] != '\n'
	}
	cur := 0
	var atEOF *placed
	for _, p := range todo {
		if p.pos < cur {
			continue // unreachable: hunks are placed in order
		}
		put(t.body[t.starts[cur]:t.starts[p.pos]])
		pair := alignLines(p.old, p.new)
		indent := noIndent
		if p.rung >= rungTrim {
			indent = indentShift(t.lines[p.pos:p.end], p.old)
		}
		for j, l := range p.new {
			if i := pair[j]; i >= 0 {
				put(t.raw(p.pos + i))
			} else {
				put([]byte(indent(l) + nl))
			}
		}
		cur = p.end
		if p.end == n {
			atEOF = p
		}
	}
	put(t.body[t.starts[cur]:])
	res := out.Bytes()
	if atEOF != nil && len(res) > 0 {
		want := t.finalNL
		if h := atEOF.h; h.OldNoEOL != h.NewNoEOL {
			want = !h.NewNoEOL
		}
		switch {
		case want && res[len(res)-1] != '\n':
			res = append(res, nl...)
		case !want && res[len(res)-1] == '\n':
			res = res[:len(res)-1]
			if st.crlf {
				res = bytes.TrimSuffix(res, []byte{'\r'})
			}
		}
	}
	return res
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
// fallback does). Otherwise added lines are kept as written.
func indentShift(file, old []string) func(string) string {
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
	return func(s string) string {
		if strings.TrimSpace(s) == "" {
			return s
		}
		lead := leading(s)
		for k := len(lead); k >= 0; k-- {
			if v, ok := to[lead[:k]]; ok {
				return v + s[k:]
			}
		}
		return s
	}
}

func leading(s string) string {
	return s[:len(s)-len(strings.TrimLeft(s, " \t"))]
}
