package tools

import (
	"path"
	"strconv"
	"strings"
	"unicode"
)

// The official filesystem server matches excludePatterns and search
// patterns with minimatch (dot: true) and sorts names with JavaScript's
// localeCompare (ICU's root collation). The two functions below follow
// them on what names and patterns hold in practice; docs/filesystem.md
// says where they stop (no extglobs, no POSIX classes; collation exact for
// ASCII and Latin-1 letters).

// minimatch reports whether the slash-separated path p matches the
// pattern as minimatch(p, pattern, {dot: true}) does: braces ({a,b},
// {1..3}) expand, "**" is any number of directories (at the end, at least
// one), "*" and "?" stay within a name, classes [abc], [a-z], [!a] and
// [^a], "\" escapes, and a leading "!" negates.
func minimatch(p, pattern string) bool {
	neg := false
	for strings.HasPrefix(pattern, "!") && !strings.HasPrefix(pattern, "!(") {
		neg, pattern = !neg, pattern[1:]
	}
	segs := strings.Split(p, "/")
	for _, pat := range expandBraces(pattern) {
		if matchSegments(strings.Split(pat, "/"), segs) {
			return !neg
		}
	}
	return neg
}

func matchSegments(pat, segs []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for len(pat) > 1 && pat[1] == "**" {
				pat = pat[1:]
			}
			if len(pat) == 1 {
				return len(segs) > 0
			}
			for i := 0; i <= len(segs); i++ {
				if matchSegments(pat[1:], segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 || !matchName(pat[0], segs[0]) {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(segs) == 0
}

// matchName matches one name against one segment of a pattern.
func matchName(pat, name string) bool {
	if name == "." || name == ".." {
		return pat == name
	}
	pat = strings.ReplaceAll(pat, "[!", "[^")
	ok, err := path.Match(pat, name)
	if err != nil {
		return pat == name // a malformed class matches itself only
	}
	return ok
}

// expandBraces expands {a,b} alternatives and {N..M} ranges, as
// minimatch's brace expansion does; a brace without a comma or range is
// literal.
func expandBraces(pat string) []string {
	depth, open := 0, -1
	for i := 0; i < len(pat); i++ {
		switch pat[i] {
		case '\\':
			i++
		case '{':
			if depth == 0 {
				open = i
			}
			depth++
		case '}':
			if depth == 0 {
				continue
			}
			depth--
			if depth > 0 {
				continue
			}
			body := pat[open+1 : i]
			alts := splitTopLevel(body)
			if len(alts) < 2 {
				alts = numericRange(body)
			}
			if len(alts) < 2 {
				open = -1
				continue
			}
			var out []string
			for _, a := range alts {
				out = append(out, expandBraces(pat[:open]+a+pat[i+1:])...)
			}
			return out
		}
	}
	return []string{pat}
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
