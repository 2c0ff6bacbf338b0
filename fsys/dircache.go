package fsys

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// maxCachedDirs bounds the open directory handles of one view; beyond it
// names are resolved from the root as without a cache.
const maxCachedDirs = 512

// View implements [FS]: the view caches directory handles.
func (o *OS) View() (FS, func()) {
	c := &cachedFS{o: o, dirs: map[string]*os.Root{}, held: map[string]int{}, holds: map[string]*heldDir{}}
	return c, c.release
}

// cachedFS is an OS view whose directory handles are opened through the
// root once (os.Root.OpenRoot, so still confined) and then reused.
type cachedFS struct {
	o       *OS
	mu      sync.Mutex
	dirs    map[string]*os.Root
	retired []*os.Root
	// checked is set by Revalidate: from then on every name is resolved
	// from the root again, not through a cached handle (see Revalidate).
	checked atomic.Bool
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
	for _, r := range c.dirs {
		r.Close()
	}
	for _, r := range c.retired {
		r.Close()
	}
	for _, h := range c.holds {
		c.drop(h)
	}
	c.dirs, c.retired, c.held = map[string]*os.Root{}, nil, map[string]int{}
	c.holds, c.holdOrder, c.holdsDone = map[string]*heldDir{}, nil, true
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

// dir returns a handle on directory d, or nil to walk from the root.
func (c *cachedFS) dir(d string) (*os.Root, error) {
	if d == "." || d == "" {
		return c.o.root, nil
	}
	if c.checked.Load() {
		return nil, nil
	}
	c.mu.Lock()
	r, ok := c.dirs[d]
	full := len(c.dirs) >= maxCachedDirs
	c.mu.Unlock()
	if ok {
		return r, nil
	}
	if full {
		return nil, nil
	}
	r, err := c.o.root.OpenRoot(d)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if prev, ok := c.dirs[d]; ok {
		r.Close()
		return prev, nil
	}
	c.dirs[d] = r
	c.count(d, 1)
	return r, nil
}

// at splits name into a directory handle and a base name; with no handle
// the caller uses the root and the whole name.
func (c *cachedFS) at(name string) (*os.Root, string, error) {
	d, base := path.Split(name)
	d = strings.TrimSuffix(d, "/")
	if base == "" || base == "." || base == ".." || d == "" {
		return c.o.root, name, nil
	}
	r, err := c.dir(d)
	if err != nil {
		return nil, "", err
	}
	if r == nil {
		return c.o.root, name, nil
	}
	return r, base, nil
}

// forget drops cached handles at or below name after the engine itself
// removed, created or renamed it.
func (c *cachedFS) forget(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held[name] == 0 {
		return // no handle at or below name
	}
	for d, r := range c.dirs {
		if d == name || strings.HasPrefix(d, name+"/") {
			delete(c.dirs, d)
			c.count(d, -1)
			c.retired = append(c.retired, r) // may be in use: close at release
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
// name from the root again, as os.Root does, component by component. A
// handle follows its directory wherever it is moved (an fd does not care
// where its directory went), so a directory moved out of the root between
// this check and the commit's renames would otherwise receive them there:
// a write outside the root, over whatever is now in that directory. By
// path, the renames find nothing (or another directory) at the old name
// and the commit fails. What is left is the instant inside one os.Root
// call between opening the parent and renaming in it, which no system
// call closes (renameat2 has no RESOLVE_BENEATH).
func (c *cachedFS) Revalidate() error {
	c.checked.Store(true)
	c.mu.Lock()
	dirs := make(map[string]*os.Root, len(c.dirs))
	for d, r := range c.dirs {
		dirs[d] = r
	}
	c.mu.Unlock()
	for d, r := range dirs {
		held, err := r.Stat(".")
		if err != nil {
			if Gone(err) {
				return &ConflictError{Op: "revalidate", Path: d, Msg: "directory vanished while the transaction ran"}
			}
			return fixPath(err, d)
		}
		now, err := c.o.root.Lstat(d)
		if err != nil && !Gone(err) {
			// Not an answer about the directory (no file descriptor or
			// memory to spare, an I/O error): the error itself, so that
			// it is not taken for someone else's change.
			return fixPath(err, d)
		}
		if err != nil || !os.SameFile(held, now) {
			return &ConflictError{Op: "revalidate", Path: d, Msg: "directory was moved or replaced while the transaction ran"}
		}
	}
	return nil
}

func (c *cachedFS) Open(name string) (File, error) {
	r, base, err := c.at(name)
	if err != nil {
		return nil, err
	}
	f, err := r.OpenFile(base, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fixPath(err, name)
	}
	return osFile{f}, nil
}

func (c *cachedFS) Create(name string, perm fs.FileMode) (File, error) {
	r, base, err := c.at(name)
	if err != nil {
		return nil, err
	}
	f, err := r.OpenFile(base, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return nil, fixPath(err, name)
	}
	return osFile{f}, nil
}

func (c *cachedFS) Lstat(name string) (fs.FileInfo, error) {
	if c.checked.Load() {
		c.o.b.init(c.o.root)
		if fi, ok, err := c.o.b.lstat(name); ok {
			return fi, err
		}
	}
	r, base, err := c.at(name)
	if err != nil {
		return nil, err
	}
	fi, err := r.Lstat(base)
	return fi, fixPath(err, name)
}

func (c *cachedFS) Append(name string, data []byte, perm fs.FileMode) error {
	return c.o.Append(name, data, perm)
}

func (c *cachedFS) ReadDir(name string) ([]fs.DirEntry, error) {
	r, err := c.dir(name)
	if err != nil {
		return nil, err
	}
	if r == nil {
		return c.o.ReadDir(name)
	}
	f, err := r.Open(".")
	if err != nil {
		return nil, fixPath(err, name)
	}
	defer f.Close()
	return f.ReadDir(-1)
}

func (c *cachedFS) Readlink(name string) (string, error) {
	r, base, err := c.at(name)
	if err != nil {
		return "", err
	}
	s, err := r.Readlink(base)
	return s, fixPath(err, name)
}

func (c *cachedFS) Symlink(target, name string) error {
	r, base, err := c.at(name)
	if err != nil {
		return err
	}
	c.forget(name)
	return fixPath(r.Symlink(target, base), name)
}

func (c *cachedFS) Mkdir(name string, perm fs.FileMode) error {
	r, base, err := c.at(name)
	if err != nil {
		return err
	}
	c.forget(name)
	return fixPath(r.Mkdir(base, perm), name)
}

func sameDir(a, b string) bool { return path.Dir(a) == path.Dir(b) }

func (c *cachedFS) Rename(oldname, newname string) error {
	defer c.forget(oldname)
	defer c.forget(newname)
	if sameDir(oldname, newname) {
		if c.checked.Load() {
			c.o.b.init(c.o.root)
			if ok, err := c.o.b.rename(oldname, newname); ok {
				return err
			}
		}
		r, b1, err := c.at(oldname)
		if err != nil {
			return err
		}
		if r != c.o.root {
			return r.Rename(b1, path.Base(newname))
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
		r, b1, err := c.at(oldname)
		if err != nil {
			return err
		}
		if r != c.o.root {
			return r.Link(b1, path.Base(newname))
		}
	}
	return c.o.Link(oldname, newname)
}

func (c *cachedFS) Remove(name string) error {
	r, base, err := c.at(name)
	if err != nil {
		return err
	}
	err = r.Remove(base)
	if err == nil {
		c.forget(name)
	}
	return fixPath(err, name)
}

func (c *cachedFS) SyncDir(name string) error {
	r, err := c.dir(name)
	if err != nil {
		return err
	}
	if r == nil {
		return c.o.SyncDir(name)
	}
	f, err := r.Open(".")
	if err != nil {
		return fixPath(err, name)
	}
	defer f.Close()
	if err := f.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOTSUP) {
		return err
	}
	return nil
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
