package fsys

import (
	"bytes"
	"encoding/binary"
	"io"
	"io/fs"
	"os"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// rawDir is a [Dir] on Linux: a bare directory descriptor. A walk lists
// it with getdents64 (types from d_type, no stat per entry), opens
// children with one openat each (a single component, O_NOFOLLOW: it
// cannot leave the directory) and reads files with openat, read, close —
// none of the os.File machinery (fcntl, poller registration, finalizers)
// that costs more than the read itself for a small file.
type rawDir struct {
	fd atomic.Int64 // -1 once closed
}

// newFdDir is a Dir on the directory descriptor fd, which it owns.
func newFdDir(fd int) Dir { return newRawDir(fd) }

func newRawDir(fd int) *rawDir {
	d := &rawDir{}
	d.fd.Store(int64(fd))
	return d
}

func (d *rawDir) handle(op, name string) (int, error) {
	fd := int(d.fd.Load())
	if fd < 0 {
		return -1, &os.PathError{Op: op, Path: name, Err: os.ErrClosed}
	}
	return fd, entryName(op, name)
}

// Close implements [Dir].
func (d *rawDir) Close() error {
	fd := d.fd.Swap(-1)
	if fd < 0 {
		return os.ErrClosed
	}
	return unix.Close(int(fd))
}

// OpenDir implements [Dir].
func (d *rawDir) OpenDir(name string) (Dir, error) {
	dfd, err := d.handle("opendir", name)
	if err != nil {
		return nil, err
	}
	for {
		fd, err := unix.Openat(dfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			if err == unix.ELOOP {
				err = unix.ENOTDIR // a symlink: not a directory of this tree
			}
			return nil, &os.PathError{Op: "openat", Path: name, Err: err}
		}
		return newRawDir(fd), nil
	}
}

// openFile opens an entry for reading: O_NOFOLLOW, so a symlink is
// refused; O_NONBLOCK, so a FIFO cannot hang it.
func (d *rawDir) openFile(name string) (int, error) {
	dfd, err := d.handle("openat", name)
	if err != nil {
		return -1, err
	}
	for {
		fd, err := unix.Openat(dfd, name, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return -1, &os.PathError{Op: "openat", Path: name, Err: err}
		}
		return fd, nil
	}
}

// Open implements [Dir].
func (d *rawDir) Open(name string) (File, error) {
	fd, err := d.openFile(name)
	if err != nil {
		return nil, err
	}
	return newFile(fd, name), nil
}

// OpenReader opens an entry for sequential reading with plain read
// system calls. A read shorter than asked is the end of the file (true of
// regular files, the only ones a walk reads), so a file smaller than the
// buffer costs openat, one read and close.
func (d *rawDir) OpenReader(name string) (io.ReadCloser, error) {
	fd, err := d.openFile(name)
	if err != nil {
		return nil, err
	}
	return &rawFile{fd: fd, name: name}, nil
}

type rawFile struct {
	fd   int
	name string
	eof  bool
}

func (f *rawFile) Read(p []byte) (int, error) {
	if f.eof {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	for {
		n, err := unix.Read(f.fd, p)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return 0, &os.PathError{Op: "read", Path: f.name, Err: err}
		}
		if n < len(p) {
			f.eof = true
			if n == 0 {
				return 0, io.EOF
			}
		}
		return n, nil
	}
}

// Size returns the file's size now (fstat).
func (f *rawFile) Size() (int64, error) {
	var st unix.Stat_t
	if err := unix.Fstat(f.fd, &st); err != nil {
		return 0, &os.PathError{Op: "fstat", Path: f.name, Err: err}
	}
	return st.Size, nil
}

func (f *rawFile) Close() error {
	if f.fd < 0 {
		return os.ErrClosed
	}
	err := unix.Close(f.fd)
	f.fd = -1
	return err
}

// ReadFile implements [Dir] with openat, read and close; a file that
// fills the buffer is measured with fstat, so the buffer grows once to
// its size instead of doubling (and copying) its way there.
func (d *rawDir) ReadFile(name string, buf []byte, max int64) ([]byte, error) {
	fd, err := d.openFile(name)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	return readFD(fd, name, buf, max)
}

// ReadFileStatIf implements [StatReader]: ReadFile, then, if want says
// so of the bytes, the open file's fstat (one call more, for those files
// only).
func (d *rawDir) ReadFileStatIf(name string, buf []byte, max int64, want func([]byte) bool) ([]byte, fs.FileInfo, error) {
	fd, err := d.openFile(name)
	if err != nil {
		return nil, nil, err
	}
	defer unix.Close(fd)
	data, err := readFD(fd, name, buf, max)
	if err != nil {
		return data, nil, err
	}
	return statIf(fd, name, data, want)
}

// statIf is the read's fstat, if want says so of data (nil otherwise).
func statIf(fd int, name string, data []byte, want func([]byte) bool) ([]byte, fs.FileInfo, error) {
	if !want(data) {
		return data, nil, nil
	}
	st := new(syscall.Stat_t)
	if err := unix.Fstat(fd, (*unix.Stat_t)(unsafe.Pointer(st))); err != nil {
		return data, nil, &os.PathError{Op: "fstat", Path: name, Err: err}
	}
	return data, &fileStat{name: name, st: st}, nil
}

// ReadFileStatScan implements [ScanReader].
func (d *rawDir) ReadFileStatScan(name string, buf []byte, max int64, overlap int, may func(piece []byte, first bool) (hit, stop bool), want func([]byte) bool) ([]byte, fs.FileInfo, error) {
	fd, err := d.openFile(name)
	if err != nil {
		return nil, nil, err
	}
	defer unix.Close(fd)
	data, whole, err := scanFD(fd, name, buf, max, overlap, may)
	if err != nil || !whole {
		return data, nil, err
	}
	return statIf(fd, name, data, want)
}

// scanFD is ReadFileStatScan's read of the open file fd: whole false (and
// data nil) when may passed over every piece. buf comes back as data when
// the file fits in it.
func scanFD(fd int, name string, buf []byte, max int64, overlap int, may func([]byte, bool) (bool, bool)) (data []byte, whole bool, err error) {
	if cap(buf) < 64<<10 {
		buf = make([]byte, 0, 64<<10)
	}
	if overlap < 0 {
		overlap = 0
	}
	overlap = min(overlap, cap(buf)/2)
	buf = buf[:0]
	first := true
	for {
		n, err := unix.Read(fd, buf[len(buf):cap(buf)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, false, &os.PathError{Op: "read", Path: name, Err: err}
		}
		room := cap(buf) - len(buf)
		buf = buf[:len(buf)+n]
		if first && n < room {
			// It fits: read whole, as ReadFileStatIf reads it.
			return buf, true, nil
		}
		if first {
			var st unix.Stat_t
			if err := unix.Fstat(fd, &st); err != nil {
				return nil, false, &os.PathError{Op: "fstat", Path: name, Err: err}
			}
			if st.Size > max {
				return nil, false, &os.PathError{Op: "read", Path: name, Err: ErrTooLarge}
			}
		}
		hit, stop := may(buf, first)
		first = false
		if hit {
			// Whole, from its start, on the same descriptor.
			if _, err := unix.Seek(fd, 0, io.SeekStart); err != nil {
				return nil, false, &os.PathError{Op: "seek", Path: name, Err: err}
			}
			data, err := readFD(fd, name, buf, max)
			return data, err == nil, err
		}
		if stop || n < room {
			return nil, false, nil // the end, with nothing to look for
		}
		buf = buf[:copy(buf, buf[len(buf)-overlap:])]
	}
}

// readFD reads the open regular file fd whole into buf (ReadFile).
func readFD(fd int, name string, buf []byte, max int64) ([]byte, error) {
	buf = buf[:0]
	if cap(buf) < 64<<10 {
		buf = make([]byte, 0, 64<<10)
	}
	sized := false
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) > max {
				return nil, &os.PathError{Op: "read", Path: name, Err: ErrTooLarge}
			}
			want := 2 * cap(buf)
			if !sized {
				sized = true
				var st unix.Stat_t
				if unix.Fstat(fd, &st) == nil && st.Size >= int64(len(buf)) {
					if st.Size > max {
						return nil, &os.PathError{Op: "read", Path: name, Err: ErrTooLarge}
					}
					// One byte more than the size: the read that returns
					// it short is the end.
					want = int(st.Size) + 1
				}
			}
			nb := make([]byte, len(buf), want)
			copy(nb, buf)
			buf = nb
		}
		n, err := unix.Read(fd, buf[len(buf):cap(buf)])
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

// ReadFileStat reads the regular file name whole, as it is when opened:
// openat (O_NOFOLLOW: a symlink is refused), fstat, one read sized from
// it (and one more if the file grew), close. It fails, without reading,
// on anything but a regular file, or one over max bytes.
func (d *rawDir) ReadFileStat(name string, max int64) ([]byte, fs.FileInfo, error) {
	fd, err := d.openFile(name)
	if err != nil {
		return nil, nil, err
	}
	defer unix.Close(fd)
	st := new(syscall.Stat_t)
	if err := unix.Fstat(fd, (*unix.Stat_t)(unsafe.Pointer(st))); err != nil {
		return nil, nil, &os.PathError{Op: "fstat", Path: name, Err: err}
	}
	fi := &fileStat{name: name, st: st}
	if !fi.Mode().IsRegular() {
		return nil, fi, &os.PathError{Op: "read", Path: name, Err: errNotRegular}
	}
	if st.Size > max {
		return nil, fi, &os.PathError{Op: "read", Path: name, Err: ErrTooLarge}
	}
	// One byte more than the size: a read that comes back short is the
	// end, and a file that grew shows.
	buf := make([]byte, 0, st.Size+1)
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) > max {
				return nil, fi, &os.PathError{Op: "read", Path: name, Err: ErrTooLarge}
			}
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := unix.Read(fd, buf[len(buf):cap(buf)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, fi, &os.PathError{Op: "read", Path: name, Err: err}
		}
		want := cap(buf) - len(buf)
		buf = buf[:len(buf)+n]
		if n == 0 || n < want {
			return buf, fi, nil
		}
	}
}

