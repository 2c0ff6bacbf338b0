// Command fscostbench times, one call at a time, the file-system calls a
// durable commit is made of, on the file system of a scratch directory:
// what an empty file, a directory, a hard link, an unnamed (O_TMPFILE)
// file, an unlink, a directory fsync and a new file's fdatasync each cost,
// and how well fsyncs of several directories overlap when issued at once.
// What it found (docs/journal.md): on the ext4 of the machines measured, creating an
// inode costs ten times a hard link, and parallel syncs overlap little,
// which decided the journal's layout work (docs/journal.md).
//
//	go run ./bench/fscostbench [-dir DIR] [-n 200]
//
// bench/run.sh fscost runs it on disk and on tmpfs.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

func main() {
	dir := flag.String("dir", "", "scratch directory, on the file system to measure (default: a temp dir)")
	n := flag.Int("n", 200, "calls timed per row (medians)")
	flag.Parse()
	if err := run(*dir, *n); err != nil {
		fmt.Fprintf(os.Stderr, "fscostbench: %v\n", err)
		os.Exit(1)
	}
}

func median(d []time.Duration) time.Duration {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[len(d)/2]
}

// timer collects the durations of one row.
type timer struct {
	name string
	d    []time.Duration
}

func (t *timer) time(fn func() error) error {
	start := time.Now()
	err := fn()
	t.d = append(t.d, time.Since(start))
	return err
}

func run(dir string, n int) error {
	if dir == "" {
		d, err := os.MkdirTemp("", "fscostbench")
		if err != nil {
			return err
		}
		dir = d
	}
	work := filepath.Join(dir, "fscost")
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	defer os.RemoveAll(work)
	rows, err := single(work, n)
	if err != nil {
		return err
	}
	par, err := parallel(work, n)
	if err != nil {
		return err
	}
	fmt.Printf("file-system calls on %s, %d each, medians\n", dir, n)
	fmt.Printf("%-48s %10s\n", "call", "median")
	for _, r := range append(rows, par...) {
		fmt.Printf("%-48s %8.1fµs\n", r.name, float64(median(r.d).Nanoseconds())/1e3)
	}
	return nil
}

// single times each kind of call on its own.
func single(work string, n int) ([]*timer, error) {
	create, mkdir, link, tmpfile, unlinkEmpty, unlinkData, syncDir, dataSync :=
		&timer{name: "create an empty file"}, &timer{name: "mkdir"}, &timer{name: "hard link to an existing file"},
		&timer{name: "unnamed file (O_TMPFILE) made and linked"}, &timer{name: "unlink an empty file"},
		&timer{name: "unlink a file of 8 KiB"}, &timer{name: "fsync of a directory with one new entry"},
		&timer{name: "fdatasync of a new file of 8 KiB"}
	src := filepath.Join(work, "src")
	if err := os.WriteFile(src, nil, 0o600); err != nil {
		return nil, err
	}
	d, err := os.Open(work)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	data := make([]byte, 8192)
	for i := 0; i < n; i++ {
		name := func(p string) string { return filepath.Join(work, fmt.Sprint(p, i)) }
		if err := create.time(func() error { f, err := os.Create(name("c")); f.Close(); return err }); err != nil {
			return nil, err
		}
		if err := syncDir.time(d.Sync); err != nil {
			return nil, err
		}
		if err := mkdir.time(func() error { return os.Mkdir(name("m"), 0o755) }); err != nil {
			return nil, err
		}
		if err := link.time(func() error { return os.Link(src, name("l")) }); err != nil {
			return nil, err
		}
		tmpfile.time(func() error { return unnamed(work, name("u")) }) // unsupported: the row says so
		if err := unlinkEmpty.time(func() error { return os.Remove(name("c")) }); err != nil {
			return nil, err
		}
		f, err := os.Create(name("d"))
		if err != nil {
			return nil, err
		}
		f.Write(data)
		err = dataSync.time(func() error { return unix.Fdatasync(int(f.Fd())) })
		f.Close()
		if err != nil {
			return nil, err
		}
		d.Sync()
		if err := unlinkData.time(func() error { return os.Remove(name("d")) }); err != nil {
			return nil, err
		}
	}
	rows := []*timer{create, mkdir, link, tmpfile, unlinkEmpty, unlinkData, syncDir, dataSync}
	if _, err := os.Stat(filepath.Join(work, "u0")); err != nil {
		tmpfile.name += " (unsupported here)"
	}
	return rows, nil
}

// unnamed makes an O_TMPFILE file in dir and links it at name, as the
// journal stages a file (fsys.OS.CreateUnnamed).
func unnamed(dir, name string) error {
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return unix.Linkat(unix.AT_FDCWD, fmt.Sprintf("/proc/self/fd/%d", fd), unix.AT_FDCWD, name, unix.AT_SYMLINK_FOLLOW)
}

// parallel times k directory fsyncs issued at once, each directory with
// one new entry: how much a round of syncs costs as it grows.
func parallel(work string, n int) ([]*timer, error) {
	var dirs []*os.File
	defer func() {
		for _, d := range dirs {
			d.Close()
		}
	}()
	for i := 0; i < 8; i++ {
		p := filepath.Join(work, fmt.Sprint("p", i))
		if err := os.Mkdir(p, 0o755); err != nil {
			return nil, err
		}
		d, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		dirs = append(dirs, d)
	}
	var rows []*timer
	for _, k := range []int{1, 2, 4, 8} {
		t := &timer{name: fmt.Sprintf("%d directory fsyncs at once", k)}
		for it := 0; it < n; it++ {
			for i := 0; i < k; i++ {
				if err := os.WriteFile(filepath.Join(work, fmt.Sprint("p", i), fmt.Sprint(k, "-", it)), nil, 0o600); err != nil {
					return nil, err
				}
			}
			errs := make([]error, k)
			t.time(func() error {
				var wg sync.WaitGroup
				for i := 0; i < k; i++ {
					wg.Add(1)
					go func() { defer wg.Done(); errs[i] = dirs[i].Sync() }()
				}
				wg.Wait()
				return nil
			})
			for _, err := range errs {
				if err != nil {
					return nil, err
				}
			}
		}
		rows = append(rows, t)
	}
	return rows, nil
}
