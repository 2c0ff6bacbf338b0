// Package grep finds the lines of a buffer that match a pattern, with
// ripgrep's semantics (its grep-searcher): RE2 syntax; a match never spans
// lines unless the search is multiline; "^" and "$" match at line
// boundaries; a file's count is its number of matching lines (in multiline
// mode, of match blocks). It is pure: bytes in, line blocks out.
//
// Plain strings are found without the regexp, by scanning for their
// rarest byte (ignoring ASCII case without copying the buffer); a pattern
// whose every match must contain one of a few strings runs the regexp only
// on the lines that hold one.
package grep

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"

	"github.com/txedit/txedit/plan"
)

// Matcher finds the lines of a buffer that match a pattern. It is safe
// for concurrent use.
type Matcher struct {
	re        *regexp.Regexp
	multiline bool
	// literal is set when the pattern is a plain string: it is found
	// without the regexp.
	literal *finder
	// lits, if set, is a set of strings of which every match contains
	// at least one: lines holding none of them are not run through the
	// regexp.
	lits []*finder
	// exact says that a line matches if and only if it holds one of
	// lits (an alternation of plain strings): the regexp is never run.
	exact bool
	// whole says that a file must be searched in one piece (multiline
	// patterns).
	whole bool
	// perLine says that each line is matched on its own, as the text of
	// the regexp: ripgrep's meaning of \A and \z outside multiline
	// mode, which a search of the whole buffer would not give.
	perLine bool
}

// finder finds a literal without the regexp and without copying or
// lower-casing the buffer. Where there are vector instructions
// (havePair) it looks for the literal's two rarest bytes at once, at
// their distance, and checks the rest at each hit (ripgrep's "packed
// pair"); elsewhere it scans for the rarest byte with bytes.IndexByte (in
// both cases when folding).
type finder struct {
	lit  []byte // lower-cased when folding
	fold bool
	// mask has 0x20 where lit holds a letter, when folding: b|mask ==
	// lit is a match ignoring ASCII case.
	mask []byte
	// The pair: lit[o1] and lit[o2], o1 < o2, as indexPair takes them.
	o1, o2         int
	c1, m1, c2, m2 byte
	// The rarest byte, in its two cases when folding.
	rare   int
	lo, up byte
}

func newFinder(lit []byte, fold bool) *finder {
	f := &finder{lit: lit, fold: fold}
	if fold {
		f.mask = make([]byte, len(lit))
		for i, c := range lit {
			if 'a' <= c && c <= 'z' {
				f.mask[i] = 0x20
			}
		}
	}
	freq := func(c byte) int {
		if fold && 'a' <= c && c <= 'z' {
			return byteFreq[c] + byteFreq[upper(c)]
		}
		return byteFreq[c]
	}
	second := -1
	for i, c := range lit {
		switch {
		case i == 0 || freq(c) < freq(lit[f.rare]):
			if i > 0 {
				second = f.rare
			}
			f.rare = i
		case second < 0 || freq(c) < freq(lit[second]):
			second = i
		}
	}
	c := lit[f.rare]
	f.lo, f.up = c, c
	if fold {
		f.lo, f.up = lower(c), upper(c)
	}
	if second >= 0 {
		f.o1, f.o2 = min(f.rare, second), max(f.rare, second)
		f.c1, f.c2 = lit[f.o1], lit[f.o2]
		if fold {
			f.m1, f.m2 = f.mask[f.o1], f.mask[f.o2]
		}
	}
	return f
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}

// index returns the first occurrence at or after from, or -1.
func (f *finder) index(b []byte, from int) int {
	if havePair && len(f.lit) >= 2 {
		return f.indexByPair(b, from)
	}
	return f.indexByRare(b, from)
}

func (f *finder) indexByPair(b []byte, from int) int {
	n, d := len(f.lit), f.o2-f.o1
	// Positions of lit[o1] that leave room for the whole literal.
	lim := len(b) - n + f.o2 + 1
	for pos := from + f.o1; pos+d < lim; {
		i := indexPair(b[pos:lim], f.c1, f.m1, f.c2, f.m2, d)
		if i < 0 {
			return -1
		}
		if start := pos + i - f.o1; f.equal(b[start : start+n]) {
			return start
		}
		pos += i + 1
	}
	return -1
}

