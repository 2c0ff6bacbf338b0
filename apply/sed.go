package apply

import (
	"bytes"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/txedit/txedit/internal/grep"
	"github.com/txedit/txedit/plan"
)

// Sed is a compiled sed substitution, s<d>REGEX<d>REPLACEMENT<d>FLAGS,
// applied line by line as `sed -E` does.
//
// REGEX is Go RE2 syntax matched leftmost-longest; "\<d>" stands for the
// delimiter character itself (which the regex then reads as it would any
// such character, as GNU sed does), and the delimiter does not end the
// regex inside a bracket expression. In REPLACEMENT, "&" and "\0" are the
// whole match, "\1"–"\9" groups, "\n" a newline, "\t" a tab, "\r" a
// carriage return, "\&", "\\" and "\<d>" literal; any other "\c" is c.
// GNU's case conversions (\U, \L, \u, \l, \E) are refused. FLAGS are any
// of g (every match of a line), i or I (ignore case) and a number N (only
// the Nth match; with g, the Nth and those after it).
type Sed struct {
	re *regexp.Regexp // line-scoped, leftmost-longest
	// lines finds the lines the regex may match with grep's engine (its
	// literal and required-substring prefilters, its vector search):
	// finding the files a tree-wide substitution changes costs what a
	// search for the pattern costs. scan is the fallback, for a regex
	// grep refuses (one with a line break, which matches no line).
	lines  *grep.Matcher
	scan   *regexp.Regexp // (?m) variant that finds candidate lines
	lit    []byte         // the literal searched for: literal mode, or a regex that is a plain string
	find   *grep.Literal  // finds lit, when lit is not empty
	rep    []byte         // the replacement, when lit is set (no groups to fill in)
	pieces []piece
	global bool
	nth    int // 1-based; 1 when no number was given
}

// piece of a replacement: literal bytes, or group g (0: whole match).
type piece struct {
	lit   []byte
	group int
}

func sedErr(format string, args ...any) error {
	return plan.Errorf(plan.CodeInvalidRequest, "", "sed_pattern: "+format, args...)
}

// ParseSed compiles a substitution. With literal, REGEX and REPLACEMENT
// are plain strings (only "\<d>" is unescaped).
func ParseSed(expr string, literal bool) (*Sed, error) {
	if len(expr) < 2 || expr[0] != 's' {
		return nil, sedErr("%q is not a substitution: want s/REGEX/REPLACEMENT/FLAGS", expr)
	}
	d := expr[1]
	if d == '\\' || d == '\n' {
		return nil, sedErr("the delimiter may not be a backslash or a newline")
	}
	pat, i, err := sedPart(expr, 2, d, true)
	if err != nil {
		return nil, err
	}
	repl, i, err := sedPart(expr, i, d, false)
	if err != nil {
		return nil, err
	}
	s := &Sed{nth: 1}
	flags := expr[i:]
	num := ""
	ci := false
	for k := 0; k < len(flags); k++ {
		switch c := flags[k]; {
		case c == 'g':
			s.global = true
		case c == 'i' || c == 'I':
			ci = true
		case c >= '0' && c <= '9':
			num += string(c)
		default:
			return nil, sedErr("unsupported flag %q (txedit supports g, i and a number)", c)
		}
	}
	if num != "" {
		n, err := strconv.Atoi(num)
		if err != nil || n == 0 {
			return nil, sedErr("the number flag must be 1 or more")
		}
		s.nth = n
	}
	if literal {
		s.lit = []byte(pat)
		pat = regexp.QuoteMeta(pat)
		s.pieces = []piece{{lit: []byte(unescapeLiteral(repl, d)), group: -1}}
	}
	prefix := ""
	if ci {
		prefix = "(?i)"
		s.lit = nil
	}
	if s.re, err = regexp.Compile(prefix + pat); err != nil {
		return nil, sedErr("bad regular expression: %v", err)
	}
	s.re.Longest()
	if s.scan, err = regexp.Compile("(?m)" + prefix + pat); err != nil {
		return nil, sedErr("bad regular expression: %v", err)
	}
	if !literal {
		if s.pieces, err = parseReplacement(repl, d, s.re.NumSubexp()); err != nil {
			return nil, err
		}
		if lit, ok := plainString(pat); ok && !ci {
			// A regex that is a plain string (errors\.New) is found and
			// replaced as one: its matches are its occurrences.
			s.lit = lit
		}
	}
	if len(s.lit) > 0 {
		s.find = grep.NewLiteral(s.lit)
		for _, p := range s.pieces {
			if p.group == 0 {
				s.rep = append(s.rep, s.lit...)
			} else {
				s.rep = append(s.rep, p.lit...)
			}
		}
	}
	if m, err := grep.Compile(pat, grep.Options{IgnoreCase: ci}); err == nil {
		s.lines = m
	}
	return s, nil
}

