package journal

import (
	"bytes"
	"io/fs"
)

// nopFile is a File over a buffer, for pack tests.
type nopFile struct{ b *bytes.Buffer }

func (n nopFile) Read(p []byte) (int, error) { return n.b.Read(p) }
func (n nopFile) ReadAt(p []byte, off int64) (int, error) {
	return bytes.NewReader(n.b.Bytes()).ReadAt(p, off)
}
func (n nopFile) Write(p []byte) (int, error) { return n.b.Write(p) }
func (n nopFile) WriteAt(p []byte, off int64) (int, error) {
	for int64(n.b.Len()) < off+int64(len(p)) {
		n.b.WriteByte(0)
	}
	copy(n.b.Bytes()[off:], p)
	return len(p), nil
}
func (n nopFile) Close() error               { return nil }
func (n nopFile) Sync() error                { return nil }
func (n nopFile) DataSync() error            { return nil }
func (n nopFile) Stat() (fs.FileInfo, error) { return nil, nil }
func (n nopFile) Chmod(fs.FileMode) error    { return nil }
func (n nopFile) Chown(int, int) error       { return nil }
