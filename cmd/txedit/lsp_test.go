package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// lspInput is a WorkspaceEdit on dir's files: @ stands for dir's URI.
func lspInput(dir, edit string) string { return strings.ReplaceAll(edit, "@", "file://"+dir) }

// TestApplyWorkspaceEdit: txedit apply detects a WorkspaceEdit, applies
// it as one transaction in the encoding asked (an emoji before the
// identifier), says what it could not check (a version), and undo
// reverts it.
func TestApplyWorkspaceEdit(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.txt": "x := \"😀\" + foo\n", "b.txt": "b\n"})
	before, _ := tree(t, dir)
	for _, tc := range []struct{ enc, char string }{{"", "12"}, {"utf-16", "12"}, {"utf-32", "11"}, {"utf-8", "14"}} {
		edit := lspInput(dir, `{"documentChanges":[{"textDocument":{"uri":"@/a.txt","version":4},"edits":[{"range":{"start":{"line":0,"character":`+tc.char+`},"end":{"line":0,"character":`+tc.char+`}},"newText":"bar+"}]},
			{"kind":"rename","oldUri":"@/b.txt","newUri":"@/c/b.txt"}]}`)
		args := []string{"apply", "--root", dir}
		if tc.enc != "" {
			args = append(args, "--position-encoding", tc.enc)
		}
		r := runStdin(edit, args...)
		if r.code != 0 || !strings.Contains(r.stderr, "version 4 of a.txt cannot be checked") {
			t.Fatalf("%s: %+v", tc.enc, r)
		}
		if data, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(data) != "x := \"😀\" + bar+foo\n" {
			t.Errorf("%s: a.txt = %q", tc.enc, data)
		}
		if _, err := os.Stat(filepath.Join(dir, "c/b.txt")); err != nil {
			t.Errorf("%s: c/b.txt: %v", tc.enc, err)
		}
		if u := runCLI("undo", "--root", dir); u.code != 0 {
			t.Fatalf("undo: %+v", u)
		}
		if after, _ := tree(t, dir); after != before {
			t.Errorf("%s: after undo:\n%s", tc.enc, firstDiff(after, before))
		}
	}
	if r := runStdin(`{"changes":{}}`, "apply", "--root", dir, "--format", "lsp"); r.code != 2 || !strings.Contains(r.stderr, "changes nothing") {
		t.Errorf("an empty edit: %+v", r)
	}
	if r := runStdin(`{}`, "apply", "--root", dir, "--position-encoding", "utf-7"); r.code != 2 || !strings.Contains(r.stderr, `unknown position encoding "utf-7"`) {
		t.Errorf("a bad encoding: %+v", r)
	}
	inside := lspInput(dir, `{"changes":{"@/a.txt":[{"range":{"start":{"line":0,"character":7},"end":{"line":0,"character":7}},"newText":"!"}]}}`)
	if r := runStdin(inside, "apply", "--root", dir); r.code != 2 || !strings.Contains(r.stderr, "falls inside the UTF-16 surrogate pair of U+1F600") {
		t.Errorf("inside a surrogate pair: %+v", r)
	}
	outside := `{"changes":{"file:///etc/hostname":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"newText":"!"}]}}`
	if r := runStdin(outside, "apply", "--root", dir); r.code != 1 || !strings.Contains(r.stderr, "outside the workspace root") {
		t.Errorf("outside the root: %+v", r)
	}
}

// TestApplyAnnotatedEdit: a change whose annotation needs confirmation is
// refused without --confirm, previewed by label (the preview still
// applies with git apply), and applied with --confirm.
func TestApplyAnnotatedEdit(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.go": "package a\n\nfunc Old() {}\n", "gone.go": "package a\n"})
	edit := lspInput(dir, `{"changeAnnotations":{"r":{"label":"Rename Old"},"d":{"label":"Delete gone.go","needsConfirmation":true,"description":"it is unused"}},
		"documentChanges":[{"textDocument":{"uri":"@/a.go","version":null},"edits":[{"range":{"start":{"line":2,"character":5},"end":{"line":2,"character":8}},"newText":"New","annotationId":"r"}]},
		{"kind":"delete","uri":"@/gone.go","annotationId":"d"}]}`)
	before, _ := tree(t, dir)
	r := runStdin(edit, "apply", "--root", dir)
	if r.code != 1 || !strings.Contains(r.stderr, `"Delete gone.go" need confirmation`) {
		t.Fatalf("unconfirmed: %+v", r)
	}
	r = runStdin(edit, "apply", "--root", dir, "--dry-run")
	want := "# Rename Old\n#   a.go:3\n#   -func Old() {}\n#   +func New() {}\n# Delete gone.go (needs confirmation): it is unused\n#   delete gone.go\n"
	if r.code != 0 || !strings.HasPrefix(r.stdout, "# The WorkspaceEdit's changes by label") || !strings.Contains(r.stdout, want) || !strings.Contains(r.stdout, "+func New() {}\n") {
		t.Fatalf("dry run:\n%s\n%s", r.stdout, r.stderr)
	}
	if after, _ := tree(t, dir); after != before {
		t.Fatal("the dry run wrote")
	}
	// The preview, groups and all, is a patch git apply takes.
	patch := strings.TrimSuffix(r.stdout, "dry run: 2 file(s) would change; nothing was written\n")
	ga := exec.Command("git", "apply", "--check", "-")
	ga.Dir, ga.Stdin = dir, strings.NewReader(patch)
	if out, err := ga.CombinedOutput(); err != nil {
		t.Errorf("git apply --check of the preview: %v\n%s\n%s", err, out, patch)
	}
	r = runStdin(edit, "apply", "--root", dir, "--dry-run", "--json")
	var res struct {
		Groups []struct {
			Label             string
			NeedsConfirmation bool `json:"needs_confirmation"`
			Changes           []struct{ Op, Path string }
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || len(res.Groups) != 2 || !res.Groups[1].NeedsConfirmation || res.Groups[1].Changes[0].Op != "delete" {
		t.Errorf("--json groups: %v %+v\n%s", err, res, r.stdout)
	}
	if r := runStdin(edit, "apply", "--root", dir, "--confirm"); r.code != 0 {
		t.Fatalf("confirmed: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "gone.go")); !os.IsNotExist(err) {
		t.Errorf("gone.go: %v", err)
	}
}
