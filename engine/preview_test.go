package engine

import (
	"bytes"
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

var update = flag.Bool("update", false, "rewrite want.diff in testdata/preview")

// Fixture text conventions: the two characters `\r` stand for a carriage
// return, and a line "^D" at the end of a file means it has no final
// newline.
func decodeFixture(s string) []byte {
	s = strings.ReplaceAll(s, `\r`, "\r")
	if strings.HasSuffix(s, "^D\n") {
		s = strings.TrimSuffix(s, "^D\n")
		s = strings.TrimSuffix(s, "\n")
	}
	return []byte(s)
}

func encodeFixture(b []byte) string { return strings.ReplaceAll(string(b), "\r", `\r`) }

// TestPreviewGoldens checks every dry-run diff in testdata/preview against
// its golden, then applies it to the untouched tree with git apply and with
// patch -p1, and requires exactly the tree the real apply writes.
func TestPreviewGoldens(t *testing.T) {
	files, _ := filepath.Glob("testdata/preview/*.txtar")
	if len(files) == 0 {
		t.Fatal("no preview goldens")
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var req string
			var want *txtar.File
			tree := map[string][]byte{}
			for i, f := range ar.Files {
				switch {
				case f.Name == "request.json":
					req = string(f.Data)
				case f.Name == "want.diff":
					want = &ar.Files[i]
				case strings.HasPrefix(f.Name, "tree/"):
					tree[strings.TrimPrefix(f.Name, "tree/")] = decodeFixture(string(f.Data))
				}
			}
			mk := func() string {
				dir := t.TempDir()
				for name, data := range tree {
					p := filepath.Join(dir, name)
					os.MkdirAll(filepath.Dir(p), 0o755)
					if err := os.WriteFile(p, data, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				return dir
			}
			dir := mk()
			before := treeString(readTree(t, dir))
			w := openWS(t, dir, nil)
			res, err := w.Preview(context.Background(), mustParse(t, req))
			if err != nil {
				t.Fatalf("preview: %v", err)
			}
			if got := treeString(readTree(t, dir)); got != before {
				t.Fatal("preview changed the tree")
			}
			if _, err := os.Stat(filepath.Join(dir, ".txedit")); err == nil {
				t.Fatal("preview created the journal")
			}
			got := encodeFixture([]byte(res.Diff))
			if *update {
				want.Data = []byte(got)
				os.WriteFile(file, txtar.Format(ar), 0o644)
			} else if want == nil || got != string(want.Data) {
				t.Errorf("diff:\n%s\nwant:\n%s", got, want.Data)
			}
			// The real apply, for comparison.
			if res, err := w.Apply(context.Background(), mustParse(t, req)); err != nil {
				t.Fatalf("apply: %v (%+v)", err, res)
			}
			applied := treeString(readTree(t, dir))
			for _, tool := range [][]string{
				{"git", "apply", "-p1", "--whitespace=nowarn"},
				{"patch", "-p1", "-F0", "-s", "--no-backup-if-mismatch"},
			} {
				if _, err := exec.LookPath(tool[0]); err != nil {
					if os.Getenv("CI") != "" {
						t.Fatalf("%s is not installed; .ci/run installs it", tool[0])
					}
					t.Logf("%s not installed: skipping it", tool[0])
					continue
				}
				d := mk()
				cmd := exec.Command(tool[0], tool[1:]...)
				cmd.Dir = d
				cmd.Stdin = bytes.NewReader([]byte(res.Diff))
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%s: %v\n%s", tool[0], err, out)
				}
				if got := treeString(readTree(t, d)); got != applied {
					t.Errorf("%s result differs from the real apply:\n%s\nwant:\n%s", tool[0], got, applied)
				}
			}
		})
	}
}
