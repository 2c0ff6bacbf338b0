//go:build unix

package fsys

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Names are resolved below the root without following any symbolic link
// (docs/design.md, "Resolution"): every call that takes a name opens its
// directory from the root's descriptor, one component at a time with
// O_NOFOLLOW (or, on Linux, in one openat2 with RESOLVE_BENEATH and
// RESOLVE_NO_SYMLINKS), and acts on the last component relative to that
// directory, again without following it. A symbolic link anywhere on the
// way is refused with ELOOP: the engine resolves links itself, checks the
// path they lead to against the policy, and gives this layer the resolved
// name, so a link found here is one that appeared after that check (a
// directory swapped for a link to the journal, say), and following it
// would act on what the policy never saw.

// rootFD is the root directory's descriptor, shared by every call of an
// [OS]: counted while a call uses it, closed once Close was called and
// the last call is done, so a descriptor number is never used after it
// was closed (and perhaps reused for something else).
type rootFD struct {
	mu     sync.Mutex
	fd     int
	refs   int
	closed bool
}

var errClosed = os.ErrClosed

// get returns the descriptor for one call, which gives it back with put.
func (r *rootFD) get() (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return -1, errClosed
	}
	r.refs++
	return r.fd, nil
}

func (r *rootFD) put() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.refs--; r.closed && r.refs == 0 && r.fd >= 0 {
		unix.Close(r.fd)
		r.fd = -1
	}
}

func (r *rootFD) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	r.closed = true
	if r.refs == 0 && r.fd >= 0 {
		unix.Close(r.fd)
		r.fd = -1
	}
}

// cleanName checks a name for a call: relative, not leaving the root by
// "..", and in its clean form ("." the root itself).
func cleanName(op, name string) (string, error) {
	if name == "" {
		return ".", nil
	}
	if strings.IndexByte(name, 0) >= 0 {
		return "", &fs.PathError{Op: op, Path: name, Err: syscall.EINVAL}
	}
	if name[0] == '/' {
		return "", &EscapeError{Op: op, Path: name}
	}
	if !clean(name) {
		c := path.Clean(name)
		if c == ".." || strings.HasPrefix(c, "../") {
			return "", &EscapeError{Op: op, Path: name}
		}
		name = c
	}
	return name, nil
}

// clean reports whether name is already clean: no empty, "." or ".."
// component, no trailing slash.
func clean(name string) bool {
	if name == "." {
		return true
	}
	start := 0
	for i := 0; i <= len(name); i++ {
		if i == len(name) || name[i] == '/' {
			switch name[start:i] {
			case "", ".", "..":
				return false
			}
			start = i + 1
		}
	}
	return true
}

// splitName splits a clean name into its directory ("" for the root) and
// its last component.
func splitName(name string) (dir, base string) {
	i := strings.LastIndexByte(name, '/')
	if i < 0 {
		return "", name
	}
	return name[:i], name[i+1:]
}

func ignoringEINTR(fn func() error) error {
	for {
		if err := fn(); err != unix.EINTR {
			return err
		}
	}
}

