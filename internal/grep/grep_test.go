package grep

import (
	"bytes"
	"fmt"
	"io"
	"math/rand"
	"regexp"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/txedit/txedit/plan"
)

// lineRef is the reference for a line-oriented pattern: the lines of text
// that Go's regexp matches, each searched alone, with their numbers.
func lineRef(t *testing.T, pattern string, fold bool, text string) []int {
	t.Helper()
	if fold {
		pattern = "(?i)" + pattern
	}
	re := regexp.MustCompile("(?m)" + pattern)
	var out []int
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		if re.MatchString(strings.TrimSuffix(l, "\n")) {
			out = append(out, i+1)
		}
	}
	return out
}

func compile(t *testing.T, pattern string, o Options) *Matcher {
	t.Helper()
	m, err := Compile(pattern, o)
	if err != nil {
		t.Fatalf("Compile(%q): %v", pattern, err)
	}
	return m
}

func searchLines(m *Matcher, text string) []int {
	var out []int
	m.Search([]byte(text), func(b Block) bool {
		out = append(out, b.Line)
		return true
	})
	return out
}

func TestMatcherAgainstLineByLineRegexp(t *testing.T) {
	text := strings.Join([]string{
		"package main",
		"",
		"import \"fmt\"",
		"func main() {",
		"\tfmt.Println(\"Hello, World\")",
		"\treturn errors.New(\"x\") // TODO",
		"\tpanic(err)",
		"\tfmt.Errorf(\"%w\", err)",
		"DEPRECATED: use X; Deprecated: use Y; undeprecated",
		"fun main: almost",
		"FUNC MAIN",
		"ends without a newline: func",
	}, "\n")
	cases := []struct {
		pattern string
		fold    bool
	}{
		{"func main", false},
		{"func main", true},
		{"main", false},
		{"fu", false}, // shorter than the rare-byte finder's minimum
		{"in", true},
		{`fmt\.Errorf|errors\.New|panic\(`, false},
		{`FMT\.errorf|Errors\.new|PANIC\(`, true},
		{`fmt\.\w+|panic`, false},
		{`\bdeprecated\b`, true},
		{`\bdeprecated\b`, false},
		{`^func`, false},
		{`\)$`, false},
		{`^$`, false},
		{`^`, false},
		{`x*`, false},
		{`[A-Z]+:`, false},
		{`func$`, false},
		{`(?:return|panic)\(?`, false},
		{`Hello|World|Println`, false},
	}
	for _, c := range cases {
		m := compile(t, c.pattern, Options{IgnoreCase: c.fold})
		got := searchLines(m, text)
		want := lineRef(t, c.pattern, c.fold, text)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%q (fold %v): lines %v, want %v", c.pattern, c.fold, got, want)
		}
		// The same through the streaming scanner, counting and listing.
		for _, want2 := range []Want{WantCount, WantLines} {
			var lines []int
			n, bin, err := new(Scanner).Search(strings.NewReader(text), &Query{M: m, Want: want2}, func(pm *plan.Match) { lines = append(lines, pm.Line) })
			if err != nil || bin || n != len(want) {
				t.Errorf("%q: scanner counts %d (binary %v, %v), want %d", c.pattern, n, bin, err, len(want))
			}
			if want2 == WantLines && fmt.Sprint(lines) != fmt.Sprint(want) {
				t.Errorf("%q: scanner lines %v, want %v", c.pattern, lines, want)
			}
		}
	}
}

func TestLiteralFinders(t *testing.T) {
	text := []byte("xxABCabcAbCxxab")
	for _, c := range []struct {
		lit  string
		fold bool
		want []int
	}{
		{"abc", false, []int{5}},
		{"abc", true, []int{2, 5, 8}},
		{"ab", true, []int{2, 5, 8, 13}},
		{"x", false, []int{0, 1, 11, 12}},
		{"ABCabc", false, []int{2}},
		{"cxxab", true, []int{10}},
		{"zz", false, nil},
	} {
		f := newFinder([]byte(c.lit), c.fold)
		var got []int
		for i := f.index(text, 0); i >= 0; i = f.index(text, i+1) {
			got = append(got, i)
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%q fold %v: at %v, want %v", c.lit, c.fold, got, c.want)
		}
	}
}

