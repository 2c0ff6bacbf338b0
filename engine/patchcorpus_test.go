package engine

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txedit/txedit/apply/patch"
	"github.com/txedit/txedit/internal/patchcorpus"
	"github.com/txedit/txedit/internal/testlong"
)

// The differential corpus (internal/patchcorpus): model-like patches made
// from real Go files, each with a typical mistake and its intended outcome,
// through txedit's three patch paths. No case may report success with a
// file other than the intended one, except at most two whose file differs
// in whitespace only per path; none may change a file and report failure.
// bench/patchpeers runs the same corpus through the real peers; the tables
// are in docs/patch-formats.md.

var corpusFormat = map[patchcorpus.Format]patch.Format{
	patchcorpus.ApplyPatch: patch.FormatApplyPatch,
	patchcorpus.Responses:  patch.FormatResponses,
	patchcorpus.Diff:       patch.FormatDiff,
}

func TestPatchCorpus(t *testing.T) { corpusTest(t, 4) }

func TestPatchCorpusFull(t *testing.T) {
	if os.Getenv("TXEDIT_LONG") != "1" {
		t.Skip("the full patch corpus (40 Go files, ~1,000 patches) runs with TXEDIT_LONG=1")
	}
	corpusTest(t, 40)
}

func corpusTest(t *testing.T, files int) {
	srcs, err := patchcorpus.GoSources(os.DirFS(filepath.Join(goRoot(t), "src")), files)
	if err != nil || len(srcs) < files {
		t.Fatalf("Go sources: %v (%d files)", err, len(srcs))
	}
	cases := patchcorpus.Generate(srcs)
	tallies := map[patchcorpus.Format]*patchcorpus.Tally{}
	for _, c := range cases {
		for _, f := range patchcorpus.Formats {
			p, ok := c.Patches[f]
			if !ok {
				continue
			}
			runs := txeditRuns(t, c, corpusFormat[f], p)
			v, ws := patchcorpus.Classify(c, runs...)
			if tallies[f] == nil {
				tallies[f] = &patchcorpus.Tally{}
			}
			tallies[f].Add(c.Name, v, ws)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d cases from %d files of Go's source (%s)\n\n%s", len(cases), len(srcs), patchcorpus.Classes(cases), patchcorpus.Header)
	for _, f := range patchcorpus.Formats {
		fmt.Fprintf(&b, "| %s | txedit | %s |\n", f, tallies[f].Row())
	}
	t.Logf("\n%s", b.String())
	for _, f := range patchcorpus.Formats {
		if tl := tallies[f]; tl != nil && len(tl.Misses) > 0 {
			t.Logf("%s refused (intended to apply): %s", f, strings.Join(tl.Misses, ", "))
		}
	}
	for _, f := range patchcorpus.Formats {
		tl := tallies[f]
		if tl == nil || tl.N == 0 {
			t.Fatalf("%s: no cases", f)
		}
		if tl.By[patchcorpus.Wrong]-tl.WSOnly > 0 || tl.WSOnly > 2 || tl.By[patchcorpus.RefusedChanged] > 0 {
			t.Errorf("%s: %d wrong (%d whitespace only), %d refused but changed:\n%s", f, tl.By[patchcorpus.Wrong], tl.WSOnly,
				tl.By[patchcorpus.RefusedChanged], strings.Join(tl.Wrongs, "\n"))
		}
	}
}

// txeditRuns applies a case's patch in a fresh workspace holding its file:
// once, or twice for a retry.
func txeditRuns(t *testing.T, c *patchcorpus.Case, f patch.Format, input string) []patchcorpus.Run {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, patchcorpus.Path)
	if err := os.WriteFile(file, c.Before, 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := Open(dir, &Options{Durability: NotDurable})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	n := 1
	if c.Intent == patchcorpus.Retry {
		n = 2
	}
	var runs []patchcorpus.Run
	for range n {
		r := patchcorpus.Run{}
		if req, _, err := patch.Compile(f, []byte(input)); err == nil {
			res, _ := w.Apply(context.Background(), req)
			r.OK = res.Success
		}
		r.File, _ = os.ReadFile(file)
		runs = append(runs, r)
	}
	return runs
}

// TestWrongCountsRecounted: every wrong-counts case of the corpus (a diff
// whose old count is off by one, its body ending at the end of the input)
// applies to the intended file with its hunk reported as recounted, and
// git apply --recount, the oracle, gives the same file.
func TestWrongCountsRecounted(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	files := testlong.Pick(4, 40)
	srcs, err := patchcorpus.GoSources(os.DirFS(filepath.Join(goRoot(t), "src")), files)
	if err != nil || len(srcs) < files {
		t.Fatalf("Go sources: %v (%d files)", err, len(srcs))
	}
	n := 0
	for _, c := range patchcorpus.Generate(srcs) {
		if c.Class != "wrong-counts" {
			continue
		}
		n++
		input := c.Patches[patchcorpus.Diff]
		dir := t.TempDir()
		file := filepath.Join(dir, patchcorpus.Path)
		if err := os.WriteFile(file, c.Before, 0o644); err != nil {
			t.Fatal(err)
		}
		w, err := Open(dir, &Options{Durability: NotDurable})
		if err != nil {
			t.Fatal(err)
		}
		req, _, err := patch.Compile(patch.FormatDiff, []byte(input))
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		res, err := w.Apply(context.Background(), req)
		w.Close()
		if err != nil || !res.Success {
			t.Errorf("%s: %v %s", c.Name, err, res.Error)
			continue
		}
		if got, _ := os.ReadFile(file); string(got) != string(c.Want) {
			t.Errorf("%s: not the intended file", c.Name)
		}
		if hs := res.Files[0].Hunks; len(hs) != 1 || !hs[0].Recounted {
			t.Errorf("%s: hunks %+v: not reported as recounted", c.Name, hs)
		}
		gitDir := t.TempDir()
		if err := os.WriteFile(filepath.Join(gitDir, patchcorpus.Path), c.Before, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("git", "apply", "--recount", "-")
		cmd.Dir, cmd.Stdin = gitDir, strings.NewReader(input)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: git apply --recount: %v\n%s", c.Name, err, out)
		} else if got, _ := os.ReadFile(filepath.Join(gitDir, patchcorpus.Path)); string(got) != string(c.Want) {
			t.Errorf("%s: git apply --recount gives another file", c.Name)
		}
	}
	if n < files/2 {
		t.Fatalf("only %d wrong-counts cases", n)
	}
	t.Logf("%d wrong-counts cases: each applied, recounted, as git apply --recount gives", n)
}
