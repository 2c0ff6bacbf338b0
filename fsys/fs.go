package fsys

import (
	"errors"
	"io"
	"io/fs"
	"strings"
	"syscall"
	"time"
)

// FS is the file-system seam. Every call the engine, the journal and the
// walker make goes through it, so a test can fail or "crash" any step, and
// another backend (the in-memory [memfs], say) serves a whole workspace.
//
// Names are slash-separated, relative to the workspace root, never absolute
// or "..": callers resolve and confine paths first. "." names the root.
// Errors are *fs.PathError (or *os.LinkError) values as package os returns
// them, so errors.Is(err, fs.ErrNotExist) and friends work; a name that
// leads outside the root fails with an error for which [IsEscape] is true.
//
// Every method is required: a wrapper that forwards an FS forwards all of
// it, so wrapping never silently changes what the engine does. Backends
// without directory handles implement OpenDir with [PathDir]; backends
// without a handle cache return themselves from View.
//
// Implementations are safe for concurrent use.
//
// [memfs]: https://pkg.go.dev/github.com/txedit/txedit/fsys/memfs
type FS interface {
	// Open opens a file for reading without blocking on FIFOs.
	Open(name string) (File, error)
	// Create creates a new file for writing; it fails if name exists
	// (O_CREATE|O_EXCL), even as a dangling symlink.
	Create(name string, perm fs.FileMode) (File, error)
	// Append writes data at the end of the file name in one write,
	// creating it (with perm less the umask) if it is missing. It does
	// not sync: what it writes is as durable as any unsynced data.
	Append(name string, data []byte, perm fs.FileMode) error
	Lstat(name string) (fs.FileInfo, error)
	ReadDir(name string) ([]fs.DirEntry, error)
	Readlink(name string) (string, error)
	// Symlink makes name a symbolic link holding target (its text as
	// given: where it leads is the caller's business); it fails if name
	// exists. The link is durable once its directory is synced.
	Symlink(target, name string) error
	Mkdir(name string, perm fs.FileMode) error
	// Rename replaces newname atomically.
	Rename(oldname, newname string) error
	// Exchange swaps two names of one directory atomically, both of
	// which must exist (renameat2 with RENAME_EXCHANGE on Linux). It
	// returns errors.ErrUnsupported where the platform or the file system
	// has no such call; the commit then renames (docs/journal.md).
	Exchange(a, b string) error
	// ReadLease takes a read lease on the regular file name (F_SETLEASE
	// with F_RDLCK on Linux): while it is held, another process that
	// opens the file for writing, or truncates it, waits, and the lease
	// says so ([Lease.Broken]) until it is released. It fails with
	// [ErrOpenForWriting] if a process has the file open for writing
	// now, and with errors.ErrUnsupported where there are no leases
	// (other systems, file systems without them, a file this user does
	// not own). The commit holds one over each replacement, so that a
	// writer saving in place is never lost (docs/journal.md, "Writers
	// outside txedit").
	ReadLease(name string) (Lease, error)
	// Link makes newname a hard link to oldname; it fails if newname
	// exists, which is how creates avoid clobbering.
	Link(oldname, newname string) error
	// CreateUnnamed creates a file in directory dir that has no name
	// (O_TMPFILE on Linux) until [Unnamed.Link] gives it one: a crash
	// before then leaves nothing behind. It returns errors.ErrUnsupported
	// where the system or the file system cannot (the commit then stages
	// into a named file: docs/journal.md, "The commit, and what it syncs").
	CreateUnnamed(dir string, perm fs.FileMode) (Unnamed, error)
	Remove(name string) error
	// SyncDir makes the directory's entries durable (fsync of the dir).
	SyncDir(name string) error
	// SyncFS makes everything written to the file system that holds name
	// durable, in one call (syncfs(2) on Linux). It returns
	// errors.ErrUnsupported where there is no such call.
	SyncFS(name string) error
	// Lock takes an exclusive lock on the file name (creating it), waiting
	// up to timeout. It returns [ErrBusy] on timeout. The lock dies with
	// the process.
	Lock(name string, timeout time.Duration) (unlock func() error, err error)
	// OpenDir opens a directory as a [Dir], so that its entries are listed
	// and opened relative to it.
	OpenDir(name string) (Dir, error)
	// HoldDir returns a handle on the directory name ("." the root),
	// opened one component at a time from the root without following a
	// symbolic link, so that it is the directory at that path, and the
	// function that gives it back. A view is the one cache of such
	// handles: it keeps a bounded number open, shared by its callers,
	// until it is released, so that reading many files of a directory
	// costs no walk from the root per file. Outside a view a fresh handle
	// is opened each time and closed when given back. Backends without
	// directory handles use [OpenDirBeneath].
	HoldDir(name string) (Dir, func(), error)
	// View returns a view of the file system for the length of one
	// operation, which may keep directory handles open so that a name
	// costs one system call, and the function that releases it. The view
	// must not outlive the operation.
	View() (FS, func())
	// Revalidate fails, with a *[ConflictError], if a directory handle
	// the view holds is no longer the directory at its path (it was moved
	// or replaced); an error that says nothing about that (no file
	// descriptor to spare, I/O) is returned as itself. From then on the
	// view resolves every name from the root again, so no later call acts
	// in a directory that has left the root. The commit calls it before
	// its identity checks and renames. Views that hold no handles return
	// nil.
	Revalidate() error
}

