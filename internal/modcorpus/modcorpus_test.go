package modcorpus_test

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/txedit/txedit/apply/patch"
	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/internal/modcorpus"
	"github.com/txedit/txedit/internal/testlong"
)

// The real-change corpus (docs/patch-formats.md, "Real changes"): each
// diff is applied by txedit and by git apply to a fresh copy of its old
// tree, and both results are compared with the new tree. Every one must be
// exact, none a false success (txedit reporting success with another
// tree). The quick run takes the fixtures committed in
// testdata/modcorpus/fixtures (small real cases: mixed line ends, a change
// of line ends only, symbolic links, a mode change); TXEDIT_LONG=1 builds
// the whole corpus from the module proxy (TestModuleReleases).

// verdict is how one program did on one diff.
type verdict string

const (
	exact          verdict = "exact"
	falseSuccess   verdict = "false success"
	refused        verdict = "refused"
	refusedChanged verdict = "refused but changed"
)

// outcome is one diff through both programs.
type outcome struct {
	name        string
	txedit, git verdict
	why         string // txedit's error, or how its tree differs
}

// runPair applies dir's diff to copies of dir/old with txedit (through the
// engine, as txedit apply does) and with git apply, and compares each with
// dir/new. Each tree is read once.
func runPair(t *testing.T, name, dir string) outcome {
	t.Helper()
	diff, err := os.ReadFile(filepath.Join(dir, "diff"))
	if err != nil {
		t.Fatal(err)
	}
	old, nw := readTree(t, filepath.Join(dir, "old")), readTree(t, filepath.Join(dir, "new"))
	o := outcome{name: name}
	scratch := scratchDir(t)

	ours := filepath.Join(scratch, "txedit")
	writeTree(t, old, ours)
	ok, msg := applyTxedit(ours, diff)
	o.txedit, o.why = judge(t, readTree(t, ours), old, nw, ok)
	if msg != "" {
		o.why = msg + "; " + o.why
	}

	theirs := filepath.Join(scratch, "git")
	writeTree(t, old, theirs)
	cmd := exec.Command("git", "-c", "core.autocrlf=false", "apply", "--whitespace=nowarn", "-")
	cmd.Dir, cmd.Stdin = theirs, bytes.NewReader(diff)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	forkMu.Lock()
	out, err := cmd.CombinedOutput()
	forkMu.Unlock()
	o.git, _ = judge(t, readTree(t, theirs), old, nw, err == nil)
	if o.git != exact {
		o.why += "; git apply: " + strings.TrimSpace(string(out))
	}
	os.RemoveAll(scratch)
	return o
}

// scratchDir is a fresh directory for one pair's two trees: in /dev/shm
// where there is one (the corpus writes and reads some gigabytes of small
// files, which a disk makes I/O-bound), else the test's temporary
// directory.
func scratchDir(t *testing.T) string {
	t.Helper()
	if d, err := os.MkdirTemp("/dev/shm", "txedit-modcorpus-"); err == nil {
		t.Cleanup(func() { os.RemoveAll(d) })
		return d
	}
	return t.TempDir()
}

// applyTxedit applies diff in the workspace dir and reports whether it
// succeeded, and its error.
func applyTxedit(dir string, diff []byte) (bool, string) {
	req, _, err := patch.Compile(patch.FormatDiff, diff)
	if err != nil {
		return false, err.Error()
	}
	w, err := engine.Open(dir, &engine.Options{Durability: engine.NotDurable})
	if err != nil {
		return false, err.Error()
	}
	defer w.Close()
	res, err := w.Apply(context.Background(), req)
	if err != nil {
		return false, err.Error()
	}
	if !res.Success {
		return false, res.Error
	}
	return true, ""
}

// judge says how a program that reported ok left the tree got, against
// the old and new trees, and how got differs from new.
func judge(t *testing.T, got, old, nw map[string]entry, ok bool) (verdict, string) {
	t.Helper()
	diff := treeDiff(got, nw)
	switch {
	case ok && diff == "":
		return exact, ""
	case ok:
		return falseSuccess, diff
	case treeDiff(got, old) == "":
		return refused, diff
	}
	return refusedChanged, diff
}

// entry is a tree's file: its bytes (a link's target) and its kind.
type entry struct {
	data []byte
	kind string // "file", "exec" or "link"
}