// ReadDir implements [Dir]: getdents64, each entry's type from d_type.
// The entries of one read share two allocations (their names, and the
// entries themselves), not two each.
func (d *rawDir) ReadDir() ([]fs.DirEntry, error) {
	fd := int(d.fd.Load())
	if fd < 0 {
		return nil, &os.PathError{Op: "getdents", Path: ".", Err: os.ErrClosed}
	}
	var out []fs.DirEntry
	var buf [32 << 10]byte
	for {
		n, err := unix.ReadDirent(fd, buf[:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "getdents", Path: ".", Err: err}
		}
		if n <= 0 {
			return out, nil
		}
		// Count the entries and their names' bytes, then copy them.
		count, size := 0, 0
		for b := buf[:n]; len(b) > 0; {
			name, _, rest := nextDirent(b)
			if name != nil {
				count++
				size += len(name)
			}
			b = rest
		}
		names := make([]byte, 0, size)
		ents := make([]rawDirent, 0, count)
		for b := buf[:n]; len(b) > 0; {
			name, typ, rest := nextDirent(b)
			if name != nil {
				at := len(names)
				names = append(names, name...)
				// names is not written again once its bytes are in.
				ents = append(ents, rawDirent{d: d, name: unsafe.String(unsafe.SliceData(names[at:]), len(name)), typ: direntType(typ)})
			}
			b = rest
		}
		if out == nil {
			out = make([]fs.DirEntry, 0, count)
		}
		for i := range ents {
			out = append(out, &ents[i])
		}
	}
}

