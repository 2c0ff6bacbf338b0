package fsys

import (
	"bytes"
	"encoding/binary"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// ReadFile implements [Dir] with three system calls: openat on the
// directory's descriptor (one component, O_NOFOLLOW, so it cannot leave
// the directory; O_NONBLOCK, so a FIFO cannot hang it), read, close. It
// skips the os.File machinery (fcntl, poller registration) that doubles
// the cost of reading many small files.
func (d *osDir) ReadFile(name string, buf []byte, max int64) ([]byte, error) {
	fd, err := d.fd()
	if err != nil {
		return nil, err
	}
	f, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	if err != nil {
		return nil, &os.PathError{Op: "openat", Path: name, Err: err}
	}
	defer unix.Close(f)
	buf = buf[:0]
	if cap(buf) < 64<<10 {
		buf = make([]byte, 0, 64<<10)
	}
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) > max {
				return nil, &os.PathError{Op: "read", Path: name, Err: ErrTooLarge}
			}
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := unix.Read(f, buf[len(buf):cap(buf)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "read", Path: name, Err: err}
		}
		if n == 0 {
			return buf, nil
		}
		want := cap(buf) - len(buf)
		buf = buf[:len(buf)+n]
		if n < want {
			// A short read of a regular file is its end.
			return buf, nil
		}
	}
}

func (d *osDir) fd() (int, error) {
	d.once.Do(func() {
		d.dirFile, d.dirErr = d.r.Open(".")
		if d.dirErr == nil {
			d.dirFd = int(d.dirFile.Fd())
		}
	})
	return d.dirFd, d.dirErr
}

// readDirRaw lists a directory with getdents64, taking each entry's type
// from d_type. ReadDir on a directory opened through os.Root stats every
// entry, one system call per file that a walk does not need.
func (d *osDir) readDirRaw() ([]fs.DirEntry, error) {
	fd, err := d.fd()
	if err != nil {
		return nil, err
	}
	var out []fs.DirEntry
	buf := make([]byte, 32<<10)
	for {
		n, err := unix.ReadDirent(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "getdents", Path: ".", Err: err}
		}
		if n <= 0 {
			return out, nil
		}
		for b := buf[:n]; len(b) >= 19; {
			reclen := int(binary.NativeEndian.Uint16(b[16:18]))
			if reclen < 19 || reclen > len(b) {
				break
			}
			typ := b[18]
			name := b[19:reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			b = b[reclen:]
			if s := string(name); s != "." && s != ".." {
				out = append(out, &rawDirent{d: d, name: s, typ: direntType(typ)})
			}
		}
	}
}

func direntType(t byte) fs.FileMode {
	switch t {
	case unix.DT_REG:
		return 0
	case unix.DT_DIR:
		return fs.ModeDir
	case unix.DT_LNK:
		return fs.ModeSymlink
	case unix.DT_FIFO:
		return fs.ModeNamedPipe
	case unix.DT_SOCK:
		return fs.ModeSocket
	case unix.DT_CHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case unix.DT_BLK:
		return fs.ModeDevice
	}
	return fs.ModeIrregular // DT_UNKNOWN: resolved by Info
}

type rawDirent struct {
	d    *osDir
	name string
	typ  fs.FileMode
}

func (e *rawDirent) Name() string { return e.name }
func (e *rawDirent) IsDir() bool  { return e.Type().IsDir() }
func (e *rawDirent) Type() fs.FileMode {
	if e.typ == fs.ModeIrregular {
		if fi, err := e.d.r.Lstat(e.name); err == nil {
			e.typ = fi.Mode().Type()
		}
	}
	return e.typ
}
func (e *rawDirent) Info() (fs.FileInfo, error) { return e.d.r.Lstat(e.name) }
