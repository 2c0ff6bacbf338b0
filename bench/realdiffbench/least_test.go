package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/txedit/txedit/bench/internal/durable"
)

// TestLeastJournaled: the least journaled apply of a git diff (a
// modification, a deletion, a rename into a new directory, an added file)
// leaves the newer tree and its end mark, and its pack holds every path
// the diff touches: the before-image of each that existed, each added one
// as absent, so that rolling back from the pack alone gives the older
// tree again (its files; directories the diff made stay, empty).
func TestLeastJournaled(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	d := t.TempDir()
	old := map[string]string{"a.go": "package a\n\nvar x = 1\n", "dir/b.txt": "b\nb\nb\n", "gone.txt": "bye\n", "r/from.txt": strings.Repeat("moved\n", 20)}
	new := map[string]string{"a.go": "package a\n\nvar x = 2\n", "dir/b.txt": "b\nb\nb\nmore\n", "s/t/to.txt": strings.Repeat("moved\n", 20), "n/c.txt": "new\n"}
	write := func(root string, files map[string]string) {
		for n, text := range files {
			p := filepath.Join(root, n)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	write(filepath.Join(d, "old"), old)
	write(filepath.Join(d, "new"), new)
	cmd := exec.Command("git", "diff", "--no-index", "-M", "old", "new")
	cmd.Dir = d
	out, _ := cmd.Output() // exit status 1: the trees differ
	patch := strings.NewReplacer(" a/old/", " a/", " b/new/", " b/", "from old/", "from ", "to new/", "to ").Replace(string(out))
	if !strings.Contains(patch, "rename from r/from.txt") {
		t.Fatalf("no rename in the diff: %s", patch)
	}
	if err := os.WriteFile(filepath.Join(d, "patch.diff"), []byte(patch), 0o644); err != nil {
		t.Fatal(err)
	}
	files, dirs, err := floorLists(d)
	if err != nil {
		t.Fatal(err)
	}
	names, err := leastPackNames(d)
	if err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(d, "work")
	write(work, old)
	if err := leastJournaled(work, filepath.Join(d, "patch.diff"), names, files, dirs); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(work, leastPack+".done")); err != nil {
		t.Errorf("no end mark: %v", err)
	}
	if got := tree(t, work); !reflect.DeepEqual(got, new) {
		t.Errorf("the tree after the apply is %q, want the newer release %q", got, new)
	}
	imgs, err := durable.ReadPack(filepath.Join(work, leastPack))
	if err != nil {
		t.Fatal(err)
	}
	packed := map[string]bool{}
	for _, im := range imgs {
		packed[im.Name] = true
		text, existed := old[im.Name]
		switch {
		case existed && (im.Kind != 'f' || string(im.Data) != text):
			t.Errorf("the pack holds %q as %c %q, want its before-image %q", im.Name, im.Kind, im.Data, text)
		case !existed && (im.Kind != '-' || len(im.Data) != 0):
			t.Errorf("the pack holds %q, added by the diff, as %c %q, want absent", im.Name, im.Kind, im.Data)
		}
	}
	for _, n := range []string{"a.go", "dir/b.txt", "gone.txt", "r/from.txt", "s/t/to.txt", "n/c.txt"} {
		if !packed[n] {
			t.Errorf("%s, touched by the diff, is not in the pack", n)
		}
	}
	// Rolled back from the pack alone.
	for _, im := range imgs {
		p := filepath.Join(work, im.Name)
		if im.Kind == '-' {
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, im.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := tree(t, work); !reflect.DeepEqual(got, old) {
		t.Errorf("the tree rolled back from the pack is %q, want the older release %q", got, old)
	}
}

// TestReadPackRejectsDamage: a pack cut short, in its header or its
// contents, or with bytes after its last image, is an error, not a
// shorter list of images.
func TestReadPackRejectsDamage(t *testing.T) {
	d := t.TempDir()
	for n, text := range map[string]string{"a": "alpha\n", "b": "beta\n"} {
		if err := os.WriteFile(filepath.Join(d, n), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pack := filepath.Join(d, "pack")
	if err := durable.Pack(d, []string{"a", "b", "c"}, pack); err != nil {
		t.Fatal(err)
	}
	imgs, err := durable.ReadPack(pack)
	want := []durable.Image{{Name: "a", Kind: 'f', Data: []byte("alpha\n")}, {Name: "b", Kind: 'f', Data: []byte("beta\n")}, {Name: "c", Kind: '-', Data: []byte{}}}
	if err != nil || !reflect.DeepEqual(imgs, want) {
		t.Fatalf("ReadPack = %q, %v; want %q", imgs, err, want)
	}
	if err := durable.Pack(d, []string{"a"}, pack); err == nil {
		t.Error("Pack over an existing pack succeeded")
	}
	data, _ := os.ReadFile(pack)
	for _, bad := range [][]byte{data[:len(data)-1], data[:5], append(data[:len(data):len(data)], 'x')} {
		if err := os.WriteFile(pack, bad, 0o600); err != nil {
			t.Fatal(err)
		}
		if imgs, err := durable.ReadPack(pack); err == nil {
			t.Errorf("ReadPack of a damaged pack (%d of %d bytes) = %q, no error", len(bad), len(data), imgs)
		}
	}
}

// tree reads the regular files under root, without the least journaled
// apply's pack and mark.
func tree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, de fs.DirEntry, err error) error {
		if err != nil || de.IsDir() || strings.HasPrefix(de.Name(), leastPack) {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
