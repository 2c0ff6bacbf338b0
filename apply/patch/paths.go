package patch

import (
	"errors"
	"strings"
)

// headerPath returns the path of a ---/+++ line's rest: a C-quoted name
// (git quotes names with special characters), or the text up to a tab
// (diff -u follows the name with a tab and a time stamp), trimmed.
func headerPath(s string) (string, error) {
	if strings.HasPrefix(s, `"`) {
		name, _, err := quoted(s)
		return name, err
	}
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s), nil
}

// unquote returns s, C-unquoted if it is quoted.
func unquote(s string) (string, error) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, `"`) {
		return s, nil
	}
	name, rest, err := quoted(s)
	if err == nil && strings.TrimSpace(rest) != "" {
		err = errors.New("text after a quoted name")
	}
	return name, err
}

// quoted decodes the C-quoted string at the start of s (git's escapes: \a
// \b \t \n \v \f \r \" \\ and three octal digits) and returns the rest.
func quoted(s string) (string, string, error) {
	var b []byte
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			return string(b), s[i+1:], nil
		case c != '\\':
			b = append(b, c)
			continue
		}
		i++
		if i == len(s) {
			break
		}
		switch c := s[i]; c {
		case 'a':
			b = append(b, '\a')
		case 'b':
			b = append(b, '\b')
		case 't':
			b = append(b, '\t')
		case 'n':
			b = append(b, '\n')
		case 'v':
			b = append(b, '\v')
		case 'f':
			b = append(b, '\f')
		case 'r':
			b = append(b, '\r')
		case '"', '\\':
			b = append(b, c)
		default:
			if i+2 >= len(s) || !isOctal(c) || !isOctal(s[i+1]) || !isOctal(s[i+2]) || c > '3' {
				return "", "", errors.New("bad escape in a quoted name: " + clip(s))
			}
			b = append(b, (c-'0')<<6|(s[i+1]-'0')<<3|(s[i+2]-'0'))
			i += 2
		}
	}
	return "", "", errors.New("unterminated quoted name: " + clip(s))
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

// splitGitHeader splits the names of a "diff --git A B" line. Unquoted
// names with spaces are split where both halves name the same file once
// their prefixes are stripped, as git does; ok is false when that fails
// (the section's other lines then name the files).
func splitGitHeader(s string) (a, b string, ok bool) {
	if strings.HasPrefix(s, `"`) {
		a, rest, err := quoted(s)
		if err != nil {
			return "", "", false
		}
		b, err = unquote(rest)
		return a, b, err == nil
	}
	if i := strings.Index(s, ` "`); i >= 0 {
		if b, err := unquote(s[i+1:]); err == nil {
			return s[:i], b, true
		}
	}
	for i := 0; i < len(s); i++ {
		if s[i] != ' ' {
			continue
		}
		a, b := s[:i], s[i+1:]
		if x, y := stripPrefixes(a, b); x == y {
			return a, b, true
		}
	}
	if a, b, found := strings.Cut(s, " "); found {
		return a, b, false
	}
	return s, s, false
}

// stripPrefixes removes the leading directory a diff puts on its names:
// git's a/ and b/ (or its other one-letter prefixes: c/, i/, o/, w/, 1/,
// 2/), or two different top directories over the same remainder (diff -ruN
// dir1 dir2). Names written without a prefix (diff -u, git diff
// --no-prefix) are kept as they are. /dev/null stays.
func stripPrefixes(old, nw string) (string, string) {
	oh, or, okOld := strings.Cut(old, "/")
	nh, nr, okNew := strings.Cut(nw, "/")
	switch {
	case old == devNull && okNew && gitPrefix(nh):
		return old, nr
	case nw == devNull && okOld && gitPrefix(oh):
		return or, nw
	case okOld && okNew && gitPrefix(oh) && gitPrefix(nh) && oh != nh:
		return or, nr
	case okOld && okNew && oh != "" && nh != "" && oh != nh && or == nr:
		return or, nr
	}
	return old, nw
}

func gitPrefix(s string) bool {
	switch s {
	case "a", "b", "c", "i", "o", "w", "1", "2":
		return true
	}
	return false
}
