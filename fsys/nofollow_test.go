package fsys

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestNoSymlinkFollowed: no call of the OS file system, nor of its views
// (with directory handles cached, and after Revalidate), follows a
// symbolic link anywhere in a name, inside the root or not: each refuses
// with ELOOP and leaves the link's target alone. os.Root, which the OS
// used before, follows links that stay inside the root, so a directory
// swapped for a link to the journal after the engine's policy check was
// followed by the open that came after it (docs/design.md, "Resolution").
// Run with openat2 and with the walk one component at a time (the systems
// without openat2).
func TestNoSymlinkFollowed(t *testing.T) {
	for _, walk := range []bool{false, true} {
		name := "openat2"
		if walk {
			name = "walk"
		}
		t.Run(name, func(t *testing.T) {
			if walk {
				was := noOpenat2.Load()
				noOpenat2.Store(true)
				defer noOpenat2.Store(was)
			}
			dir := t.TempDir()
			os.MkdirAll(filepath.Join(dir, "real/sub"), 0o755)
			os.WriteFile(filepath.Join(dir, "real/f"), []byte("secret\n"), 0o644)
			os.WriteFile(filepath.Join(dir, "real/sub/g"), []byte("secret\n"), 0o644)
			os.Symlink("real", filepath.Join(dir, "ln"))
			os.Symlink("real/f", filepath.Join(dir, "lf"))
			before := snapshotDir(t, filepath.Join(dir, "real"))
			fsy, err := NewOS(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer fsy.Close()
			view, release := fsy.View()
			defer release()
			// The view caches a handle on real/sub, as it would for a
			// directory it resolved through.
			if _, err := view.Lstat("real/sub/g"); err != nil {
				t.Fatal(err)
			}
			checked, release2 := fsy.View()
			defer release2()
			checked.Revalidate()
			for _, x := range []struct {
				name string
				fs   FS
			}{{"os", fsy}, {"view", view}, {"checked view", checked}} {
				loop := func(what string, err error) {
					t.Helper()
					if !errors.Is(err, syscall.ELOOP) {
						t.Errorf("%s: %s: %v, want ELOOP", x.name, what, err)
					}
				}
				for _, p := range []string{"ln/f", "ln/sub/g"} {
					_, err := x.fs.Open(p)
					loop("open "+p, err)
					_, err = x.fs.Lstat(p)
					loop("lstat "+p, err)
					_, err = x.fs.Readlink(p)
					loop("readlink "+p, err)
					_, err = x.fs.OpenDir(p + "/..")
					if err == nil {
						t.Errorf("%s: opendir %s/..: succeeded", x.name, p)
					}
					_, err = x.fs.Create(p+".new", 0o644)
					loop("create "+p+".new", err)
					loop("append "+p, x.fs.Append(p, []byte("x"), 0o644))
					loop("mkdir "+p+".d", x.fs.Mkdir(p+".d", 0o755))
					loop("remove "+p, x.fs.Remove(p))
					loop("rename "+p, x.fs.Rename(p, "stolen"))
					loop("rename onto "+p, x.fs.Rename("lf", p+".2"))
					loop("link "+p, x.fs.Link(p, "stolen2"))
					loop("syncdir ln/sub", x.fs.SyncDir("ln/sub"))
					_, err = x.fs.ReadDir("ln/sub")
					loop("readdir ln/sub", err)
					_, err = x.fs.OpenDir("ln")
					loop("opendir ln", err)
					_, err = x.fs.ReadLease(p)
					if err == nil {
						t.Errorf("%s: lease %s succeeded", x.name, p)
					}
					if err := x.fs.Exchange(p, "ln/other"); err == nil {
						t.Errorf("%s: exchange %s succeeded", x.name, p)
					}
					if u, err := x.fs.CreateUnnamed("ln", 0o644); err == nil {
						u.Close()
						t.Errorf("%s: unnamed file in ln succeeded", x.name)
					}
				}
				// A link as the last component: stat'ed as itself, read
				// as a link, never opened.
				if fi, err := x.fs.Lstat("lf"); err != nil || fi.Mode()&os.ModeSymlink == 0 {
					t.Errorf("%s: lstat lf: %v, %v", x.name, fi, err)
				}
				if s, err := x.fs.Readlink("lf"); err != nil || s != "real/f" {
					t.Errorf("%s: readlink lf: %q, %v", x.name, s, err)
				}
				_, err := x.fs.Open("lf")
				loop("open lf", err)
				if f, err := x.fs.Open("real/f"); err != nil {
					t.Errorf("%s: open real/f: %v", x.name, err)
				} else {
					f.Close()
				}
			}
			if after := snapshotDir(t, filepath.Join(dir, "real")); after != before {
				t.Errorf("the link's target changed:\n%s\nwas\n%s", after, before)
			}
		})
	}
}

// TestNamesStayBelowTheRoot: "..", absolute names and names that climb
// out after cleaning are refused as escapes, for every backend's OS.
func TestNamesStayBelowTheRoot(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "a"), 0o755)
	fsy, err := NewOS(filepath.Join(dir, "a"))
	if err != nil {
		t.Fatal(err)
	}
	defer fsy.Close()
	for _, p := range []string{"..", "../a", "x/../..", "/etc/passwd"} {
		if _, err := fsy.Lstat(p); !IsEscape(err) {
			t.Errorf("lstat %s: %v, want an escape", p, err)
		}
		if _, err := fsy.Open(p); !IsEscape(err) {
			t.Errorf("open %s: %v, want an escape", p, err)
		}
	}
	if _, err := fsy.Lstat("x/../."); err != nil {
		t.Errorf("lstat x/../. (the root): %v", err)
	}
}

func snapshotDir(t *testing.T, dir string) string {
	t.Helper()
	var out string
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		b, _ := os.ReadFile(p)
		out += p + " " + fi.Mode().String() + " " + string(b) + "\n"
		return nil
	})
	return out
}
