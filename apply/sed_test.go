package apply

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txedit/txedit/plan"
)

var sedInputs = map[string]string{
	"plain":   "hello world\nfoo bar baz foo\nprice: $5 & 10%\n  indented line\nfunc Foo(a, b int) error {\nabcabc\nthe end\n",
	"crlf":    "first line\r\nfoo bar\r\nlast foo\r\n",
	"noeol":   "one two\nthree foo\nfour foo foo",
	"latin1":  "caf\xe9 au lait\nna\xefve foo\n\xff\xfe bytes\n",
	"empty":   "",
	"oneline": "x",
}

// sedConformance lists patterns valid in both GNU sed -E and txedit; each
// is checked on every input against the real sed (LC_ALL=C).
var sedConformance = []string{
	`s/foo/FOO/`,
	`s/foo/FOO/g`,
	`s/o/0/2`,
	`s/o/0/2g`,
	`s/FOO/x/i`,
	`s/FOO/x/gI`,
	`s/^/> /`,
	`s/$/;/`,
	`s/^$/EMPTY/`,
	`s/(\w+) (\w+)/\2 \1/`,
	`s/([a-z]+)([0-9]*)/<\1|\2>/g`,
	`s/a|ab/X/g`,
	`s/(a|ab)(c|bcd)?/[\1]/g`,
	`s/b*/-/g`,
	`s/x*/-/g`,
	`s/[aeiou]/V/g`,
	`s/[^a-z ]/#/g`,
	`s/[[:digit:]]+/N/g`,
	`s/[[:space:]]+/_/g`,
	`s/[]]/R/g`,
	`s|/|SLASH|g`,
	`s#o#0#g`,
	`s,foo\,bar,X,`,
	`s/a\/b/X/`,
	`s/foo/&&/`,
	`s/foo/\&/`,
	`s/foo/a\\b/`,
	`s/ /\n/`,
	`s/o/\t/g`,
	`s/\$5/five dollars/`,
	`s/.*/[&]/`,
	`s/.$/!/`,
	`s/^(.)(.*)$/\2\1/`,
	`s/l{2}/LL/`,
	`s/(foo|bar) ?/\1_/g`,
	`s/\bfoo\b/W/g`,
	`s/e\r$/E/`,
	`s/(c)(a)(f)/\3\2\1/`,
	`s/.//3`,
	`s/[a-z]+/(&)/3g`,
	`s/\./DOT/g`,
	`s/%/ percent/`,
	`s/(fo+) (ba[rz])/\2-\1/g`,
	`s/wor|lin/#/g`,
	`s/o.e/[&]/g`,
	`s/foo$/END/`,
	`s/^foo/START/`,
	`s/ba[rz] /<\0>/g`,
	`s/foo/[&]/2`,
}

// gnuSed is the path of GNU sed; without it the test fails in CI and is
// skipped elsewhere.
func gnuSed(t *testing.T) string {
	t.Helper()
	sed, err := exec.LookPath("sed")
	if err != nil || exec.Command(sed, "--version").Run() != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("GNU sed is needed")
		}
		t.Skip("GNU sed not installed")
	}
	return sed
}