func openatRetry(dfd int, name string, flags int, perm uint32) (int, error) {
	for {
		fd, err := unix.Openat(dfd, name, flags|unix.O_CLOEXEC, perm)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// isNoFollowErr reports an openat with O_NOFOLLOW that met a symbolic
// link, as each system says it (as package os reads them).
func isNoFollowErr(err error) bool {
	switch err {
	case unix.ELOOP, unix.EMLINK:
		return true
	}
	switch runtime.GOOS {
	case "dragonfly":
		return err == unix.EINVAL
	case "netbsd":
		return err == unix.EFTYPE
	}
	return false
}

// symlinkErr turns the error of opening component c of directory dfd
// without following it into ELOOP when c is a symbolic link (the systems
// say so with ELOOP, EMLINK, EFTYPE or, for a directory opened with
// O_PATH, ENOTDIR), and returns any other error as it is.
func symlinkErr(dfd int, c string, err error) error {
	if err == unix.ELOOP {
		return err
	}
	if isNoFollowErr(err) || err == unix.ENOTDIR {
		var st unix.Stat_t
		if ignoringEINTR(func() error { return unix.Fstatat(dfd, c, &st, unix.AT_SYMLINK_NOFOLLOW) }) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
			return unix.ELOOP
		}
		if err != unix.ENOTDIR && err != unix.EINVAL {
			return unix.ELOOP
		}
	}
	return err
}

// walkBeneath opens name (clean, relative) below the directory rootfd
// one component at a time, each directory with O_NOFOLLOW, and the last
// component with flags (and O_NOFOLLOW): no symbolic link is followed
// anywhere. It is the resolution where openat2 is not to be had.
func walkBeneath(rootfd int, name string, flags int, perm uint32) (int, error) {
	dfd := rootfd
	rest := name
	for {
		i := strings.IndexByte(rest, '/')
		if i < 0 {
			break
		}
		c := rest[:i]
		rest = rest[i+1:]
		nfd, err := openatRetry(dfd, c, dirFlags|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
		if err != nil {
			err = symlinkErr(dfd, c, err)
		}
		if dfd != rootfd {
			unix.Close(dfd)
		}
		if err != nil {
			return -1, err
		}
		dfd = nfd
	}
	fd, err := openatRetry(dfd, rest, flags|unix.O_NOFOLLOW, perm)
	if err != nil && flags&(unix.O_CREAT|unix.O_EXCL) != unix.O_CREAT|unix.O_EXCL {
		err = symlinkErr(dfd, rest, err)
	}
	if dfd != rootfd {
		unix.Close(dfd)
	}
	return fd, err
}

// at is the directory a call acts in and the name it acts on there.
type at struct {
	fd   int
	own  bool // fd is the call's own, to close; else it is the root's or a view's
	base string
}

func (a at) close() {
	if a.own {
		unix.Close(a.fd)
	}
}

// parent opens the directory of name below the root (the root itself for
// a name of one component) and returns it with name's last component.
// name is clean; the root's descriptor must be held.
func parentAt(rootfd int, name string) (at, error) {
	dir, base := splitName(name)
	if dir == "" {
		return at{fd: rootfd, base: base}, nil
	}
	fd, err := openBeneath(rootfd, dir, dirFlags|unix.O_DIRECTORY, 0)
	if err != nil {
		return at{}, err
	}
	return at{fd: fd, own: true, base: base}, nil
}

// removeAt removes name in dfd, a file or an empty directory, answering
// as os.Remove does.
func removeAt(dfd int, name string) error {
	e := ignoringEINTR(func() error { return unix.Unlinkat(dfd, name, 0) })
	if e == nil {
		return nil
	}
	e1 := ignoringEINTR(func() error { return unix.Unlinkat(dfd, name, unix.AT_REMOVEDIR) })
	if e1 == nil {
		return nil
	}
	if e1 != unix.ENOTDIR {
		return e1
	}
	return e
}

// entryName refuses what is not one entry of the directory.
func entryName(op, name string) error {
	if name == "" || name == "." || name == ".." || strings.IndexByte(name, '/') >= 0 {
		return &os.PathError{Op: op, Path: name, Err: syscall.EINVAL}
	}
	return nil
}

// readlinkAt reads the symbolic link name in dfd.
func readlinkAt(dfd int, name string) (string, error) {
	for n := 128; ; n *= 2 {
		b := make([]byte, n)
		var k int
		err := ignoringEINTR(func() error {
			var err error
			k, err = readlinkat(dfd, name, b)
			return err
		})
		if err != nil {
			return "", err
		}
		if k < n {
			return string(b[:k]), nil
		}
	}
}

// lstatAt stats name in the directory fd without following a symlink;
// the error is the system's, for the caller to name.
func lstatAt(fd int, name string) (fs.FileInfo, error) {
	st := new(syscall.Stat_t)
	err := ignoringEINTR(func() error {
		return unix.Fstatat(fd, name, (*unix.Stat_t)(unsafe.Pointer(st)), unix.AT_SYMLINK_NOFOLLOW)
	})
	if err != nil {
		return nil, err
	}
	return &fileStat{name: path.Base(name), st: st}, nil
}

// unix.Stat_t and syscall.Stat_t are the same kernel struct; these fail
// to compile if their sizes ever differ.
var (
	_ [unsafe.Sizeof(unix.Stat_t{}) - unsafe.Sizeof(syscall.Stat_t{})]byte
	_ [unsafe.Sizeof(syscall.Stat_t{}) - unsafe.Sizeof(unix.Stat_t{})]byte
)

// fileStat is the fs.FileInfo of an entry, as os.Lstat makes it (Sys is
// the *syscall.Stat_t).
type fileStat struct {
	name string
	st   *syscall.Stat_t
}

func (f *fileStat) Name() string { return f.name }
func (f *fileStat) Size() int64  { return f.st.Size }
func (f *fileStat) Mode() fs.FileMode {
	m := fs.FileMode(f.st.Mode & 0o777)
	switch f.st.Mode & syscall.S_IFMT {
	case syscall.S_IFBLK:
		m |= fs.ModeDevice
	case syscall.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFDIR:
		m |= fs.ModeDir
	case syscall.S_IFIFO:
		m |= fs.ModeNamedPipe
	case syscall.S_IFLNK:
		m |= fs.ModeSymlink
	case syscall.S_IFSOCK:
		m |= fs.ModeSocket
	}
	if f.st.Mode&syscall.S_ISGID != 0 {
		m |= fs.ModeSetgid
	}
	if f.st.Mode&syscall.S_ISUID != 0 {
		m |= fs.ModeSetuid
	}
	if f.st.Mode&syscall.S_ISVTX != 0 {
		m |= fs.ModeSticky
	}
	return m
}
func (f *fileStat) ModTime() time.Time { return statMtime(f.st) }
func (f *fileStat) IsDir() bool        { return f.Mode().IsDir() }
func (f *fileStat) Sys() any           { return f.st }

// statDirent is an entry of a listing with its file information, read
// while the directory was open.
type statDirent struct{ fi fs.FileInfo }

func (e statDirent) Name() string               { return e.fi.Name() }
func (e statDirent) IsDir() bool                { return e.fi.IsDir() }
func (e statDirent) Type() fs.FileMode          { return e.fi.Mode().Type() }
func (e statDirent) Info() (fs.FileInfo, error) { return e.fi, nil }
func (e statDirent) String() string             { return fs.FormatDirEntry(e) }

// pathErr names a system error with the call and the whole name, as
// package os does.
func pathErr(op, name string, err error) error {
	if err == nil {
		return nil
	}
	return &fs.PathError{Op: op, Path: name, Err: err}
}

// openFD opens name below the root with flags, following no symbolic
// link, and returns the descriptor.
func (o *OS) openFD(op, name string, flags int, perm fs.FileMode) (int, string, error) {
	name, err := cleanName(op, name)
	if err != nil {
		return -1, name, err
	}
	rfd, err := o.rfd.get()
	if err != nil {
		return -1, name, pathErr(op, name, err)
	}
	defer o.rfd.put()
	fd, err := openBeneath(rfd, name, flags, uint32(perm.Perm()))
	if err != nil {
		return -1, name, pathErr(op, name, err)
	}
	return fd, name, nil
}

// openFile is openFD as an *os.File.
func (o *OS) openFile(op, name string, flags int, perm fs.FileMode) (*os.File, error) {
	fd, name, err := o.openFD(op, name, flags, perm)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), name), nil
}

