package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/txedit/txedit/internal/testlong"
)

// nameWorkload is n files to replace in, one of them named with bytes
// that are not UTF-8 (in a directory whose name is not UTF-8 either), and
// a decoy that the replacement does not touch, named with the U+FFFD
// spelling of that name: what json.Marshal made of it in a manifest.
func nameWorkload(n int) map[string]string {
	files := map[string]string{
		"bad\xff.txt":      "hello bad\n",
		"dir\xfe/in.txt":   "hello in\n",
		"bad\uFFFD.txt":    "decoy\n",
		"dir\uFFFD/in.txt": "decoy\n",
	}
	for i := 0; i < n; i++ {
		files[fmt.Sprintf("d%02d/f%03d.txt", i%10, i)] = fmt.Sprintf("hello %d\n", i)
	}
	return files
}

func replaceRun(bin, dir string, env ...string) *exec.Cmd {
	cmd := exec.Command(bin, "replace", "--root", dir, "s/hello/HI/")
	cmd.Env = append(append(os.Environ(), "TXEDIT_TEST_NOSYNC=1"), env...)
	return cmd
}

// TestKillNonUTF8Names: `txedit replace` over a tree holding a name that
// is not UTF-8 is killed (SIGKILL) at every file-system call of a small
// run and at 60 random points of a 301-file one (killFromOutside), then
// `txedit recover`:
// the tree is entirely old or entirely new, byte for byte in its names,
// and the decoy is never touched. Then undo, and undo --force, of a
// committed run. Before manifests kept names exactly, 2 of 60 random kills
// left the file new in a tree rolled back, undo refused, and undo --force
// overwrote the decoy. The quick run kills at a sample of the small run's
// calls (testlong.Sweep) and at 4 random points; TXEDIT_LONG=1 at every
// call and at 60.
func TestKillNonUTF8Names(t *testing.T) {
	bin := hookedBinary(t)
	type rig struct {
		files    map[string]string
		old, new string
		calls    int
	}
	mk := func(n int) *rig {
		r := &rig{files: nameWorkload(n)}
		dir := t.TempDir()
		writeFiles(t, dir, r.files)
		r.old, _ = tree(t, dir)
		cmd := replaceRun(bin, dir, "TXEDIT_TEST_COUNT=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("clean run: %v\n%s", err, out)
		}
		r.new, _ = tree(t, dir)
		fmt.Sscanf(string(out[lastIndex(out, "calls "):]), "calls %d", &r.calls)
		if r.calls < 10 || r.old == r.new {
			t.Fatalf("clean run: %d calls", r.calls)
		}
		return r
	}
	check := func(r *rig, dir, label string) bool {
		if out, err := exec.Command(bin, "recover", "--root", dir).CombinedOutput(); err != nil {
			t.Fatalf("%s: recover: %v\n%s", label, err, out)
		}
		got, temps := tree(t, dir)
		if len(temps) > 0 {
			t.Errorf("%s: temporary files left: %q", label, temps)
		}
		switch got {
		case r.old:
			return false
		case r.new:
			return true
		}
		t.Errorf("%s: the tree is neither old nor new", label)
		return false
	}
	small := mk(6)
	// A run's calls vary by a few (a file written within the file
	// system's timestamp slack is checked again), so the commit point
	// moves by as much: the quick sample takes the last 10 calls too.
	points, commits := testlong.Sweep(small.calls, 6, func(n int) bool {
		dir := t.TempDir()
		writeFiles(t, dir, small.files)
		replaceRun(bin, dir, "TXEDIT_TEST_KILL_AT="+strconv.Itoa(n)).Run()
		return check(small, dir, fmt.Sprintf("killed at call %d of %d", n, small.calls))
	}, testlong.Range(small.calls-9, small.calls, 1)...)
	big := mk(301)
	rng := testlong.Rand(t)
	bigCommits, kills := 0, testlong.Pick(4, 60)
	for i := 0; i < kills; i++ {
		dir := t.TempDir()
		writeFiles(t, dir, big.files)
		n := 1 + rng.Intn(big.calls+big.calls/10)
		at := killFromOutside(t, replaceRun(bin, dir), n)
		if check(big, dir, fmt.Sprintf("kill %d, picked call %d, stopped at call %d of %d (0: finished)", i, n, at, big.calls)) {
			bigCommits++
		}
	}
	t.Logf("%d kills at %d of %d calls (%d committed), %d random kills of 301 files (%d committed): every tree old or new", len(points), len(points), small.calls, commits, kills, bigCommits)
	if commits == 0 || commits == len(points) {
		t.Errorf("kills never landed on both sides of the commit point (%d of %d committed)", commits, len(points))
	}

	// Undo, then undo --force over a changed file: the decoys stay.
	dir := t.TempDir()
	writeFiles(t, dir, small.files)
	if out, err := replaceRun(bin, dir).CombinedOutput(); err != nil {
		t.Fatalf("replace: %v\n%s", err, out)
	}
	if out, err := exec.Command(bin, "undo", "--root", dir).CombinedOutput(); err != nil {
		t.Fatalf("undo: %v\n%s", err, out)
	}
	if got, _ := tree(t, dir); got != small.old {
		t.Fatalf("undo did not restore the tree")
	}
	if out, err := replaceRun(bin, dir).CombinedOutput(); err != nil {
		t.Fatalf("replace: %v\n%s", err, out)
	}
	os.WriteFile(filepath.Join(dir, "bad\xff.txt"), []byte("changed since\n"), 0o644)
	if err := exec.Command(bin, "undo", "--root", dir).Run(); err == nil {
		t.Fatalf("undo over a changed file succeeded without --force")
	}
	if out, err := exec.Command(bin, "undo", "--force", "--root", dir).CombinedOutput(); err != nil {
		t.Fatalf("undo --force: %v\n%s", err, out)
	}
	if got, _ := tree(t, dir); got != small.old {
		t.Fatalf("undo --force did not restore the tree (or touched a decoy)")
	}
}

func lastIndex(b []byte, s string) int {
	for i := len(b) - len(s); i >= 0; i-- {
		if string(b[i:i+len(s)]) == s {
			return i
		}
	}
	return 0
}
