package grep

import (
	"bufio"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/txedit/txedit/plan"
)

// PrintOptions shape the text ripgrep would print.
type PrintOptions struct {
	LineNumbers bool // -n
	// NoPath leaves the path out, as rg does when it searches one file.
	NoPath bool
	// Context says context lines were asked for (-A, -B, -C): groups of
	// lines that are not adjacent are then separated by "--", as rg does.
	Context bool
	// HeadLimit cuts the output after this many lines ("| head -N"; 0:
	// no limit).
	HeadLimit int
}

// Print writes res as ripgrep prints it without headings, and returns
// the number of lines written and whether HeadLimit cut the output:
// file names (files_with_matches), path:count (count), or matching lines
// as path:line:text and context lines as path-line-text, a line that
// matches never repeated as context however the contexts of nearby
// matches overlap, every line of a multiline match printed with its own
// prefix, "--" between groups that are not adjacent.
func Print(w io.Writer, res *plan.GrepResult, o PrintOptions) (lines int, truncated bool) {
	bw := bufio.NewWriter(w)
	defer bw.Flush()
	emit := func(s string) bool {
		if o.HeadLimit > 0 && lines >= o.HeadLimit {
			truncated = true
			return false
		}
		bw.WriteString(s)
		bw.WriteByte('\n')
		lines++
		return true
	}
	for _, f := range res.Files {
		if !emit(f) {
			return
		}
	}
	for _, c := range res.Counts {
		s := strconv.Itoa(c.Count)
		if !o.NoPath {
			s = c.Path + ":" + s
		}
		if !emit(s) {
			return
		}
	}
	type line struct {
		text  string
		match bool
	}
	printed := false
	for i := 0; i < len(res.Matches); {
		// One file's matches at a time.
		j := i
		for j < len(res.Matches) && res.Matches[j].Path == res.Matches[i].Path {
			j++
		}
		byNum := map[int]line{}
		var order []int
		set := func(n int, l line) {
			if prev, ok := byNum[n]; ok {
				if prev.match || !l.match {
					return
				}
			} else {
				order = append(order, n)
			}
			byNum[n] = l
		}
		for _, m := range res.Matches[i:j] {
			for k, b := range m.Before {
				set(m.Line-len(m.Before)+k, line{text: b})
			}
			texts := strings.Split(m.Text, "\n")
			for k, t := range texts {
				set(m.Line+k, line{text: t, match: true})
			}
			for k, a := range m.After {
				set(m.Line+len(texts)+k, line{text: a})
			}
		}
		sort.Ints(order)
		path := res.Matches[i].Path
		var b strings.Builder
		for k, n := range order {
			if o.Context && (k == 0 && printed || k > 0 && n > order[k-1]+1) {
				if !emit("--") {
					return
				}
			}
			l := byNum[n]
			sep := "-"
			if l.match {
				sep = ":"
			}
			b.Reset()
			if !o.NoPath {
				b.WriteString(path)
				b.WriteString(sep)
			}
			if o.LineNumbers {
				b.WriteString(strconv.Itoa(n))
				b.WriteString(sep)
			}
			b.WriteString(l.text)
			if !emit(b.String()) {
				return
			}
		}
		printed = true
		i = j
	}
	return
}
