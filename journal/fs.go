package journal

import (
	"errors"
	"io"
	"io/fs"
	"syscall"
	"time"
)

// FS is the file-system seam of the commit, recovery and undo paths. Every
// call those paths make goes through it, so a test can fail or "crash" the
// protocol at any step, and other backends (in-memory agent state, a
// persistent store) can plug in later.
//
// Names are slash-separated, relative to the workspace root, and never
// absolute or "..": the caller resolves and confines paths first. "." names
// the root itself. Errors are *fs.PathError values as package os returns
// them, so errors.Is(err, fs.ErrNotExist) and friends work.
type FS interface {
	// Open opens a file for reading without blocking on FIFOs.
	Open(name string) (File, error)
	// Create creates a new file for writing; it fails if name exists
	// (O_CREATE|O_EXCL), even as a dangling symlink.
	Create(name string, perm fs.FileMode) (File, error)
	Lstat(name string) (fs.FileInfo, error)
	ReadDir(name string) ([]fs.DirEntry, error)
	Readlink(name string) (string, error)
	Mkdir(name string, perm fs.FileMode) error
	// Rename replaces newname atomically.
	Rename(oldname, newname string) error
	// Link makes newname a hard link to oldname; it fails if newname
	// exists, which is how creates avoid clobbering.
	Link(oldname, newname string) error
	Remove(name string) error
	// SyncDir makes the directory's entries durable (fsync of the dir).
	SyncDir(name string) error
	// SyncFS makes everything written to the file system that holds name
	// durable, in one call (syncfs(2) on Linux). It returns
	// errors.ErrUnsupported where there is no such call.
	SyncFS(name string) error
	// Lock takes an exclusive lock on the file name (creating it), waiting
	// up to timeout. It returns ErrBusy on timeout. The lock dies with the
	// process.
	Lock(name string, timeout time.Duration) (unlock func() error, err error)
}

// File is an open file of an [FS].
type File interface {
	io.Reader
	io.ReaderAt
	io.Writer
	io.WriterAt
	io.Closer
	Sync() error
	Stat() (fs.FileInfo, error)
	Chmod(mode fs.FileMode) error
	Chown(uid, gid int) error
}

// ErrBusy reports that another process holds the workspace lock.
var ErrBusy = errors.New("workspace is locked by another txedit process")

// Identity is what distinguishes one file version from another without
// reading it: if any field differs, someone touched the file.
type Identity struct {
	Dev, Ino     uint64
	Size         int64
	Mtime, Ctime int64 // nanoseconds
	Mode         fs.FileMode
	Nlink        uint64
	Uid, Gid     int
}

// IdentityOf extracts a file's identity from its FileInfo. FileInfo.Sys may
// be a *syscall.Stat_t (package os) or an *Identity (other backends).
func IdentityOf(fi fs.FileInfo) Identity {
	id := Identity{Size: fi.Size(), Mtime: fi.ModTime().UnixNano(), Mode: fi.Mode(), Nlink: 1}
	switch s := fi.Sys().(type) {
	case *syscall.Stat_t:
		id.Dev, id.Ino, id.Nlink = uint64(s.Dev), uint64(s.Ino), uint64(s.Nlink)
		id.Ctime = ctime(s)
		id.Uid, id.Gid = int(s.Uid), int(s.Gid)
	case *Identity:
		id.Dev, id.Ino, id.Nlink, id.Ctime, id.Uid, id.Gid = s.Dev, s.Ino, s.Nlink, s.Ctime, s.Uid, s.Gid
	}
	return id
}

// ReadFile reads a whole file through fsys, refusing anything that is not
// a regular file.
func ReadFile(fsys FS, name string) ([]byte, fs.FileInfo, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fi, &fs.PathError{Op: "read", Path: name, Err: errNotRegular}
	}
	data := make([]byte, 0, fi.Size()+1)
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, fi, nil
		}
		if err != nil {
			return nil, fi, err
		}
	}
}

var errNotRegular = errors.New("not a regular file")

// ErrNotRegular reports a FIFO, device, socket or directory where a regular
// file was expected.
var ErrNotRegular = errNotRegular

// DirOpener is implemented by file systems that can open a directory as a
// handle, so that its entries are listed and opened relative to it (one
// system call a file instead of a walk from the root). Walkers use it when
// present and fall back to ReadDir and Open by path.
type DirOpener interface {
	OpenDir(name string) (DirHandle, error)
}

// DirHandle is an open directory.
type DirHandle interface {
	ReadDir() ([]fs.DirEntry, error)
	// Open opens the entry name (one path component) for reading.
	Open(name string) (File, error)
	Close() error
}

// SubDirOpener is implemented by directory handles that open a child
// directory relative to themselves (one system call, no walk from the
// root). name is one path component; symlinks are not followed.
type SubDirOpener interface {
	OpenSubDir(name string) (DirHandle, error)
}

// FileReader is implemented by directory handles that can read a whole
// file in one go, cheaper than Open and Read: the file's bytes are read
// into buf (reused, grown as needed) and returned. A file longer than max
// is an error. Walkers use it when present.
type FileReader interface {
	ReadFile(name string, buf []byte, max int64) ([]byte, error)
}

// ReadAll reads f to its end into buf (reused, grown as needed), failing
// once it holds more than max bytes.
func ReadAll(f File, buf []byte, max int64) ([]byte, error) {
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) > max {
				return nil, errTooLarge
			}
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF || (err == nil && n == 0) {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

var errTooLarge = errors.New("file too large")

// OpenDir opens directory name of fsys, through DirOpener when fsys has it.
func OpenDir(fsys FS, name string) (DirHandle, error) {
	if d, ok := fsys.(DirOpener); ok {
		return d.OpenDir(name)
	}
	if _, err := fsys.ReadDir(name); err != nil {
		return nil, err
	}
	return pathDir{fsys, name}, nil
}

type pathDir struct {
	fsys FS
	name string
}

func (d pathDir) ReadDir() ([]fs.DirEntry, error) { return d.fsys.ReadDir(d.name) }
func (d pathDir) Open(name string) (File, error) {
	if d.name == "." {
		return d.fsys.Open(name)
	}
	return d.fsys.Open(d.name + "/" + name)
}
func (d pathDir) Close() error { return nil }
