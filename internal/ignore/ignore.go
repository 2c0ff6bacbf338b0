// Package ignore matches paths against gitignore-style pattern files as git
// does (gitignore(5)): comments, blank lines, trailing spaces, "\" escapes,
// "!" negation, a trailing "/" for directories only, anchoring by a "/"
// at the start or in the middle, "*", "?", bracket expressions with
// ranges, negation and POSIX classes, and "**" as a whole segment.
//
// Beside gitignore files it holds the other path filters of txedit's
// tools: [Glob] (the one glob syntax of deny lists, -g, glob, find and
// pattern_replace), ripgrep's -g [Overrides] and its file [Types].
//
// The package is pure: callers read the files and walk the tree. Git never
// descends into an ignored directory, so a file under one cannot be
// re-included; a walker that stops at ignored directories gets that for
// free.
package ignore

import (
	"bytes"
	"strings"
)

// Pattern is one line of an ignore file.
type Pattern struct {
	glob    string // the pattern proper: no "!", no trailing "/"
	negate  bool
	dirOnly bool
	// anchored patterns match the path relative to the file's directory;
	// others match the base name at any depth.
	anchored bool
}

// List is the patterns of one ignore file, which applies to paths below
// its directory.
type List struct {
	Base     string // directory of the file, root-relative ("" for the root)
	Patterns []Pattern
}

// Parse reads the lines of an ignore file in directory base.
func Parse(base string, data []byte) *List {
	l := &List{Base: base}
	for _, line := range bytes.Split(data, []byte("\n")) {
		s := strings.TrimSuffix(string(line), "\r")
		if p, ok := parseLine(s); ok {
			l.Patterns = append(l.Patterns, p)
		}
	}
	return l
}

func parseLine(s string) (Pattern, bool) {
	if s == "" || s[0] == '#' {
		return Pattern{}, false
	}
	// Trailing spaces are dropped unless escaped with a backslash.
	end := len(s)
	for end > 0 && s[end-1] == ' ' {
		if end >= 2 && s[end-2] == '\\' {
			break
		}
		end--
	}
	s = s[:end]
	var p Pattern
	if s != "" && s[0] == '!' {
		p.negate = true
		s = s[1:]
	}
	if strings.HasSuffix(s, "/") && !strings.HasSuffix(s, "\\/") {
		p.dirOnly = true
		s = strings.TrimRight(s, "/")
	}
	if s == "" {
		return Pattern{}, false
	}
	if strings.Contains(s, "/") {
		p.anchored = true
		s = strings.TrimPrefix(s, "/")
	}
	p.glob = s
	return p, true
}

// Match reports whether the list decides about path (root-relative, "/"
// separated, below the list's Base): decided is false when no pattern
// matches; otherwise ignored says whether the last matching pattern
// ignores (true) or re-includes (false) it.
func (l *List) Match(path string, isDir bool) (ignored, decided bool) {
	rel := path
	if l.Base != "" {
		if !strings.HasPrefix(path, l.Base+"/") {
			return false, false
		}
		rel = path[len(l.Base)+1:]
	}
	base := rel[strings.LastIndexByte(rel, '/')+1:]
	for i := len(l.Patterns) - 1; i >= 0; i-- {
		p := &l.Patterns[i]
		if p.dirOnly && !isDir {
			continue
		}
		subject := base
		if p.anchored {
			subject = rel
		}
		if Wildmatch(p.glob, subject) {
			return !p.negate, true
		}
	}
	return false, false
}

// Wildmatch matches text against a glob in git's pathname mode: "*" and
// "?" do not match "/", "**" as a whole segment matches any number of
// directories ("**/" leading, "/**/" inside, "/**" trailing), and other
// runs of "*" are plain "*". Like git's wildmatch it gives up early when
// the text runs out, so its time is polynomial whatever the pattern.
func Wildmatch(pattern, text string) bool {
	return wild(pattern, text, true) == matched
}

const (
	matched = iota
	noMatch
	abortAll        // the text ran out: no later start can match either
	abortToStarStar // a "*" met a "/": only an enclosing "**" may go on
)