func (f *finder) indexByRare(b []byte, from int) int {
	n := len(f.lit)
	nextLo, nextUp := -2, -2 // -2: not looked for yet
	if f.lo == f.up {
		nextUp = -1
	}
	for pos := from + f.rare; pos < len(b); {
		if nextLo != -1 && nextLo < pos {
			nextLo = indexFrom(b, f.lo, pos)
		}
		if nextUp != -1 && nextUp < pos {
			nextUp = indexFrom(b, f.up, pos)
		}
		at := nextLo
		if at < 0 || (nextUp >= 0 && nextUp < at) {
			at = nextUp
		}
		if at < 0 {
			return -1
		}
		start := at - f.rare
		if start >= from && start+n <= len(b) && f.equal(b[start:start+n]) {
			return start
		}
		pos = at + 1
	}
	return -1
}

func (f *finder) equal(b []byte) bool {
	if !f.fold {
		return string(b) == string(f.lit)
	}
	for i, c := range b {
		if c|f.mask[i] != f.lit[i] {
			return false
		}
	}
	return true
}

func indexFrom(b []byte, c byte, from int) int {
	if i := bytes.IndexByte(b[from:], c); i >= 0 {
		return from + i
	}
	return -1
}

// byteFreq is how often each byte occurs in source code, in parts per
// million: the mean of its frequencies in Go (GOROOT/src), Python (the
// standard library), JavaScript and TypeScript (npm), and C headers
// (/usr/include). A finder looks for the rarest bytes of its literal, as
// ripgrep does with its own table.
var byteFreq = [256]int{
	0, 0, 0, 0, 0, 0, 0, 0, 0, 11610, 27367, 0, 1, 1, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	203276, 944, 5785, 3155, 233, 447, 1199, 5375, 11976, 11978, 5284, 825, 13497, 4017, 11715, 7371,
	13051, 5236, 3849, 2546, 2462, 2062, 2241, 1171, 2036, 1858, 5987, 3075, 782, 7737, 1395, 383,
	286, 7194, 2595, 5889, 3679, 8759, 3077, 2180, 1564, 6572, 323, 1122, 5743, 3253, 5619, 5705,
	4764, 669, 6039, 9183, 7706, 2296, 1796, 1021, 2224, 962, 284, 1928, 2587, 1922, 71, 18755,
	606, 30379, 6841, 19810, 18169, 60983, 15770, 9060, 12560, 33123, 1004, 5282, 20888, 10787, 34575, 29904,
	14783, 867, 34063, 34993, 45793, 14953, 5247, 4273, 9783, 6764, 924, 3931, 834, 3922, 31, 0,
	72, 9, 15, 13, 11, 10, 9, 8, 15, 10, 7, 5, 9, 5, 5, 4,
	8, 8, 8, 10, 25, 24, 14, 8, 11, 44, 8, 6, 12, 11, 7, 6,
	11, 8, 9, 8, 19, 10, 9, 9, 7, 10, 7, 8, 9, 6, 6, 6,
	7, 8, 8, 7, 6, 6, 6, 8, 19, 17, 13, 14, 9, 35, 6, 36,
	0, 0, 83, 75, 11, 13, 1, 0, 0, 0, 0, 4, 2, 0, 20, 6,
	34, 14, 2, 0, 0, 2, 1, 5, 14, 13, 1, 1, 0, 0, 0, 0,
	35, 15, 127, 6, 1, 2, 4, 1, 1, 0, 0, 0, 0, 0, 0, 36,
	2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
}

// Options modify a pattern.
type Options struct {
	IgnoreCase bool // (?i)
	// Multiline lets a match span lines ("." still stops at a line break
	// unless the pattern says (?s)).
	Multiline bool
	Literal   bool // the pattern is a plain string
}

// Compile compiles pattern. A bad pattern is an invalid_request
// *plan.Error; so is a line break in a pattern that is not multiline.
func Compile(pattern string, o Options) (*Matcher, error) {
	ignoreCase, multiline, literal := o.IgnoreCase, o.Multiline, o.Literal
	if literal {
		pattern = regexp.QuoteMeta(pattern)
	}
	flags := syntax.Perl &^ syntax.OneLine // ^ and $ at line boundaries
	if ignoreCase {
		flags |= syntax.FoldCase
	}
	tree, err := syntax.Parse(pattern, flags)
	if err != nil {
		return nil, plan.Wrapf(plan.CodeInvalidRequest, "", err, "bad regular expression: %v", err)
	}
	s := &Matcher{multiline: multiline, whole: multiline, perLine: !multiline && textAnchored(tree)}
	if !multiline {
		if err := noNewline(tree); err != nil {
			return nil, err
		}
	}
	tree = tree.Simplify()
	s.re, err = regexp.Compile(tree.String())
	if err != nil {
		return nil, plan.Wrapf(plan.CodeInvalidRequest, "", err, "bad regular expression: %v", err)
	}
	if tree.Op == syntax.OpLiteral && len(tree.Rune) > 0 {
		lit, fold := literalOf(tree)
		if !fold || foldSafe(lit) {
			s.literal = newFinder(lit, fold)
		}
	}
	if s.literal == nil && !multiline {
		if lits, fold, exact, ok := required(tree); ok && len(lits) > 0 && len(lits) <= maxLits {
			usable := true
			for _, l := range lits {
				if len(l) == 0 || (fold && !foldSafe(l)) {
					usable = false
				}
			}
			if usable {
				for _, l := range lits {
					s.lits = append(s.lits, newFinder(l, fold))
				}
				s.exact = exact
			}
		}
	}
	return s, nil
}