// Unnamed is a file made by [FS.CreateUnnamed].
type Unnamed interface {
	File
	// Link gives the file the name name (in the directory it was made
	// in); it fails with fs.ErrExist if name exists. The file stays open.
	Link(name string) error
}

// WriterAtv is a [File] that writes several buffers at an offset, one
// after another, in one system call (pwritev(2)); a File without it is
// written a buffer at a time. Like WriteAt, it returns an error if it
// wrote less than all of them.
type WriterAtv interface {
	WriteAtv(bufs [][]byte, off int64) (int, error)
}

// File is an open file of an [FS].
type File interface {
	io.Reader
	io.ReaderAt
	io.Writer
	io.WriterAt
	io.Closer
	// Sync makes the file's data and metadata durable (fsync).
	Sync() error
	// DataSync makes the file's data durable, with the metadata needed to
	// read it back (its size), but not necessarily its mode, owner or
	// times (fdatasync(2); Sync where there is no such call). A new
	// file's name is durable only once its directory is synced.
	DataSync() error
	Stat() (fs.FileInfo, error)
	Chmod(mode fs.FileMode) error
	Chown(uid, gid int) error
}

// Dir is an open directory of an [FS]. Names are one path component;
// symbolic links are not followed.
type Dir interface {
	ReadDir() ([]fs.DirEntry, error)
	// Open opens the entry name for reading.
	Open(name string) (File, error)
	// OpenDir opens the child directory name relative to this one.
	OpenDir(name string) (Dir, error)
	// ReadFile reads the whole file name into buf (reused, grown as
	// needed) and returns it. A file longer than max is an error
	// satisfying errors.Is(err, [ErrTooLarge]).
	ReadFile(name string, buf []byte, max int64) ([]byte, error)
	Close() error
}

// StatReader is a [Dir] that can say what file it read: ReadFileStatIf
// reads name whole into buf, as ReadFile does, and, when want returns true
// of the bytes, the status of the file they were read from (fstat of the
// descriptor read, before it is closed): an identity that is the bytes',
// whatever the name points to by the time it is looked at again. With
// want false (or an error) the FileInfo is nil.
type StatReader interface {
	ReadFileStatIf(name string, buf []byte, max int64, want func(data []byte) bool) ([]byte, fs.FileInfo, error)
}