func TestSedMatchesGNUSed(t *testing.T) {
	sed := gnuSed(t)
	if len(sedConformance) < 30 {
		t.Fatalf("only %d conformance patterns", len(sedConformance))
	}
	// One sed per pattern: sed -i edits each input file separately, as
	// if each were its own stdin (-i implies -s).
	dir := t.TempDir()
	var names, paths []string
	for name := range sedInputs {
		names = append(names, name)
		paths = append(paths, filepath.Join(dir, name))
	}
	for _, pat := range sedConformance {
		s, err := ParseSed(pat, false)
		if err != nil {
			t.Errorf("ParseSed(%q): %v", pat, err)
			continue
		}
		for i, name := range names {
			if err := os.WriteFile(paths[i], []byte(sedInputs[name]), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		cmd := exec.Command(sed, append([]string{"-E", "-i", pat}, paths...)...)
		cmd.Env = append(os.Environ(), "LC_ALL=C")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("sed -E -i %q: %v\n%s", pat, err, out)
		}
		for i, name := range names {
			in := sedInputs[name]
			want, err := os.ReadFile(paths[i])
			if err != nil {
				t.Fatal(err)
			}
			got, _ := s.Apply([]byte(in))
			if !bytes.Equal(got, want) {
				t.Errorf("%s on %s:\n got %q\nwant %q", pat, name, got, want)
			}
		}
	}
}

func TestSedParseErrors(t *testing.T) {
	for _, bad := range []string{
		"", "x/a/b/", "s", "s/a/b", "s/a", `s\a\b\`, "s/[a/b/", "s/a/b/0", "s/a/b/p", "s/a/b/w f",
		`s/(a)/\2/`, `s/a/\U&/`, "s/(/x/",
	} {
		_, err := ParseSed(bad, false)
		if plan.CodeOf(err) != plan.CodeInvalidRequest {
			t.Errorf("ParseSed(%q) = %v, want invalid_request", bad, err)
		}
	}
}

func TestSedLiteral(t *testing.T) {
	s, err := ParseSed(`s/a.b(c)/&\1$0/g`, true)
	if err != nil {
		t.Fatal(err)
	}
	got, n := s.Apply([]byte("a.b(c) axb(c) a.b(c)\n"))
	if string(got) != "&\\1$0 axb(c) &\\1$0\n" || n != 2 {
		t.Errorf("literal: %q, %d", got, n)
	}
	// Untouched content is returned as it is.
	in := []byte("nothing here\n")
	if out, n := s.Apply(in); n != 0 || &out[0] != &in[0] {
		t.Error("no match should return the input slice")
	}
}

// TestSedLiteralMatchesGNUSed: a literal substitution (found without the
// regexp) does what GNU sed does with the same string escaped, for
// literals with regexp metacharacters, overlapping occurrences (aa in
// aaaa), at line ends and across CRLF, with and without g and a number.
func TestSedLiteralMatchesGNUSed(t *testing.T) {
	sed := gnuSed(t)
	in := "aaaa a.b(c) aa\nerrors.New( errors.New(errors.New(\r\nfoo$ [x]* foo\nfoo\n\nlast aa"
	in = strings.NewReplacer(`\n`, "\n", `\r`, "\r").Replace(in)
	ere := func(s string) string { // escaped for sed -E
		var b strings.Builder
		for _, c := range s {
			if strings.ContainsRune(`.[]()*+?{}|^$\/`, c) {
				b.WriteByte('\\')
			}
			b.WriteRune(c)
		}
		return b.String()
	}
	for _, lit := range []string{"aa", "a", "a.b(c)", "errors.New(", "foo", "foo$", "[x]*", "\r", "last aa"} {
		for _, flags := range []string{"", "g", "2", "2g"} {
			s, err := ParseSed("s/"+strings.ReplaceAll(lit, "/", "\\/")+"/<&>/"+flags, true)
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(sed, "-E", "s/"+ere(lit)+"/<\\&>/"+flags)
			cmd.Env = append(os.Environ(), "LC_ALL=C")
			cmd.Stdin = strings.NewReader(in)
			want, err := cmd.Output()
			if err != nil {
				t.Fatalf("sed: %v", err)
			}
			got, n := s.Apply([]byte(in))
			if !bytes.Equal(got, want) {
				t.Errorf("%q %s:\n got %q\nwant %q", lit, flags, got, want)
			}
			// AppendApply appends to what the buffer holds, and with
			// no match leaves it as it was.
			wantBuf := "keep:" + string(got)
			if n == 0 {
				wantBuf = "keep:"
			}
			buf, m := s.AppendApply([]byte("keep:"), []byte(in))
			if m != n || string(buf) != wantBuf {
				t.Errorf("%q %s: AppendApply = %q, %d", lit, flags, buf, m)
			}
			if buf, m := s.AppendApply([]byte("keep:"), []byte("none here\n")); m != 0 || string(buf) != "keep:" {
				t.Errorf("%q %s: AppendApply without a match = %q, %d", lit, flags, buf, m)
			}
		}
	}
}

// $ go test -fuzz=FuzzSed ./apply
func FuzzSed(f *testing.F) {
	for _, p := range sedConformance[:10] {
		f.Add(p, sedInputs["plain"])
	}
	f.Fuzz(func(t *testing.T, pat, in string) {
		s, err := ParseSed(pat, false)
		if err != nil {
			return
		}
		out, n := s.Apply([]byte(in))
		if n == 0 && string(out) != in {
			t.Fatalf("no replacement but the content changed")
		}
	})
}

// TestSedFindsLinesWithGrep: a regex's candidate lines come from grep's
// engine (its prefilters), and a regex that is a plain string is found
// and replaced as one; what both give is checked against GNU sed by
// TestSedMatchesGNUSed.
func TestSedFindsLinesWithGrep(t *testing.T) {
	for _, c := range []struct {
		pat   string
		plain string // the string found, when the regex is one
	}{
		{`s/errors\.New/E/g`, "errors.New"},
		{`s/foo/[&]/`, "foo"},
		{`s/errors\.New\(/E/`, "errors.New("},
		{`s/fo+/X/g`, ""},
		{`s/foo/X/i`, ""},
		{`s/a|b/X/`, ""},
		{"s/\xef\xbf\xbd/X/", ""},
	} {
		s, err := ParseSed(c.pat, false)
		if err != nil {
			t.Fatal(err)
		}
		if s.lines == nil {
			t.Errorf("%s: no grep matcher", c.pat)
		}
		if string(s.lit) != c.plain {
			t.Errorf("%s: found as the string %q, want %q", c.pat, s.lit, c.plain)
		}
	}
	s, err := ParseSed(`s/errors\.New/x&y/g`, false)
	if err != nil {
		t.Fatal(err)
	}
	got, n := s.Apply([]byte("a errors.New b errors.New\nerrorsxNew\n"))
	if want := "a xerrors.Newy b xerrors.Newy\nerrorsxNew\n"; string(got) != want || n != 2 {
		t.Errorf("got %q (%d), want %q (2)", got, n, want)
	}
}
