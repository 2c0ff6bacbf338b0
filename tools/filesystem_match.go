package tools

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/txedit/txedit/plan"
)

// The official filesystem server matches excludePatterns and search
// patterns with minimatch (dot: true) and sorts names with JavaScript's
// localeCompare (ICU's root collation). The two functions below follow
// them on what names and patterns hold in practice; docs/filesystem.md
// says where they stop (no extglobs, no POSIX classes; collation exact for
// ASCII and Latin-1 letters).

// minimatch reports whether the slash-separated path p matches the
// pattern as minimatch(p, pattern, {dot: true}) does (see compileMinimatch);
// a pattern that does not compile matches nothing. The tools compile each
// pattern once per call instead.
func minimatch(p, pattern string) bool {
	m, err := compileMinimatch(pattern)
	return err == nil && m.Match(p)
}

// maxBraceExpansions bounds the patterns that braces holding a "/" (or a
// "**") expand to; braces inside one name are matched as alternatives
// without expanding. minimatch expands every brace, so "{a,b}" eighteen
// times was 2^18 patterns tried on every path (8 s for one search).
const maxBraceExpansions = 256

// mmPattern is a minimatch pattern compiled once: the expansions of its
// braces that cross names, each a list of names (a globstar, or a regular
// expression, RE2, linear in the name), matched against a path's names by
// dynamic programming, linear in their product however many "**" it
// holds (the recursion before was exponential in them: "**/*/" twelve
// times took minutes on a 31-entry tree).
type mmPattern struct {
	neg  bool
	alts [][]mmSeg
}

// mmSeg is one name of a pattern.
type mmSeg struct {
	globstar bool
	src      string         // the segment as written
	re       *regexp.Regexp // nil: a malformed segment, which matches itself only
	any      []mmSeg        // a malformed segment's expansions, each matched on its own
}

// compileMinimatch compiles a pattern as minimatch(p, pattern, {dot: true})
// reads it: braces ({a,b}, {1..3}) are alternatives, "**" is any number of
// directories (at the end, at least one), "*" and "?" stay within a name,
// classes [abc], [a-z], [!a] and [^a], "\" escapes, and a leading "!"
// negates. It fails on braces that expand to more than
// maxBraceExpansions patterns.
func compileMinimatch(pattern string) (*mmPattern, error) {
	m := &mmPattern{}
	for strings.HasPrefix(pattern, "!") && !strings.HasPrefix(pattern, "!(") {
		m.neg, pattern = !m.neg, pattern[1:]
	}
	exp, err := expandCrossing(pattern, maxBraceExpansions)
	if err != nil {
		return nil, err
	}
	cache := map[string]mmSeg{}
	for _, pat := range exp {
		var segs []mmSeg
		for _, s := range strings.Split(pat, "/") {
			seg, ok := cache[s]
			if !ok {
				if seg, err = compileSegment(s); err != nil {
					return nil, err
				}
				cache[s] = seg
			}
			segs = append(segs, seg)
		}
		m.alts = append(m.alts, segs)
	}
	return m, nil
}

// Match reports whether the slash-separated path p matches.
func (m *mmPattern) Match(p string) bool {
	segs := strings.Split(p, "/")
	for _, pat := range m.alts {
		if matchSegs(pat, segs) {
			return !m.neg
		}
	}
	return m.neg
}

// compileSegment compiles one name of a pattern, braces in it as
// alternatives of one expression. Where braces and a class meet in a name
// (minimatch expands braces first, even inside brackets), or the name is
// malformed (a class that does not close, a trailing "\\": minimatch
// matches a malformed expansion as itself), its expansions are compiled
// one by one instead.
func compileSegment(s string) (mmSeg, error) {
	if s == "**" {
		return mmSeg{globstar: true, src: s}, nil
	}
	body, ok := segRegexp(s, true)
	if (!ok || strings.ContainsRune(s, '[')) && strings.ContainsRune(s, '{') {
		exp, err := expandBraces(s, maxBraceExpansions, func(string, int, int) bool { return true })
		if err != nil {
			return mmSeg{}, err
		}
		if len(exp) > 1 {
			seg := mmSeg{src: s}
			for _, e := range exp {
				x, err := compileSegment(e)
				if err != nil {
					return mmSeg{}, err
				}
				seg.any = append(seg.any, x)
			}
			return seg, nil
		}
	}
	if !ok {
		return mmSeg{src: s}, nil
	}
	re, err := regexp.Compile("^(?:" + body + ")$")
	if err != nil {
		return mmSeg{src: s}, nil
	}
	return mmSeg{src: s, re: re}, nil
}

