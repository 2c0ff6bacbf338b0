package tools

import (
	"math/rand"
	"os"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/txedit/txedit/internal/testlong"
)

// The compiled minimatch (compileMinimatch) against the one it replaced,
// which expanded every brace for every path and matched "**" by recursion
// (kept below as minimatchRef): the same answers on random patterns and
// paths, and bounded work where the old one took seconds to minutes.

// TestMinimatchAgreesWithTheExpansion: random patterns over a small
// alphabet (names, "*", "?", "**", classes, malformed ones, braces with
// and without "/", nested, literal, ranges, escapes, "!") and random
// paths get the same answer from both. Braces are balanced: where a "{"
// never closes, minimatch and the expansion differ from each other anyway.
func TestMinimatchAgreesWithTheExpansion(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	pieces := []string{"a", "b", "ab", ".", "*", "?", "**", "[ab]", "[!a]", "[^b]", "[a-c]", "{a,b}", "{a,b/c}", "{,a}", "{1..3}", "{a}", "\\*", "[", "]", ",", "-", "x.txt", "*.txt", "{**,a}", "{a,{b,c}}", "{a{b,c}}", "{a,b*}", "{3..1}"}
	names := []string{"a", "b", "ab", "ba", "c", ".a", "x.txt", "1", "2", "{a}", "*", "a.b", "[", "a,b"}
	n := testlong.Pick(5000, 50000)
	for k := 0; k < n; k++ {
		var pb strings.Builder
		if rng.Intn(8) == 0 {
			pb.WriteString("!")
		}
		for s := rng.Intn(3) + 1; s > 0; s-- {
			for c := rng.Intn(3) + 1; c > 0; c-- {
				pb.WriteString(pieces[rng.Intn(len(pieces))])
			}
			if s > 1 {
				pb.WriteString("/")
			}
		}
		pat := pb.String()
		m, err := compileMinimatch(pat)
		if err != nil {
			t.Fatalf("%q: %v", pat, err)
		}
		for p := 0; p < 8; p++ {
			var segs []string
			for d := rng.Intn(4) + 1; d > 0; d-- {
				segs = append(segs, names[rng.Intn(len(names))])
			}
			name := path.Join(segs...)
			if got, want := m.Match(name), minimatchRef(name, pat); got != want {
				t.Fatalf("minimatch(%q, %q) = %v, the expansion said %v", name, pat, got, want)
			}
		}
	}
}

// TestMinimatchBoundedWork: the audit's patterns, which took 8.3 s
// (eighteen braces: 2^18 expansions per path) and 6.8 s ("**/*/" over and
// over, on a 31-entry tree), cost a compile and a linear match; braces
// that cross names and expand beyond the bound are refused. The bound is
// counted, not timed: one match of a deep path by a pattern of many "**"
// fills a table of (names of the pattern + 1) x (names of the path + 1).
func TestMinimatchBoundedWork(t *testing.T) {
	deep := strings.Repeat("d/", 30) + "f.txt"
	for _, pat := range []string{strings.Repeat("{a,b}", 18), strings.Repeat("**/*/", 12) + "x", strings.Repeat("{a,b}/", 30) + "x", strings.Repeat("{a/b,c}", 8)} {
		m, err := compileMinimatch(pat)
		if err != nil {
			t.Fatalf("%q: %v", pat, err)
		}
		if len(m.alts) > maxBraceExpansions {
			t.Errorf("%q: %d patterns", pat, len(m.alts))
		}
		for _, p := range []string{deep, "aaaaaaaaaaaaaaaaaa", "x"} {
			m.Match(p)
		}
	}
	if _, err := compileMinimatch(strings.Repeat("{a/b,c}", 9)); err == nil {
		t.Errorf("braces across names that expand to 512 patterns compiled")
	}
	// The old recursion on the same input, for the record: with 12
	// globstars it does not finish in a test's time; with 6 it already
	// takes 1,000 times the compiled match.
	start := time.Now()
	minimatchRef(deep, strings.Repeat("**/*/", 4)+"x")
	t.Logf("the expansion's recursion, 4 globstars, 31 names: %v", time.Since(start))
}

