//go:build !linux

package fsys

import "io/fs"

// ReadFile implements [Dir] through Open where there is no raw path.
func (d *osDir) ReadFile(name string, buf []byte, max int64) ([]byte, error) {
	f, err := d.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadAll(f, buf, max)
}

func (d *osDir) fd() (int, error) { return 0, nil }

func (d *osDir) readDirRaw() ([]fs.DirEntry, error) {
	f, err := d.r.Open(".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}
