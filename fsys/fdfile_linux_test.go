package fsys

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
)

// TestFdFile checks the bare-descriptor File against what os.File does:
// reads to the end, at offsets, writes of one and of several buffers,
// stat, chmod, sync, errors as *fs.PathError naming the file, and a
// closed file refused.
func TestFdFile(t *testing.T) {
	dir := t.TempDir()
	o, err := NewOS(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	f, err := o.Create("a.txt", 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := f.(*fdFile); !ok {
		t.Fatalf("Create made a %T, not an fdFile", f)
	}
	if n, err := f.Write([]byte("hello ")); n != 6 || err != nil {
		t.Fatalf("Write: %d %v", n, err)
	}
	// Several buffers at once, empty ones among them, at an offset.
	v := f.(WriterAtv)
	if n, err := v.WriteAtv([][]byte{[]byte("wor"), nil, []byte("ld"), {}, []byte("!\n")}, 6); n != 7 || err != nil {
		t.Fatalf("WriteAtv: %d %v", n, err)
	}
	if n, err := f.WriteAt([]byte("W"), 6); n != 1 || err != nil {
		t.Fatalf("WriteAt: %d %v", n, err)
	}
	if err := f.Chmod(0o600); err != nil {
		t.Fatal(err)
	}
	if err := f.DataSync(); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	fi, err := f.Stat()
	if err != nil || fi.Name() != "a.txt" || fi.Size() != 13 || fi.Mode() != 0o600 {
		t.Fatalf("Stat: %v %v", fi, err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("x")); !errors.Is(err, os.ErrClosed) {
		t.Fatalf("Write after Close: %v", err)
	}
	if err := f.Close(); !errors.Is(err, os.ErrClosed) {
		t.Fatalf("second Close: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(got) != "hello World!\n" {
		t.Fatalf("file holds %q", got)
	}

	r, err := o.Open("a.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	buf := make([]byte, 5)
	if n, err := r.ReadAt(buf, 6); n != 5 || err != nil || string(buf) != "World" {
		t.Fatalf("ReadAt: %d %v %q", n, err, buf)
	}
	if n, err := r.ReadAt(make([]byte, 10), 6); n != 7 || err != io.EOF {
		t.Fatalf("ReadAt past the end: %d %v", n, err)
	}
	if _, err := r.Stat(); err != nil {
		t.Fatal(err)
	}
	data, err := ReadAll(r, make([]byte, 0, 100), 100)
	if err != nil || string(data) != "hello World!\n" {
		t.Fatalf("ReadAll: %q %v", data, err)
	}
	if _, err := r.Write([]byte("x")); err == nil {
		t.Fatal("a write to a file opened for reading succeeded")
	} else if pe := (*fs.PathError)(nil); !errors.As(err, &pe) || pe.Path != "a.txt" || !errors.Is(err, syscall.EBADF) {
		t.Fatalf("a write to a file opened for reading: %v", err)
	}
}

// TestFdFileShortReadOfPipe: a read shorter than asked ends a regular
// file (Stat said so), but not anything else: a pipe's reader gets every
// write, however short each one is.
func TestFdFileShortReadOfPipe(t *testing.T) {
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	r, w := newFdFile(p[0], "pipe"), newFdFile(p[1], "pipe")
	defer r.Close()
	if _, err := r.Stat(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	w.Write([]byte("a"))
	n, err := r.Read(buf) // "a": shorter than asked, and not the end
	if err != nil || string(buf[:n]) != "a" {
		t.Fatalf("first read: %q %v", buf[:n], err)
	}
	var got bytes.Buffer
	got.Write(buf[:n])
	w.Write([]byte("bcdef"))
	w.Close()
	for {
		n, err := r.Read(buf)
		got.Write(buf[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if got.String() != "abcdef" {
		t.Fatalf("read %q from the pipe", got.String())
	}
}

// TestFdFileCloseWhileInUse: Close waits for calls in flight, so that a
// descriptor is never closed under one (and reused by another file).
func TestFdFileCloseWhileInUse(t *testing.T) {
	dir := t.TempDir()
	o, err := NewOS(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	f, err := o.Create("a", 0o644)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 100; j++ {
				if _, err := f.WriteAt([]byte("x"), int64(i)); err != nil && !errors.Is(err, os.ErrClosed) {
					t.Error(err)
					return
				}
			}
		}()
	}
	f.Close()
	wg.Wait()
}

// TestReadLease: a lease on a regular file makes a writer's open wait
// (refused at once with O_NONBLOCK) and shows as broken; Release, the
// close of its descriptor alone, lets writers in again; anything but a
// regular file has none (F_SETLEASE refuses it, no stat asked first).
func TestReadLease(t *testing.T) {
	dir := t.TempDir()
	o, err := NewOS(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	f := filepath.Join(dir, "f")
	if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := o.ReadLease("f")
	if errors.Is(err, errors.ErrUnsupported) {
		t.Skip("skipped: no leases on this file system")
	}
	if err != nil {
		t.Fatal(err)
	}
	if l.Broken() {
		t.Fatal("a lease nobody broke reads as broken")
	}
	if _, err := syscall.Open(f, syscall.O_WRONLY|syscall.O_NONBLOCK, 0); err != syscall.EWOULDBLOCK {
		t.Fatalf("a writer's open under the lease: %v, not EWOULDBLOCK", err)
	}
	if !l.Broken() {
		t.Fatal("a lease a writer broke does not read as broken")
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	fd, err := syscall.Open(f, syscall.O_WRONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatalf("a writer's open after Release: %v", err)
	}
	syscall.Close(fd)
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"fifo", "d"} {
		if l, err := o.ReadLease(name); !errors.Is(err, errors.ErrUnsupported) {
			if l != nil {
				l.Release()
			}
			t.Errorf("ReadLease(%s): %v, not unsupported", name, err)
		}
	}
}
