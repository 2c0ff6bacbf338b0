package bench

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestRealDiffBench runs bench/run.sh realdiff on a corpus of two diffs
// made here (as corpus.sh lays them out: old/, new/, patch.diff from git
// diff -M), one run each: a row per diff with the durable floor's column
// (git apply, then a sync of what it changed) and txedit's ratio to it,
// the least journaled apply's column and txedit's ratio to it, the line
// of both floors against git apply,
// the summary lines, the columns and line of -before (a second build run
// beside them), and each method's result checked against the newer tree
// (a wrong apply fails the run).
func TestRealDiffBench(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	tmp := t.TempDir()
	corpus := filepath.Join(tmp, "corpus")
	write := func(dir string, files map[string]string) {
		for name, text := range files {
			p := filepath.Join(dir, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	mk := func(name string, old, new map[string]string) {
		d := filepath.Join(corpus, name)
		write(filepath.Join(d, "old"), old)
		write(filepath.Join(d, "new"), new)
		cmd := exec.Command("git", "diff", "--no-index", "-M", "--src-prefix=a/", "--dst-prefix=b/", "old", "new")
		cmd.Dir = d
		out, _ := cmd.Output() // exit status 1: the trees differ
		// The trees' own names out of the paths, as corpus.sh's
		// repository gives them.
		diff := strings.NewReplacer(" a/old/", " a/", " b/new/", " b/", "from old/", "from ", "to new/", "to ").Replace(string(out))
		if !strings.Contains(diff, "diff --git") {
			t.Fatalf("no diff for %s: %q", name, out)
		}
		if err := os.WriteFile(filepath.Join(d, "patch.diff"), []byte(diff), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lines := func(n int, tag string) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteString("line " + tag + " " + strings.Repeat("x", i%7) + "\n")
		}
		return b.String()
	}
	mk("mod@v1..v2", map[string]string{"a.go": lines(40, "a"), "dir/b.go": lines(30, "b"), "gone.txt": "bye\n"},
		map[string]string{"a.go": strings.Replace(lines(40, "a"), "line a x\n", "line A x\n", 1), "dir/b.go": lines(30, "b") + "more\n", "new/c.txt": "new file\n"})
	mk("mod@v2..v3", map[string]string{"x.txt": lines(10, "x"), "y.txt": lines(12, "y")},
		map[string]string{"x.txt": lines(11, "x"), "z.txt": lines(12, "y")})
	env := []string{"FS=disk", "DISK=" + tmp, "TMPDIR=" + tmp, "RUNS=1", "REALDIFF_CORPUS=" + corpus}
	if kind, err := exec.Command("stat", "-f", "-c", "%T", tmp).Output(); err == nil && strings.TrimSpace(string(kind)) == "tmpfs" {
		env = []string{"FS=tmpfs", "TMPFS=" + tmp, "TMPDIR=" + tmp, "RUNS=1", "REALDIFF_CORPUS=" + corpus}
	}
	// -before: a second txedit build run beside the others (here the
	// same source, built apart).
	before := filepath.Join(tmp, "txedit-before")
	if out, err := exec.Command("go", "build", "-o", before, "../cmd/txedit").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	text := runSh(t, env, "realdiff", "-before", before)
	for _, name := range []string{"mod@v1..v2", "mod@v2..v3"} {
		// files, hunks, KiB, txedit, git apply, ratio, CPU tx, CPU git,
		// git apply and sync, ratio to it; the least journaled apply,
		// ratio to it; the build before, ratio, CPU.
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + `\s+\d+\s+\d+\s+\d+(\s+[\d.]+ms){2}\s+[\d.]+x(\s+[\d.]+ms){3}\s+[\d.]+x\s+[\d.]+ms\s+[\d.]+x\s+[\d.]+ms\s+[\d.]+x\s+[\d.]+ms$`).MatchString(text) {
			t.Errorf("no row for %s", name)
		}
	}
	if !strings.Contains(text, "median of the per-diff ratios") || !strings.Contains(text, "real diffs: txedit apply within") {
		t.Error("no summary line, or no goal line")
	}
	if !regexp.MustCompile(`(?m)^against the durable floor \(git apply, then a sync of the changed files and their directories\): median of the per-diff ratios [\d.]+x`).MatchString(text) {
		t.Error("no median line against the durable floor")
	}
	if !regexp.MustCompile(`(?m)^against the least journaled apply \(the before-images packed and durable, git apply, then the changed files and directories synced in one round\): median of the per-diff ratios [\d.]+x`).MatchString(text) {
		t.Error("no median line against the least journaled apply")
	}
	if !regexp.MustCompile(`(?m)^the durable floor is [\d.]+x git apply \([\d.]+-[\d.]+x\); the least journaled apply is [\d.]+x git apply \([\d.]+-[\d.]+x\).*: the goal's [\d.]+x is (not )?below the durable floor and (not )?below the least journaled apply$`).MatchString(text) {
		t.Error("no line of the floors against git apply")
	}
	if !strings.Contains(text, "against the build before ("+before+"): median of the per-diff ratios") {
		t.Error("no median line against the build before")
	}
	// The fresh journals the runs made keep their keys in run.sh's own
	// store, none in the caller's (here the test binary's, teststate).
	if n := entries(t, filepath.Join(os.Getenv("XDG_STATE_HOME"), "txedit", "journals")); n != 0 {
		t.Errorf("the caller's key store gained %d entries from run.sh's applies", n)
	}
}

// entries counts the files of dir (0 when there is none).
func entries(t *testing.T, dir string) int {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return len(es)
}
