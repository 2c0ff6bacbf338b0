package patch

import (
	"bytes"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/txedit/txedit/internal/testlong"
)

// These tests generate random multi-file changes (CRLF files, files
// without a final newline, files with a BOM, renames, new, deleted and
// executable files), make diffs of them with the real git and diff, and
// check that Parse + Apply gives exactly what git apply and patch -p1 give.

// peerSeeds are the changes each comparison with a real tool makes:
// seeds 0 to 39 with TXEDIT_LONG=1, every third of them in the quick run
// (every context size, both line endings, unique and repeated lines).
func peerSeeds() []uint64 {
	step := uint64(testlong.Pick(3, 1))
	var out []uint64
	for seed := uint64(0); seed < 40; seed += step {
		out = append(out, seed)
	}
	return out
}

func need(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
}

func run(t *testing.T, dir string, stdin []byte, okCodes []int, name string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(stdin)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "LC_ALL=C")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if err != nil {
		code := -1
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		if !slices.Contains(okCodes, code) {
			t.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, errb.Bytes(), out.Bytes())
		}
	}
	return out.Bytes()
}

type tree map[string][]byte

func writeTree(t *testing.T, dir string, tr tree) {
	t.Helper()
	for p, c := range tr {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, c, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func readTree(t *testing.T, dir string) tree {
	t.Helper()
	tr := tree{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			rel, _ := filepath.Rel(dir, p)
			c, err := os.ReadFile(p)
			tr[filepath.ToSlash(rel)] = c
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func diffTrees(t *testing.T, what string, got, want tree, patch []byte) {
	t.Helper()
	for _, p := range slices.Sorted(maps.Keys(want)) {
		if g, ok := got[p]; !ok {
			t.Errorf("%s: %s missing", what, p)
		} else if !bytes.Equal(g, want[p]) {
			t.Errorf("%s: %s is %q, want %q", what, p, g, want[p])
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("%s: unexpected %s", what, p)
		}
	}
	if t.Failed() {
		t.Logf("patch:\n%s", patch)
	}
}

// textFile is a generated text file.
type textFile struct {
	bom, crlf, noEOL bool
	lines            []string
}

func (f textFile) bytes() []byte {
	var b bytes.Buffer
	if f.bom {
		b.WriteString("\ufeff")
	}
	nl := "\n"
	if f.crlf {
		nl = "\r\n"
	}
	for i, l := range f.lines {
		b.WriteString(l)
		if i < len(f.lines)-1 || !f.noEOL {
			b.WriteString(nl)
		}
	}
	return b.Bytes()
}

type gen struct {
	r     *rand.Rand
	vocab []string
	n     int
}

func newGen(seed uint64, unique bool) *gen {
	g := &gen{r: rand.New(rand.NewPCG(seed, 11))}
	if !unique {
		g.vocab = []string{"{", "}", "", "return nil", "\tx := 1", "  indented", "naïve café", "if err != nil {", "end  "}
	}
	return g
}

func (g *gen) line() string {
	if g.vocab != nil && g.r.IntN(3) > 0 {
		return g.vocab[g.r.IntN(len(g.vocab))]
	}
	g.n++
	return fmt.Sprintf("line %d %s", g.n, strings.Repeat("w", g.r.IntN(5)))
}

func (g *gen) file() textFile {
	f := textFile{bom: g.r.IntN(10) == 0, crlf: g.r.IntN(5) == 0, noEOL: g.r.IntN(5) == 0}
	for range g.r.IntN(40) + 1 {
		f.lines = append(f.lines, g.line())
	}
	return f
}

// mutate changes a few places of f after its first keep lines, sometimes
// its final newline.
func (g *gen) mutate(f textFile, keep int) textFile {
	f.lines = slices.Clone(f.lines)
	for range g.r.IntN(4) + 1 {
		i := keep + g.r.IntN(len(f.lines)+1-keep)
		switch g.r.IntN(3) {
		case 0: // insert
			f.lines = slices.Insert(f.lines, i, g.line())
		case 1: // delete
			if i < len(f.lines) && len(f.lines) > 1 {
				f.lines = slices.Delete(f.lines, i, i+1)
			}
		default: // replace
			if i < len(f.lines) {
				f.lines[i] = g.line()
			}
		}
	}
	if g.r.IntN(6) == 0 {
		f.noEOL = !f.noEOL
	}
	return f
}

// change makes an old and a new tree: files modified, deleted, renamed
// (some also modified), added. Renames are for git only (plain diffs see
// a deletion and an addition).
func (g *gen) change() (old, nw tree, exec []string) {
	old, nw = tree{}, tree{}
	for i := range g.r.IntN(5) + 2 {
		name := fmt.Sprintf("d%d/f%d.txt", i%2, i)
		f := g.file()
		old[name] = f.bytes()
		switch g.r.IntN(8) {
		case 0: // deleted
		case 1: // renamed, same content (git sees a pure rename)
			nw["moved/"+name] = old[name]
		case 2: // renamed and modified
			f.lines = append(f.lines, "a line to keep the similarity", "and another", "and more")
			old[name] = f.bytes()
			nw["moved/"+name] = g.mutate(f, 0).bytes()
		case 3: // unchanged
			nw[name] = old[name]
		case 4: // made executable
			nw[name] = g.mutate(f, 0).bytes()
			exec = append(exec, name)
		default:
			nw[name] = g.mutate(f, 0).bytes()
		}
	}
	for i := range g.r.IntN(3) {
		nw[fmt.Sprintf("new%d.txt", i)] = g.file().bytes()
	}
	return old, nw, exec
}

// applyOurs parses a diff and applies it to a tree, or fails the test.
func applyOurs(t *testing.T, diff []byte, old tree) tree {
	t.Helper()
	files, err := Parse(FormatAuto, diff)
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, diff)
	}
	result, out := applyTree(files, old)
	if strings.Contains(result, "nothing written") {
		t.Fatalf("apply:\n%s\npatch:\n%s", result, diff)
	}
	return out
}

func TestAgainstGitApply(t *testing.T) {
	need(t, "git")
	for _, seed := range peerSeeds() {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			g := newGen(seed, seed%2 == 0)
			old, nw, execs := g.change()
			repo := t.TempDir()
			git := func(stdin []byte, args ...string) []byte { return run(t, repo, stdin, nil, "git", args...) }
			git(nil, "init", "-q")
			git(nil, "config", "core.autocrlf", "false")
			writeTree(t, repo, old)
			git(nil, "add", "-A")
			git(nil, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "old", "--allow-empty")
			for p := range old {
				os.Remove(filepath.Join(repo, p))
			}
			writeTree(t, repo, nw)
			for _, p := range execs {
				os.Chmod(filepath.Join(repo, p), 0o755)
			}
			git(nil, "add", "-A")
			context := int(seed % 4)
			diff := git(nil, "diff", "--cached", "-M", fmt.Sprintf("-U%d", context))
			if len(diff) == 0 {
				t.Skip("no change")
			}
			other := t.TempDir()
			writeTree(t, other, old)
			args := []string{"apply"}
			if context == 0 {
				args = append(args, "--unidiff-zero")
			}
			run(t, other, diff, nil, "git", append(args, "-")...)
			byGit := readTree(t, other)
			diffTrees(t, "git apply vs the new tree", byGit, nw, diff)
			diffTrees(t, "ours vs git apply", applyOurs(t, diff, old), byGit, diff)
			// The modes git wrote are the ones parsed.
			files, _ := Parse(FormatDiff, diff)
			for _, p := range execs {
				if !slices.ContainsFunc(files, func(f *File) bool { return f.Path == p && f.NewMode == "100755" }) {
					t.Errorf("%s: no new mode 100755 parsed", p)
				}
			}
		})
	}
}