func wild(p, t string, atSegmentStart bool) int {
	for len(p) > 0 {
		c := p[0]
		if len(t) == 0 && c != '*' {
			return abortAll
		}
		switch c {
		case '\\':
			if len(p) < 2 || t[0] != p[1] {
				return noMatch
			}
			atSegmentStart = p[1] == '/'
			p, t = p[2:], t[1:]
		case '?':
			if t[0] == '/' {
				return noMatch
			}
			atSegmentStart = false
			p, t = p[1:], t[1:]
		case '*':
			n := 0
			for n < len(p) && p[n] == '*' {
				n++
			}
			rest := p[n:]
			if n >= 2 && atSegmentStart && (rest == "" || rest[0] == '/') {
				if rest == "" {
					return matched // trailing "**": everything below
				}
				// "**/": zero or more whole directories.
				rest = rest[1:]
				for i := 0; ; {
					if r := wild(rest, t[i:], true); r != noMatch && r != abortToStarStar {
						return r
					}
					j := strings.IndexByte(t[i:], '/')
					if j < 0 {
						return abortAll
					}
					i += j + 1
				}
			}
			if rest == "" {
				if strings.Contains(t, "/") {
					return abortToStarStar
				}
				return matched
			}
			for i := 0; i < len(t); i++ {
				r := wild(rest, t[i:], false)
				if r != noMatch {
					return r
				}
				if t[i] == '/' {
					return abortToStarStar
				}
			}
			return abortAll
		case '[':
			if t[0] == '/' {
				return noMatch
			}
			ok, n := bracket(p, t[0])
			if n == 0 { // not a valid class: "[" is literal
				if t[0] != '[' {
					return noMatch
				}
				p, t = p[1:], t[1:]
				atSegmentStart = false
				continue
			}
			if !ok {
				return noMatch
			}
			p, t = p[n:], t[1:]
			atSegmentStart = false
		default:
			if t[0] != c {
				return noMatch
			}
			atSegmentStart = c == '/'
			p, t = p[1:], t[1:]
		}
	}
	if len(t) == 0 {
		return matched
	}
	return noMatch
}

// posixClass is the test of the POSIX character class name, or nil.
func posixClass(name string) func(byte) bool {
	switch name {
	case "alnum":
		return func(c byte) bool { return isAlpha(c) || isDigit(c) }
	case "alpha":
		return isAlpha
	case "blank":
		return func(c byte) bool { return c == ' ' || c == '\t' }
	case "cntrl":
		return func(c byte) bool { return c < 0x20 || c == 0x7f }
	case "digit":
		return isDigit
	case "graph":
		return func(c byte) bool { return c > 0x20 && c < 0x7f }
	case "lower":
		return func(c byte) bool { return c >= 'a' && c <= 'z' }
	case "print":
		return func(c byte) bool { return c >= 0x20 && c < 0x7f }
	case "punct":
		return func(c byte) bool { return c > 0x20 && c < 0x7f && !isAlpha(c) && !isDigit(c) }
	case "space":
		return func(c byte) bool { return c == ' ' || (c >= '\t' && c <= '\r') }
	case "upper":
		return func(c byte) bool { return c >= 'A' && c <= 'Z' }
	case "xdigit":
		return func(c byte) bool { return isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'f') }
	}
	return nil
}

func isAlpha(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// bracket matches c against the bracket expression at the start of p and
// returns the expression's length, or 0 if p holds no complete one.
func bracket(p string, c byte) (bool, int) {
	i := 1
	neg := false
	if i < len(p) && (p[i] == '!' || p[i] == '^') {
		neg = true
		i++
	}
	matched := false
	first := true
	for i < len(p) {
		if p[i] == ']' && !first {
			return matched != neg, i + 1
		}
		first = false
		if p[i] == '[' && i+1 < len(p) && p[i+1] == ':' {
			if end := strings.Index(p[i+2:], ":]"); end >= 0 {
				if fn := posixClass(p[i+2 : i+2+end]); fn != nil {
					matched = matched || fn(c)
					i += end + 4
					continue
				}
			}
		}
		lo := p[i]
		if lo == '\\' && i+1 < len(p) {
			i++
			lo = p[i]
		}
		i++
		hi := lo
		if i+1 < len(p) && p[i] == '-' && p[i+1] != ']' {
			hi = p[i+1]
			if hi == '\\' && i+2 < len(p) {
				hi = p[i+2]
				i++
			}
			i += 2
		}
		if lo <= c && c <= hi {
			matched = true
		}
	}
	return false, 0
}
