package ignore

import (
	"strings"
	"testing"
	"time"

	"github.com/txedit/txedit/internal/testlong"
)

func TestWildmatch(t *testing.T) {
	tests := []struct {
		pattern, text string
		want          bool
	}{
		{"*.go", "a.go", true},
		{"*.go", "dir/a.go", false},
		{"a?c", "abc", true},
		{"a?c", "a/c", false},
		{"**/x", "x", true},
		{"**/x", "a/b/x", true},
		{"a/**/b", "a/b", true},
		{"a/**/b", "a/x/y/b", true},
		{"a/**", "a/x/y", true},
		{"a/**", "a", false},
		{"x**y", "xay", true},
		{"x**y", "xa/y", false},
		{"[abc]", "b", true},
		{"[!abc]", "b", false},
		{"[^abc]", "d", true},
		{"[a-c]x", "bx", true},
		{"[]]", "]", true},
		{"[[:digit:]]*", "7up", true},
		{"[[:upper:]]", "a", false},
		{`\*`, "*", true},
		{`\*`, "a", false},
		{"[", "[", true},
		{"", "", true},
		{"a", "", false},
	}
	for _, tc := range tests {
		if got := Wildmatch(tc.pattern, tc.text); got != tc.want {
			t.Errorf("Wildmatch(%q, %q) = %v, want %v", tc.pattern, tc.text, got, tc.want)
		}
	}
}

func TestListPrecedence(t *testing.T) {
	l := Parse("sub", []byte("*.log\n!keep.log\nbuild/\n/top.txt\n"))
	cases := []struct {
		path          string
		isDir         bool
		ignored, decd bool
	}{
		{"sub/a.log", false, true, true},
		{"sub/x/keep.log", false, false, true},
		{"sub/build", true, true, true},
		{"sub/build", false, false, false},
		{"sub/top.txt", false, true, true},
		{"sub/x/top.txt", false, false, false},
		{"other/a.log", false, false, false},
	}
	for _, c := range cases {
		ig, d := l.Match(c.path, c.isDir)
		if ig != c.ignored || d != c.decd {
			t.Errorf("Match(%q, dir=%v) = %v, %v; want %v, %v", c.path, c.isDir, ig, d, c.ignored, c.decd)
		}
	}
}

// $ go test -fuzz=FuzzWildmatch ./internal/ignore
func FuzzWildmatch(f *testing.F) {
	f.Add("a/**/b*[!x]?", "a/q/bzzy")
	f.Add("[[:alpha:]\\]", "]")
	f.Fuzz(func(t *testing.T, p, s string) {
		Wildmatch(p, s) // must not panic or hang
		Parse("", []byte(p)).Match(s, false)
	})
}

// A pattern built to make naive backtracking exponential must stay fast:
// git's abort rules make the match polynomial, microseconds here, where
// backtracking takes minutes. The limit is a second of CPU time (a
// loaded machine makes the match wait, not work more), and the cost grows
// linearly with the string (testlong.Linear).
func TestWildmatchNoBlowup(t *testing.T) {
	p := strings.Repeat("*a", 12) + "b"
	s := strings.Repeat("a", 40)
	start := testlong.CPU()
	if Wildmatch(p, s) {
		t.Fatal("matched")
	}
	if d := testlong.CPU() - start; d > time.Second {
		t.Fatalf("took %v of CPU time", d)
	}
	testlong.Linear(t, "(*a)x12 b against n a's, 100 times", 8000, func(n int) {
		s := strings.Repeat("a", n)
		for range 100 {
			Wildmatch(p, s)
		}
	})
}