// matchName matches one name against a compiled segment.
func (g *mmSeg) matchName(name string) bool {
	if g.any != nil {
		for i := range g.any {
			if g.any[i].matchName(name) {
				return true
			}
		}
		return false
	}
	if name == "." || name == ".." || g.re == nil {
		return g.src == name // a malformed class matches itself only
	}
	return g.re.MatchString(name)
}

// matchSegs matches a path's names against a pattern's: a globstar is
// zero or more names (at the end, one or more). memo[i*(n+1)+j] is the
// answer for pat[i:] against segs[j:], filled from the end.
func matchSegs(pat []mmSeg, segs []string) bool {
	n := len(segs)
	memo := make([]bool, (len(pat)+1)*(n+1))
	at := func(i, j int) *bool { return &memo[i*(n+1)+j] }
	*at(len(pat), n) = true
	trailing := len(pat) // pat[trailing:] are all globstars
	for trailing > 0 && pat[trailing-1].globstar {
		trailing--
	}
	for i := len(pat) - 1; i >= 0; i-- {
		for j := n; j >= 0; j-- {
			switch {
			case pat[i].globstar && i >= trailing:
				*at(i, j) = j < n
			case pat[i].globstar:
				*at(i, j) = *at(i+1, j) || (j < n && *at(i, j+1))
			default:
				*at(i, j) = j < n && pat[i].matchName(segs[j]) && *at(i+1, j+1)
			}
		}
	}
	return *at(0, 0)
}

// segRegexp translates one name of a pattern into a regular expression:
// "*" and "?" within the name, classes as path.Match reads them (after
// "[!" became "[^"), "\" escapes, and, when braces is set, {a,b} and
// {N..M} as alternatives (a brace without either is literal, as is
// everything in it). ok is false for a malformed segment (path.Match's
// ErrBadPattern).
func segRegexp(s string, braces bool) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			if i+1 >= len(s) {
				return "", false
			}
			r, size := utf8.DecodeRuneInString(s[i+1:])
			b.WriteString(regexp.QuoteMeta(string(r)))
			i += size
		case '*':
			for i+1 < len(s) && s[i+1] == '*' {
				i++
			}
			b.WriteString("[^/]*")
		case '?':
			b.WriteString("[^/]")
		case '[':
			class, n, ok := classRegexp(s[i:])
			if !ok {
				return "", false
			}
			b.WriteString(class)
			i += n - 1
		case '{':
			end := matchingBrace(s, i)
			if !braces || end < 0 {
				b.WriteString(`\{`)
				continue
			}
			body := s[i+1 : end]
			alts := splitTopLevel(body)
			if len(alts) < 2 {
				alts = numericRange(body)
			}
			if len(alts) < 2 {
				// Literal, braces and all: minimatch expands none of
				// them.
				inner, ok := segRegexp(body, false)
				if !ok {
					return "", false
				}
				b.WriteString(`\{` + inner + `\}`)
				i = end
				continue
			}
			b.WriteString("(?:")
			for k, a := range alts {
				if k > 0 {
					b.WriteString("|")
				}
				x, ok := segRegexp(a, true)
				if !ok {
					return "", false
				}
				b.WriteString(x)
			}
			b.WriteString(")")
			i = end
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			b.WriteString(regexp.QuoteMeta(string(r)))
			i += size - 1
		}
	}
	return b.String(), true
}