// inParent runs fn in name's directory, opened below the root without
// following a symbolic link, with name's last component.
func (o *OS) inParent(op, name string, fn func(dfd int, base string) error) error {
	name, err := cleanName(op, name)
	if err != nil {
		return err
	}
	rfd, err := o.rfd.get()
	if err != nil {
		return pathErr(op, name, err)
	}
	defer o.rfd.put()
	a, err := parentAt(rfd, name)
	if err != nil {
		return pathErr(op, name, err)
	}
	defer a.close()
	return pathErr(op, name, fn(a.fd, a.base))
}

// inParents runs fn in the directories of two names.
func (o *OS) inParents(op, oldname, newname string, fn func(ofd int, obase string, nfd int, nbase string) error) error {
	oldname, err := cleanName(op, oldname)
	if err != nil {
		return err
	}
	if newname, err = cleanName(op, newname); err != nil {
		return err
	}
	rfd, err := o.rfd.get()
	if err != nil {
		return &os.LinkError{Op: op, Old: oldname, New: newname, Err: err}
	}
	defer o.rfd.put()
	a, err := parentAt(rfd, oldname)
	if err != nil {
		return &os.LinkError{Op: op, Old: oldname, New: newname, Err: err}
	}
	defer a.close()
	b := at{fd: a.fd, base: path.Base(newname)}
	if path.Dir(oldname) != path.Dir(newname) {
		if b, err = parentAt(rfd, newname); err != nil {
			return &os.LinkError{Op: op, Old: oldname, New: newname, Err: err}
		}
		defer b.close()
	}
	if err := fn(a.fd, a.base, b.fd, b.base); err != nil {
		return &os.LinkError{Op: op, Old: oldname, New: newname, Err: err}
	}
	return nil
}

// readDirFd lists the directory fd, which it closes, each entry with its
// file information (read while the directory is open).
func readDirFd(fd int) ([]fs.DirEntry, error) {
	d := newFdDir(fd)
	defer d.Close()
	ents, err := d.ReadDir()
	if err != nil {
		return nil, err
	}
	out := make([]fs.DirEntry, 0, len(ents))
	for _, e := range ents {
		fi, err := lstatAt(fd, e.Name())
		if err != nil {
			if errors.Is(err, unix.ENOENT) {
				continue // removed since it was listed
			}
			return nil, err
		}
		out = append(out, statDirent{fi})
	}
	return out, nil
}
