package apply

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/txedit/txedit/plan"
)

// hunksOf reads a one-file diff written by Render back into hunks, as
// the unified parser makes them: lines without their "\n", the markers,
// the stated line and the missing-newline marks.
func hunksOf(t *testing.T, diff string) []plan.Hunk {
	t.Helper()
	var hs []plan.Hunk
	var marks []byte
	lines := strings.SplitAfter(diff, "\n")
	for i := 0; i < len(lines); i++ {
		start, count, _, ok := parseHunkHeader(lines[i])
		if !ok {
			continue
		}
		h := plan.Hunk{Line: start}
		if count == 0 {
			h.Line = start + 1
		}
		marks = marks[:0]
		last := byte(0)
		for i+1 < len(lines) && lines[i+1] != "" && !strings.HasPrefix(lines[i+1], "@@") {
			i++
			l := lines[i]
			if strings.HasPrefix(l, `\ No newline`) {
				switch last {
				case '-':
					h.OldNoEOL = true
				case '+':
					h.NewNoEOL = true
				default:
					h.OldNoEOL, h.NewNoEOL = true, true
				}
				continue
			}
			body := strings.TrimSuffix(l[1:], "\n")
			last = l[0]
			marks = append(marks, l[0])
			if l[0] != '+' {
				h.Old = append(h.Old, body)
			}
			if l[0] != '-' {
				h.New = append(h.New, body)
			}
		}
		h.Marks = string(marks)
		hs = append(hs, h)
	}
	return hs
}

// TestSpannedDiffRoundTrip: a patch's hunks applied give the spans where
// the file changed (HunkOutcome.spans, Outcome.Spans); Render diffs within
// them only, and what it writes applies to the old text as the hunks did,
// with full context. Spans that do not hold (made up) are ignored: the
// diff is the same as without.
func TestSpannedDiffRoundTrip(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	used := 0
	for i := 0; i < 3000; i++ {
		a := randText(r, r.Intn(40))
		b := mutate(r, a)
		plain := Unified(Change{OldPath: "f", NewPath: "f", Old: []byte(a), New: []byte(b)})
		if plain == "" {
			continue
		}
		hs := hunksOf(t, plain)
		o := ApplyHunks("f", []byte(a), hs)
		if !o.OK() || string(o.Content) != b {
			// A diff of these texts that the matcher places elsewhere (a
			// run of equal lines): not what this test is about.
			continue
		}
		d, st := Render(Change{OldPath: "f", NewPath: "f", Old: []byte(a), New: o.Content, Spans: o.spans})
		if got := patchText(t, a, d); got != b {
			t.Fatalf("case %d: patched = %q, want %q\nspans %v\ndiff:\n%s", i, got, b, o.spans, d)
		}
		if msg := fullContext(d, len(splitLines(a))); msg != "" {
			t.Fatalf("case %d: %s\nspans %v\ndiff:\n%s", i, msg, o.spans, d)
		}
		if st.Added+st.Removed == 0 {
			t.Fatalf("case %d: no lines counted:\n%s", i, d)
		}
		used++
		// Made-up spans: ignored, or a diff that still applies.
		bogus := []Span{{Old0: r.Intn(5), Old1: r.Intn(10), New0: r.Intn(5), New1: r.Intn(10)}}
		d2, _ := Render(Change{OldPath: "f", NewPath: "f", Old: []byte(a), New: []byte(b), Spans: bogus})
		if got := patchText(t, a, d2); got != b {
			t.Fatalf("case %d: bogus spans %v: patched = %q, want %q\ndiff:\n%s", i, bogus, got, b, d2)
		}
		if msg := fullContext(d2, len(splitLines(a))); msg != "" {
			t.Fatalf("case %d: bogus spans %v: %s\ndiff:\n%s", i, bogus, msg, d2)
		}
	}
	if used < 1000 {
		t.Fatalf("only %d cases had spans", used)
	}
}

// TestSpannedDiffKeepsThePatchsPlace: where an added block could stand in
// two places (it ends with a blank line, after a blank line), the diff
// says what the hunk did, as git diff wrote it, with its full context —
// not the place the first and last differing bytes suggest.
func TestSpannedDiffKeepsThePatchsPlace(t *testing.T) {
	// As in cobra v1.7.0..v1.8.0's cobra.go: a change a few lines before
	// stops the common prefix early, and the common suffix (taken from
	// the end) takes the blank line the hunk kept.
	old := "x\nk1\nk2\nk3\nk4\nl1\nl2\nl3\n\nm1\nm2\nm3\nm4\n"
	patch := "@@ -1,4 +1,4 @@\n-x\n+X\n k1\n k2\n k3\n" +
		"@@ -7,6 +7,9 @@\n l2\n l3\n \n+n1\n+n2\n+\n m1\n m2\n m3\n"
	o := ApplyHunks("f", []byte(old), hunksOf(t, patch))
	if !o.OK() {
		t.Fatal(o.Failed[0])
	}
	want := "X\nk1\nk2\nk3\nk4\nl1\nl2\nl3\n\nn1\nn2\n\nm1\nm2\nm3\nm4\n"
	if string(o.Content) != want {
		t.Fatalf("content %q", o.Content)
	}
	d, _ := Render(Change{OldPath: "f", NewPath: "f", Old: []byte(old), New: o.Content, Spans: o.spans})
	if body := d[strings.Index(d, "@@"):]; body != patch {
		t.Errorf("spanned diff:\n%s\nwant the patch:\n%s", body, patch)
	}
	plain := Unified(Change{OldPath: "f", NewPath: "f", Old: []byte(old), New: o.Content})
	if strings.Contains(plain, patch) {
		t.Errorf("the diff of both texts says it too; the case shows nothing:\n%s", plain)
	}
}