// ScanReader is a [StatReader] that need not hold a file larger than its
// buffer whole to learn that the caller has no use for it:
// ReadFileStatScan reads name as ReadFileStatIf does when it fits in buf
// (cap(buf), at least 64 KiB); one that fills buf is read through it a
// piece at a time, each piece starting with the last overlap bytes of the
// one before, first the file's first bytes, and read whole (from its
// start, on the same descriptor) only once may says a piece may hold what
// the caller looks for; then as ReadFileStatIf. When may never says so
// (or says stop), data is nil and so is the error: the file is not read
// whole, nor its status taken. A file over max is [ErrTooLarge], whether
// it fits in buf or not, before any piece is looked at.
type ScanReader interface {
	StatReader
	ReadFileStatScan(name string, buf []byte, max int64, overlap int, may func(piece []byte, first bool) (hit, stop bool), want func(data []byte) bool) ([]byte, fs.FileInfo, error)
}

// ErrBusy reports that another process holds the workspace lock.
var ErrBusy = errors.New("workspace is locked by another txedit process")

// BusyError is ErrBusy (errors.Is says so) when the writer that holds the
// lock is another workspace's: one that contains this one, or one nested
// in it (the tree lock). Holder says which, for the message.
type BusyError struct{ Holder string }

func (e *BusyError) Error() string        { return ErrBusy.Error() + ": " + e.Holder }
func (e *BusyError) Is(target error) bool { return target == ErrBusy }

// Lease is a read lease taken by [FS.ReadLease].
type Lease interface {
	// Broken reports whether another process has asked, since the lease
	// was taken, to open the file for writing or to truncate it (it
	// waits until Release).
	Broken() bool
	// Release ends the lease and lets such a process go on.
	Release() error
	// Stat describes the leased file itself (fstat of the lease's
	// descriptor), wherever its name is now: the file the lease holds,
	// not what is at the path.
	Stat() (fs.FileInfo, error)
}

// ErrOpenForWriting reports a file another process has open for writing:
// a save in place may be half done.
var ErrOpenForWriting = errors.New("open for writing by another process")

// ErrTooLarge reports a file longer than a read's limit.
var ErrTooLarge = errors.New("file too large")

// errNotRegular reports a FIFO, device, socket or directory where a
// regular file was expected.
var errNotRegular = errors.New("not a regular file")

// ConflictError reports a file or directory that changed behind txedit's
// back while a transaction ran.
type ConflictError struct {
	Op   string // what found it: "revalidate", "commit", …
	Path string
	Msg  string
}

func (e *ConflictError) Error() string { return e.Op + " " + e.Path + ": " + e.Msg }

// EscapeError reports a name that leads outside the root.
type EscapeError struct {
	Op, Path string
}

func (e *EscapeError) Error() string { return e.Op + " " + e.Path + ": path escapes from parent" }

// IsEscape reports whether err says that a name leads outside the root:
// an [*EscapeError], or os.Root's own error for it. os.Root does not
// export that error; its text is the one stable part of it, and this is
// the one place that looks at it.
func IsEscape(err error) bool {
	var ee *EscapeError
	if errors.As(err, &ee) {
		return true
	}
	for e := err; e != nil; e = errors.Unwrap(e) {
		if e.Error() == "path escapes from parent" {
			return true
		}
	}
	return false
}

// Gone reports errors that mean there is nothing at a name: it does not
// exist, cannot exist (too long, or a file stands where a directory
// should), or now leads outside the root or round a symlink loop (a
// directory swapped for a symlink: nothing was ever written through it).
func Gone(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENAMETOOLONG) || errors.Is(err, syscall.ENOTDIR) ||
		errors.Is(err, syscall.ELOOP) || IsEscape(err)
}

