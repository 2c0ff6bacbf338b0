package fsys

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"testing"
)

func openRawRoot(t *testing.T, dir string) Dir {
	t.Helper()
	o, err := NewOS(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.Close() })
	d, err := o.OpenDir(".")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func TestRawDirReadFileSizes(t *testing.T) {
	dir := t.TempDir()
	sizes := []int{0, 1, 64<<10 - 1, 64 << 10, 64<<10 + 1, 200 << 10, 1 << 20}
	for _, n := range sizes {
		data := bytes.Repeat([]byte("0123456789abcde\n"), n/16+1)[:n]
		os.WriteFile(filepath.Join(dir, "f"), data, 0o644)
		d := openRawRoot(t, dir)
		for _, buf := range [][]byte{nil, make([]byte, 10, 100), make([]byte, 0, 128<<10)} {
			got, err := d.ReadFile("f", buf, 1<<30)
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("size %d, buffer cap %d: got %d bytes, %v", n, cap(buf), len(got), err)
			}
		}
		r, err := d.(interface {
			OpenReader(string) (io.ReadCloser, error)
		}).OpenReader("f")
		if err != nil {
			t.Fatal(err)
		}
		var out []byte
		chunk := make([]byte, 7000)
		for {
			k, err := r.Read(chunk)
			out = append(out, chunk[:k]...)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		r.Close()
		if !bytes.Equal(out, data) {
			t.Fatalf("size %d: OpenReader read %d bytes", n, len(out))
		}
	}
	d := openRawRoot(t, dir)
	if _, err := d.ReadFile("f", nil, 100<<10); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("over max: %v", err)
	}
}

func TestRawDirConfined(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "sub/deeper"), 0o755)
	os.WriteFile(filepath.Join(dir, "sub/file"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(dir, "secret"), []byte("s"), 0o644)
	os.Symlink("..", filepath.Join(dir, "sub/up"))
	os.Symlink("file", filepath.Join(dir, "sub/link"))
	syscall.Mkfifo(filepath.Join(dir, "sub/fifo"), 0o644)
	root := openRawRoot(t, dir)
	sub, err := root.OpenDir("sub")
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	ents, err := sub.ReadDir()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name()+":"+e.Type().String())
	}
	sort.Strings(got)
	want := []string{"deeper:d---------", "fifo:p---------", "file:----------", "link:L---------", "up:L---------"}
	if len(got) != len(want) {
		t.Fatalf("entries %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("entries %v, want %v", got, want)
		}
	}
	for _, name := range []string{"..", ".", "", "deeper/..", "/etc", "up"} {
		if d, err := sub.OpenDir(name); err == nil {
			d.Close()
			t.Errorf("OpenDir(%q) succeeded", name)
		}
	}
	if _, err := sub.OpenDir("file"); !errors.Is(err, syscall.ENOTDIR) {
		t.Errorf("OpenDir of a file: %v", err)
	}
	for _, name := range []string{"../secret", "up/secret", "link"} {
		if _, err := sub.ReadFile(name, nil, 1<<20); err == nil {
			t.Errorf("ReadFile(%q) succeeded", name)
		}
	}
	// A FIFO opens without blocking and reads as empty.
	if data, err := sub.ReadFile("fifo", nil, 1<<20); err != nil || len(data) != 0 {
		t.Errorf("fifo: %q %v", data, err)
	}
	// Info is what os.Lstat says, down to the identity.
	for _, e := range ents {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		want, _ := os.Lstat(filepath.Join(dir, "sub", e.Name()))
		if fi.Mode() != want.Mode() || fi.Size() != want.Size() || !fi.ModTime().Equal(want.ModTime()) || fi.Name() != want.Name() {
			t.Errorf("%s: Info %v %d %v, os.Lstat %v %d %v", e.Name(), fi.Mode(), fi.Size(), fi.ModTime(), want.Mode(), want.Size(), want.ModTime())
		}
		if IdentityOf(fi) != IdentityOf(want) {
			t.Errorf("%s: identity %+v, want %+v", e.Name(), IdentityOf(fi), IdentityOf(want))
		}
	}
	sub.Close()
	if _, err := sub.ReadFile("file", nil, 1<<20); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("read after close: %v", err)
	}
	if _, err := ents[0].Info(); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("Info after close: %v", err)
	}
}