func TestAgainstPatch(t *testing.T) {
	need(t, "diff", "patch")
	for _, seed := range peerSeeds() {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			g := newGen(100+seed, seed%2 == 1)
			old, nw, _ := g.change()
			dir := t.TempDir()
			writeTree(t, filepath.Join(dir, "old"), old)
			writeTree(t, filepath.Join(dir, "new"), nw)
			diff := run(t, dir, nil, []int{1}, "diff", "-ruN", "old", "new")
			if len(diff) == 0 {
				t.Skip("no change")
			}
			other := filepath.Join(dir, "patched")
			writeTree(t, other, old)
			os.MkdirAll(other, 0o755)
			run(t, other, diff, nil, "patch", "-p1", "-s", "-E", "--no-backup-if-mismatch")
			byPatch := readTree(t, other)
			diffTrees(t, "patch vs the new tree", byPatch, nw, diff)
			diffTrees(t, "ours vs patch", applyOurs(t, diff, old), byPatch, diff)
		})
	}
}

// Offsets: the diff is applied to files that gained lines at the top, as
// patch does with "offset N lines". With unique lines the results must be
// the same; with many repeated lines patch takes the nearest match where
// txedit may refuse (ambiguous), but whenever txedit applies, it must be
// where patch did.
func TestOffsetsAgainstPatch(t *testing.T) {
	need(t, "git", "patch")
	for _, seed := range peerSeeds() {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			unique := seed < 30
			g := newGen(200+seed, false)
			if unique {
				g.vocab = nil
			}
			dir := t.TempDir()
			old, nw, shifted := tree{}, tree{}, tree{}
			for i := range 3 {
				f := g.file()
				// patch -F0 pins a hunk that starts at line 1 to the top
				// (as git apply does): keep the first lines unchanged.
				f.lines = append([]string{g.line(), g.line(), g.line(), g.line()}, f.lines...)
				name := fmt.Sprintf("f%d.txt", i)
				old[name] = f.bytes()
				nw[name] = g.mutate(f, 4).bytes()
				top := textFile{crlf: f.crlf}
				for range g.r.IntN(6) + 1 {
					top.lines = append(top.lines, g.line())
				}
				f.bom = false
				shifted[name] = append(top.bytes(), f.bytes()...)
			}
			writeTree(t, filepath.Join(dir, "old"), old)
			writeTree(t, filepath.Join(dir, "new"), nw)
			diff := run(t, dir, nil, []int{1}, "git", "diff", "--no-index", "--no-prefix", "old", "new")
			if len(diff) == 0 {
				t.Skip("no change")
			}
			other := filepath.Join(dir, "patched")
			writeTree(t, other, shifted)
			out := run(t, other, diff, []int{1}, "patch", "-p1", "--no-backup-if-mismatch", "-F0")
			if bytes.Contains(out, []byte("FAILED")) {
				if unique {
					t.Fatalf("patch failed:\n%s", out)
				}
				t.Skip("patch failed")
			}
			byPatch := readTree(t, other)
			if !unique {
				files, _ := Parse(FormatDiff, diff)
				result, ours := applyTree(files, shifted)
				if strings.Contains(result, "nothing written") {
					if !strings.Contains(result, "ambiguous") {
						t.Fatalf("failed other than ambiguous:\n%s", result)
					}
					t.Logf("refused as ambiguous where patch guessed:\n%s", result)
					return
				}
				diffTrees(t, "ours vs patch", ours, byPatch, diff)
				return
			}
			diffTrees(t, "ours vs patch", applyOurs(t, diff, shifted), byPatch, diff)
			if !bytes.Contains(out, []byte("offset")) {
				t.Logf("patch reported no offset:\n%s", out)
			}
		})
	}
}
