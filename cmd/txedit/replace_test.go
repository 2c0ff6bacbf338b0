package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txedit/txedit/plan"
)

func replaceTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for i := 0; i < 40; i++ {
		p := filepath.Join(dir, fmt.Sprintf("d%d/f%02d.txt", i%3, i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(fmt.Sprintf("a <old> %d\nkeep\n", i)), 0o644)
	}
	os.WriteFile(filepath.Join(dir, "bin.txt"), []byte("old\x00"), 0o644)
	return dir
}

func runReplace(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// TestReplaceStreamedOutput: the results txedit replace streams — the dry
// run's diff file by file, --json element by element — are the result
// the engine computes, in valid JSON, with every file and the skipped ones.
func TestReplaceStreamedOutput(t *testing.T) {
	dir := replaceTree(t)
	code, jsonOut, _ := runReplace(t, "replace", "--root", dir, "--json", "--dry-run", "s/<old>/<new>/")
	var dry plan.Result
	if err := json.Unmarshal([]byte(jsonOut), &dry); err != nil || code != 0 {
		t.Fatalf("--json --dry-run: exit %d, %v:\n%s", code, err, jsonOut)
	}
	if !dry.Success || !dry.DryRun || len(dry.Files) != 40 || dry.FilesModified != 40 || dry.FilesSkipped != 1 || dry.Skipped[0].Path != "bin.txt" {
		t.Fatalf("--json --dry-run result: %+v", dry)
	}
	var previews strings.Builder
	for i, f := range dry.Files {
		if i > 0 && f.Path < dry.Files[i-1].Path {
			t.Errorf("files out of order: %s after %s", f.Path, dry.Files[i-1].Path)
		}
		if !strings.Contains(f.Preview, "+a <new> ") {
			t.Errorf("%s: preview %q", f.Path, f.Preview)
		}
		previews.WriteString(f.Preview)
	}
	code, text, stderr := runReplace(t, "replace", "--root", dir, "--dry-run", "s/<old>/<new>/")
	if code != 0 || !strings.HasPrefix(text, previews.String()) || !strings.Contains(text, "40 replacement(s) in 40 file(s); 1 file(s) skipped") ||
		!strings.Contains(stderr, "skipped bin.txt (binary_file)") {
		t.Errorf("text dry run: exit %d\n%s\nstderr: %s", code, text, stderr)
	}

	code, jsonOut, _ = runReplace(t, "replace", "--root", dir, "--json", "s/<old>/<new>/")
	var res plan.Result
	if err := json.Unmarshal([]byte(jsonOut), &res); err != nil || code != 0 {
		t.Fatalf("--json: exit %d, %v:\n%s", code, err, jsonOut)
	}
	if !res.Success || res.TransactionID == "" || len(res.Files) != 40 {
		t.Fatalf("--json result: %+v", res)
	}
	for i, f := range res.Files {
		if f.Diff != dry.Files[i].Preview || f.ContentHash != dry.Files[i].ContentHash {
			t.Errorf("%s: committed diff %q, the dry run's %q", f.Path, f.Diff, dry.Files[i].Preview)
		}
	}
	// Nothing left to change: still one valid object.
	code, jsonOut, _ = runReplace(t, "replace", "--root", dir, "--json", "s/<old>/<new>/")
	if err := json.Unmarshal([]byte(jsonOut), &res); err != nil || code != 0 || len(res.Files) != 0 || !res.Success {
		t.Errorf("--json with nothing to change: exit %d, %v:\n%s", code, err, jsonOut)
	}
	// A bad pattern: the error in the same object.
	code, jsonOut, _ = runReplace(t, "replace", "--root", dir, "--json", "s/(/x/")
	if err := json.Unmarshal([]byte(jsonOut), &res); err != nil || code != 2 || res.Code != plan.CodeInvalidRequest {
		t.Errorf("--json with a bad pattern: exit %d, %v:\n%s", code, err, jsonOut)
	}
}

// TestReplaceTooLarge (docs/testing.md, the first red-team audit): a matching file over the size limit
// fails the replacement, named with its code, and nothing is written;
// --skip-unreadable changes the rest and names it as skipped.
func TestReplaceTooLarge(t *testing.T) {
	dir := replaceTree(t)
	big := bytes.Repeat([]byte("y"), 65<<20)
	big = append(big, "\n<old>\n"...)
	os.WriteFile(filepath.Join(dir, "big.txt"), big, 0o644)
	code, _, stderr := runReplace(t, "replace", "--root", dir, "s/<old>/<new>/")
	if code != 1 || !strings.Contains(stderr, "too_large: big.txt") || !strings.Contains(stderr, "nothing was written") {
		t.Errorf("atomic: exit %d, stderr %s", code, stderr)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "d0/f00.txt")); !bytes.Contains(data, []byte("<old>")) {
		t.Error("the failed replacement wrote")
	}
	code, stdout, stderr := runReplace(t, "replace", "--root", dir, "--skip-unreadable", "s/<old>/<new>/")
	if code != 0 || !strings.Contains(stdout, "40 replacement(s) in 40 file(s); 2 file(s) skipped") ||
		!strings.Contains(stderr, "skipped big.txt (too_large)") || !strings.Contains(stderr, "skipped bin.txt (binary_file)") {
		t.Errorf("--skip-unreadable: exit %d\n%s\nstderr: %s", code, stdout, stderr)
	}
}
