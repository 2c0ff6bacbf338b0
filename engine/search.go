package engine

import (
	"bytes"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"

	"github.com/txedit/txedit/plan"
)

// searcher finds the lines of a buffer that match a pattern, with
// ripgrep's semantics: a match never spans lines (character classes and
// "." do not match a line break) unless the search is multiline; "^" and
// "$" match at line boundaries; a file's count is its number of matching
// lines (in multiline mode, of match blocks: a match and the lines it
// spans).
type searcher struct {
	re        *regexp.Regexp
	multiline bool
	// literal is set when the pattern is a plain string: it is found
	// without the regexp.
	literal *finder
	// lits, if set, is a set of strings of which every match contains
	// at least one: lines holding none of them are not run through the
	// regexp.
	lits []*finder
}

// finder finds a literal, case-sensitively with bytes.Index, or ignoring
// ASCII case by looking for its rarest letter in both cases (two SIMD
// IndexByte scans) and checking the rest at each hit, without copying or
// lower-casing the buffer.
type finder struct {
	lit  []byte
	fold bool
	rare int // index in lit of the byte scanned for when folding
	lo   byte
	up   byte
}

func newFinder(lit []byte, fold bool) *finder {
	f := &finder{lit: lit, fold: fold}
	best := 1 << 30
	for i, c := range lit {
		if fold {
			c = lower(c)
		}
		if r := byteRank[c]; r < best {
			best, f.rare = r, i
		}
	}
	c := lit[f.rare]
	f.lo, f.up = c, c
	if fold {
		f.lo, f.up = lower(c), upper(c)
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
	n := len(f.lit)
	if n < 3 && !f.fold {
		if i := bytes.Index(b[from:], f.lit); i >= 0 {
			return from + i
		}
		return -1
	}
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
	if f.fold {
		return bytes.EqualFold(b, f.lit)
	}
	return bytes.Equal(b, f.lit)
}

func indexFrom(b []byte, c byte, from int) int {
	if i := bytes.IndexByte(b[from:], c); i >= 0 {
		return from + i
	}
	return -1
}

// byteRank orders bytes from rare to common in source code, so a finder
// scans for the rarest byte of its literal (as ripgrep does). Bytes not
// listed, non-ASCII ones among them, count as the rarest.
var byteRank = func() (r [256]int) {
	const order = "`~^|@#$%?!&;<>[]'QJZXKVBWYFGPMHDUCLqjzxkvbwyfg0123456789ONTISRAE:+-*{}\"/_=pmhducl,().itnsroae \t\n"
	for i := 0; i < len(order); i++ {
		r[order[i]] = i + 1
	}
	return
}()

func newSearcher(pattern string, ignoreCase, multiline, literal bool) (*searcher, error) {
	if literal {
		pattern = regexp.QuoteMeta(pattern)
	}
	flags := syntax.Perl &^ syntax.OneLine // ^ and $ at line boundaries
	if ignoreCase {
		flags |= syntax.FoldCase
	}
	tree, err := syntax.Parse(pattern, flags)
	if err != nil {
		return nil, plan.Errorf(plan.CodeInvalidRequest, "", "bad regular expression: %v", err)
	}
	s := &searcher{multiline: multiline}
	if !multiline {
		if err := noNewline(tree); err != nil {
			return nil, err
		}
	}
	tree = tree.Simplify()
	s.re, err = regexp.Compile(tree.String())
	if err != nil {
		return nil, plan.Errorf(plan.CodeInvalidRequest, "", "bad regular expression: %v", err)
	}
	if tree.Op == syntax.OpLiteral && len(tree.Rune) > 0 {
		lit, fold := literalOf(tree)
		if !fold || foldSafe(lit) {
			s.literal = newFinder(lit, fold)
		}
	}
	if s.literal == nil && !multiline {
		if lits, fold, ok := required(tree); ok && len(lits) > 0 && len(lits) <= 16 {
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

// required returns strings of which every match of re contains one, or
// ok false when it cannot tell. fold reports that they are lower-cased
// and must be looked for case-insensitively.
func required(re *syntax.Regexp) (lits [][]byte, fold, ok bool) {
	switch re.Op {
	case syntax.OpLiteral:
		l, f := literalOf(re)
		return [][]byte{l}, f, true
	case syntax.OpCapture:
		return required(re.Sub[0])
	case syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpConcat:
		// The child whose shortest required string is longest is the
		// most selective.
		best, bestLen := [][]byte(nil), 0
		bestFold := false
		for _, sub := range re.Sub {
			l, f, ok := required(sub)
			if !ok {
				continue
			}
			if m := minLen(l); m > bestLen {
				best, bestLen, bestFold = l, m, f
			}
		}
		if best != nil {
			return best, bestFold, true
		}
	case syntax.OpAlternate:
		var all [][]byte
		anyFold := false
		for _, sub := range re.Sub {
			l, f, ok := required(sub)
			if !ok {
				return nil, false, false
			}
			all = append(all, l...)
			anyFold = anyFold || f
		}
		if anyFold {
			for i := range all {
				all[i] = asciiLower(all[i])
			}
		}
		return all, anyFold, true
	}
	return nil, false, false
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

// block is a match expanded to whole lines: buf[Start:End] holds lines
// Line.. of the file.
type block struct {
	Start, End int
	Line       int
}

// search calls emit for each match block of buf, in order, until emit
// returns false. It returns the number of blocks.
func (s *searcher) search(buf []byte, emit func(block) bool) int {
	if len(buf) == 0 {
		return 0
	}
	var next []int // next occurrence of each of s.lits, -2 if not looked for
	if s.lits != nil {
		next = make([]int, len(s.lits))
		found := false
		for i, f := range s.lits {
			next[i] = f.index(buf, 0)
			found = found || next[i] >= 0
		}
		if !found {
			return 0
		}
	}
	n, line, lineAt := 0, 1, 0
	lineNo := func(at int) int {
		line += bytes.Count(buf[lineAt:at], []byte{'\n'})
		lineAt = at
		return line
	}
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
		if !emit(block{Start: ls, End: le, Line: lineNo(ls)}) {
			break
		}
		pos = le
	}
	return n
}

// next finds the first match at or after pos. next holds each literal's
// next occurrence, kept between calls so that a rare literal is not
// searched for again from every position.
func (s *searcher) next(buf []byte, next []int, pos int) (int, int, bool) {
	if s.literal != nil {
		i := s.literal.index(buf, pos)
		if i < 0 {
			return 0, 0, false
		}
		return i, i + len(s.literal.lit), true
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
		at := -1
		for i, f := range s.lits {
			if next[i] >= 0 && next[i] < pos {
				next[i] = f.index(buf, pos)
			}
			if next[i] >= 0 && (at < 0 || next[i] < at) {
				at = next[i]
			}
		}
		if at < 0 {
			return 0, 0, false
		}
		ls := bytes.LastIndexByte(buf[:at], '\n') + 1
		le := len(buf)
		if i := bytes.IndexByte(buf[at:], '\n'); i >= 0 {
			le = at + i
		}
		if loc := s.re.FindIndex(buf[ls:le]); loc != nil {
			return ls + loc[0], ls + loc[1], true
		}
		pos = le + 1
	}
	return 0, 0, false
}

// binaryPrefix is what ripgrep looks at before searching a file found by a
// walk: a NUL byte in its first buffer (64 KiB) makes the file binary and
// it is skipped. A NUL further on ends the search there.
const binaryPrefix = 64 << 10

// searchable returns the part of a file a recursive search looks at, and
// false if the file is binary from the start.
func searchable(buf []byte) ([]byte, bool) {
	i := bytes.IndexByte(buf, 0)
	if i < 0 {
		return buf, true
	}
	if i < binaryPrefix {
		return nil, false
	}
	cut := i / binaryPrefix * binaryPrefix
	return buf[:bytes.LastIndexByte(buf[:cut], '\n')+1], true
}

// lines returns up to n lines of buf ending before offset at (before) or
// starting at offset at (after), without their line breaks.
func linesBefore(buf []byte, at, n int) []string {
	var out []string
	for end := at; n > 0 && end > 0; n-- {
		start := bytes.LastIndexByte(buf[:end-1], '\n') + 1
		out = append(out, trimEOL(buf[start:end]))
		end = start
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

func linesAfter(buf []byte, at, n int) []string {
	var out []string
	for start := at; n > 0 && start < len(buf); n-- {
		end := len(buf)
		if i := bytes.IndexByte(buf[start:], '\n'); i >= 0 {
			end = start + i + 1
		}
		out = append(out, trimEOL(buf[start:end]))
		start = end
	}
	return out
}

func trimEOL(b []byte) string {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return string(bytes.TrimSuffix(b, []byte("\r")))
}

// fileTypes are ripgrep's definitions for its common type names.
var fileTypes = map[string][]string{
	"c":        {"*.[chH]", "*.[chH].in", "*.cats"},
	"cpp":      {"*.[ChH]", "*.[ChH].in", "*.[ch]pp", "*.[ch]pp.in", "*.[ch]xx", "*.[ch]xx.in", "*.cc", "*.cc.in", "*.hh", "*.hh.in", "*.inl"},
	"cs":       {"*.cs"},
	"css":      {"*.css", "*.scss"},
	"csv":      {"*.csv"},
	"docker":   {"*Dockerfile*"},
	"go":       {"*.go"},
	"h":        {"*.h", "*.hh", "*.hpp"},
	"html":     {"*.ejs", "*.htm", "*.html"},
	"java":     {"*.java", "*.jsp", "*.jspx", "*.properties"},
	"js":       {"*.js", "*.jsx", "*.vue"},
	"json":     {"*.json", "composer.lock"},
	"kotlin":   {"*.kt", "*.kts"},
	"lua":      {"*.lua"},
	"make":     {"[Gg][Nn][Uu]makefile", "[Mm]akefile", "[Gg][Nn][Uu]makefile.am", "[Gg][Nn][Uu]makefile.in", "[Mm]akefile.am", "[Mm]akefile.in", "*.mk", "*.mak"},
	"markdown": {"*.markdown", "*.md", "*.mdown", "*.mkdn"},
	"md":       {"*.markdown", "*.md", "*.mdown", "*.mkdn"},
	"php":      {"*.php", "*.php3", "*.php4", "*.php5", "*.phtml"},
	"proto":    {"*.proto"},
	"py":       {"*.py", "*.pyi"},
	"ruby":     {"Gemfile", "*.gemspec", ".irbrc", "Rakefile", "*.rb"},
	"rust":     {"*.rs"},
	"sh":       {"*.bash", "*.bashrc", "*.csh", "*.cshrc", "*.ksh", "*.kshrc", "*.sh", "*.tcsh", "*.zsh", ".bash_login", ".bash_logout", ".bash_profile", ".bashrc", ".cshrc", ".kshrc", ".login", ".logout", ".profile", ".tcshrc", ".zlogin", ".zlogout", ".zprofile", ".zshenv", ".zshrc", "bash_login", "bash_logout", "bash_profile", "bashrc", "profile", "zlogin", "zlogout", "zprofile", "zshenv", "zshrc"},
	"sql":      {"*.sql", "*.psql"},
	"swift":    {"*.swift"},
	"toml":     {"*.toml", "Cargo.lock"},
	"ts":       {"*.ts", "*.tsx"},
	"txt":      {"*.txt"},
	"xml":      {"*.xml", "*.xml.dist"},
	"yaml":     {"*.yaml", "*.yml"},
}

func typeNames() string {
	var names []string
	for n := range fileTypes {
		names = append(names, n)
	}
	return fmt.Sprint(sortedStrings(names))
}
