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
	// literal is set when the pattern is a plain string: bytes.Index
	// finds it without the regexp.
	literal []byte
	// fold means literal and lits are lower-case and are searched in a
	// lower-cased copy of the buffer.
	fold bool
	// lits, if set, is a set of strings of which every match contains
	// at least one: lines holding none of them are not run through the
	// regexp.
	lits [][]byte
}

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
			s.literal, s.fold = lit, fold
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
				s.lits, s.fold = lits, fold
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
	hay := buf
	if s.fold && (s.literal != nil || s.lits != nil) {
		hay = asciiLower(buf)
	}
	if s.literal == nil && s.lits != nil && !containsAny(hay, s.lits) {
		return 0
	}
	n, line, lineAt := 0, 1, 0
	lineNo := func(at int) int {
		line += bytes.Count(buf[lineAt:at], []byte{'\n'})
		lineAt = at
		return line
	}
	for pos := 0; pos < len(buf); {
		ms, me, ok := s.next(buf, hay, pos)
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

// next finds the first match at or after pos.
func (s *searcher) next(buf, hay []byte, pos int) (int, int, bool) {
	if s.literal != nil {
		i := bytes.Index(hay[pos:], s.literal)
		if i < 0 {
			return 0, 0, false
		}
		return pos + i, pos + i + len(s.literal), true
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
		for _, l := range s.lits {
			if i := bytes.Index(hay[pos:], l); i >= 0 && (at < 0 || pos+i < at) {
				at = pos + i
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

func containsAny(hay []byte, lits [][]byte) bool {
	for _, l := range lits {
		if bytes.Contains(hay, l) {
			return true
		}
	}
	return false
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
