package patch

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// mixedFile is a text file whose every line has its own line end.
type mixedFile struct {
	lines, ends []string
	noEOL       bool
}

func (f mixedFile) bytes() []byte {
	var b strings.Builder
	for i, l := range f.lines {
		b.WriteString(l)
		if i < len(f.lines)-1 || !f.noEOL {
			b.WriteString(f.ends[i])
		}
	}
	return []byte(b.String())
}

func (f mixedFile) clone() mixedFile {
	return mixedFile{lines: slices.Clone(f.lines), ends: slices.Clone(f.ends), noEOL: f.noEOL}
}

// lineEndChange makes a file with mixed (or uniform CRLF) line ends and
// changes to it of the kinds real histories hold: a renormalisation (every
// line to LF, or to CRLF, and nothing else: a "Line ending changes"
// commit), some lines' ends flipped, lines added with the less common end
// (two LF lines in a CRLF file), and ordinary edits beside them.
func lineEndChange(r *rand.Rand, n int) (old, nw mixedFile) {
	crlfShare := []int{100, 90, 50, 10}[r.IntN(4)]
	end := func() string {
		if r.IntN(100) < crlfShare {
			return "\r\n"
		}
		return "\n"
	}
	for i := range r.IntN(30) + 3 {
		old.lines = append(old.lines, fmt.Sprintf("line %d of %d %s", i, n, strings.Repeat("w", r.IntN(4))))
		old.ends = append(old.ends, end())
	}
	old.noEOL = r.IntN(6) == 0
	nw = old.clone()
	switch r.IntN(5) {
	case 0: // renormalise to one convention
		to := []string{"\n", "\r\n"}[r.IntN(2)]
		for i := range nw.ends {
			nw.ends[i] = to
		}
	case 1: // flip a few lines' ends
		for range r.IntN(3) + 1 {
			i := r.IntN(len(nw.ends))
			nw.ends[i] = map[string]string{"\n": "\r\n", "\r\n": "\n"}[nw.ends[i]]
		}
	case 2: // add lines with the less common end
		less := "\n"
		if crlfShare < 50 {
			less = "\r\n"
		}
		for k := range r.IntN(3) + 1 {
			i := r.IntN(len(nw.lines) + 1)
			nw.lines = slices.Insert(nw.lines, i, fmt.Sprintf("added %d", k))
			nw.ends = slices.Insert(nw.ends, i, less)
		}
	default: // ordinary edits, each line keeping or taking some end
		for k := range r.IntN(3) + 1 {
			i := r.IntN(len(nw.lines))
			switch r.IntN(3) {
			case 0:
				nw.lines[i] = fmt.Sprintf("changed %d", k)
			case 1:
				nw.lines = slices.Insert(nw.lines, i, fmt.Sprintf("inserted %d", k))
				nw.ends = slices.Insert(nw.ends, i, end())
			default:
				if len(nw.lines) > 1 {
					nw.lines, nw.ends = slices.Delete(nw.lines, i, i+1), slices.Delete(nw.ends, i, i+1)
				}
			}
		}
	}
	return old, nw
}

// TestLineEndsAgainstGitApply: git diffs of files with mixed line ends and
// of changes to line ends only (docs/patch-formats.md, "Line ends"), with 1
// to 3 lines of context, give exactly what git apply gives: a diff whose
// lines carry their "\r" is applied byte for byte, and one that carries
// none touches only LF lines, which its added lines follow. (Without
// context, a diff that only adds LF lines to a CRLF file carries no "\r":
// it is converted, as a model's LF patch is, where git writes LF; see
// TestLineEndsWithoutContext.)
func TestLineEndsAgainstGitApply(t *testing.T) {
	need(t, "git")
	for _, seed := range peerSeeds() {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			r := rand.New(rand.NewPCG(seed, 38))
			old, nw := tree{}, tree{}
			for i := range 4 {
				o, n := lineEndChange(r, i)
				name := fmt.Sprintf("f%d.txt", i)
				old[name], nw[name] = o.bytes(), n.bytes()
			}
			dir := t.TempDir()
			writeTree(t, filepath.Join(dir, "a"), old)
			writeTree(t, filepath.Join(dir, "b"), nw)
			context := 1 + int(seed%3)
			diff := run(t, dir, nil, []int{1}, "git", "-c", "core.autocrlf=false", "diff", "--no-index", "--no-prefix", fmt.Sprintf("-U%d", context), "a", "b")
			if len(diff) == 0 {
				t.Skip("no change")
			}
			other := filepath.Join(dir, "patched")
			writeTree(t, other, old)
			run(t, other, diff, nil, "git", "apply", "-")
			byGit := readTree(t, other)
			diffTrees(t, "git apply vs the new tree", byGit, nw, diff)
			files, err := Parse(FormatDiff, diff)
			if err != nil {
				t.Fatal(err)
			}
			result, ours := applyTree(files, old)
			if strings.Contains(result, "nothing written") {
				t.Fatalf("apply:\n%s\npatch:\n%q", result, diff)
			}
			diffTrees(t, "ours vs git apply", ours, byGit, diff)
			os.RemoveAll(dir)
		})
	}
}

// TestLineEndsWithoutContext: the one place an exact diff and a converted
// one cannot be told apart. A -U0 diff that only adds an LF line to a CRLF
// file carries no "\r": git apply writes the line with LF; txedit, which
// cannot tell it from a model's LF-only patch, gives it the CRLF of the
// lines around it. With one line of context the diff carries the context
// line's "\r", and the result is git's.
func TestLineEndsWithoutContext(t *testing.T) {
	old := tree{"f.txt": []byte("a\r\nb\r\n")}
	for _, tc := range []struct{ diff, want string }{
		{"--- a/f.txt\n+++ b/f.txt\n@@ -1,0 +2 @@\n+x\n", "a\r\nx\r\nb\r\n"},
		{"--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,3 @@\n a\r\n+x\n b\r\n", "a\r\nx\nb\r\n"},
	} {
		files, err := Parse(FormatDiff, []byte(tc.diff))
		if err != nil {
			t.Fatal(err)
		}
		if _, got := applyTree(files, old); string(got["f.txt"]) != tc.want {
			t.Errorf("%q: got %q, want %q", tc.diff, got["f.txt"], tc.want)
		}
	}
}