// plainString returns the string a regex stands for when it is nothing
// but one (no operator, no class, no group, no flag), so that its matches
// are exactly that string's occurrences. A literal holding U+FFFD is not
// one: the regexp engine matches it at every byte of invalid UTF-8.
func plainString(pat string) ([]byte, bool) {
	re, err := syntax.Parse(pat, syntax.Perl)
	if err != nil {
		return nil, false
	}
	re = re.Simplify()
	if re.Op != syntax.OpLiteral || re.Flags&syntax.FoldCase != 0 || len(re.Rune) == 0 || slices.Contains(re.Rune, utf8.RuneError) {
		return nil, false
	}
	return []byte(string(re.Rune)), true
}

// sedPart reads a part of the expression up to the unescaped delimiter
// and returns it with "\<d>" turned into d, and the index after the
// delimiter. In the regex part the delimiter does not end a bracket
// expression.
func sedPart(expr string, i int, d byte, regex bool) (string, int, error) {
	var b []byte
	for i < len(expr) {
		c := expr[i]
		switch {
		case c == '\\' && i+1 < len(expr):
			if expr[i+1] == d {
				b = append(b, d)
			} else {
				b = append(b, c, expr[i+1])
			}
			i += 2
		case c == '[' && regex:
			end := bracketEnd(expr, i)
			if end < 0 {
				return "", 0, sedErr("unterminated bracket expression in %q", expr)
			}
			b = append(b, expr[i:end]...)
			i = end
		case c == d:
			return string(b), i + 1, nil
		default:
			b = append(b, c)
			i++
		}
	}
	return "", 0, sedErr("unterminated substitution %q: want s%c…%c…%c", expr, d, d, d)
}

// bracketEnd returns the index after the bracket expression starting at
// expr[i] ('['), or -1: "]" right after "[" or "[^" is literal, and
// "[:class:]" runs are skipped.
func bracketEnd(expr string, i int) int {
	j := i + 1
	if j < len(expr) && expr[j] == '^' {
		j++
	}
	if j < len(expr) && expr[j] == ']' {
		j++
	}
	for j < len(expr) {
		switch {
		case expr[j] == '[' && j+1 < len(expr) && (expr[j+1] == ':' || expr[j+1] == '.' || expr[j+1] == '='):
			end := bytes.Index([]byte(expr[j+2:]), []byte{expr[j+1], ']'})
			if end < 0 {
				return -1
			}
			j += end + 4
		case expr[j] == '\\' && j+1 < len(expr):
			j += 2
		case expr[j] == ']':
			return j + 1
		default:
			j++
		}
	}
	return -1
}

func unescapeLiteral(s string, d byte) string {
	return string(bytes.ReplaceAll([]byte(s), []byte{'\\', d}, []byte{d}))
}

