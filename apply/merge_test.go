package apply

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/txedit/txedit/plan"
)

func strOps(old, new string, all bool) *plan.FileOps {
	return &plan.FileOps{Path: "f", NumEdits: 1, StrReplaces: []*plan.Op{{Command: plan.StrReplace, Old: old, Text: new, All: all}}}
}

func numberedLines(n int, format string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, format, i)
	}
	return b.String()
}

// The rebase cases of docs/design.md ("Concurrency"): each is a base, the
// current version (someone else's change), an edit made against the base,
// and what the rebase must give: the merged bytes, or a refusal.
func TestRebaseCases(t *testing.T) {
	base := numberedLines(10, "line %d\n")
	repl := func(s, old, new string) string {
		if !strings.Contains(s, old) {
			t.Fatalf("case setup: %q not in %q", old, s)
		}
		return strings.Replace(s, old, new, 1)
	}
	cases := []struct {
		name      string
		base, cur string
		edit      *plan.FileOps
		want      string // "" refuses
		why       string // part of the refusal's reason
	}{
		{name: "disjoint", base: base, cur: repl(base, "line 8\n", "line 8 theirs\n"),
			edit: strOps("line 2\n", "line 2 ours\n", false),
			want: repl(repl(base, "line 8\n", "line 8 theirs\n"), "line 2\n", "line 2 ours\n")},
		{name: "one line between", base: base, cur: repl(base, "line 4\n", "line 4 theirs\n"),
			edit: strOps("line 2\n", "line 2 ours\n", false),
			want: repl(repl(base, "line 4\n", "line 4 theirs\n"), "line 2\n", "line 2 ours\n")},
		{name: "adjacent lines", base: base, cur: repl(base, "line 3\n", "line 3 theirs\n"),
			edit: strOps("line 2\n", "line 2 ours\n", false), why: "next to them"},
		{name: "same line", base: base, cur: repl(base, "line 5\n", "line 5 theirs\n"),
			edit: strOps("line 5\n", "line 5 ours\n", false), why: "changed since"},
		{name: "target quoted with context that changed", base: base, cur: repl(base, "line 1\n", "line one\n"),
			edit: strOps("line 1\nline 2\nline 3\n", "line 1\nline 2\nline 3 ours\n", false), why: "not found"},
		{name: "deleted elsewhere", base: base, cur: repl(base, "line 9\n", ""),
			edit: strOps("line 2\n", "", false),
			want: repl(repl(base, "line 9\n", ""), "line 2\n", "")},
		{name: "deleted under the edit", base: base, cur: repl(base, "line 5\nline 6\n", ""),
			edit: strOps("line 6\n", "line 6 ours\n", false), why: "changed since"},
		{name: "both delete the same line", base: base, cur: repl(base, "line 5\n", ""),
			edit: strOps("line 5\n", "", false), why: "not found"},
		{name: "inserts at one place", base: base, cur: repl(base, "line 5\n", "line 5\ntheirs\n"),
			edit: &plan.FileOps{Path: "f", NumEdits: 1, LineEdits: []*plan.Op{{Command: plan.Insert, Start: 5, End: 5, Text: "ours"}}},
			why:  "changed since"},
		{name: "insert by line number, shifted", base: base, cur: repl(base, "line 1\n", "line 0\nline 1\n"),
			edit: &plan.FileOps{Path: "f", NumEdits: 1, LineEdits: []*plan.Op{{Command: plan.Insert, Start: 7, End: 7, Text: "ours"}}},
			want: repl(repl(base, "line 1\n", "line 0\nline 1\n"), "line 7\n", "line 7\nours\n")},
		{name: "replace_lines by line number, shifted", base: base, cur: repl(base, "line 2\n", ""),
			edit: &plan.FileOps{Path: "f", NumEdits: 1, LineEdits: []*plan.Op{{Command: plan.ReplaceLines, Start: 8, End: 9, Text: "eight-nine"}}},
			want: repl(repl(base, "line 2\n", ""), "line 8\nline 9\n", "eight-nine\n")},
		{name: "unique becomes ambiguous", base: "a\nb\nx := 1\nc\nd\ne\n", cur: "a\nb\nx := 1\nc\nd\nx := 1\n",
			edit: strOps("x := 1", "x := 2", false), why: "not found once"},
		{name: "replace_all meets a new occurrence", base: "foo\na\nb\nc\nd\nfoo\n", cur: "foo\na\nb\nfoo\nd\nfoo\n",
			edit: strOps("foo", "bar", true), why: "another place"},
		{name: "replace_all, occurrences all mapped", base: "foo\na\nb\nc\nd\ne\nfoo\n", cur: "foo\na\nb\nC\nd\ne\nfoo\n",
			edit: strOps("foo", "bar", true), want: "bar\na\nb\nC\nd\ne\nbar\n"},
		{name: "target moved", base: "x\na\nb\nc\nd\n", cur: "a\nb\nc\nd\nx\n",
			edit: strOps("x\n", "y\n", false), why: "changed since"},
		{name: "crlf", base: "one\r\ntwo\r\nthree\r\nfour\r\nfive\r\n", cur: "one\r\ntwo\r\nthree\r\nfour\r\nFIVE\r\n",
			edit: strOps("one\ntwo", "ONE\ntwo", false), want: "ONE\r\ntwo\r\nthree\r\nfour\r\nFIVE\r\n"},
		{name: "crlf made lf by a formatter", base: "one\r\ntwo\r\nthree\r\n", cur: "one\ntwo\nthree\n",
			edit: strOps("one", "ONE", false), why: "changed since"},
		{name: "no final newline, append at its end", base: "a\nb\nc\nd", cur: "a\nb\nc\nd\ne",
			edit: strOps("a\n", "A\n", false), want: "A\nb\nc\nd\ne"},
		{name: "no final newline, edit of the last line", base: "a\nb\nc\nd", cur: "a\nb\nc\nd\ne",
			edit: strOps("d", "D", false), why: "changed since"},
		{name: "edit adds the final newline", base: "a\nb\nc\nd", cur: "A\nb\nc\nd",
			edit: &plan.FileOps{Path: "f", NumEdits: 1, Appends: []*plan.Op{{Command: plan.Append, Text: "e"}}},
			want: "A\nb\nc\nd\ne\n"},
		{name: "whole-file write", base: base, cur: repl(base, "line 9\n", "x\n"),
			edit: &plan.FileOps{Path: "f", NumEdits: 1, Create: &plan.Op{Command: plan.Create, Text: "new\n"}}, why: "whole file"},
		{name: "text_edits (positions)", base: base, cur: repl(base, "line 9\n", "x\n"),
			edit: &plan.FileOps{Path: "f", NumEdits: 1, Patches: []*plan.Op{{Command: plan.TextEdits}}}, why: "positions"},
		{name: "delete", base: base, cur: repl(base, "line 9\n", "x\n"),
			edit: &plan.FileOps{Path: "f", NumEdits: 1, Final: &plan.Op{Command: plan.Delete}}, why: "whole file"},
		{name: "edit not made against the base", base: base, cur: repl(base, "line 9\n", "x\n"),
			edit: strOps("x\n", "y\n", false), why: "does not apply to the version"},
		{name: "the same change made on both sides", base: base, cur: repl(base, "line 5\n", "five\n"),
			edit: &plan.FileOps{Path: "f", NumEdits: 1, LineEdits: []*plan.Op{{Command: plan.ReplaceLines, Start: 5, End: 5, Text: "five"}}},
			want: repl(base, "line 5\n", "five\n")},
		{name: "rewrite: edits in order, disjoint", base: base, cur: repl(base, "line 9\n", "nine\n"),
			edit: &plan.FileOps{Path: "f", NumEdits: 1, Create: &plan.Op{Command: plan.Create, Rewrite: func(cur []byte) (string, error) {
				s := string(cur)
				if strings.Count(s, "line 2\n") != 1 {
					return "", errors.New("not once")
				}
				return strings.Replace(strings.Replace(s, "line 2\n", "two\n", 1), "two\n", "2\n", 1), nil
			}}},
			want: repl(repl(base, "line 9\n", "nine\n"), "line 2\n", "2\n")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Rebase(c.edit, []byte(c.base), []byte(c.cur))
			switch {
			case c.want == "" && r.Why == "":
				t.Fatalf("rebased to %q; want a refusal (%s)", r.Outcome.Content, c.why)
			case c.want == "" && !strings.Contains(r.Why, c.why):
				t.Fatalf("refused: %s; want the reason to say %q", r.Why, c.why)
			case c.want != "" && r.Why != "":
				t.Fatalf("refused: %s; want %q", r.Why, c.want)
			case c.want != "" && string(r.Outcome.Content) != c.want:
				t.Fatalf("rebased to\n%q\nwant\n%q", r.Outcome.Content, c.want)
			}
		})
	}
}

