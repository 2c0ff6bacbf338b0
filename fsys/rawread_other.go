//go:build !linux

package fsys

import (
	"io/fs"
	"os"
	"syscall"
)

// openDir opens name as a Dir through os.Root: portable, and confined
// by the root, if slower than Linux's bare descriptors.
func openDir(root *os.Root, name string) (Dir, error) {
	r := root
	if name != "." && name != "" {
		sub, err := root.OpenRoot(name)
		if err != nil {
			return nil, err
		}
		r = sub
	}
	return &osDir{r: r, own: r != root}, nil
}

type osDir struct {
	r   *os.Root
	own bool
}

func (d *osDir) ReadDir() ([]fs.DirEntry, error) {
	f, err := d.r.Open(".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}

func (d *osDir) Open(name string) (File, error) {
	f, err := d.r.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	return osFile{f}, nil
}

// OpenDir implements [Dir].
func (d *osDir) OpenDir(name string) (Dir, error) {
	if fi, err := d.r.Lstat(name); err != nil {
		return nil, err
	} else if !fi.IsDir() {
		return nil, &fs.PathError{Op: "opendir", Path: name, Err: syscall.ENOTDIR}
	}
	sub, err := d.r.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	return &osDir{r: sub, own: true}, nil
}

// ReadFile implements [Dir] through Open where there is no raw path.
func (d *osDir) ReadFile(name string, buf []byte, max int64) ([]byte, error) {
	f, err := d.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadAll(f, buf, max)
}

func (d *osDir) Close() error {
	if d.own {
		return d.r.Close()
	}
	return nil
}

var _ Dir = (*osDir)(nil)