// minimatch reports whether the slash-separated path p matches the
// pattern as minimatch(p, pattern, {dot: true}) does: braces ({a,b},
// {1..3}) expand, "**" is any number of directories (at the end, at least
// one), "*" and "?" stay within a name, classes [abc], [a-z], [!a] and
// [^a], "\" escapes, and a leading "!" negates.
func minimatchRef(p, pattern string) bool {
	neg := false
	for strings.HasPrefix(pattern, "!") && !strings.HasPrefix(pattern, "!(") {
		neg, pattern = !neg, pattern[1:]
	}
	segs := strings.Split(p, "/")
	for _, pat := range expandBracesRef(pattern) {
		if matchSegmentsRef(strings.Split(pat, "/"), segs) {
			return !neg
		}
	}
	return neg
}

func matchSegmentsRef(pat, segs []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for len(pat) > 1 && pat[1] == "**" {
				pat = pat[1:]
			}
			if len(pat) == 1 {
				return len(segs) > 0
			}
			for i := 0; i <= len(segs); i++ {
				if matchSegmentsRef(pat[1:], segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 || !matchNameRef(pat[0], segs[0]) {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(segs) == 0
}

// matchName matches one name against one segment of a pattern.
func matchNameRef(pat, name string) bool {
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
func expandBracesRef(pat string) []string {
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
				out = append(out, expandBracesRef(pat[:open]+a+pat[i+1:])...)
			}
			return out
		}
	}
	return []string{pat}
}

// TestSearchFilesPathologicalPatterns: search_files and directory_tree
// with the audit's patterns on a 31-entry tree (a chain of 30
// directories). Eighteen braces in one name were expanded for every path
// (2^18 strings each: counted here in allocations, which do not depend on
// the machine's speed); "**/*/" twelve times was matched by a recursion
// that tries every split of 31 names (C(31,12) ways): the old code had not
// answered after many minutes, the compiled one answers at once (the
// minute's bound is generous for any machine).
func TestSearchFilesPathologicalPatterns(t *testing.T) {
	dir := t.TempDir()
	p := dir
	for i := 0; i < 30; i++ {
		p = p + "/d"
	}
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(p+"/f.txt", []byte("x\n"), 0o644)
	env := fsEnv(t, dir)
	brace := strings.Repeat("{a,b}", 18)
	allocs := testing.AllocsPerRun(1, func() {
		if r := fsCall(t, env, "search_files", map[string]any{"path": dir, "pattern": brace}); !r.OK {
			t.Errorf("search_files: %s", r.TextOf())
		}
	})
	if allocs > 200000 {
		t.Errorf("search_files with %d braces made %.0f allocations: the braces were expanded per path", 18, allocs)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"search_files", map[string]any{"path": dir, "pattern": strings.Repeat("**/*/", 12) + "x"}},
		{"directory_tree", map[string]any{"path": dir, "excludePatterns": []string{strings.Repeat("**/*/", 12) + "x"}}},
		{"search_files", map[string]any{"path": dir, "pattern": "**", "excludePatterns": []string{strings.Repeat("**/*/", 12) + "x"}}},
	} {
		done := make(chan Result, 1)
		go func() { done <- fsCall(t, env, c.tool, c.args) }()
		select {
		case r := <-done:
			if !r.OK {
				t.Errorf("%s: %s", c.tool, r.TextOf())
			}
		case <-time.After(time.Minute):
			t.Fatalf("%s %v: no answer in a minute", c.tool, c.args)
		}
	}
	// Braces that cross names and expand beyond the bound are refused,
	// with a message that says so.
	r := fsCall(t, env, "search_files", map[string]any{"path": dir, "pattern": strings.Repeat("{a/b,c}", 9)})
	if r.OK || !strings.Contains(r.TextOf(), "more than 256 patterns") {
		t.Errorf("a pattern of 512 expansions: %v %s", r.OK, r.TextOf())
	}
}
