// Package hash defines txedit's content-hash tokens.
//
// A [Sum] is the xxhash64 of exact bytes, written as 16 lower-case hex digits.
// No newline or BOM normalisation happens: the hash of a CRLF file differs
// from the hash of its LF twin, so hashes match only bytes that are really
// there.
//
// A [Token] names what a hash covers: the whole file ("HEX") or the lines
// S..E of it, 1-based and inclusive, line terminators included ("HEX@S-E").
// Reads return tokens; edits carry them back as preconditions.
//
// The hash is not cryptographic. It detects that a file changed between a
// read and a write; it does not prove that bytes were not forged.
package hash

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/cespare/xxhash/v2"
)

// Sum is the xxhash64 of some bytes.
type Sum uint64

// Of returns the hash of b.
func Of(b []byte) Sum { return Sum(xxhash.Sum64(b)) }

// String returns the 16-digit lower-case hex form.
func (s Sum) String() string {
	var buf [16]byte
	const digits = "0123456789abcdef"
	for i := 15; i >= 0; i-- {
		buf[i] = digits[s&0xf]
		s >>= 4
	}
	return string(buf[:])
}

// MarshalText implements [encoding.TextMarshaler].
func (s Sum) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText implements [encoding.TextUnmarshaler].
func (s *Sum) UnmarshalText(b []byte) error {
	v, err := ParseSum(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// ErrSyntax reports a malformed hash or token.
var ErrSyntax = errors.New("malformed hash token")

// ParseSum parses exactly 16 hex digits (either case).
func ParseSum(s string) (Sum, error) {
	if len(s) != 16 {
		return 0, fmt.Errorf("%w %q: want 16 hex digits", ErrSyntax, s)
	}
	v, err := strconv.ParseUint(s, 16, 64)
	if err != nil {
		return 0, fmt.Errorf("%w %q: want 16 hex digits", ErrSyntax, s)
	}
	return Sum(v), nil
}

// Token is a hash together with what it covers. A zero Start means the whole
// file; otherwise the token covers lines Start..End (1-based, inclusive).
type Token struct {
	Sum        Sum
	Start, End int
}

// IsRange reports whether t covers a line range rather than the whole file.
func (t Token) IsRange() bool { return t.Start != 0 }

// String returns "HEX" or "HEX@S-E".
func (t Token) String() string {
	if !t.IsRange() {
		return t.Sum.String()
	}
	return t.Sum.String() + "@" + strconv.Itoa(t.Start) + "-" + strconv.Itoa(t.End)
}

// ParseToken parses "HEX" or "HEX@S-E" with 1 <= S <= E.
func ParseToken(s string) (Token, error) {
	hex, rng, isRange := strings.Cut(s, "@")
	sum, err := ParseSum(hex)
	if err != nil {
		return Token{}, fmt.Errorf("%w %q: want HEX or HEX@START-END", ErrSyntax, s)
	}
	if !isRange {
		return Token{Sum: sum}, nil
	}
	a, b, ok := strings.Cut(rng, "-")
	start, err1 := strconv.Atoi(a)
	end, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || start < 1 || end < start {
		return Token{}, fmt.Errorf("%w %q: range must be START-END with 1 <= START <= END", ErrSyntax, s)
	}
	return Token{Sum: sum, Start: start, End: end}, nil
}

// Lines returns the hash token of lines start..end (1-based, inclusive) of
// data, terminators included. It reports false if the range does not lie
// within the file. A line is a run of bytes ending in '\n', or the bytes after
// the last '\n' when the file does not end in one.
func Lines(data []byte, start, end int) (Token, bool) {
	lo, hi, ok := LineSpan(data, start, end)
	if !ok {
		return Token{}, false
	}
	return Token{Sum: Of(data[lo:hi]), Start: start, End: end}, true
}

// LineSpan returns the byte offsets [lo, hi) of lines start..end of data.
func LineSpan(data []byte, start, end int) (lo, hi int, ok bool) {
	if start < 1 || end < start {
		return 0, 0, false
	}
	line, off := 1, 0
	for line < start {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			return 0, 0, false
		}
		off += i + 1
		line++
	}
	if off >= len(data) {
		return 0, 0, false // line start does not exist
	}
	lo = off
	for line <= end {
		if off >= len(data) {
			return 0, 0, false
		}
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			off = len(data)
		} else {
			off += i + 1
		}
		line++
	}
	return lo, off, true
}

// Check reports whether t matches data: a whole-file token must equal the
// hash of data, a range token the hash of its lines.
func (t Token) Check(data []byte) bool {
	if !t.IsRange() {
		return Of(data) == t.Sum
	}
	got, ok := Lines(data, t.Start, t.End)
	return ok && got.Sum == t.Sum
}

// Current returns the token of the same kind and range as t for data, as it
// is now. For a range that no longer exists it returns the whole-file token.
func (t Token) Current(data []byte) Token {
	if t.IsRange() {
		if got, ok := Lines(data, t.Start, t.End); ok {
			return got
		}
	}
	return Token{Sum: Of(data)}
}
