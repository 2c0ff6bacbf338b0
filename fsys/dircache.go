package fsys

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// maxCachedDirs bounds the open directory handles of one view; beyond it
// names are resolved from the root as without a cache.
const maxCachedDirs = 512

// View implements [FS]: the view caches directory handles.
func (o *OS) View() (FS, func()) {
	c := &cachedFS{o: o, dirs: map[string]*dirHandle{}, held: map[string]int{}, holds: map[string]*heldDir{}}
	return c, c.release
}

// cachedFS is an OS view whose directory handles are opened below the
// root once (without following a symbolic link, as every name is) and
// then reused: a name in a cached directory costs one call relative to
// its handle, again without following a link.
type cachedFS struct {
	o    *OS
	mu   sync.Mutex
	dirs map[string]*dirHandle
	// checked is set by Revalidate: from then on every name is resolved
	// from the root again, not through a cached handle (see Revalidate).
	checked atomic.Bool
	// released: the view is released; names are resolved from the root.
	released bool
	// held counts, for each directory and each of its ancestors, the
	// cached handles at or below it: forget of a name that holds none (a
	// file renamed into place, say) is one map look-up, not a scan.
	held map[string]int

	// holds are the handles HoldDir hands out, each opened through its
	// parent's with Dir.OpenDir (no symbolic link followed), counted, and
	// at most maxHeldDirs kept, the oldest closed first; holdOrder is the
	// order they were opened in. holdsDone: the view is released, and
	// HoldDir opens fresh handles.
	holds     map[string]*heldDir
	holdOrder []*heldDir
	holdsDone bool
}

// dirHandle is a cached directory descriptor (O_PATH on Linux), counted
// while a call uses it: one that leaves the cache (forgotten, or the view
// released) is closed when its last call is done.
type dirHandle struct {
	fd      int
	refs    int
	retired bool
}

// heldDir is a handle of the view's HoldDir cache.
type heldDir struct {
	name    string
	d       Dir
	refs    int
	dropped bool // out of the cache: closed when the last holder gives it back
	release func()
}

// maxHeldDirs bounds the handles HoldDir keeps open: a batch read of a
// tree reads one directory's files after another, so a few suffice.
const maxHeldDirs = 64

func (c *cachedFS) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, h := range c.dirs {
		c.retire(h)
	}
	for _, h := range c.holds {
		c.drop(h)
	}
	c.dirs, c.held, c.released = map[string]*dirHandle{}, map[string]int{}, true
	c.holds, c.holdOrder, c.holdsDone = map[string]*heldDir{}, nil, true
}

// retire takes h out of use (c.mu held): it is closed now, or by the last
// call using it.
func (c *cachedFS) retire(h *dirHandle) {
	if h.retired {
		return
	}
	h.retired = true
	if h.refs == 0 {
		unix.Close(h.fd)
	}
}

// putDir gives back a handle dir returned.
func (c *cachedFS) putDir(h *dirHandle) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if h.refs--; h.retired && h.refs == 0 {
		unix.Close(h.fd)
	}
}

// HoldDir implements [FS]: the handle comes from the view's cache (see
// cachedFS.holds) and stays open until the last holder gives it back and
// it has left the cache (evicted, forgotten, or the view released). After
// Revalidate or release a fresh handle is opened instead.
func (c *cachedFS) HoldDir(name string) (Dir, func(), error) {
	if name == "" {
		name = "."
	}
	if c.checked.Load() {
		return holdFresh(c.o, name)
	}
	h, err := c.hold(name)
	if err != nil {
		return nil, nil, err
	}
	if h == nil { // released
		return holdFresh(c.o, name)
	}
	return h.d, h.release, nil
}