// nextDirent parses the linux_dirent64 record at the start of b: its
// name (nil for "." and "..") and d_type, and what follows it (nil at a
// malformed record).
func nextDirent(b []byte) (name []byte, typ byte, rest []byte) {
	if len(b) < 19 {
		return nil, 0, nil
	}
	reclen := int(binary.NativeEndian.Uint16(b[16:18]))
	if reclen < 19 || reclen > len(b) {
		return nil, 0, nil
	}
	name = b[19:reclen]
	if i := bytes.IndexByte(name, 0); i >= 0 {
		name = name[:i]
	}
	if string(name) == "." || string(name) == ".." {
		name = nil
	}
	return name, b[18], b[reclen:]
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

// lstat stats an entry without following a symlink.
func (d *rawDir) lstat(name string) (fs.FileInfo, error) {
	fd, err := d.handle("fstatat", name)
	if err != nil {
		return nil, err
	}
	fi, err := lstatAt(fd, name)
	if err != nil {
		return nil, &os.PathError{Op: "fstatat", Path: name, Err: err}
	}
	return fi, nil
}

type rawDirent struct {
	d    *rawDir
	name string
	typ  fs.FileMode
}

func (e *rawDirent) Name() string { return e.name }
func (e *rawDirent) IsDir() bool  { return e.Type().IsDir() }
func (e *rawDirent) Type() fs.FileMode {
	if e.typ == fs.ModeIrregular {
		if fi, err := e.d.lstat(e.name); err == nil {
			e.typ = fi.Mode().Type()
		}
	}
	return e.typ
}

// Info stats the entry (its directory must still be open).
func (e *rawDirent) Info() (fs.FileInfo, error) { return e.d.lstat(e.name) }

var _ Dir = (*rawDir)(nil)
