package engine

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/txedit/txedit/journal"
	"github.com/txedit/txedit/plan"
)

// snapshot records every file's content hash and mode, every directory
// and every symlink under dir (outside txedit's journal).
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == journal.Dir {
			return filepath.SkipDir
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			out[rel+"/"] = info.Mode().String()
		case d.Type().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = fmt.Sprintf("%x %v", sha256.Sum256(data), info.Mode())
		default:
			target, _ := os.Readlink(p)
			out[rel] = info.Mode().String() + " " + target
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPatternReplaceUndoRealTree runs a literal replacement across a copy
// of the Go source tree (about 600 files change; with smallCorpus, its
// net and go packages) and undoes it: the tree must come back byte for
// byte, modes and directories included.
func TestPatternReplaceUndoRealTree(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(goRoot(t), "src")
	parts := []string{src + "/."}
	if smallCorpus() {
		parts = []string{src + "/net", src + "/go"}
	}
	for _, p := range parts {
		dst := dir
		if smallCorpus() {
			dst = filepath.Join(dir, filepath.Base(p))
		}
		if out, err := exec.Command("cp", "-a", p, dst).CombinedOutput(); err != nil {
			t.Fatalf("cp: %v %s", err, out)
		}
	}
	before := snapshot(t, dir)
	w := openWS(t, dir, nil)
	ctx := context.Background()
	res, err := w.Apply(ctx, mustParse(t, `{"command":"pattern_replace","directory":".","file_pattern":"*.go","sed_pattern":"s/errors.New(/errors.Newf(/g","literal":true}`))
	if err != nil || !res.Success {
		t.Fatalf("replace: %v %+v", err, res.Code)
	}
	changed := 0
	after := snapshot(t, dir)
	for p, h := range before {
		if after[p] != h {
			changed++
		}
	}
	t.Logf("%d files changed, %d replacements in %d files reported", changed, sumReplacements(res), res.FilesModified)
	if changed != res.FilesModified || changed < 50 {
		t.Fatalf("changed %d files, result says %d", changed, res.FilesModified)
	}
	if _, err := w.Undo(ctx, UndoOptions{}); err != nil {
		t.Fatal(err)
	}
	restored := snapshot(t, dir)
	if len(restored) != len(before) {
		t.Errorf("undo left %d entries, want %d", len(restored), len(before))
	}
	for p, h := range before {
		if restored[p] != h {
			t.Errorf("%s not restored: %s, want %s", p, restored[p], h)
		}
	}
}

func sumReplacements(res *plan.Result) int {
	n := 0
	for _, f := range res.Files {
		n += f.Replacements
	}
	return n
}
