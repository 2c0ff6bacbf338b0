package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestDemoRequest keeps the README's main job working: the demo request
// previews, applies, and undoes to the exact original tree.
func TestDemoRequest(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../testdata/demo")); err != nil {
		t.Fatal(err)
	}
	req, err := os.ReadFile("../testdata/demo-refactor.json")
	if err != nil {
		t.Fatal(err)
	}
	before := treeString(readTree(t, dir))
	w := openWS(t, dir, nil)
	ctx := context.Background()
	pre, err := w.Preview(ctx, mustParse(t, string(req)))
	if err != nil || pre.FilesModified != 7 {
		t.Fatalf("preview: %v %+v", err, pre)
	}
	res, err := w.Apply(ctx, mustParse(t, string(req)))
	if err != nil || !res.Success {
		t.Fatalf("apply: %v %+v", err, res)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "config/settings.ini")); string(b) != "[report]\r\ntitle = Stock\r\ncurrency = EUR\r\nunits = pieces\r\n" {
		t.Errorf("CRLF config = %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "legacy")); err == nil {
		t.Error("legacy/ should be gone: both of its files moved or were deleted")
	}
	if _, err := w.Undo(ctx, UndoOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := treeString(readTree(t, dir)); got != before {
		t.Errorf("undo did not restore the demo tree:\n%s", got)
	}
}