// asciiLower lower-cases A-Z only, so offsets stay the same.
func asciiLower(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return out
}

// foldSafe reports whether ASCII lower-casing finds every case-insensitive
// occurrence of lit: Unicode folds "s" with "ſ" and "k" with the Kelvin
// sign, which ASCII does not.
func foldSafe(lit []byte) bool {
	return isASCII(lit) && !bytes.ContainsAny(lit, "sk")
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// noNewline makes a line-oriented pattern unable to match a line break,
// as ripgrep does: classes lose "\n", "." stops at it, and a literal line
// break is refused.
func noNewline(re *syntax.Regexp) error {
	switch re.Op {
	case syntax.OpAnyChar:
		re.Op = syntax.OpAnyCharNotNL
	case syntax.OpCharClass:
		var out []rune
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			if lo <= '\n' && '\n' <= hi {
				if lo < '\n' {
					out = append(out, lo, '\n'-1)
				}
				if hi > '\n' {
					out = append(out, '\n'+1, hi)
				}
				continue
			}
			out = append(out, lo, hi)
		}
		if len(out) == 0 {
			re.Op, re.Rune = syntax.OpNoMatch, nil
		} else {
			re.Rune = out
		}
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if r == '\n' {
				return plan.Errorf(plan.CodeInvalidRequest, "", "the pattern contains a line break: set multiline to match across lines")
			}
		}
	}
	for _, sub := range re.Sub {
		if err := noNewline(sub); err != nil {
			return err
		}
	}
	return nil
}

func literalOf(re *syntax.Regexp) ([]byte, bool) {
	fold := re.Flags&syntax.FoldCase != 0
	s := string(re.Rune)
	if fold {
		s = strings.ToLower(s)
	}
	return []byte(s), fold
}

// maxLits bounds the strings of a prefilter.
const maxLits = 16

// required returns strings of which every match of re contains one, or
// ok false when it cannot tell. fold reports that they are lower-cased
// and must be looked for case-insensitively; exact, that a text matches
// re if and only if it contains one of them.
func required(re *syntax.Regexp) (lits [][]byte, fold, exact, ok bool) {
	switch re.Op {
	case syntax.OpLiteral:
		l, f := literalOf(re)
		return [][]byte{l}, f, true, true
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			l, f, _, ok := required(re.Sub[0])
			return l, f, false, ok
		}
	case syntax.OpConcat:
		// The child whose shortest required string is longest is the
		// most selective.
		best, bestLen := [][]byte(nil), 0
		bestFold := false
		for _, sub := range re.Sub {
			l, f, _, ok := required(sub)
			if !ok {
				continue
			}
			if m := minLen(l); m > bestLen {
				best, bestLen, bestFold = l, m, f
			}
		}
		if best != nil {
			return best, bestFold, false, true
		}
	case syntax.OpAlternate:
		var all [][]byte
		anyFold, allFold, allExact := false, true, true
		for _, sub := range re.Sub {
			l, f, e, ok := required(sub)
			if !ok {
				return nil, false, false, false
			}
			all = append(all, l...)
			anyFold = anyFold || f
			allFold = allFold && f
			allExact = allExact && e
		}
		if anyFold {
			for i := range all {
				all[i] = asciiLower(all[i])
			}
		}
		return all, anyFold, allExact && (allFold || !anyFold), true
	}
	return nil, false, false, false
}

// textAnchored reports whether re anchors on the start or end of the
// whole text (\A, \z), which a search in pieces would move.
func textAnchored(re *syntax.Regexp) bool {
	if re.Op == syntax.OpBeginText || re.Op == syntax.OpEndText {
		return true
	}
	for _, sub := range re.Sub {
		if textAnchored(sub) {
			return true
		}
	}
	return false
}

func minLen(ls [][]byte) int {
	m := -1
	for _, l := range ls {
		if m < 0 || len(l) < m {
			m = len(l)
		}
	}
	return m
}