func parseReplacement(r string, d byte, groups int) ([]piece, error) {
	var out []piece
	var lit []byte
	flush := func() {
		if len(lit) > 0 {
			out = append(out, piece{lit: lit, group: -1})
			lit = nil
		}
	}
	for i := 0; i < len(r); i++ {
		c := r[i]
		switch {
		case c == '&':
			flush()
			out = append(out, piece{group: 0})
		case c == '\\' && i+1 < len(r):
			i++
			switch e := r[i]; {
			case e >= '0' && e <= '9':
				g := int(e - '0')
				if g > groups {
					return nil, sedErr("invalid reference \\%d: the regex has %d group(s)", g, groups)
				}
				flush()
				out = append(out, piece{group: g})
			case e == 'n':
				lit = append(lit, '\n')
			case e == 't':
				lit = append(lit, '\t')
			case e == 'r':
				lit = append(lit, '\r')
			case e == 'U' || e == 'L' || e == 'u' || e == 'l' || e == 'E':
				return nil, sedErr("case conversion \\%c is not supported", e)
			default:
				lit = append(lit, e)
			}
		default:
			lit = append(lit, c)
		}
	}
	flush()
	return out, nil
}

// Apply runs the substitution on every line of content (a line's "\n" is
// not part of what the regex sees; a "\r" before it is) and returns the
// new content and the number of replacements. Content with no match comes
// back as the same slice.
func (s *Sed) Apply(content []byte) ([]byte, int) {
	out, n := s.AppendApply(nil, content)
	if n == 0 {
		return content, 0
	}
	return out, n
}

// Needle is a string every match of the substitution holds, with no line
// break in it, or nil: content that does not hold it is not changed
// ([Sed.Holds]), and a reader may pass over a file a piece at a time,
// each piece overlapping the one before by len(Needle())-1 bytes.
func (s *Sed) Needle() []byte {
	if s.find == nil || bytes.IndexByte(s.lit, '\n') >= 0 {
		return nil
	}
	return s.lit
}

// Holds reports whether b holds the substitution's [Sed.Needle] (false
// without one).
func (s *Sed) Holds(b []byte) bool {
	return s.Needle() != nil && s.find.Index(b) >= 0
}

// AppendApply is [Sed.Apply] that appends the new content to dst (a buffer
// the caller reuses) and returns it. With no match nothing is appended
// and dst comes back as it was.
func (s *Sed) AppendApply(dst, content []byte) ([]byte, int) {
	out, n, _ := s.appendApply(dst, content, nil)
	return out, n
}

// AppendApplySpans is [Sed.AppendApply] that also appends to spans the
// lines it substituted, as [Change.Spans]: the diff of content and the
// new content (the part appended to dst) is then written from them
// instead of being found by comparing both ([Render], which checks that
// the lines outside them are the same).
func (s *Sed) AppendApplySpans(dst, content []byte, spans []Span) ([]byte, int, []Span) {
	return s.appendApply(dst, content, &spanCounter{spans: spans})
}

// spanCounter numbers the lines a substitution changed (AppendApplySpans):
// line is the old content's line at byte done, delta how many lines the
// new content has more above it.
type spanCounter struct {
	spans       []Span
	line, delta int
	at          int // content[:at] is counted into line
}

// add records that line [ls, le) of content (le at its newline, or the
// end) became out, the new line without its newline.
func (c *spanCounter) add(content []byte, ls int, out []byte) {
	c.line += bytes.Count(content[c.at:ls], []byte{'\n'})
	c.at = ls
	extra := bytes.Count(out, []byte{'\n'}) // a replacement of more lines
	c.spans = append(c.spans, Span{Old0: c.line, Old1: c.line + 1, New0: c.line + c.delta, New1: c.line + c.delta + 1 + extra})
	c.delta += extra
}