// TestUnicodeFolds: "s" and "k" fold with "ſ" and the Kelvin sign in
// Unicode, which an ASCII scan would miss: such literals go through the
// regexp.
func TestUnicodeFolds(t *testing.T) {
	text := "ſtop\nKELVIN 4\u212a\nplain stop\n"
	for _, c := range []struct {
		pattern string
		want    []int
	}{
		{"stop", []int{1, 3}},
		{"4k", []int{2}},
		{"STOP|nothing", []int{1, 3}},
	} {
		m := compile(t, c.pattern, Options{IgnoreCase: true})
		if got := searchLines(m, text); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%q: lines %v, want %v", c.pattern, got, c.want)
		}
	}
}

func TestPrefilterKinds(t *testing.T) {
	for _, c := range []struct {
		pattern     string
		fold        bool
		literal     bool // found without the regexp or a prefilter
		lits        int
		exact       bool
		whole       bool
		multiline   bool
		literalFlag bool
	}{
		{pattern: "func main", literal: true},
		{pattern: "a.b", literalFlag: true, literal: true},
		{pattern: `fmt\.Errorf|errors\.New|panic\(`, lits: 3, exact: true},
		{pattern: `FMT\.errorf|Panic\(`, fold: true, lits: 2, exact: true},
		{pattern: `fmt\.Errorf|errors\.New`, fold: true},   // "s" folds beyond ASCII: no prefilter
		{pattern: `(?i:fmt)|panic`, lits: 2, exact: false}, // mixed case rules: a superset
		{pattern: `\bdeprecated\b`, fold: true, lits: 1},
		{pattern: `func \w+\(ctx context\.Context`, lits: 1},
		{pattern: `[a-z]+`},
		{pattern: `\Apackage`, lits: 1},
		{pattern: `a\nb`, multiline: true, whole: true, literal: true},
		{pattern: `a\nb|c\nd`, multiline: true, whole: true},
	} {
		m := compile(t, c.pattern, Options{IgnoreCase: c.fold, Literal: c.literalFlag, Multiline: c.multiline})
		if (m.literal != nil) != c.literal || len(m.lits) != c.lits || m.exact != c.exact || m.whole != c.whole {
			t.Errorf("%q: literal %v, %d lits, exact %v, whole %v; want %v, %d, %v, %v",
				c.pattern, m.literal != nil, len(m.lits), m.exact, m.whole, c.literal, c.lits, c.exact, c.whole)
		}
	}
}

func TestMultilineAndAnchors(t *testing.T) {
	text := "if err != nil {\n\treturn err\n}\nif err != nil {\n\tlog(err)\n}\n"
	m := compile(t, `err != nil \{\n\s*return err`, Options{Multiline: true})
	var blocks []Block
	n := m.Search([]byte(text), func(b Block) bool { blocks = append(blocks, b); return true })
	if n != 1 || blocks[0].Line != 1 || text[blocks[0].Start:blocks[0].End] != "if err != nil {\n\treturn err\n" {
		t.Errorf("multiline: %d blocks %+v", n, blocks)
	}
	if _, err := Compile(`a\nb`, Options{}); err == nil {
		t.Errorf("a line break outside multiline mode compiled")
	}
	// "." and classes stay on the line outside multiline mode.
	if got := searchLines(compile(t, `nil.{2}return|\{[^x]\treturn`, Options{}), text); got != nil {
		t.Errorf("matched across a line: %v", got)
	}
	// Outside multiline mode each line is the text the regexp sees, as
	// in ripgrep: \A and \z are the ends of every line.
	big := strings.Repeat("package x\n", 20000)
	for _, p := range []string{`\Apackage`, `x\z`, `\A(package|nothing)`} {
		m = compile(t, p, Options{})
		n, _, _ = new(Scanner).Search(strings.NewReader(big), &Query{M: m, Want: WantCount}, nil)
		if n != 20000 {
			t.Errorf(`%s counted %d times in 20000 lines`, p, n)
		}
	}
	// An empty match after the last line break is on no line.
	if n := compile(t, `$`, Options{}).Search([]byte("a\nb\n"), func(Block) bool { return true }); n != 2 {
		t.Errorf("$ matched %d lines of 2", n)
	}
}

