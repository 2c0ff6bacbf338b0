package apply

import (
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var hunkHeader = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@`)

// parseHunkHeader reads "@@ -start,count +newStart,newCount @@" (a count
// left out is 1) into start, count and newCount; ok is false for any
// other line.
func parseHunkHeader(line string) (start, count, newCount int, ok bool) {
	m := hunkHeader.FindStringSubmatch(line)
	if m == nil {
		return 0, 0, 0, false
	}
	num := func(s string) int {
		if s == "" {
			return 1
		}
		n, _ := strconv.Atoi(s)
		return n
	}
	return num(m[1]), num(m[2]), num(m[4]), true
}

// patchText applies the hunks of a one-file diff to old, checking every
// context and deleted line and every header count, as patch -F0 would,
// and where each hunk's new side says it starts.
func patchText(t *testing.T, old, diff string) string {
	t.Helper()
	a := splitLines(old)
	var out []string
	pos := 0
	lines := strings.SplitAfter(diff, "\n")
	for i := 0; i < len(lines); i++ {
		start, count, newCount, ok := parseHunkHeader(lines[i])
		if !ok {
			continue
		}
		if count > 0 {
			start-- // to 0-based
		}
		if start < pos {
			t.Fatalf("hunk at %d overlaps the previous one:\n%s", start+1, diff)
		}
		out = append(out, a[pos:start]...)
		pos = start
		if m := hunkHeader.FindStringSubmatch(lines[i]); m != nil {
			// The new side's start: where its lines begin in the
			// result (the line before, for an empty side).
			want := len(out) + 1
			if newCount == 0 {
				want = len(out)
			}
			if n, _ := strconv.Atoi(m[3]); n != want {
				t.Fatalf("hunk %q: the new side starts at line %d of the result, not %d\n%s", strings.TrimSpace(lines[i]), want, n, diff)
			}
		}
		gotOld, gotNew := 0, 0
		for i+1 < len(lines) && lines[i+1] != "" && !strings.HasPrefix(lines[i+1], "@@") {
			i++
			l := lines[i]
			if strings.HasPrefix(l, `\ No newline`) {
				last := len(out) - 1
				if strings.HasPrefix(lines[i-1], "-") {
					continue // the deleted line ended without newline: nothing to do
				}
				out[last] = strings.TrimSuffix(out[last], "\n")
				continue
			}
			body := l[1:]
			switch l[0] {
			case ' ', '-':
				if pos >= len(a) || strings.TrimSuffix(a[pos], "\n") != strings.TrimSuffix(body, "\n") {
					t.Fatalf("line %d: context/deleted line %q does not match %q\n%s", pos+1, body, at(a, pos), diff)
				}
				if l[0] == ' ' {
					out = append(out, a[pos])
					gotNew++
				}
				pos++
				gotOld++
			case '+':
				out = append(out, body)
				gotNew++
			default:
				t.Fatalf("bad diff line %q", l)
			}
		}
		if gotOld != count || gotNew != newCount {
			t.Fatalf("hunk header says -%d +%d, body has -%d +%d\n%s", count, newCount, gotOld, gotNew, diff)
		}
	}
	out = append(out, a[pos:]...)
	return strings.Join(out, "")
}

func at(a []string, i int) string {
	if i < len(a) {
		return a[i]
	}
	return "<EOF>"
}

func randText(r *rand.Rand, n int) string {
	words := []string{"a", "b", "c", "}", "", "func x() {", "\treturn", "// c"}
	var b strings.Builder
	nl := "\n"
	if r.Intn(4) == 0 {
		nl = "\r\n"
	}
	for i := 0; i < n; i++ {
		b.WriteString(words[r.Intn(len(words))])
		b.WriteString(nl)
	}
	s := b.String()
	if r.Intn(3) == 0 {
		s = strings.TrimSuffix(strings.TrimSuffix(s, "\n"), "\r")
	}
	return s
}

func mutate(r *rand.Rand, s string) string {
	lines := splitLines(s)
	for k := r.Intn(5); k >= 0; k-- {
		i := r.Intn(len(lines) + 1)
		switch r.Intn(3) {
		case 0:
			lines = append(lines[:i], append([]string{fmt.Sprintf("new %d\n", r.Intn(100))}, lines[i:]...)...)
		case 1:
			if i < len(lines) {
				lines = append(lines[:i], lines[i+1:]...)
			}
		case 2:
			if i < len(lines) {
				lines[i] = "changed\n"
			}
		}
	}
	out := strings.Join(lines, "")
	if r.Intn(4) == 0 {
		out = strings.TrimSuffix(out, "\n")
	}
	return out
}

func TestUnifiedRoundTrip(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 3000; i++ {
		a := randText(r, r.Intn(30))
		b := mutate(r, a)
		if r.Intn(10) == 0 {
			b = ""
		}
		if r.Intn(10) == 0 {
			a = ""
		}
		d := Unified(Change{OldPath: "f", NewPath: "f", Old: []byte(a), New: []byte(b)})
		if a == b {
			if d != "" {
				t.Fatalf("diff of equal texts: %q", d)
			}
			continue
		}
		if got := patchText(t, a, d); got != b {
			t.Fatalf("case %d: patched = %q, want %q\ndiff:\n%s", i, got, b, d)
		}
	}
}

func TestUnifiedLargeFileUsesBoundedDiff(t *testing.T) {
	var a, b strings.Builder
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&a, "line %d\n", i)
		if i%1000 == 7 {
			fmt.Fprintf(&b, "edited %d\n", i)
		} else {
			fmt.Fprintf(&b, "line %d\n", i)
		}
	}
	d := Unified(Change{OldPath: "f", NewPath: "f", Old: []byte(a.String()), New: []byte(b.String())})
	if got := patchText(t, a.String(), d); got != b.String() {
		t.Fatal("large diff does not reconstruct the new text")
	}
	if n := strings.Count(d, "\n@@"); n != 20 {
		t.Errorf("large diff has %d hunks, want 20 (one per scattered edit)", n)
	}
	// A full rewrite of a big file with no common lines must stay cheap.
	var c strings.Builder
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&c, "other %d\n", i)
	}
	d = Unified(Change{OldPath: "f", NewPath: "f", Old: []byte(a.String()), New: []byte(c.String())})
	if got := patchText(t, a.String(), d); got != c.String() {
		t.Fatal("rewrite diff does not reconstruct")
	}
}

func TestUnifiedHeaders(t *testing.T) {
	tests := []struct {
		name string
		c    Change
		want string
	}{
		{"create", Change{NewPath: "n.txt", New: []byte("x\ny\n"), NewMode: 0o644},
			"diff --git a/n.txt b/n.txt\nnew file mode 100644\n--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+x\n+y\n"},
		{"delete", Change{OldPath: "o.txt", Old: []byte("x"), OldMode: 0o755},
			"diff --git a/o.txt b/o.txt\ndeleted file mode 100755\n--- a/o.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n\\ No newline at end of file\n"},
		{"pure rename", Change{OldPath: "a", NewPath: "b", Old: []byte("x\n"), New: []byte("x\n"), OldMode: 0o644, NewMode: 0o644},
			"diff --git a/a b/b\nrename from a\nrename to b\n"},
		{"create empty", Change{NewPath: "e", NewMode: 0o644}, "diff --git a/e b/e\nnew file mode 100644\n"},
		{"space in name", Change{OldPath: "a b", NewPath: "a b", Old: []byte("1\n"), New: []byte("2\n")},
			"diff --git a/a b b/a b\n--- a/a b\t\n+++ b/a b\t\n@@ -1 +1 @@\n-1\n+2\n"},
		{"quoted name", Change{OldPath: "q\"t", NewPath: "q\"t", Old: []byte("1\n"), New: []byte("2\n")},
			"diff --git \"a/q\\\"t\" \"b/q\\\"t\"\n--- \"a/q\\\"t\"\n+++ \"b/q\\\"t\"\n@@ -1 +1 @@\n-1\n+2\n"},
	}
	for _, tc := range tests {
		if got := Unified(tc.c); got != tc.want {
			t.Errorf("%s:\ngot:\n%s\nwant:\n%s", tc.name, got, tc.want)
		}
	}
}

// TestUnifiedAppliesWithGitAndPatch runs the real tools on a tree of cases:
// CRLF files, files without a final newline, creates (also empty), deletes,
// renames with and without changes, names with spaces.
func TestUnifiedAppliesWithGitAndPatch(t *testing.T) {
	type fileCase struct {
		old, new       string
		oldName, newNm string
		oldPresent     bool
		newPresent     bool
	}
	r := rand.New(rand.NewSource(7))
	var cases []fileCase
	for i := 0; i < 60; i++ {
		a := randText(r, r.Intn(40)+1)
		cases = append(cases, fileCase{old: a, new: mutate(r, a), oldName: fmt.Sprintf("d%d/f%d.txt", i%4, i), oldPresent: true, newPresent: true})
	}
	cases = append(cases,
		fileCase{new: "brand\nnew\n", newNm: "new dir/created file.txt", newPresent: true},
		fileCase{new: "no newline", newNm: "nn.txt", newPresent: true},
		fileCase{new: "", newNm: "empty.txt", newPresent: true},
		fileCase{old: "gone\r\n", oldName: "deleted.txt", oldPresent: true},
		fileCase{old: "moved\n", new: "moved\n", oldName: "mv/src.txt", newNm: "mv2/dst.txt", oldPresent: true, newPresent: true},
		fileCase{old: "moved\nand\nedited", new: "moved\nand\nEDITED\n", oldName: "mv/src2.txt", newNm: "mv/dst2.txt", oldPresent: true, newPresent: true},
		fileCase{old: "crlf\r\nfile\r\n", new: "crlf\r\nFILE\r\nmore\r\n", oldName: "crlf.txt", oldPresent: true, newPresent: true},
	)
	var diff strings.Builder
	for i := range cases {
		c := &cases[i]
		if c.newNm == "" && c.newPresent {
			c.newNm = c.oldName
		}
		ch := Change{Old: []byte(c.old), New: []byte(c.new), OldMode: 0o644, NewMode: 0o644}
		if c.oldPresent {
			ch.OldPath = c.oldName
		}
		if c.newPresent {
			ch.NewPath = c.newNm
		}
		diff.WriteString(Unified(ch))
	}
	setup := func(t *testing.T) string {
		dir := t.TempDir()
		for _, c := range cases {
			if c.oldPresent {
				p := filepath.Join(dir, c.oldName)
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, []byte(c.old), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := os.WriteFile(filepath.Join(dir, "..", filepath.Base(dir)+".patch"), []byte(diff.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	check := func(t *testing.T, dir string) {
		for _, c := range cases {
			if c.oldPresent && (!c.newPresent || c.newNm != c.oldName) {
				if _, err := os.Lstat(filepath.Join(dir, c.oldName)); err == nil {
					t.Errorf("%s still exists", c.oldName)
				}
			}
			if c.newPresent {
				got, err := os.ReadFile(filepath.Join(dir, c.newNm))
				if err != nil || string(got) != c.new {
					t.Errorf("%s = %q, %v; want %q", c.newNm, got, err, c.new)
				}
			}
		}
	}
	tools := []struct {
		name string
		args []string
	}{
		{"git", []string{"apply", "--unsafe-paths", "-p1", "--whitespace=nowarn"}},
		{"patch", []string{"-p1", "-F0", "--no-backup-if-mismatch", "-s", "-i"}},
	}
	for _, tool := range tools {
		t.Run(tool.name, func(t *testing.T) {
			if _, err := exec.LookPath(tool.name); err != nil {
				if os.Getenv("CI") != "" {
					t.Fatalf("%s is not installed; .ci/run installs it", tool.name)
				}
				t.Skipf("%s not installed", tool.name)
			}
			dir := setup(t)
			patchFile := filepath.Join(dir, "..", filepath.Base(dir)+".patch")
			args := append(tool.args, patchFile)
			cmd := exec.Command(tool.name, args...)
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s %v: %v\n%s", tool.name, args, err, out)
			}
			check(t, dir)
		})
	}
}

// TestRenderStat: the counts Render returns are the diff's own +/- lines.
func TestRenderStat(t *testing.T) {
	old := []byte("a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n")
	new := []byte("a\nB\nc\nd\ne\nf\ng\nh\nI\nI2\nj\nk")
	d, st := Render(Change{OldPath: "x", NewPath: "x", Old: old, New: new, OldMode: 0o644, NewMode: 0o644})
	add, del := 0, 0
	for _, l := range strings.Split(d, "\n") {
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
		case strings.HasPrefix(l, "+"):
			add++
		case strings.HasPrefix(l, "-"):
			del++
		}
	}
	if st.Added != add || st.Removed != del || st.Added != 4 || st.Removed != 2 {
		t.Errorf("stat %+v, diff has +%d -%d:\n%s", st, add, del, d)
	}
	if _, st := Render(Change{NewPath: "bin", New: []byte("a\x00b"), NewMode: 0o644}); !st.Binary {
		t.Errorf("binary content not flagged: %+v", st)
	}
}

// TestUnifiedWindowEdges: Render diffs only the window between the first
// and last differing bytes; the window's ends must fall on line starts in
// both texts. Character-level edits of texts made of few characters put
// the common prefix and suffix at every place within a line.
func TestUnifiedWindowEdges(t *testing.T) {
	cases := [][2]string{
		{"q\nc\n", "qc\n"},
		{"x\nc\n", "x\nZc\n"},
		{"x\ny\n", "x\ny\nz\ny\n"},
		{"a\n", "a\nb"},
		{"a", "a\n"},
		{"a\nb\nc\nd\ne\nf\ng\nh\n", "a\nb\nc\nd\nE\nf\ng\nh\n"},
		{"same\nsame\nsame\n", "same\nsame\n"},
	}
	r := rand.New(rand.NewSource(7))
	for i := 0; i < 20000; i++ {
		var a []byte
		for n := r.Intn(40); n > 0; n-- {
			a = append(a, "ab\n"[r.Intn(3)])
		}
		b := append([]byte(nil), a...)
		for k := r.Intn(4); k >= 0; k-- {
			p := r.Intn(len(b) + 1)
			switch r.Intn(3) {
			case 0:
				b = append(b[:p], append([]byte{"ab\n"[r.Intn(3)]}, b[p:]...)...)
			case 1:
				if p < len(b) {
					b = append(b[:p], b[p+1:]...)
				}
			default:
				if p < len(b) {
					b[p] = "ab\n"[r.Intn(3)]
				}
			}
		}
		cases = append(cases, [2]string{string(a), string(b)})
	}
	for i, c := range cases {
		d, st := Render(Change{OldPath: "f", NewPath: "f", Old: []byte(c[0]), New: []byte(c[1])})
		if c[0] == c[1] {
			continue
		}
		if got := patchText(t, c[0], d); got != c[1] {
			t.Fatalf("case %d: %q -> %q: patched = %q\ndiff:\n%s", i, c[0], c[1], got, d)
		}
		if st.Added == 0 && st.Removed == 0 {
			t.Fatalf("case %d: a diff with no lines counted:\n%s", i, d)
		}
		if msg := fullContext(d, len(splitLines(c[0]))); msg != "" {
			t.Fatalf("case %d: %q -> %q: %s (patch -F0 refuses it)\ndiff:\n%s", i, c[0], c[1], msg, d)
		}
	}
}

// fullContext checks that every hunk has 3 lines of context on each side
// unless it starts at the file's first line or ends at its last.
func fullContext(diff string, oldLines int) string {
	lines := strings.SplitAfter(diff, "\n")
	for i := 0; i < len(lines); i++ {
		start, count, _, ok := parseHunkHeader(lines[i])
		if !ok {
			continue
		}
		var body []byte
		for j := i + 1; j < len(lines) && lines[j] != "" && !strings.HasPrefix(lines[j], "@@") && !strings.HasPrefix(lines[j], "\\"); j++ {
			body = append(body, lines[j][0])
		}
		lead := len(body) - len(strings.TrimLeft(string(body), " "))
		trail := len(body) - len(strings.TrimRight(string(body), " "))
		if lead < context && start > 1 {
			return fmt.Sprintf("hunk %q has %d lines of context before it", lines[i], lead)
		}
		end := start + count - 1 // the hunk's last old line
		if count == 0 {
			end = start // an empty side names the line before it
		}
		if trail < context && end < oldLines {
			return fmt.Sprintf("hunk %q has %d lines of context after it", lines[i], trail)
		}
	}
	return ""
}

// TestCommonPrefixSuffix: the word-at-a-time comparisons window cuts
// with agree with a byte-by-byte count, at every length and offset.
func TestCommonPrefixSuffix(t *testing.T) {
	base := []byte(strings.Repeat("0123456789abcdefghijklmnopqrstuvwxyz0123456789", 4)) // past two blocks
	for n := 0; n <= len(base); n++ {
		for d := 0; d <= n; d++ {
			a := append([]byte(nil), base[:n]...)
			b := append([]byte(nil), base[:n]...)
			if d < n {
				b[d] = '!'
			}
			want := d
			if got := commonPrefix(a, b); got != want {
				t.Fatalf("commonPrefix(%q, %q) = %d, want %d", a, b, got, want)
			}
			want = n - d - 1
			if d == n {
				want = n
			}
			if got := commonSuffix(a, b); got != want {
				t.Fatalf("commonSuffix(%q, %q) = %d, want %d", a, b, got, want)
			}
			if got := commonPrefix(a, b[:n/2]); got != min(d, n/2) {
				t.Fatalf("commonPrefix(%q, %q) = %d, want %d", a, b[:n/2], got, min(d, n/2))
			}
		}
	}
}
