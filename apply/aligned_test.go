package apply

import (
	"bytes"
	"io/fs"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// renderBoth renders c with the aligned path (alignedSpans) and without
// it (the diff of the window's lines, as before).
func renderBoth(c Change) (fast, slow string, fastSt, slowSt Stat) {
	fast, fastSt = Render(c)
	noAlignedSpans = true
	defer func() { noAlignedSpans = false }()
	slow, slowSt = Render(c)
	return
}

// takesAligned reports whether Render takes the aligned path for old and
// new; where alignedSpans finds spans, they must hold (spanGroups), or the
// path would be declined every time, silently, for the slower one.
func takesAligned(t *testing.T, old, new []byte) bool {
	t.Helper()
	oldW, newW, off := window(old, new)
	spans, ok := alignedSpans(oldW, newW, off)
	if !ok {
		return false
	}
	var la, lb []string
	if _, ok := spanGroups(old, new, spans, &la, &lb); !ok {
		t.Fatalf("%q -> %q: the aligned spans %v do not hold", old, new, spans)
	}
	return true
}

// substituted changes about one line in every `every` of text (a line of
// few letters, so that changed lines often equal others, as a
// substitution can make them): in place, without adding or removing a
// line, as a sed substitution within lines does.
func substituted(r *rand.Rand, text []byte, every int) []byte {
	lines := strings.SplitAfter(string(text), "\n")
	for i, l := range lines {
		if l == "" || r.Intn(every) != 0 {
			continue
		}
		body, end := strings.TrimSuffix(l, "\n"), ""
		if strings.HasSuffix(l, "\n") {
			end = "\n"
		}
		switch r.Intn(5) {
		case 0:
			body += "x"
		case 1:
			body = ""
		case 2:
			body = strings.ToUpper(body) + "y"
		case 3:
			if strings.HasSuffix(body, "\r") {
				body = strings.TrimSuffix(body, "\r")
			} else {
				body += "\r"
			}
		default:
			body = "b" // often another line's text
		}
		lines[i] = body + end
	}
	return []byte(strings.Join(lines, ""))
}

// randomText is n short lines of a few letters, some ending "\r\n", the
// last with or without its line break.
func randomText(r *rand.Rand, n int) []byte {
	var b []byte
	for i := 0; i < n; i++ {
		for k := r.Intn(4); k > 0; k-- {
			b = append(b, "abc"[r.Intn(3)])
		}
		if r.Intn(6) == 0 {
			b = append(b, '\r')
		}
		b = append(b, '\n')
	}
	if len(b) > 0 && r.Intn(3) == 0 {
		b = b[:len(b)-1] // no newline at the end
	}
	return b
}

// TestAlignedSpansDiffIsTheWindows: a diff rendered from the lines that
// differ line for line (alignedSpans) is, byte for byte, the diff the
// window's lines give (alignedDiff, or Myers where alignedDiff
// declines), and applies: substitutions within lines at every density
// (so that hunks' contexts touch, overlap, abut or stay apart, and
// alignedDiff's one-in-eight bound is crossed both ways), lines that
// become equal to their neighbours, CRLF lines and a "\r" added or
// removed, no final newline on either side, and the edits that are not
// line for line (a line inserted or removed), on which the aligned path
// must step aside.
func TestAlignedSpansDiffIsTheWindows(t *testing.T) {
	r := rand.New(rand.NewSource(40))
	type pair struct{ old, new []byte }
	cases := []pair{
		{[]byte("a\nb\nc\n"), []byte("a\nB\nc\n")},
		{[]byte("a\nb"), []byte("a\nb\n")},
		{[]byte("a\nb\n"), []byte("a\nb")},
		{[]byte("a\r\nb\r\n"), []byte("a\nb\r\n")},
		{[]byte("x\n"), []byte("y\n")},
		{[]byte("x"), []byte("y")},
		{[]byte("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n"), []byte("1\nX\n3\n4\n5\n6\n7\n8\nY\n10\n11\n12\n13\n14\n15\nZ\n")},
	}
	for i := 0; i < 6000; i++ {
		old := randomText(r, r.Intn(80))
		var new []byte
		switch r.Intn(4) {
		case 0:
			new = substituted(r, old, 1+r.Intn(3)) // dense: often past one in eight
		case 1:
			new = substituted(r, old, 8+r.Intn(20))
		case 2:
			// A line inserted or removed as well: not line for line.
			new = substituted(r, old, 10)
			ls := strings.SplitAfter(string(new), "\n")
			k := r.Intn(len(ls))
			if r.Intn(2) == 0 {
				ls = append(ls[:k], append([]string{"ins\n"}, ls[k:]...)...)
			} else {
				ls = append(ls[:k], ls[k+1:]...)
			}
			new = []byte(strings.Join(ls, ""))
		default:
			new = substituted(r, old, 4)
			if len(new) > 0 && r.Intn(2) == 0 {
				if new[len(new)-1] == '\n' {
					new = new[:len(new)-1]
				} else {
					new = append(new, '\n')
				}
			}
		}
		cases = append(cases, pair{old, new})
	}
	aligned := 0
	for i, c := range cases {
		ch := Change{OldPath: "f", NewPath: "f", Old: c.old, New: c.new, OldMode: 0o644, NewMode: 0o644}
		fast, slow, fs1, fs2 := renderBoth(ch)
		if fast != slow || fs1 != fs2 {
			t.Fatalf("case %d: %q -> %q: the aligned diff (%+v)\n%s\nis not the window's (%+v)\n%s", i, c.old, c.new, fs1, fast, fs2, slow)
		}
		if bytes.Equal(c.old, c.new) {
			continue
		}
		if got := patchText(t, string(c.old), fast); got != string(c.new) {
			t.Fatalf("case %d: %q -> %q: patched = %q\ndiff:\n%s", i, c.old, c.new, got, fast)
		}
		if takesAligned(t, c.old, c.new) {
			aligned++
		}
	}
	// The cases must exercise both paths.
	if aligned < len(cases)/8 || aligned > len(cases)*7/8 {
		t.Fatalf("%d of %d cases took the aligned path: the cases do not test both", aligned, len(cases))
	}
}

// TestAlignedSpansDiffOnSourceFiles: on real source files (the Go
// distribution's own, as a pattern_replace over it changes them), the
// aligned diff of a substitution is the window's.
func TestAlignedSpansDiffOnSourceFiles(t *testing.T) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	var files []string
	filepath.WalkDir(filepath.Join(strings.TrimSpace(string(out)), "src", "strings"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".go") {
			files = append(files, p)
		}
		return nil
	})
	if len(files) < 10 {
		t.Fatalf("found %d source files under GOROOT/src/strings", len(files))
	}
	subs := []string{"s/err/Err/g", "s/return /return  /", "s/^\t\t//", "s/ *$/ /", "s/[aeiou]/_/g"}
	aligned := 0
	for _, sub := range subs {
		s, err := ParseSed(sub, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			old, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			new, n := s.Apply(old)
			if n == 0 {
				continue
			}
			ch := Change{OldPath: "f.go", NewPath: "f.go", Old: old, New: new, OldMode: 0o644, NewMode: 0o644}
			fast, slow, fs1, fs2 := renderBoth(ch)
			if fast != slow || fs1 != fs2 {
				t.Fatalf("%s on %s: the aligned diff is not the window's:\n%s\nagainst\n%s", sub, f, fast, slow)
			}
			if takesAligned(t, old, new) {
				aligned++
			}
		}
	}
	if aligned == 0 {
		t.Fatal("no substitution took the aligned path")
	}
}