// classRegexp translates the class at the start of s ("[" …) as
// path.Match reads one: "^" (or "!") negates, then one or more characters
// or ranges lo-hi (each may be "\"-escaped; an unescaped "-" or "]" is
// none), up to "]". It returns the expression and the class's length.
func classRegexp(s string) (string, int, bool) {
	i := 1
	var b strings.Builder
	b.WriteString("[")
	if i < len(s) && (s[i] == '^' || s[i] == '!') {
		b.WriteString("^")
		i++
	}
	esc := func() (rune, bool) {
		if i >= len(s) || s[i] == '-' || s[i] == ']' {
			return 0, false
		}
		if s[i] == '\\' {
			i++
			if i >= len(s) {
				return 0, false
			}
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		return r, true
	}
	n := 0
	for {
		if i < len(s) && s[i] == ']' && n > 0 {
			b.WriteString("]")
			return b.String(), i + 1, true
		}
		lo, ok := esc()
		if !ok {
			return "", 0, false
		}
		hi := lo
		if i < len(s) && s[i] == '-' {
			i++
			if hi, ok = esc(); !ok {
				return "", 0, false
			}
		}
		if lo > hi {
			return "", 0, false
		}
		fmt.Fprintf(&b, `\x{%x}-\x{%x}`, lo, hi)
		n++
	}
}

// matchingBrace is the index of the "}" that closes the "{" at i, or -1.
func matchingBrace(s string, i int) int {
	depth := 0
	for ; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '{':
			depth++
		case '}':
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}

// segmentAt is the name of p (between "/") that holds the brace p[i:end+1].
func segmentAt(p string, i, end int) string {
	start := strings.LastIndexByte(p[:i], '/') + 1
	stop := len(p)
	if k := strings.IndexByte(p[end:], '/'); k >= 0 {
		stop = end + k
	}
	return p[start:stop]
}

// mayBeGlobstar reports whether some expansion of the braces in the name
// s makes it exactly "**", a globstar (as "**{,a}" and "{**,a}" do).
func mayBeGlobstar(s string) bool { return starCounts(s)&(1<<2) != 0 }

// starCounts is the set (bit n: n stars, bit 3: three or more) of the
// numbers of stars the expansions of s that hold nothing but stars have.
func starCounts(s string) uint8 {
	set := uint8(1) // the empty prefix: no stars
	for i := 0; i < len(s) && set != 0; i++ {
		switch s[i] {
		case '*':
			set = shiftCounts(set, 1)
		case '{':
			end := matchingBrace(s, i)
			if end < 0 {
				return 0
			}
			body := s[i+1 : end]
			alts := splitTopLevel(body)
			if len(alts) < 2 {
				return 0 // a literal brace, or numbers
			}
			var next uint8
			for _, a := range alts {
				next |= starCounts(a)
			}
			var out uint8
			for n := 0; n < 4; n++ {
				if next&(1<<n) != 0 {
					out |= shiftCounts(set, n)
				}
			}
			set = out
			i = end
		default:
			return 0
		}
	}
	return set
}

// shiftCounts adds n stars to every count of set (three or more stays).
func shiftCounts(set uint8, n int) uint8 {
	var out uint8
	for k := 0; k < 4; k++ {
		if set&(1<<k) != 0 {
			out |= 1 << min(k+n, 3)
		}
	}
	return out
}

// expandCrossing expands, as minimatch's brace expansion does, the braces
// that change which names a pattern has: those whose alternatives hold a
// "/", and those that can make a name exactly "**"; the others stay for
// segRegexp. It fails beyond max patterns.
func expandCrossing(pat string, max int) ([]string, error) {
	return expandBraces(pat, max, func(p string, i, end int) bool {
		return strings.Contains(p[i:end], "/") || mayBeGlobstar(segmentAt(p, i, end))
	})
}

// expandBraces expands the braces of pat for which expand says so ({a,b}
// alternatives and {N..M} ranges; a brace with neither is literal, and so
// is everything in it), as minimatch's brace expansion does, into at most
// max patterns.
func expandBraces(pat string, max int, expand func(p string, i, end int) bool) ([]string, error) {
	out := []string{}
	var walk func(p string) error
	walk = func(p string) error {
		for i := 0; i < len(p); i++ {
			switch p[i] {
			case '\\':
				i++
			case '{':
				end := matchingBrace(p, i)
				if end < 0 {
					continue
				}
				body := p[i+1 : end]
				alts := splitTopLevel(body)
				if len(alts) < 2 {
					alts = numericRange(body)
				}
				if len(alts) < 2 || !expand(p, i, end) {
					i = end
					continue
				}
				for _, a := range alts {
					if err := walk(p[:i] + a + p[end+1:]); err != nil {
						return err
					}
				}
				return nil
			}
		}
		if len(out) >= max {
			return plan.Errorf(plan.CodeInvalidRequest, "", "pattern %q: its braces expand to more than %d patterns; use fewer alternatives", pat, max)
		}
		out = append(out, p)
		return nil
	}
	if err := walk(pat); err != nil {
		return nil, err
	}
	return out, nil
}

func splitTopLevel(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '{':
			depth++
		case '}':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

func numericRange(s string) []string {
	a, b, ok := strings.Cut(s, "..")
	if !ok {
		return nil
	}
	x, err1 := strconv.Atoi(a)
	y, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil {
		return nil
	}
	step := 1
	if y < x {
		step = -1
	}
	var out []string
	for i := x; ; i += step {
		out = append(out, strconv.Itoa(i))
		if i == y || len(out) > 1000 {
			break
		}
	}
	return out
}

// icuPunct is the order ICU's root collation gives ASCII punctuation and
// symbols (after white space, before digits and letters).
const icuPunct = "_-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$"

// latinBase folds an accented Latin-1 letter to its base letter.
func latinBase(r rune) (rune, bool) {
	if r < 0xc0 || r > 0xff {
		return 0, false
	}
	for _, g := range latinGroups {
		if strings.ContainsRune(g[1:], r) {
			return rune(g[0]), true
		}
	}
	return 0, false
}

// latinGroups are a base letter followed by its accented forms.
var latinGroups = [...]string{"aàáâãäåÀÁÂÃÄÅ", "cçÇ", "eèéêëÈÉÊË", "iìíîïÌÍÎÏ", "nñÑ", "oòóôõöøÒÓÔÕÖØ", "uùúûüÙÚÛÜ", "yýÿÝ"}

// collationKeys are a character's primary (group and base), secondary
// (accent) and tertiary (case) weights.
func collationKeys(r rune) (primary int, secondary, tertiary int) {
	switch {
	case unicode.IsSpace(r):
		return 1<<21 | int(r), 0, 0
	case r < 128 && strings.ContainsRune(icuPunct, r):
		return 2<<21 | strings.IndexRune(icuPunct, r), 0, 0
	case r >= '0' && r <= '9':
		return 3<<21 | int(r-'0'), 0, 0
	}
	accent := 0
	if b, ok := latinBase(r); ok {
		accent = int(r)
		if unicode.IsUpper(r) {
			accent = int(unicode.ToLower(r))
		}
		if unicode.IsUpper(r) {
			tertiary = 1
		}
		return 4<<21 | int(b), accent, tertiary
	}
	if unicode.IsUpper(r) {
		tertiary = 1
	}
	lr := unicode.ToLower(r)
	if lr < 128 && unicode.IsLetter(lr) {
		return 4<<21 | int(lr), 0, tertiary
	}
	return 5<<21 | int(lr), 0, tertiary
}

// localeCompare orders names as JavaScript's a.localeCompare(b) does with
// ICU's root collation: white space, then punctuation, digits (one by
// one), letters; letters alike but for accents, then case (lower first),
// decide only when nothing else does.
func localeCompare(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	for level := 0; level < 3; level++ {
		for i := 0; i < len(ra) && i < len(rb); i++ {
			pa, sa, ta := collationKeys(ra[i])
			pb, sb, tb := collationKeys(rb[i])
			wa, wb := [3]int{pa, sa, ta}[level], [3]int{pb, sb, tb}[level]
			if wa != wb {
				if wa < wb {
					return -1
				}
				return 1
			}
		}
		if level == 0 && len(ra) != len(rb) {
			if len(ra) < len(rb) {
				return -1
			}
			return 1
		}
	}
	return strings.Compare(a, b)
}
