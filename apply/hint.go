package apply

import (
	"fmt"
	"strings"
)

// Hint says where text that was not found most likely is: a match that
// differs only in whitespace or line endings, or failing that the most
// similar line. It returns "" when nothing is close, else a phrase starting
// with "; ".
func Hint(body []byte, old string) string {
	if len(body) > 16<<20 {
		return ""
	}
	want := nonBlankLines(old)
	if len(want) == 0 {
		return ""
	}
	lines := strings.Split(string(body), "\n")
	for i := range lines {
		lines[i] = strings.TrimSuffix(lines[i], "\r")
	}
	// 1. The same lines with whitespace and line endings ignored.
	norm := make([]string, len(lines))
	for i, l := range lines {
		norm[i] = squash(l)
	}
	for i := 0; i+len(want) <= len(lines); i++ {
		if norm[i] != want[0] {
			continue
		}
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
	// 2. The line most similar to old's first non-blank line.
	if len(lines) > 200000 {
		return ""
	}
	first := want[0]
	best, bestLine := 0.0, -1
	for i, l := range norm {
		if l == "" || len(l) > 2000 {
			continue
		}
		if s := similarity(first, l); s > best {
			best, bestLine = s, i
		}
	}
	if bestLine < 0 || best < 0.5 {
		return "; no similar text found: read the file again"
	}
	return fmt.Sprintf("; the most similar line is %d: %q", bestLine+1, clip(strings.TrimSpace(lines[bestLine]), 120))
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

// similarity is the Dice coefficient of the two strings' byte bigrams.
func similarity(a, b string) float64 {
	if a == b {
		return 1
	}
	if len(a) < 2 || len(b) < 2 {
		return 0
	}
	counts := make(map[uint16]int, len(a))
	for i := 0; i+1 < len(a); i++ {
		counts[uint16(a[i])<<8|uint16(a[i+1])]++
	}
	inter := 0
	for i := 0; i+1 < len(b); i++ {
		k := uint16(b[i])<<8 | uint16(b[i+1])
		if counts[k] > 0 {
			counts[k]--
			inter++
		}
	}
	return 2 * float64(inter) / float64(len(a)-1+len(b)-1)
}