// Block is a match expanded to whole lines: buf[Start:End] holds lines
// Line.. of the file.
type Block struct {
	Start, End int
	Line       int
}

// Search calls emit for each match block of buf, in order, until emit
// returns false. It returns the number of blocks.
func (s *Matcher) Search(buf []byte, emit func(Block) bool) int {
	return s.search(buf, 1, true, emit)
}

// Lines is Search without line numbers (every Block's Line is 0), for
// callers that only need where the matching lines are (a sed-style
// substitution's candidate lines).
func (s *Matcher) Lines(buf []byte, emit func(Block) bool) int {
	return s.search(buf, 1, false, emit)
}

// search is Search with the number of buf's first line given; without
// lines, the blocks' Line is not worked out (and is 0).
func (s *Matcher) search(buf []byte, line int, lines bool, emit func(Block) bool) int {
	if len(buf) == 0 {
		return 0
	}
	var nextBuf [maxLits]int
	next := nextBuf[:len(s.lits)] // next occurrence of each of s.lits
	if s.lits != nil {
		found := false
		for i, f := range s.lits {
			next[i] = f.index(buf, 0)
			found = found || next[i] >= 0
		}
		if !found {
			return 0
		}
	}
	n, lineAt := 0, 0
	for pos := 0; pos < len(buf); {
		ms, me, ok := s.next(buf, next, pos)
		if !ok {
			break
		}
		if ms == len(buf) && buf[len(buf)-1] == '\n' {
			break // an empty match after the last line break is on no line
		}
		ls := bytes.LastIndexByte(buf[:ms], '\n') + 1
		last := ms
		if me > ms {
			last = me - 1
		}
		le := len(buf)
		if i := bytes.IndexByte(buf[last:], '\n'); i >= 0 {
			le = last + i + 1
		}
		n++
		b := Block{Start: ls, End: le}
		if lines {
			line += bytes.Count(buf[lineAt:ls], []byte{'\n'})
			lineAt = ls
			b.Line = line
		}
		if !emit(b) {
			break
		}
		pos = le
	}
	return n
}

// next finds the first match at or after pos. next holds each literal's
// next occurrence, kept between calls so that a rare literal is not
// searched for again from every position. Outside multiline mode only
// the line of a match matters, not where on it the match is.
func (s *Matcher) next(buf []byte, next []int, pos int) (int, int, bool) {
	if s.literal != nil {
		i := s.literal.index(buf, pos)
		if i < 0 {
			return 0, 0, false
		}
		return i, i + len(s.literal.lit), true
	}
	if s.perLine && s.lits == nil {
		for pos < len(buf) {
			le := len(buf)
			if i := bytes.IndexByte(buf[pos:], '\n'); i >= 0 {
				le = pos + i
			}
			if s.re.Match(buf[pos:le]) {
				return pos, pos, true
			}
			pos = le + 1
		}
		return 0, 0, false
	}
	if s.lits == nil {
		loc := s.re.FindIndex(buf[pos:])
		if loc == nil {
			return 0, 0, false
		}
		return pos + loc[0], pos + loc[1], true
	}
	// Run the regexp only on lines that hold one of the literals.
	for pos < len(buf) {
		at, which := -1, 0
		for i, f := range s.lits {
			if next[i] >= 0 && next[i] < pos {
				next[i] = f.index(buf, pos)
			}
			if next[i] >= 0 && (at < 0 || next[i] < at) {
				at, which = next[i], i
			}
		}
		if at < 0 {
			return 0, 0, false
		}
		if s.exact {
			return at, at + len(s.lits[which].lit), true
		}
		ls := bytes.LastIndexByte(buf[:at], '\n') + 1
		le := len(buf)
		if i := bytes.IndexByte(buf[at:], '\n'); i >= 0 {
			le = at + i
		}
		if s.multiline {
			if loc := s.re.FindIndex(buf[ls:le]); loc != nil {
				return ls + loc[0], ls + loc[1], true
			}
		} else if s.re.Match(buf[ls:le]) {
			return ls, ls, true
		}
		pos = le + 1
	}
	return 0, 0, false
}

// Literal finds a plain string (case as given) the way a search for it
// does, by its rarest bytes, for other packages that scan for a literal
// (a literal substitution). It is safe for concurrent use.
type Literal struct{ f *finder }

// NewLiteral returns a Literal for lit, which must not be empty.
func NewLiteral(lit []byte) *Literal { return &Literal{newFinder(lit, false)} }

// Index returns the index of the first occurrence of the literal in b, or
// -1.
func (l *Literal) Index(b []byte) int { return l.f.index(b, 0) }