// TestSpannedDiffIsThePatchs: a hunk's changes are written as the patch
// paired its lines, not diffed again: a table rewritten whole stays one
// run of removed and added lines (Myers would search the whole run for
// the few lines the two sides share), and a patch that removes a line and
// adds it back elsewhere in its run says so; lines a run starts or ends
// with on both sides are context.
func TestSpannedDiffIsThePatchs(t *testing.T) {
	old := "head\n1\n2\n3\na\nb\n4\n5\n6\ntail\n"
	hunk := "@@ -2,8 +2,9 @@\n 1\n 2\n 3\n-a\n-b\n+b\n+c\n+d\n 4\n 5\n 6\n"
	o := ApplyHunks("f", []byte(old), hunksOf(t, hunk))
	if !o.OK() {
		t.Fatal(o.Failed[0])
	}
	d, _ := Render(Change{OldPath: "f", NewPath: "f", Old: []byte(old), New: o.Content, Spans: o.spans})
	if body := d[strings.Index(d, "@@"):]; body != hunk {
		t.Errorf("spanned diff:\n%s\nwant the hunk:\n%s", body, hunk)
	}
	if plain := Unified(Change{OldPath: "f", NewPath: "f", Old: []byte(old), New: o.Content}); strings.Contains(plain, hunk) {
		t.Errorf("the diff of both texts says it too; the case shows nothing:\n%s", plain)
	}
	// A line removed and added back at a run's end is context.
	o = ApplyHunks("f", []byte(old), hunksOf(t, "@@ -2,8 +2,8 @@\n 1\n 2\n 3\n-a\n-b\n+A\n+b\n 4\n 5\n 6\n"))
	d, _ = Render(Change{OldPath: "f", NewPath: "f", Old: []byte(old), New: o.Content, Spans: o.spans})
	if want := "@@ -2,7 +2,7 @@\n 1\n 2\n 3\n-a\n+A\n b\n 4\n 5\n"; !strings.HasSuffix(d, want) {
		t.Errorf("diff\n%s\nwant\n%s", d, want)
	}
}

// TestSedSpans: the spans AppendApplySpans gives hold (spanGroups takes
// them) for every substitution that keeps each line one line, literal or
// regex, and the diff Render writes from them is the one it finds without
// them; with a replacement that adds lines, or empties them, the diff
// from them applies (spans that do not hold are ignored).
func TestSedSpans(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	exprs := []struct {
		sed      string
		literal  bool
		oneLine  bool // every line stays one line: the spans must hold
		anywhere bool
	}{
		{"s/a/A/g", true, true, false},
		{"s/return/yield/", true, true, false},
		{"s/}/};/g", true, true, false},
		{"s/[ab]/<&>/g", false, true, false},
		{"s/^c$/C/", false, true, false},
		{`s/\t/    /`, false, true, false},
		{`s/^$/EMPTY/`, false, true, false},
		{`s/b/1\n2/`, false, false, false},
		{`s/^.*$//`, false, false, false},
		{`s/x/X/g`, true, true, true},
	}
	for _, e := range exprs {
		s, err := ParseSed(e.sed, e.literal)
		if err != nil {
			t.Fatalf("%s: %v", e.sed, err)
		}
		used := 0
		for i := 0; i < 400; i++ {
			old := []byte(randText(r, r.Intn(60)))
			want, n := s.AppendApply(nil, old)
			got, n2, spans := s.AppendApplySpans([]byte("prefix"), old, nil)
			if n != n2 || string(got[len("prefix"):]) != string(want) {
				t.Fatalf("%s case %d: AppendApplySpans gave %q (%d), AppendApply %q (%d)", e.sed, i, got, n2, want, n)
			}
			if n == 0 {
				if len(spans) != 0 {
					t.Fatalf("%s case %d: spans %v without a substitution", e.sed, i, spans)
				}
				continue
			}
			new := got[len("prefix"):]
			plain := Unified(Change{OldPath: "f", NewPath: "f", Old: old, New: new})
			spanned := Unified(Change{OldPath: "f", NewPath: "f", Old: old, New: new, Spans: spans})
			if e.oneLine && plain != spanned {
				t.Fatalf("%s case %d: the diff from spans %v differs:\n%s\nwithout them:\n%s", e.sed, i, spans, spanned, plain)
			}
			if got := patchText(t, string(old), spanned); got != string(new) {
				t.Fatalf("%s case %d: the diff from spans %v gives %q, want %q:\n%s", e.sed, i, spans, got, new, spanned)
			}
			var la, lb []string
			if _, ok := spanGroups(old, new, spans, &la, &lb); e.oneLine && !ok && string(old) != string(new) {
				t.Fatalf("%s case %d: spans %v do not hold for %q -> %q", e.sed, i, spans, old, new)
			}
			used++
		}
		if used == 0 && !e.anywhere {
			t.Errorf("%s: no case substituted", e.sed)
		}
	}
}