// A refusal shows the lines of the current file the edit and the change
// both concern.
func TestRebaseRegion(t *testing.T) {
	base := numberedLines(30, "line %d\n")
	cur := strings.Replace(base, "line 15\n", "line 15 theirs\nextra\n", 1)
	cur = strings.Replace(cur, "line 2\n", "", 1) // shifts what follows up by one
	r := Rebase(strOps("line 15\n", "line 15 ours\n", false), []byte(base), []byte(cur))
	if r.Why == "" {
		t.Fatal("rebased over a change of the same line")
	}
	s, e := r.Region([]byte(cur), 1, 60)
	// In cur, "line 15 theirs" is line 14 and "extra" line 15.
	if s != 13 || e != 16 {
		t.Fatalf("region %d-%d, want 13-16: %q", s, e, Lines([]byte(cur), s, e))
	}
	if got := Lines([]byte(cur), s, e); strings.Join(got, "|") != "line 14|line 15 theirs|extra|line 16" {
		t.Fatalf("lines %q", got)
	}
	text, rest := CompactDiff([]byte(base), []byte(cur), r.Change, 1000)
	want := "@@ -2 +1,0 @@\n-line 2\n@@ -15 +14,2 @@\n-line 15\n+line 15 theirs\n+extra\n"
	if text != want || rest != nil {
		t.Fatalf("diff %q (rest %v), want %q", text, rest, want)
	}
	text, rest = CompactDiff([]byte(base), []byte(cur), r.Change, 25)
	if text != "@@ -2 +1,0 @@\n-line 2\n" || len(rest) != 1 || rest[0] != [2]int{14, 15} {
		t.Fatalf("capped diff %q, rest %v", text, rest)
	}
}