// readTree reads a tree, leaving out txedit's journal.
func readTree(t *testing.T, root string) map[string]entry {
	t.Helper()
	tr := map[string]entry{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		switch {
		case d.IsDir() && d.Name() == ".txedit":
			return filepath.SkipDir
		case d.IsDir():
			return nil
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			tr[rel] = entry{[]byte(target), "link"}
			return err
		}
		data, err := os.ReadFile(p)
		info, _ := d.Info()
		kind := "file"
		if info != nil && info.Mode()&0o100 != 0 {
			kind = "exec"
		}
		tr[rel] = entry{data, kind}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// treeDiff names the first few paths where a and b differ, or "".
func treeDiff(a, b map[string]entry) string {
	var diffs []string
	for p, e := range b {
		switch g, ok := a[p]; {
		case !ok:
			diffs = append(diffs, p+" missing")
		case g.kind != e.kind:
			diffs = append(diffs, fmt.Sprintf("%s is a %s, want a %s", p, g.kind, e.kind))
		case !bytes.Equal(g.data, e.data):
			diffs = append(diffs, fmt.Sprintf("%s differs (%d bytes, want %d; %d CRs, want %d)", p, len(g.data), len(e.data), bytes.Count(g.data, []byte("\r")), bytes.Count(e.data, []byte("\r"))))
		}
	}
	for p := range a {
		if _, ok := b[p]; !ok {
			diffs = append(diffs, p+" unexpected")
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 3 {
		diffs = append(diffs[:3], fmt.Sprintf("and %d more", len(diffs)-3))
	}
	return strings.Join(diffs, "; ")
}

// forkMu keeps git's fork apart from the writing of trees: a child forked
// while another goroutine has a file open for writing holds that file open
// until it execs, and txedit's commit, which takes a read lease on each
// file it replaces, would see a writer there and refuse (docs/journal.md,
// "Writers outside txedit").
var forkMu sync.Mutex

// writeTree writes a tree read by readTree (files with their executable
// bit, symbolic links as links).
func writeTree(t *testing.T, tr map[string]entry, to string) {
	t.Helper()
	forkMu.Lock()
	defer forkMu.Unlock()
	for p, e := range tr {
		dst := filepath.Join(to, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		switch e.kind {
		case "link":
			err = os.Symlink(string(e.data), dst)
		case "exec":
			err = os.WriteFile(dst, e.data, 0o755)
		default:
			err = os.WriteFile(dst, e.data, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// check runs every pair (two at a time) and fails on any that either
// program did not apply exactly; it returns the outcomes.
func check(t *testing.T, pairs map[string]string) []outcome {
	t.Helper()
	names := make([]string, 0, len(pairs))
	for n := range pairs {
		names = append(names, n)
	}
	sort.Strings(names)
	outs := make([]outcome, len(names))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for i, n := range names {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			outs[i] = runPair(t, n, pairs[n])
		}()
	}
	wg.Wait()
	for _, o := range outs {
		if o.txedit != exact || o.git != exact {
			t.Errorf("%s: txedit %s, git apply %s: %s", o.name, o.txedit, o.git, o.why)
		}
	}
	return outs
}

// TestFixtures: the committed real cases, in the quick run.
func TestFixtures(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dirs, _ := filepath.Glob("../../testdata/modcorpus/fixtures/*")
	pairs := map[string]string{}
	for _, d := range dirs {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			pairs[filepath.Base(d)] = d
		}
	}
	if len(pairs) < 4 {
		t.Fatalf("only %d fixtures", len(pairs))
	}
	check(t, pairs)
}

// TestModuleReleases: the whole corpus (TXEDIT_LONG=1; CI runs it). It is
// built (or brought up to date) in $TXEDIT_MODCORPUS_CACHE (default the
// user's cache directory), downloading through the module proxy the first
// time; TXEDIT_MODCORPUS names a corpus built already. Where the proxy
// cannot be reached the test fails in CI and, elsewhere, skips saying so
// on stderr.
func TestModuleReleases(t *testing.T) {
	testlong.Skip(t, "the module-release corpus (256 diffs of 9 modules, built from the Go module proxy)")
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git not installed")
	}
	dir := os.Getenv("TXEDIT_MODCORPUS")
	if dir == "" {
		dir = filepath.Join(modcorpus.DefaultCache(), "corpus")
		if _, err := modcorpus.Build(modcorpus.Options{Out: dir}); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("building the corpus: %v", err)
			}
			msg := fmt.Sprintf("SKIPPING TestModuleReleases: the corpus could not be built (is the module proxy reachable?): %v", err)
			fmt.Fprintln(os.Stderr, msg)
			t.Skip(msg)
		}
	}
	index, err := modcorpus.ReadIndex(dir)
	if err != nil {
		t.Fatal(err)
	}
	pairs := map[string]string{}
	mods := map[string]bool{}
	var renames, crlf, binary int
	for _, p := range index {
		pairs[p.Module+"@"+p.Old+".."+p.New] = filepath.Join(dir, filepath.FromSlash(p.Dir))
		mods[p.Module] = true
		renames, crlf, binary = renames+p.Renames, crlf+p.CRLF, binary+p.Binary
	}
	if len(pairs) < 200 || len(mods) < 5 || renames == 0 || crlf == 0 {
		t.Fatalf("the corpus is too small: %d diffs of %d modules, %d renames, %d CRLF sections", len(pairs), len(mods), renames, crlf)
	}
	outs := check(t, pairs)
	n := 0
	for _, o := range outs {
		if o.txedit == exact {
			n++
		}
	}
	t.Logf("%d diffs of %d modules (%d renames, %d file sections with CRLF lines, %d binary patches): txedit exact in %d, git apply in the rest of the checks above",
		len(pairs), len(mods), renames, crlf, binary, n)
}