func TestInvert(t *testing.T) {
	text := "keep 1\n// drop\nkeep 2\n\nkeep 3"
	m := compile(t, `^\s*(//|$)`, Options{})
	var got []string
	n := m.Invert([]byte(text), func(b Block) bool {
		got = append(got, fmt.Sprintf("%d:%s", b.Line, TrimEOL([]byte(text[b.Start:b.End]))))
		return true
	})
	if want := "[1:keep 1 3:keep 2 5:keep 3]"; n != 3 || fmt.Sprint(got) != want {
		t.Errorf("invert: %d %v, want %s", n, got, want)
	}
	var lines []int
	n, _, _ = new(Scanner).Search(iotest.OneByteReader(strings.NewReader(text)), &Query{M: m, Want: WantLines, Invert: true},
		func(pm *plan.Match) { lines = append(lines, pm.Line) })
	if n != 3 || fmt.Sprint(lines) != "[1 3 5]" {
		t.Errorf("scanner invert: %d %v", n, lines)
	}
	if n, _, _ := new(Scanner).Search(strings.NewReader(text), &Query{M: m, Want: WantAny, Invert: true}, nil); n != 1 {
		t.Errorf("invert, any: %d", n)
	}
}

func TestBinary(t *testing.T) {
	// A NUL in the first 64 KiB: the file is skipped.
	if _, ok := Searchable([]byte("match\n\x00")); ok {
		t.Errorf("Searchable accepted a NUL in the first 64 KiB")
	}
	m := compile(t, "match", Options{})
	n, bin, err := new(Scanner).Search(strings.NewReader("match\n\x00"), &Query{M: m, Want: WantCount}, nil)
	if n != 0 || !bin || err != nil {
		t.Errorf("NUL in the first read: %d matches, binary %v, %v", n, bin, err)
	}
	// A NUL further on: what came in before it was searched.
	head := strings.Repeat("match\n", 20000) // 120,000 bytes
	data := head + "match\x00match\n"
	want := 0
	if got, ok := Searchable([]byte(data)); ok {
		want = bytes.Count(got, []byte("match"))
	}
	if want == 0 || want >= 20000 {
		t.Fatalf("Searchable kept %d matches", want)
	}
	n, bin, _ = new(Scanner).Search(strings.NewReader(data), &Query{M: m, Want: WantCount}, nil)
	// The scanner reads 64 KiB at a time, as ripgrep: the read that
	// brings the NUL is not searched, those before it are.
	if !bin || n == 0 || n >= 20001 {
		t.Errorf("NUL at %d: %d matches, binary %v", len(head)+5, n, bin)
	}
	if n, bin, _ := new(Scanner).Search(strings.NewReader(head), &Query{M: m, Want: WantCount}, nil); n != 20000 || bin {
		t.Errorf("no NUL: %d matches, binary %v", n, bin)
	}
}

