package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWorkspaceFromASubdirectory: every command found
// its workspace in the current directory only: txedit log in a
// subdirectory said "No transactions yet", and undo there had nothing to
// undo (or, in a parent with its own journal, undid another transaction).
// Now a command finds the nearest directory above with .txedit/ (else
// .git), says so, and a relative path means what it says where it is
// given.
func TestWorkspaceFromASubdirectory(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "src/pkg"), 0o755)
	os.WriteFile(filepath.Join(dir, "src/pkg/a.txt"), []byte("one\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("top\n"), 0o644)
	if r := runStdin(`{"command":"create","path":"first.txt","file_text":"x\n"}`, "apply", "--root", dir, "-"); r.code != 0 {
		t.Fatalf("first commit: %+v", r)
	}
	t.Chdir(filepath.Join(dir, "src/pkg"))
	// A relative path is the subdirectory's file, not the root's.
	r := runStdin(`{"command":"str_replace","path":"a.txt","old_str":"one","new_str":"two"}`, "apply", "-")
	if r.code != 0 || !strings.Contains(r.stderr, "workspace "+dir) {
		t.Fatalf("apply in src/pkg: %+v", r)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "src/pkg/a.txt")); string(b) != "two\n" {
		t.Errorf("src/pkg/a.txt = %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "top\n" {
		t.Errorf("the root's a.txt changed: %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "src/pkg/.txedit")); err == nil {
		t.Error("a nested journal was made in src/pkg")
	}
	if r := runCLI("log"); r.code != 0 || strings.Count(r.stdout, "\n") < 2 || strings.Contains(r.stdout, "No transactions") {
		t.Errorf("log in src/pkg: %+v", r)
	}
	if r := runCLI("undo"); r.code != 0 {
		t.Fatalf("undo in src/pkg: %+v", r)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "src/pkg/a.txt")); string(b) != "one\n" {
		t.Errorf("after undo: %q", b)
	}
	// --root still wins, and a directory with no workspace above is its
	// own (found in the current directory: nothing said).
	other := t.TempDir()
	t.Chdir(other)
	if r := runStdin(`{"command":"create","path":"n.txt","file_text":"x\n"}`, "apply", "-"); r.code != 0 || strings.Contains(r.stderr, "workspace") {
		t.Errorf("apply with no workspace above: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(other, "n.txt")); err != nil {
		t.Error(err)
	}
}

func TestFindWorkspace(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "repo/.git"), 0o755)
	os.MkdirAll(filepath.Join(dir, "repo/w/.txedit"), 0o755)
	os.MkdirAll(filepath.Join(dir, "repo/w/a/b"), 0o755)
	os.MkdirAll(filepath.Join(dir, "repo/x/y"), 0o755)
	// A journal above a repository is not its workspace: the
	// repository's own .git stops the walk, as it stops git's.
	os.MkdirAll(filepath.Join(dir, "top/.txedit"), 0o755)
	os.MkdirAll(filepath.Join(dir, "top/repo/.git"), 0o755)
	os.MkdirAll(filepath.Join(dir, "top/repo/src"), 0o755)
	os.MkdirAll(filepath.Join(dir, "top/other"), 0o755)
	for in, want := range map[string][2]string{
		"repo/w/a/b":   {"repo/w", ".txedit"},
		"repo/w":       {"repo/w", ""},
		"repo/x/y":     {"repo", ".git"},
		"repo":         {"repo", ""},
		"top/repo/src": {"top/repo", ".git"},
		"top/other":    {"top", ".txedit"},
	} {
		root, found, _ := findWorkspace(filepath.Join(dir, in))
		if root != filepath.Join(dir, want[0]) || found != want[1] {
			t.Errorf("%s: %s %q, want %s %q", in, root, found, want[0], want[1])
		}
	}
}