// Identity is what distinguishes one file version from another without
// reading it: if any field differs, someone touched the file.
type Identity struct {
	Dev, Ino     uint64
	Size         int64
	Mtime, Ctime int64 // nanoseconds
	Atime        int64 // nanoseconds; not part of a version (reads change it)
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
		statIdentity(&id, s)
	case *Identity:
		id.Dev, id.Ino, id.Nlink, id.Ctime, id.Uid, id.Gid = s.Dev, s.Ino, s.Nlink, s.Ctime, s.Uid, s.Gid
	}
	return id
}

// SameVersion reports whether two identities are one version of one file.
func SameVersion(a, b Identity) bool {
	return a.Dev == b.Dev && a.Ino == b.Ino && a.Size == b.Size && a.Mtime == b.Mtime && a.Ctime == b.Ctime && a.Mode == b.Mode
}

// ReadFile reads a whole file through fsys, refusing anything that is not
// a regular file or is longer than max bytes (max <= 0: no limit).
func ReadFile(fsys FS, name string, max int64) ([]byte, fs.FileInfo, error) {
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
	if max <= 0 {
		max = 1<<63 - 1
	}
	if fi.Size() > max {
		return nil, fi, &fs.PathError{Op: "read", Path: name, Err: ErrTooLarge}
	}
	data, err := ReadAll(f, make([]byte, 0, fi.Size()+1), max)
	if err != nil {
		return nil, fi, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	return data, fi, nil
}

// ReadAll reads f to its end into buf (reused, grown as needed), failing
// with [ErrTooLarge] once it holds more than max bytes.
func ReadAll(f io.Reader, buf []byte, max int64) ([]byte, error) {
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) > max {
				return nil, ErrTooLarge
			}
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > max {
			return nil, ErrTooLarge
		}
		if err == io.EOF || (err == nil && n == 0) {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// ReadDirNames returns the names in directory name, unsorted. On Linux it
// costs the getdents calls and nothing per entry (the FS's ReadDir stats
// every entry): the journal lists its transactions with it.
func ReadDirNames(fsys FS, name string) ([]string, error) {
	d, err := fsys.OpenDir(name)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	ents, err := d.ReadDir()
	if err != nil {
		return nil, err
	}
	out := make([]string, len(ents))
	for i, e := range ents {
		out[i] = e.Name()
	}
	return out, nil
}

// OpenDirBeneath opens the directory name of fsys one component at a time
// from the root, with [Dir.OpenDir], which follows no symbolic link: the
// handle is the directory at that path, or an error.
func OpenDirBeneath(fsys FS, name string) (Dir, error) {
	d, err := fsys.OpenDir(".")
	if err != nil || name == "." || name == "" {
		return d, err
	}
	for _, c := range strings.Split(name, "/") {
		nd, err := d.OpenDir(c)
		d.Close()
		if err != nil {
			return nil, err
		}
		d = nd
	}
	return d, nil
}

// PathDir is a [Dir] that works by path through its FS: for backends that
// have no directory handles of their own.
func PathDir(fsys FS, name string) (Dir, error) {
	fi, err := fsys.Lstat(name)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, &fs.PathError{Op: "opendir", Path: name, Err: syscall.ENOTDIR}
	}
	return pathDir{fsys, name}, nil
}

type pathDir struct {
	fsys FS
	name string
}

func (d pathDir) path(name string) string {
	if d.name == "." || d.name == "" {
		return name
	}
	return d.name + "/" + name
}

func (d pathDir) ReadDir() ([]fs.DirEntry, error)  { return d.fsys.ReadDir(d.name) }
func (d pathDir) Open(name string) (File, error)   { return d.fsys.Open(d.path(name)) }
func (d pathDir) OpenDir(name string) (Dir, error) { return PathDir(d.fsys, d.path(name)) }
func (d pathDir) Close() error                     { return nil }
func (d pathDir) ReadFile(name string, buf []byte, max int64) ([]byte, error) {
	f, err := d.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := ReadAll(f, buf, max)
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: d.path(name), Err: err}
	}
	return data, nil
}
