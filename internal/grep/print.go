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
	// Offset skips that many output lines first ("| tail -n +N+1"), and
	// HeadLimit cuts the output after that many lines ("| head -N"; 0: no
	// limit); "--" separators are lines like any other.
	Offset, HeadLimit int
}

// Print writes res as ripgrep prints it without headings, and returns
// the number of lines written and whether HeadLimit cut the output:
// file names (files_with_matches), path:count (count), or matching lines
// as path:line:text and context lines as path-line-text (see [Lines]),
// "--" between groups that are not adjacent when o.Context.
func Print(w io.Writer, res *plan.GrepResult, o PrintOptions) (lines int, truncated bool) {
	bw := bufio.NewWriter(w)
	defer bw.Flush()
	skipped := 0
	emit := func(s string) bool {
		if skipped < o.Offset {
			skipped++
			return true
		}
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
	printed := false
	var b strings.Builder
	for i := 0; i < len(res.Matches); {
		// One file's matches at a time.
		j := i
		for j < len(res.Matches) && res.Matches[j].Path == res.Matches[i].Path {
			j++
		}
		path := res.Matches[i].Path
		for k, l := range Lines(res.Matches[i:j]) {
			if o.Context && (k == 0 && printed || l.Gap) {
				if !emit("--") {
					return
				}
			}
			sep := "-"
			if l.Match {
				sep = ":"
			}
			b.Reset()
			if !o.NoPath {
				b.WriteString(path)
				b.WriteString(sep)
			}
			if o.LineNumbers {
				b.WriteString(strconv.Itoa(l.N))
				b.WriteString(sep)
			}
			b.WriteString(l.Text)
			if !emit(b.String()) {
				return
			}
		}
		printed = true
		i = j
	}
	return
}

// Line is one line ripgrep prints for a file's matches.
type Line struct {
	N    int // 1-based line number
	Text string
	// Match says the line is (part of) a match; otherwise it is context.
	Match bool
	// Gap says the line does not follow the one before it in the file
	// (ripgrep prints "--" before it when context was asked for); the
	// first line has none.
	Gap bool
}

// Lines returns the lines ripgrep prints for matches of one file (in file
// order), in line order: a line printed once however the contexts of
// nearby matches overlap, a matching line never shown as context, every
// line of a multiline match a line of its own.
func Lines(ms []*plan.Match) []Line {
	byNum := map[int]int{} // line number -> index in out
	var out []Line
	set := func(n int, text string, match bool) {
		if i, ok := byNum[n]; ok {
			if match {
				out[i].Match = true
			}
			return
		}
		byNum[n] = len(out)
		out = append(out, Line{N: n, Text: text, Match: match})
	}
	for _, m := range ms {
		for k, b := range m.Before {
			set(m.Line-len(m.Before)+k, b, false)
		}
		texts := strings.Split(m.Text, "\n")
		for k, t := range texts {
			set(m.Line+k, t, true)
		}
		for k, a := range m.After {
			set(m.Line+len(texts)+k, a, false)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].N < out[j].N })
	for i := 1; i < len(out); i++ {
		out[i].Gap = out[i].N > out[i-1].N+1
	}
	return out
}
