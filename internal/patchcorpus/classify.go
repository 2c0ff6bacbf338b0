package patchcorpus

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
)

// Run is what one program did with a case's patch: whether it reported
// success, and the file after (nil: gone).
type Run struct {
	OK   bool
	File []byte
}

// Verdict classifies a program's handling of a case.
type Verdict string

// The verdicts, the table's columns.
const (
	Correct        Verdict = "correct"             // as intended
	Wrong          Verdict = "wrong"               // reported success, the file is not the intended one
	Refused        Verdict = "refused"             // reported failure, changed nothing (a miss where it was to apply)
	RefusedChanged Verdict = "refused-but-changed" // reported failure, yet changed the file
)

// Classify judges the runs of a case: one run, or two for a Retry (the
// first must apply, the second change nothing). wsOnly says a Wrong file
// differs from the intended one in whitespace only.
func Classify(c *Case, runs ...Run) (v Verdict, wsOnly bool) {
	first := runs[0]
	switch c.Intent {
	case Apply, Either:
		switch {
		case first.OK && bytes.Equal(first.File, c.Want):
			return Correct, false
		case first.OK:
			return Wrong, c.Want != nil && sameBarWhitespace(first.File, c.Want)
		case !bytes.Equal(first.File, c.Before):
			return RefusedChanged, false
		case c.Intent == Either:
			return Correct, false
		}
		return Refused, false
	case Refuse:
		switch {
		case !bytes.Equal(first.File, c.Before):
			if first.OK {
				return Wrong, false
			}
			return RefusedChanged, false
		case first.OK:
			return Wrong, false // success, nothing written: a false "already applied"
		}
		return Correct, false
	}
	// Retry.
	if v, ws := Classify(&Case{Before: c.Before, Want: c.Want, Intent: Apply}, first); v != Correct {
		return v, ws
	}
	if len(runs) < 2 {
		return Refused, false
	}
	second := runs[1]
	switch {
	case !bytes.Equal(second.File, c.Want) && second.OK:
		return Wrong, false
	case !bytes.Equal(second.File, c.Want):
		return RefusedChanged, false
	case !second.OK:
		return Refused, false // harmless, but not the no-op a retry is
	}
	return Correct, false
}

// sameBarWhitespace reports whether a and b differ only in whitespace
// within lines.
func sameBarWhitespace(a, b []byte) bool {
	norm := func(x []byte) string {
		ls := strings.Split(strings.ReplaceAll(string(x), "\r\n", "\n"), "\n")
		for i, l := range ls {
			ls[i] = strings.Join(strings.Fields(l), " ")
		}
		return strings.Join(ls, "\n")
	}
	return norm(a) == norm(b)
}

// Tally counts verdicts per program.
type Tally struct {
	N, WSOnly int
	By        map[Verdict]int
	// Wrongs names the cases with a Wrong or RefusedChanged verdict,
	// Misses those Refused.
	Wrongs, Misses []string
}

// Add counts one verdict.
func (t *Tally) Add(name string, v Verdict, wsOnly bool) {
	if t.By == nil {
		t.By = map[Verdict]int{}
	}
	t.N++
	t.By[v]++
	if wsOnly {
		t.WSOnly++
	}
	if v == Refused {
		t.Misses = append(t.Misses, name)
	}
	if v == Wrong || v == RefusedChanged {
		w := name + ": " + string(v)
		if wsOnly {
			w += " (whitespace only)"
		}
		t.Wrongs = append(t.Wrongs, w)
	}
}

// Row renders the tally as a table row's cells.
func (t *Tally) Row() string {
	pct := 0
	if t.N > 0 {
		pct = 100 * t.By[Correct] / t.N
	}
	return fmt.Sprintf("%d/%d (%d%%) | %d (%d whitespace only) | %d | %d", t.By[Correct], t.N, pct, t.By[Wrong], t.WSOnly, t.By[Refused], t.By[RefusedChanged])
}

// Header is the table header matching Row, after a "path | program" pair.
const Header = "| path | program | correct | wrong | refused | refused-but-changed |\n|---|---|---|---|---|---|\n"

// Classes lists the classes of cases, sorted, with their counts.
func Classes(cases []*Case) string {
	n := map[string]int{}
	for _, c := range cases {
		n[c.Class]++
	}
	var ks []string
	for k := range n {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	var b strings.Builder
	for i, k := range ks {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %d", k, n[k])
	}
	return b.String()
}
