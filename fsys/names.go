package fsys

import (
	"strings"
	"unicode/utf8"
)

// SameName reports whether the path component name may denote the
// reserved name want (".git" or ".txedit") on some file system txedit runs
// on: letters compared without case (macOS, ext4 casefold and vfat fold
// them), the code points HFS+ ignores dropped, the trailing dots and
// spaces NTFS drops trimmed, and the 8.3 short name ("GIT~1") accepted.
// git refuses the same variants of .git in its trees (core.protectHFS,
// core.protectNTFS). Refusing a name that only looks like the reserved one
// on a case-sensitive file system costs nothing a user needs; letting one
// through that is the reserved one would open it (docs/design.md, "Threat
// model").
func SameName(name, want string) bool {
	if len(name) < len(want)-1 {
		return false
	}
	if isASCII(name) {
		// Most names, a walk's every one: nothing to drop but the
		// trailing dots and spaces, and then only a name as long as one
		// of the two spellings can be either (sameNameFull, which
		// decides the others, is the definition).
		e := len(name) // TrimRight(name, ". "), without its cutset's set
		for e > 0 && (name[e-1] == '.' || name[e-1] == ' ') {
			e--
		}
		n, short := name[:e], shortName(want)
		switch {
		case len(n) == len(want) && strings.EqualFold(n, want):
			return true
		case len(n) == len(short)+2 && n[len(n)-2:] == "~1" && strings.EqualFold(n[:len(short)], short):
			return true
		}
		return false
	}
	return sameNameFull(name, want)
}

// shortName is the 8.3 short name's stem of a reserved name: its first
// six letters after the dot (".txedit": "txedit", then "~1").
func shortName(want string) string {
	short := strings.TrimPrefix(want, ".")
	if len(short) > 6 {
		short = short[:6]
	}
	return short
}

// sameNameFull is SameName for any name.
func sameNameFull(name, want string) bool {
	if len(name) < len(want)-1 || !strings.ContainsAny(name, ".~") {
		return false // the common case, decided without allocating
	}
	if strings.EqualFold(name, want) {
		return true
	}
	n := name
	if !isASCII(name) {
		// Only code points past ASCII are ignorable (and bytes that are
		// not UTF-8 compare as U+FFFD): an ASCII name, most of them, is
		// compared as it is, without a copy.
		var b strings.Builder
		for _, r := range name {
			if hfsIgnorable(r) {
				continue
			}
			b.WriteRune(r)
		}
		n = b.String()
	}
	n = strings.TrimRight(n, ". ")
	if strings.EqualFold(n, want) {
		return true
	}
	return strings.EqualFold(n, shortName(want)+"~1")
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// hfsIgnorable reports the code points HFS+ leaves out of a name when it
// compares names (git's utf8.c, next_hfs_char).
func hfsIgnorable(r rune) bool {
	switch {
	case r >= 0x200c && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x206a && r <= 0x206f, r == 0xfeff:
		return true
	}
	return false
}