// TestScannerEqualsWhole: the streaming search finds what a search of the
// whole buffer finds, line numbers and context included, whatever the
// reads return and wherever the 64 KiB pieces cut.
func TestScannerEqualsWhole(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	words := []string{"alpha", "beta", "gamma", "TODO", "func", "main", "x", "", "errors.New(", "panic("}
	patterns := []string{"TODO", "func main", `alpha|gamma`, `^beta`, `\bx\b`, `panic\($`, "todo"}
	for iter := 0; iter < 40; iter++ {
		var b strings.Builder
		lines := 1000 + rng.Intn(15000)
		for i := 0; i < lines; i++ {
			for k := rng.Intn(6); k > 0; k-- {
				b.WriteString(words[rng.Intn(len(words))])
				b.WriteByte(' ')
			}
			if rng.Intn(500) == 0 {
				b.WriteString(strings.Repeat("long", 5000+rng.Intn(30000))) // lines beyond the buffer
			}
			b.WriteByte('\n')
		}
		text := b.String()
		if rng.Intn(2) == 0 {
			text = strings.TrimSuffix(text, "\n")
		}
		p := patterns[iter%len(patterns)]
		m := compile(t, p, Options{IgnoreCase: iter%3 == 0})
		q := &Query{M: m, Want: WantLines, Before: rng.Intn(4), After: rng.Intn(4)}
		var want []*plan.Match
		wn := SearchLines(q, []byte(text), func(pm *plan.Match) { want = append(want, pm) })
		var r io.Reader = strings.NewReader(text)
		switch iter % 3 {
		case 1:
			r = iotest.HalfReader(r)
		case 2:
			if len(text) < 100<<10 {
				r = iotest.OneByteReader(r)
			}
		}
		var got []*plan.Match
		n, bin, err := new(Scanner).Search(r, q, func(pm *plan.Match) { got = append(got, pm) })
		if err != nil || bin || n != wn || len(got) != len(want) {
			t.Fatalf("%q B%d A%d: %d matches (%d emitted, binary %v, %v), want %d", p, q.Before, q.After, n, len(got), bin, err, wn)
		}
		for i := range want {
			g, w := got[i], want[i]
			if g.Line != w.Line || g.Text != w.Text || fmt.Sprint(g.Before) != fmt.Sprint(w.Before) || fmt.Sprint(g.After) != fmt.Sprint(w.After) {
				t.Fatalf("%q B%d A%d: match %d is %d %.40q before %.80q after %.80q; want %d %.40q %.80q %.80q", p, q.Before, q.After, i,
					g.Line, g.Text, g.Before, g.After, w.Line, w.Text, w.Before, w.After)
			}
		}
		cn, _, _ := new(Scanner).Search(strings.NewReader(text), &Query{M: m, Want: WantCount}, nil)
		an, _, _ := new(Scanner).Search(strings.NewReader(text), &Query{M: m, Want: WantAny}, nil)
		if cn != wn || an != min(wn, 1) {
			t.Fatalf("%q: count %d, any %d; want %d", p, cn, an, wn)
		}
	}
}

// TestScannerStopsReading: with WantAny, reading stops at the first match.
func TestScannerStopsReading(t *testing.T) {
	text := "hit\n" + strings.Repeat("miss\n", 1<<20)
	r := &countingReader{r: strings.NewReader(text)}
	n, _, _ := new(Scanner).Search(r, &Query{M: compile(t, "hit", Options{}), Want: WantAny}, nil)
	if n != 1 || r.n > bufferSize {
		t.Errorf("any: %d match, %d bytes read of %d", n, r.n, len(text))
	}
}

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	c.n += k
	return k, err
}

func TestLinesHelpers(t *testing.T) {
	buf := []byte("one\r\ntwo\nthree\nfour")
	if got := LinesBefore(buf, 15, 2); fmt.Sprint(got) != "[two three]" {
		t.Errorf("LinesBefore: %q", got)
	}
	if got := LinesBefore(buf, 5, 3); fmt.Sprint(got) != "[one]" {
		t.Errorf("LinesBefore at the start: %q", got)
	}
	if got := LinesAfter(buf, 9, 5); fmt.Sprint(got) != "[three four]" {
		t.Errorf("LinesAfter: %q", got)
	}
	if got := linesBack(buf[:15], 2); got != 5 {
		t.Errorf("linesBack: %d", got)
	}
}