// TestRawDirReadFileStatScan: a file that fits in the buffer is read
// whole and may is not asked; a larger one is looked at a piece at a time,
// no piece over the buffer's capacity, each starting with the last overlap
// bytes of the one before, and read whole (its status taken from the
// descriptor) only when a piece holds the needle, wherever it lies across
// the pieces' seams; otherwise nothing comes back. A file over max is too
// large before any piece is looked at; stop on the first piece ends the
// read.
func TestRawDirReadFileStatScan(t *testing.T) {
	dir := t.TempDir()
	d := openRawRoot(t, dir).(ScanReader)
	needle := []byte("errors.New(")
	line := []byte("\tx := compute(ctx, y) // a line of a file\n")
	body := func(n int) []byte { return bytes.Repeat(line, n/len(line)+1)[:n] }
	const bufCap = 64 << 10
	for _, c := range []struct {
		name  string
		size  int
		at    int // where the needle is, -1: nowhere
		whole bool
	}{
		{"small, no needle", 1000, -1, true},
		{"small, needle", 1000, 10, true},
		{"exactly the buffer", bufCap, -1, false},
		{"large, no needle", 300 << 10, -1, false},
		{"large, needle at the start", 300 << 10, 0, true},
		{"large, needle across the first seam", 300 << 10, bufCap - 5, true},
		{"large, needle across a later seam", 300 << 10, 3*(bufCap-len(needle)+1) - 3, true},
		{"large, needle at the end", 300 << 10, 300<<10 - len(needle), true},
	} {
		data := body(c.size)
		if c.at >= 0 {
			copy(data[c.at:], needle)
		}
		if err := os.WriteFile(filepath.Join(dir, "f"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		asked, seen := 0, 0
		may := func(piece []byte, first bool) (bool, bool) {
			if cap(piece) > bufCap || len(piece) > bufCap {
				t.Fatalf("%s: a piece of %d bytes (cap %d)", c.name, len(piece), cap(piece))
			}
			if first != (asked == 0) {
				t.Fatalf("%s: first %v on piece %d", c.name, first, asked)
			}
			asked++
			seen += len(piece)
			return bytes.Contains(piece, needle), false
		}
		wanted := false
		got, fi, err := d.ReadFileStatScan("f", make([]byte, 0, bufCap), 1<<30, len(needle)-1, may, func(b []byte) bool {
			wanted = true
			return bytes.Contains(b, needle)
		})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		switch {
		case c.whole && (!bytes.Equal(got, data) || !wanted):
			t.Errorf("%s: got %d bytes (want called: %v), want the whole %d", c.name, len(got), wanted, len(data))
		case c.whole && (fi == nil) != (c.at < 0):
			t.Errorf("%s: status %v", c.name, fi)
		case c.whole && fi != nil && fi.Size() != int64(c.size):
			t.Errorf("%s: status of %d bytes", c.name, fi.Size())
		case !c.whole && (got != nil || fi != nil || wanted):
			t.Errorf("%s: got %d bytes, status %v, want called %v: want nothing", c.name, len(got), fi, wanted)
		case !c.whole && seen < c.size:
			t.Errorf("%s: the pieces held %d bytes of %d", c.name, seen, c.size)
		case c.size < bufCap && asked != 0:
			t.Errorf("%s: may asked %d times of a file that fits", c.name, asked)
		}
	}
	// Over max: too large, no piece looked at.
	os.WriteFile(filepath.Join(dir, "f"), body(200<<10), 0o644)
	_, _, err := d.ReadFileStatScan("f", nil, 100<<10, 0, func([]byte, bool) (bool, bool) {
		t.Fatal("may asked of a file over max")
		return false, false
	}, func([]byte) bool { return true })
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("over max: %v", err)
	}
	// stop on the first piece: one piece, nothing back.
	asked := 0
	got, _, err := d.ReadFileStatScan("f", nil, 1<<30, 0, func([]byte, bool) (bool, bool) {
		asked++
		return false, true
	}, func([]byte) bool { return true })
	if err != nil || got != nil || asked != 1 {
		t.Errorf("stop: %d bytes, %v, asked %d times", len(got), err, asked)
	}
}