// hold returns the cached handle on name with one more holder, opening it
// through its parent's if it is not cached; nil once the view is
// released.
func (c *cachedFS) hold(name string) (*heldDir, error) {
	c.mu.Lock()
	if c.holdsDone {
		c.mu.Unlock()
		return nil, nil
	}
	if h, ok := c.holds[name]; ok {
		h.refs++
		c.mu.Unlock()
		return h, nil
	}
	c.mu.Unlock()
	var d Dir
	var err error
	if name == "." {
		d, err = c.o.OpenDir(".")
	} else {
		parent, base := path.Split(name)
		parent = strings.TrimSuffix(parent, "/")
		if parent == "" {
			parent = "."
		}
		ph, perr := c.hold(parent)
		if perr != nil || ph == nil {
			return nil, perr
		}
		d, err = ph.d.OpenDir(base)
		ph.release()
	}
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.holdsDone {
		d.Close()
		return nil, nil
	}
	if h, ok := c.holds[name]; ok { // opened meanwhile by another caller
		d.Close()
		h.refs++
		return h, nil
	}
	h := &heldDir{name: name, d: d, refs: 1}
	h.release = func() { c.put(h) }
	c.holds[name] = h
	c.count(name, 1)
	c.holdOrder = append(c.holdOrder, h)
	if len(c.holdOrder) > maxHeldDirs {
		old := c.holdOrder[0]
		c.holdOrder = c.holdOrder[1:]
		c.drop(old)
	}
	return h, nil
}

// put gives back one hold of h.
func (c *cachedFS) put(h *heldDir) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if h.refs--; h.dropped && h.refs == 0 {
		h.d.Close()
	}
}

// drop takes h out of the cache (c.mu held); it is closed once no one
// holds it.
func (c *cachedFS) drop(h *heldDir) {
	if h.dropped {
		return
	}
	h.dropped = true
	if c.holds[h.name] == h {
		delete(c.holds, h.name)
		c.count(h.name, -1)
	}
	if h.refs == 0 {
		h.d.Close()
	}
}

// count adds n to the held count of d and each of its ancestors.
func (c *cachedFS) count(d string, n int) {
	for {
		if c.held[d] += n; c.held[d] <= 0 {
			delete(c.held, d)
		}
		i := strings.LastIndexByte(d, '/')
		if i < 0 {
			return
		}
		d = d[:i]
	}
}