// TestIndexPair: the vector kernels find what the one-at-a-time loop
// finds, at every length, distance and alignment, folding or not.
func TestIndexPair(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	alphabet := []byte("abAB\x00\xff ")
	for iter := 0; iter < 20000; iter++ {
		n := rng.Intn(200)
		b := make([]byte, n+rng.Intn(8))
		for i := range b {
			b[i] = alphabet[rng.Intn(len(alphabet))]
		}
		off := rng.Intn(len(b) - n + 1)
		b = b[off : off+n] // unaligned starts
		d := rng.Intn(40)
		c1, c2 := alphabet[rng.Intn(4)]|0x20, alphabet[rng.Intn(len(alphabet))]
		var m1, m2 byte
		if rng.Intn(2) == 0 {
			m1 = 0x20
		}
		if rng.Intn(2) == 0 && c2 >= 'a' && c2 <= 'z' {
			m2 = 0x20
		}
		want := indexPairGo(b, c1, m1, c2, m2, d)
		if got := indexPair(b, c1, m1, c2, m2, d); got != want {
			t.Fatalf("indexPair(%q, %q|%#x, %q|%#x, %d) = %d, want %d", b, c1, m1, c2, m2, d, got, want)
		}
	}
}

// TestFinderPaths: the pair search and the rare-byte search agree with
// bytes.Index on random text, case-sensitive or not.
func TestFinderPaths(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	alphabet := []byte("fucmainFUNCMAIN (")
	for iter := 0; iter < 3000; iter++ {
		b := make([]byte, rng.Intn(300))
		for i := range b {
			b[i] = alphabet[rng.Intn(len(alphabet))]
		}
		lit := make([]byte, 1+rng.Intn(5))
		for i := range lit {
			lit[i] = alphabet[rng.Intn(len(alphabet))]
		}
		fold := rng.Intn(2) == 0
		if fold {
			lit = bytes.ToLower(lit)
		}
		f := newFinder(lit, fold)
		from := rng.Intn(len(b) + 1)
		want := -1
		hay := b[from:]
		if fold {
			hay = bytes.ToLower(hay)
		}
		if i := bytes.Index(hay, lit); i >= 0 {
			want = from + i
		}
		if got := f.indexByRare(b, from); got != want {
			t.Fatalf("indexByRare(%q, %q fold %v, from %d) = %d, want %d", b, lit, fold, from, got, want)
		}
		if len(lit) >= 2 {
			if got := f.indexByPair(b, from); got != want {
				t.Fatalf("indexByPair(%q, %q fold %v, from %d) = %d, want %d", b, lit, fold, from, got, want)
			}
		}
	}
}

// sizedReader tells a size, true or not.
type sizedReader struct {
	io.Reader
	size int64
}

func (r sizedReader) Size() (int64, error) { return r.size, nil }

// TestLongLineGrowth: a line longer than the buffer is found whole
// whether the reader tells the file's size, tells a wrong one, or none.
func TestLongLineGrowth(t *testing.T) {
	text := "short\n" + strings.Repeat("x", 300<<10) + "needle\nafter needle\n" + strings.Repeat("y", 5<<20) + "needle\n"
	m := compile(t, "needle", Options{})
	for _, size := range []int64{-1, int64(len(text)), 10, int64(len(text)) * 2, 1 << 40} {
		var r io.Reader = strings.NewReader(text)
		if size >= 0 {
			r = sizedReader{r, size}
		}
		var lines []int
		n, bin, err := new(Scanner).Search(r, &Query{M: m, Want: WantLines}, func(pm *plan.Match) { lines = append(lines, pm.Line) })
		if n != 3 || bin || err != nil || fmt.Sprint(lines) != "[2 3 4]" {
			t.Errorf("size %d: %d matches on lines %v (binary %v, %v)", size, n, lines, bin, err)
		}
	}
}