// Merge3 is symmetric where it merges, gives the other side when one side
// is the base, and never drops a change: every line either side changed
// shows in the merge as that side made it.
func TestMerge3Properties(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 2000; n++ {
		lines := 1 + rng.IntN(12)
		var bl []string
		for i := 0; i < lines; i++ {
			bl = append(bl, fmt.Sprintf("l%d\n", rng.IntN(6))) // repeats, as code has
		}
		if rng.IntN(4) == 0 {
			bl[len(bl)-1] = strings.TrimSuffix(bl[len(bl)-1], "\n")
		}
		base := strings.Join(bl, "")
		mutate := func(tag string) string {
			out := append([]string(nil), bl...)
			i := rng.IntN(len(out))
			switch rng.IntN(3) {
			case 0:
				out[i] = tag + "\n"
			case 1:
				out = append(out[:i], out[i+1:]...)
			default:
				out = append(out[:i], append([]string{tag + "\n"}, out[i:]...)...)
			}
			return strings.Join(out, "")
		}
		ours, theirs := mutate("OURS"), mutate("THEIRS")
		m := Merge3([]byte(base), []byte(ours), []byte(theirs))
		back := Merge3([]byte(base), []byte(theirs), []byte(ours))
		if (m.Content == nil) != (back.Content == nil) || m.Content != nil && string(m.Content) != string(back.Content) {
			t.Fatalf("not symmetric: base %q ours %q theirs %q: %q vs %q", base, ours, theirs, m.Content, back.Content)
		}
		if m.Content == nil {
			continue
		}
		for _, side := range []string{ours, theirs} {
			tag := "OURS"
			if side == theirs {
				tag = "THEIRS"
			}
			if strings.Contains(side, tag) && !strings.Contains(string(m.Content), tag) {
				t.Fatalf("lost %s: base %q ours %q theirs %q merged %q", tag, base, ours, theirs, m.Content)
			}
		}
		if got := Merge3([]byte(base), []byte(base), []byte(theirs)); string(got.Content) != theirs {
			t.Fatalf("ours = base: %q, want theirs %q", got.Content, theirs)
		}
	}
}
