package engine

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/journal"
	"github.com/txedit/txedit/plan"
)

// TestSwapRaceCodes: while an attacker keeps swapping a directory and a
// file of the workspace for symlinks to outside (and back), edits of the
// file go on. Nothing outside is ever written, and every refusal says
// what happened (outside_root, conflict, stale_hash, …): a lookup that
// raced a swap answered io_error "invalid argument" (readlink of what was
// a symlink a moment before).
func TestSwapRaceCodes(t *testing.T) {
	outside := t.TempDir()
	writeTree(t, outside, map[string]string{"f.txt": "outside\n", "sub/f.txt": "outside\n"})
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"sub/f.txt": "inside\n"})
	w := openWS(t, dir, &Options{Durability: NotDurable, LockTimeout: 10 * time.Second})
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		sub, real := filepath.Join(dir, "sub"), filepath.Join(dir, "sub.real")
		file, aside := filepath.Join(dir, "sub/f.txt"), filepath.Join(dir, "f.aside")
		for i := 0; !stop.Load(); i++ {
			switch i % 4 {
			case 0: // the directory becomes a symlink to outside
				os.Rename(sub, real)
				os.Symlink(filepath.Join(outside, "sub"), sub)
			case 1:
				os.Remove(sub)
				os.Rename(real, sub)
			case 2: // the file becomes a symlink to outside
				os.Rename(file, aside)
				os.Symlink(filepath.Join(outside, "f.txt"), file)
			case 3:
				os.Remove(file)
				os.Rename(aside, file)
			}
		}
	}()
	codes := map[plan.Code]int{}
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		res, _ := w.Apply(context.Background(), mustParse(t, `{"command":"str_replace","path":"sub/f.txt","old_str":"inside","new_str":"inside"}`))
		if !res.Success {
			codes[res.Code]++
			if res.Code == plan.CodeIOError {
				t.Errorf("io_error: %s", res.Error)
			}
		} else {
			codes["ok"]++
		}
		res, _ = w.Apply(context.Background(), mustParse(t, `{"command":"append","path":"sub/f.txt","new_str":"x"}`))
		if !res.Success {
			codes[res.Code]++
			if res.Code == plan.CodeIOError {
				t.Errorf("io_error: %s", res.Error)
			}
		} else {
			codes["ok"]++
		}
	}
	stop.Store(true)
	wg.Wait()
	t.Logf("answers: %v", codes)
	for _, p := range []string{"f.txt", "sub/f.txt"} {
		if b, _ := os.ReadFile(filepath.Join(outside, p)); string(b) != "outside\n" {
			t.Fatalf("outside %s written: %q", p, b)
		}
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 2 {
		t.Fatalf("files appeared outside the root: %v", ents)
	}
}

// vanishFS loses every staged file just before the commit renames it over
// its target, as when the target's directory is moved away and replaced
// between the identity check and the rename (a moment TestSwapRaceCodes
// hits about once in a thousand commits).
type vanishFS struct{ fsys.FS }

func (v *vanishFS) View() (fsys.FS, func()) {
	inner, release := v.FS.View()
	return &vanishFS{inner}, release
}

func (v *vanishFS) Rename(from, to string) error {
	if journal.IsTemp(path.Base(from)) {
		v.FS.Remove(from)
	}
	return v.FS.Rename(from, to)
}

// Exchange loses the staged file the same way (the commit exchanges where
// the file system can: journal.Tx.swapIn).
func (v *vanishFS) Exchange(a, b string) error {
	if journal.IsTemp(path.Base(a)) {
		v.FS.Remove(a)
	}
	return v.FS.Exchange(a, b)
}

// TestRenameAfterSwapIsAConflict: a commit whose rename finds its staged
// file gone answers conflict (the directory changed under it; read and
// retry), not io_error, and writes nothing.
func TestRenameAfterSwapIsAConflict(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"sub/f.txt": "inside\n"})
	inner, err := fsys.NewOS(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer inner.Close()
	w := openWS(t, dir, &Options{FS: &vanishFS{inner}, Keys: journal.UserKeys()})
	res := run(t, w, `{"command":"append","path":"sub/f.txt","new_str":"x"}`)
	if res.Success || res.Code != plan.CodeConflict {
		t.Fatalf("got %s (%s), want conflict", res.Code, res.Error)
	}
	if got := readTree(t, dir)["sub/f.txt"]; got != "inside\n" {
		t.Errorf("sub/f.txt = %q: written", got)
	}
}
