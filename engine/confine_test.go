package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txedit/txedit/plan"
)

// TestRootInsideAJournalIsRefused: a workspace whose root is a journal, or
// lies inside one, would serve the journal's files as its own: the audit's
// txedit mcp --toolset filesystem w/.txedit returned the key and wrote
// into txns/. Open refuses it however the path spells the journal (the
// names a file system may fold to it) and when a symlink leads there.
func TestRootInsideAJournalIsRefused(t *testing.T) {
	dir := t.TempDir()
	w := openWS(t, dir, nil)
	if res := run(t, w, `{"command":"create","path":"a.txt","file_text":"a\n"}`); !res.Success {
		t.Fatal(res.Error)
	}
	os.MkdirAll(filepath.Join(dir, "other", ".TXEDIT", "deep"), 0o755)
	if err := os.Symlink(".txedit/txns", filepath.Join(dir, "jlink")); err != nil {
		t.Fatal(err)
	}
	for _, root := range []string{".txedit", ".txedit/txns", "other/.TXEDIT", "other/.TXEDIT/deep", "jlink"} {
		p := filepath.Join(dir, root)
		w, err := Open(p, nil)
		if err == nil {
			w.Close()
			t.Errorf("Open(%s) succeeded: a root inside a journal", root)
			continue
		}
		if e := plan.As(err); e.Code != plan.CodeDenied || !strings.Contains(e.Msg, "journal") {
			t.Errorf("Open(%s): %v, want denied naming the journal", root, err)
		}
	}
	// The directory that holds a journal is a workspace, as always.
	w2, err := Open(filepath.Join(dir, "other"), nil)
	if err != nil {
		t.Fatalf("Open(other): %v", err)
	}
	w2.Close()
}

// TestListingsHonourDenyRead: a listing names nothing the deny lists
// refuse to read (the audit's search_files and directory_tree listed
// names under --deny-read), at any depth, and does not enter a denied
// directory; what is allowed is listed as before.
func TestListingsHonourDenyRead(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"ok.txt": "1\n", "secret/key.pem": "k\n", "secret/sub/x": "x\n", "a/id.key": "k\n", "a/b.txt": "b\n"})
	w := openWS(t, dir, &Options{DenyRead: []string{"secret/**", "*.key"}})
	ents, err := w.List(context.Background(), ".", ListOptions{Depth: 5})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Path)
	}
	if s := strings.Join(got, " "); s != "a a/b.txt ok.txt secret" {
		t.Errorf("listed %q, want a a/b.txt ok.txt secret (the denied names left out)", s)
	}
	ents, err = w.List(context.Background(), "secret", ListOptions{Depth: 5})
	if err != nil || len(ents) != 0 {
		t.Errorf("listing of the denied directory's entries: %v, %v", ents, err)
	}
}