// dir returns a handle on directory d (clean, not the root), counted
// (give it back with putDir), or nil to resolve from the root.
func (c *cachedFS) dir(d string) (*dirHandle, error) {
	if c.checked.Load() {
		return nil, nil
	}
	c.mu.Lock()
	if h, ok := c.dirs[d]; ok {
		h.refs++
		c.mu.Unlock()
		return h, nil
	}
	full := len(c.dirs) >= maxCachedDirs || c.released
	c.mu.Unlock()
	if full {
		return nil, nil
	}
	rfd, err := c.o.rfd.get()
	if err != nil {
		return nil, pathErr("open", d, err)
	}
	fd, err := openBeneath(rfd, d, dirFlags|unix.O_DIRECTORY, 0)
	c.o.rfd.put()
	if err != nil {
		return nil, pathErr("open", d, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if h, ok := c.dirs[d]; ok {
		unix.Close(fd)
		h.refs++
		return h, nil
	}
	if c.released {
		unix.Close(fd)
		return nil, nil
	}
	h := &dirHandle{fd: fd, refs: 1}
	c.dirs[d] = h
	c.count(d, 1)
	return h, nil
}

// at cleans name and splits it into a cached handle on its directory and
// its last component; with no handle (a name in the root, a full cache, a
// checked or released view) the caller resolves the whole name from the
// root.
func (c *cachedFS) at(op, name string) (*dirHandle, string, string, error) {
	name, err := cleanName(op, name)
	if err != nil {
		return nil, "", name, err
	}
	d, base := splitName(name)
	if d == "" {
		return nil, base, name, nil
	}
	h, err := c.dir(d)
	if err != nil {
		return nil, "", name, err
	}
	return h, base, name, nil
}

// forget drops cached handles at or below name after the engine itself
// removed, created or renamed it.
func (c *cachedFS) forget(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held[name] == 0 {
		return // no handle at or below name
	}
	for d, h := range c.dirs {
		if d == name || strings.HasPrefix(d, name+"/") {
			delete(c.dirs, d)
			c.count(d, -1)
			c.retire(h)
		}
	}
	for d, h := range c.holds {
		if d == name || strings.HasPrefix(d, name+"/") {
			c.drop(h)
		}
	}
}

// Revalidate implements [FS]: every cached handle must still be
// the directory that a fresh walk from the root finds at its path.
//
// Then the view stops using its handles: every later call resolves its
// name from the root again, without following a symbolic link. A handle
// follows its directory wherever it is moved (an fd does not care where
// its directory went), so a directory moved out of the root between this
// check and the commit's renames would otherwise receive them there: a
// write outside the root, over whatever is now in that directory. By
// path, the renames find nothing (or another directory) at the old name
// and the commit fails. What is left is the instant inside one call
// between opening the parent and renaming in it, which no system call
// closes (renameat2 has no RESOLVE_BENEATH).
func (c *cachedFS) Revalidate() error {
	c.checked.Store(true)
	c.mu.Lock()
	dirs := make(map[string]*dirHandle, len(c.dirs))
	for d, h := range c.dirs {
		h.refs++
		dirs[d] = h
	}
	c.mu.Unlock()
	defer func() {
		for _, h := range dirs {
			c.putDir(h)
		}
	}()
	for d, h := range dirs {
		var held unix.Stat_t
		if err := ignoringEINTR(func() error { return unix.Fstat(h.fd, &held) }); err != nil {
			return pathErr("fstat", d, err)
		}
		now, err := c.o.Lstat(d)
		if err != nil && !Gone(err) {
			// Not an answer about the directory (no file descriptor or
			// memory to spare, an I/O error): the error itself, so that
			// it is not taken for someone else's change.
			return err
		}
		if err != nil || !now.IsDir() || IdentityOf(now).Dev != uint64(held.Dev) || IdentityOf(now).Ino != uint64(held.Ino) {
			return &ConflictError{Op: "revalidate", Path: d, Msg: "directory was moved or replaced while the transaction ran"}
		}
	}
	return nil
}

// openIn opens base in the cached directory h, without following it.
func openIn(h *dirHandle, op, name, base string, flags int, perm fs.FileMode) (File, error) {
	fd, err := openatRetry(h.fd, base, flags|unix.O_NOFOLLOW, uint32(perm.Perm()))
	if err != nil {
		if flags&(unix.O_CREAT|unix.O_EXCL) != unix.O_CREAT|unix.O_EXCL {
			err = symlinkErr(h.fd, base, err)
		}
		return nil, pathErr(op, name, err)
	}
	return newFile(fd, name), nil
}

func (c *cachedFS) Open(name string) (File, error) {
	h, base, name, err := c.at("open", name)
	if err != nil || h == nil {
		if err != nil {
			return nil, err
		}
		return c.o.Open(name)
	}
	defer c.putDir(h)
	return openIn(h, "open", name, base, unix.O_RDONLY|unix.O_NONBLOCK, 0)
}

func (c *cachedFS) Create(name string, perm fs.FileMode) (File, error) {
	h, base, name, err := c.at("open", name)
	if err != nil || h == nil {
		if err != nil {
			return nil, err
		}
		return c.o.Create(name, perm)
	}
	defer c.putDir(h)
	return openIn(h, "open", name, base, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL, perm)
}

func (c *cachedFS) Lstat(name string) (fs.FileInfo, error) {
	h, base, name, err := c.at("lstat", name)
	if err != nil || h == nil {
		if err != nil {
			return nil, err
		}
		return c.o.Lstat(name)
	}
	defer c.putDir(h)
	fi, err := lstatAt(h.fd, base)
	return fi, pathErr("lstat", name, err)
}

func (c *cachedFS) Append(name string, data []byte, perm fs.FileMode) error {
	return c.o.Append(name, data, perm)
}

func (c *cachedFS) ReadDir(name string) ([]fs.DirEntry, error) {
	name, err := cleanName("open", name)
	if err != nil {
		return nil, err
	}
	var h *dirHandle
	if name != "." {
		if h, err = c.dir(name); err != nil {
			return nil, err
		}
	}
	if h == nil {
		return c.o.ReadDir(name)
	}
	defer c.putDir(h)
	fd, err := openatRetry(h.fd, ".", unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return nil, pathErr("open", name, err)
	}
	ents, err := readDirFd(fd)
	return ents, fixPath(err, name)
}

func (c *cachedFS) Readlink(name string) (string, error) {
	h, base, name, err := c.at("readlink", name)
	if err != nil || h == nil {
		if err != nil {
			return "", err
		}
		return c.o.Readlink(name)
	}
	defer c.putDir(h)
	s, err := readlinkAt(h.fd, base)
	return s, pathErr("readlink", name, err)
}

func (c *cachedFS) Symlink(target, name string) error {
	h, base, name, err := c.at("symlink", name)
	if err != nil {
		return err
	}
	c.forget(name)
	if h == nil {
		return c.o.Symlink(target, name)
	}
	defer c.putDir(h)
	return pathErr("symlink", name, ignoringEINTR(func() error { return unix.Symlinkat(target, h.fd, base) }))
}

func (c *cachedFS) Mkdir(name string, perm fs.FileMode) error {
	h, base, name, err := c.at("mkdir", name)
	if err != nil {
		return err
	}
	c.forget(name)
	if h == nil {
		return c.o.Mkdir(name, perm)
	}
	defer c.putDir(h)
	return pathErr("mkdir", name, ignoringEINTR(func() error { return unix.Mkdirat(h.fd, base, uint32(perm.Perm())) }))
}

func sameDir(a, b string) bool { return path.Dir(a) == path.Dir(b) }

func (c *cachedFS) Rename(oldname, newname string) error {
	defer c.forget(oldname)
	defer c.forget(newname)
	if sameDir(oldname, newname) {
		h, b1, oldname, err := c.at("rename", oldname)
		if err != nil {
			return err
		}
		if h != nil {
			defer c.putDir(h)
			b2 := path.Base(newname)
			if err := ignoringEINTR(func() error { return unix.Renameat(h.fd, b1, h.fd, b2) }); err != nil {
				return &os.LinkError{Op: "rename", Old: oldname, New: newname, Err: err}
			}
			return nil
		}
	}
	return c.o.Rename(oldname, newname)
}

// Exchange implements [FS]: it resolves from the root every time (the
// commit calls it after Revalidate).
func (c *cachedFS) Exchange(a, b string) error {
	defer c.forget(a)
	defer c.forget(b)
	return c.o.Exchange(a, b)
}

// CreateUnnamed implements [FS]: it resolves from the root, as Exchange
// (the file is linked after Revalidate).
func (c *cachedFS) CreateUnnamed(dir string, perm fs.FileMode) (Unnamed, error) {
	return c.o.CreateUnnamed(dir, perm)
}

// ReadLease implements [FS]: it resolves from the root, as Exchange.
func (c *cachedFS) ReadLease(name string) (Lease, error) { return c.o.ReadLease(name) }

func (c *cachedFS) Link(oldname, newname string) error {
	if sameDir(oldname, newname) {
		h, b1, oldname, err := c.at("link", oldname)
		if err != nil {
			return err
		}
		if h != nil {
			defer c.putDir(h)
			b2 := path.Base(newname)
			if err := ignoringEINTR(func() error { return unix.Linkat(h.fd, b1, h.fd, b2, 0) }); err != nil {
				return &os.LinkError{Op: "link", Old: oldname, New: newname, Err: err}
			}
			return nil
		}
	}
	return c.o.Link(oldname, newname)
}

func (c *cachedFS) Remove(name string) error {
	h, base, name, err := c.at("remove", name)
	if err != nil {
		return err
	}
	if h == nil {
		err = c.o.Remove(name)
	} else {
		err = pathErr("remove", name, removeAt(h.fd, base))
		c.putDir(h)
	}
	if err == nil {
		c.forget(name)
	}
	return err
}

func (c *cachedFS) SyncDir(name string) error {
	name, err := cleanName("open", name)
	if err != nil {
		return err
	}
	var h *dirHandle
	if name != "." {
		if h, err = c.dir(name); err != nil {
			return err
		}
	}
	if h == nil {
		return c.o.SyncDir(name)
	}
	defer c.putDir(h)
	fd, err := openatRetry(h.fd, ".", unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return pathErr("open", name, err)
	}
	return syncDirFD(fd, name)
}

func (c *cachedFS) SyncFS(name string) error { return c.o.SyncFS(name) }

func (c *cachedFS) Lock(name string, timeout time.Duration) (func() error, error) {
	return c.o.Lock(name, timeout)
}

// fixPath makes a *fs.PathError from a directory handle name the whole
// root-relative path, as errors from the root do.
func fixPath(err error, name string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path != name {
		return &fs.PathError{Op: pe.Op, Path: name, Err: pe.Err}
	}
	return err
}

// OpenDir implements [FS].
func (c *cachedFS) OpenDir(name string) (Dir, error) { return c.o.OpenDir(name) }

// View implements [FS]: a view is its own view.
func (c *cachedFS) View() (FS, func()) { return c, func() {} }