func (s *Sed) appendApply(dst, content []byte, sc *spanCounter) ([]byte, int, []Span) {
	if s.find == nil && s.lines != nil {
		return s.appendLines(dst, content, sc)
	}
	out, start := dst, len(dst)
	n, done := 0, 0 // done: content[:done] is already in out
	for pos := 0; pos < len(content); {
		// Find the next line that may match, without looking at each line.
		var at int
		if s.find != nil {
			i := s.find.Index(content[pos:])
			if i < 0 {
				break
			}
			at = pos + i
		} else {
			loc := s.scan.FindIndex(content[pos:])
			if loc == nil {
				break
			}
			at = pos + loc[0]
		}
		ls := bytes.LastIndexByte(content[:at], '\n') + 1
		le := len(content)
		next := le
		if i := bytes.IndexByte(content[at:], '\n'); i >= 0 {
			le, next = at+i, at+i+1
		}
		if at == len(content) && ls == len(content) {
			break // an empty match after the final newline is on no line
		}
		if n == 0 {
			// Room for the content and some growth, once.
			out = slices.Grow(out, len(content)+len(content)/32+64)
		}
		mark := len(out)
		var k int
		if out, k = s.appendLine(append(out, content[done:ls]...), content[ls:le]); k > 0 {
			if sc != nil {
				sc.add(content, ls, out[mark+ls-done:])
			}
			done = le
			n += k
		} else {
			out = out[:mark]
		}
		pos = next
	}
	return s.finish(dst, start, out, content, done, n, sc)
}

// finish ends an appendApply: the rest of content after done appended, or
// dst as it was when nothing was substituted.
func (s *Sed) finish(dst []byte, start int, out, content []byte, done, n int, sc *spanCounter) ([]byte, int, []Span) {
	var spans []Span
	if sc != nil {
		spans = sc.spans
	}
	if n == 0 {
		return dst[:start], 0, spans
	}
	return append(out, content[done:]...), n, spans
}

// appendLines is AppendApply for a regex, its candidate lines found by
// grep's engine: a line it passes over holds no match of the regex.
func (s *Sed) appendLines(dst, content []byte, sc *spanCounter) ([]byte, int, []Span) {
	out, start := dst, len(dst)
	n, done := 0, 0 // done: content[:done] is already in out
	s.lines.Lines(content, func(b grep.Block) bool {
		ls, le := b.Start, b.End
		if le > ls && content[le-1] == '\n' {
			le--
		}
		if n == 0 {
			// Room for the content and some growth, once.
			out = slices.Grow(out, len(content)+len(content)/32+64)
		}
		mark := len(out)
		var k int
		if out, k = s.appendLine(append(out, content[done:ls]...), content[ls:le]); k > 0 {
			if sc != nil {
				sc.add(content, ls, out[mark+ls-done:])
			}
			done = le
			n += k
		} else {
			out = out[:mark]
		}
		return true
	})
	return s.finish(dst, start, out, content, done, n, sc)
}

// appendLine appends line l (without its newline) substituted to out; with
// no substitution (0) what it appended is to be dropped by the caller.
func (s *Sed) appendLine(out, l []byte) ([]byte, int) {
	if s.find != nil && s.nth == 1 {
		// A literal: no regex needed to find its occurrences, which
		// cannot overlap as the regex's leftmost matches do not.
		rep := s.rep
		n, last := 0, 0
		for {
			i := s.find.Index(l[last:])
			if i < 0 {
				break
			}
			out = append(append(out, l[last:last+i]...), rep...)
			last += i + len(s.lit)
			n++
			if !s.global {
				break
			}
		}
		return append(out, l[last:]...), n
	}
	ms := s.re.FindAllSubmatchIndex(l, -1)
	if len(ms) < s.nth {
		return out, 0
	}
	last, n := 0, 0
	for k, m := range ms {
		if k+1 < s.nth {
			continue
		}
		if k+1 > s.nth && !s.global {
			break
		}
		out = append(out, l[last:m[0]]...)
		for _, p := range s.pieces {
			if p.group < 0 {
				out = append(out, p.lit...)
			} else if lo, hi := m[2*p.group], m[2*p.group+1]; lo >= 0 {
				out = append(out, l[lo:hi]...)
			}
		}
		last = m[1]
		n++
	}
	return append(out, l[last:]...), n
}

// String returns the regex as compiled, for messages.
func (s *Sed) String() string { return fmt.Sprint(s.re) }
