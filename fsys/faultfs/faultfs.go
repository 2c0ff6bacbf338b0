// Package faultfs wraps an [fsys.FS] to fail or "crash" it at the Nth call.
//
// A crash panics with [Crash] and leaves the wrapper dead: every later call
// from any goroutine panics too, as if the process had been killed at that
// instant. What reached the underlying file system stays, as it does after
// kill -9 (the page cache survives a process crash; power loss is another
// model). An I/O error returns EIO at call N, or at every call from N on;
// a full disk fails every write, create, mkdir and link from call N on
// with ENOSPC.
//
// Every method of the FS is forwarded, directory handles and views
// included, and every call through them counts: wrapping an FS never
// sends its caller down another path.
package faultfs

import (
	"fmt"
	"io/fs"
	"sync"
	"syscall"
	"time"

	"github.com/txedit/txedit/fsys"
)

// Crash is the panic value of a simulated crash.
type Crash struct{ At int }

func (c Crash) Error() string { return fmt.Sprintf("simulated crash at call %d", c.At) }

// Mode is what happens at the failing call.
type Mode int

const (
	ModeCrash           Mode = iota // panic, then every call panics
	ModeError                       // EIO at call N only
	ModeErrorPersistent             // EIO at call N and every call after
	ModeKill                        // SIGKILL the process itself at call N
	ModeFull                        // ENOSPC for writes, creates, mkdirs and links from call N on
)

// FS is a fault-injecting [fsys.FS].
type FS struct {
	Inner fsys.FS
	// FailAt is the 1-based call to fail; 0 never fails.
	FailAt int
	Mode   Mode
	// Record, if set, collects "op name" for every call.
	Record bool

	// parent, for a view: calls count and fail there, so a view shares
	// its creator's fault schedule.
	parent *FS

	mu      sync.Mutex
	n       int
	dead    bool
	locks   []func() error
	Calls   []string
	Tripped bool
}

// N returns the number of calls so far.
func (f *FS) N() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n
}

// Dead reports whether a crash happened: every call from then on panics.
func (f *FS) Dead() bool {
	for f.parent != nil {
		f = f.parent
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.dead
}

// Disarm stops injecting faults (a crashed FS stays dead).
func (f *FS) Disarm() {
	f.mu.Lock()
	f.FailAt = 0
	f.mu.Unlock()
}

func (f *FS) step(op, name string) error {
	if f.parent != nil {
		return f.parent.step(op, name)
	}
	f.mu.Lock()
	if f.dead {
		f.mu.Unlock()
		panic(Crash{At: f.n})
	}
	f.n++
	n := f.n
	if f.Record {
		f.Calls = append(f.Calls, op+" "+name)
	}
	fail := f.FailAt > 0 && (n == f.FailAt || (n > f.FailAt && (f.Mode == ModeErrorPersistent || f.Mode == ModeFull)))
	if fail && f.Mode == ModeFull {
		switch op {
		case "write", "writeat", "create", "mkdir", "link":
			f.Tripped = true
			f.mu.Unlock()
			return &fs.PathError{Op: op, Path: name, Err: syscall.ENOSPC}
		}
		fail = false
	}
	if fail && f.Mode == ModeKill {
		f.mu.Unlock()
		kill()
	}
	if fail && f.Mode == ModeCrash {
		f.dead = true
		f.Tripped = true
		// The kernel releases a dead process's flocks.
		locks := f.locks
		f.locks = nil
		f.mu.Unlock()
		for _, unlock := range locks {
			unlock()
		}
		panic(Crash{At: n})
	}
	if fail {
		f.Tripped = true
	}
	f.mu.Unlock()
	if fail {
		return &fs.PathError{Op: op, Path: name, Err: syscall.EIO}
	}
	return nil
}

func (f *FS) Open(name string) (fsys.File, error) {
	if err := f.step("open", name); err != nil {
		return nil, err
	}
	h, err := f.Inner.Open(name)
	if err != nil {
		return nil, err
	}
	return &file{File: h, fs: f, name: name}, nil
}

func (f *FS) Create(name string, perm fs.FileMode) (fsys.File, error) {
	if err := f.step("create", name); err != nil {
		return nil, err
	}
	h, err := f.Inner.Create(name, perm)
	if err != nil {
		return nil, err
	}
	return &file{File: h, fs: f, name: name}, nil
}

func (f *FS) Append(name string, data []byte, perm fs.FileMode) error {
	if err := f.step("append", name); err != nil {
		return err
	}
	return f.Inner.Append(name, data, perm)
}

func (f *FS) Lstat(name string) (fs.FileInfo, error) {
	if err := f.step("lstat", name); err != nil {
		return nil, err
	}
	return f.Inner.Lstat(name)
}

func (f *FS) ReadDir(name string) ([]fs.DirEntry, error) {
	if err := f.step("readdir", name); err != nil {
		return nil, err
	}
	return f.Inner.ReadDir(name)
}

func (f *FS) Readlink(name string) (string, error) {
	if err := f.step("readlink", name); err != nil {
		return "", err
	}
	return f.Inner.Readlink(name)
}

func (f *FS) Symlink(target, name string) error {
	if err := f.step("symlink", name); err != nil {
		return err
	}
	return f.Inner.Symlink(target, name)
}

func (f *FS) Mkdir(name string, perm fs.FileMode) error {
	if err := f.step("mkdir", name); err != nil {
		return err
	}
	return f.Inner.Mkdir(name, perm)
}

func (f *FS) Rename(oldname, newname string) error {
	if err := f.step("rename", oldname+" "+newname); err != nil {
		return err
	}
	return f.Inner.Rename(oldname, newname)
}

func (f *FS) Exchange(a, b string) error {
	if err := f.step("exchange", a+" "+b); err != nil {
		return err
	}
	return f.Inner.Exchange(a, b)
}

// ReadLease forwards without a step of its own: a lease changes nothing
// on disk, so there is no crash point in it.
func (f *FS) ReadLease(name string) (fsys.Lease, error) { return f.Inner.ReadLease(name) }

func (f *FS) Link(oldname, newname string) error {
	if err := f.step("link", oldname+" "+newname); err != nil {
		return err
	}
	return f.Inner.Link(oldname, newname)
}

func (f *FS) CreateUnnamed(dir string, perm fs.FileMode) (fsys.Unnamed, error) {
	if err := f.step("create", dir+"/(unnamed)"); err != nil {
		return nil, err
	}
	h, err := f.Inner.CreateUnnamed(dir, perm)
	if err != nil {
		return nil, err
	}
	return &unnamed{file: file{File: h, fs: f, name: dir + "/(unnamed)"}, u: h}, nil
}

// unnamed is a file made by CreateUnnamed: its calls count as any file's,
// and its Link as a link.
type unnamed struct {
	file
	u fsys.Unnamed
}

func (h *unnamed) Link(name string) error {
	if err := h.fs.step("link", h.name+" "+name); err != nil {
		return err
	}
	return h.u.Link(name)
}

func (f *FS) Remove(name string) error {
	if err := f.step("remove", name); err != nil {
		return err
	}
	return f.Inner.Remove(name)
}

func (f *FS) SyncDir(name string) error {
	if err := f.step("syncdir", name); err != nil {
		return err
	}
	return f.Inner.SyncDir(name)
}

func (f *FS) SyncFS(name string) error {
	if err := f.step("syncfs", name); err != nil {
		return err
	}
	return f.Inner.SyncFS(name)
}

func (f *FS) Lock(name string, timeout time.Duration) (func() error, error) {
	if err := f.step("lock", name); err != nil {
		return nil, err
	}
	unlock, err := f.Inner.Lock(name, timeout)
	if err != nil {
		return nil, err
	}
	var once sync.Once
	release := func() error {
		var err error
		once.Do(func() { err = unlock() })
		return err
	}
	top := f
	for top.parent != nil {
		top = top.parent
	}
	top.mu.Lock()
	top.locks = append(top.locks, release)
	top.mu.Unlock()
	return release, nil
}

// View forwards the inner file system's view, wrapped so that its calls
// count and fail here too.
func (f *FS) View() (fsys.FS, func()) {
	if err := f.step("view", "."); err != nil {
		return f, func() {} // a view that cannot be made: work without one
	}
	inner, release := f.Inner.View()
	return &FS{Inner: inner, parent: f}, release
}

// Revalidate forwards [fsys.FS.Revalidate].
func (f *FS) Revalidate() error {
	if err := f.step("revalidate", "."); err != nil {
		return err
	}
	return f.Inner.Revalidate()
}

// OpenDir forwards [fsys.FS.OpenDir]; the directory's calls count too.
func (f *FS) OpenDir(name string) (fsys.Dir, error) {
	if err := f.step("opendir", name); err != nil {
		return nil, err
	}
	d, err := f.Inner.OpenDir(name)
	if err != nil {
		return nil, err
	}
	return &dir{Dir: d, fs: f, name: name}, nil
}

// HoldDir forwards [fsys.FS.HoldDir]: taking a handle counts as an
// opendir, giving it back as a closedir, and the directory's calls count
// too.
func (f *FS) HoldDir(name string) (fsys.Dir, func(), error) {
	if err := f.step("opendir", name); err != nil {
		return nil, nil, err
	}
	d, release, err := f.Inner.HoldDir(name)
	if err != nil {
		return nil, nil, err
	}
	return &dir{Dir: d, fs: f, name: name}, func() {
		defer release()
		f.step("closedir", name)
	}, nil
}

type dir struct {
	fsys.Dir
	fs   *FS
	name string
}

func (d *dir) path(name string) string {
	if d.name == "." || d.name == "" {
		return name
	}
	return d.name + "/" + name
}

func (d *dir) ReadDir() ([]fs.DirEntry, error) {
	if err := d.fs.step("readdir", d.name); err != nil {
		return nil, err
	}
	return d.Dir.ReadDir()
}

func (d *dir) Open(name string) (fsys.File, error) {
	p := d.path(name)
	if err := d.fs.step("open", p); err != nil {
		return nil, err
	}
	h, err := d.Dir.Open(name)
	if err != nil {
		return nil, err
	}
	return &file{File: h, fs: d.fs, name: p}, nil
}

func (d *dir) OpenDir(name string) (fsys.Dir, error) {
	p := d.path(name)
	if err := d.fs.step("opendir", p); err != nil {
		return nil, err
	}
	c, err := d.Dir.OpenDir(name)
	if err != nil {
		return nil, err
	}
	return &dir{Dir: c, fs: d.fs, name: p}, nil
}

func (d *dir) ReadFile(name string, buf []byte, max int64) ([]byte, error) {
	if err := d.fs.step("readfile", d.path(name)); err != nil {
		return nil, err
	}
	return d.Dir.ReadFile(name, buf, max)
}

// ReadFileStatIf implements [fsys.StatReader] where the inner directory
// does, as one "readfile" step.
func (d *dir) ReadFileStatIf(name string, buf []byte, max int64, want func([]byte) bool) ([]byte, fs.FileInfo, error) {
	sr, ok := d.Dir.(fsys.StatReader)
	if !ok {
		data, err := d.ReadFile(name, buf, max)
		if err == nil {
			want(data)
		}
		return data, nil, err
	}
	if err := d.fs.step("readfile", d.path(name)); err != nil {
		return nil, nil, err
	}
	return sr.ReadFileStatIf(name, buf, max, want)
}

func (d *dir) Close() error {
	err := d.fs.step("closedir", d.name)
	cerr := d.Dir.Close()
	if err != nil {
		return err
	}
	return cerr
}

var _ fsys.FS = (*FS)(nil)

type file struct {
	fsys.File
	fs   *FS
	name string
}

func (h *file) Read(p []byte) (int, error) {
	if err := h.fs.step("read", h.name); err != nil {
		return 0, err
	}
	return h.File.Read(p)
}

func (h *file) ReadAt(p []byte, off int64) (int, error) {
	if err := h.fs.step("readat", h.name); err != nil {
		return 0, err
	}
	return h.File.ReadAt(p, off)
}

func (h *file) Write(p []byte) (int, error) {
	if err := h.fs.step("write", h.name); err != nil {
		return 0, err
	}
	return h.File.Write(p)
}

func (h *file) WriteAt(p []byte, off int64) (int, error) {
	if err := h.fs.step("writeat", h.name); err != nil {
		return 0, err
	}
	return h.File.WriteAt(p, off)
}

func (h *file) Sync() error {
	if err := h.fs.step("fsync", h.name); err != nil {
		return err
	}
	return h.File.Sync()
}

func (h *file) DataSync() error {
	if err := h.fs.step("fdatasync", h.name); err != nil {
		return err
	}
	return h.File.DataSync()
}

func (h *file) Chmod(m fs.FileMode) error {
	if err := h.fs.step("chmod", h.name); err != nil {
		return err
	}
	return h.File.Chmod(m)
}

func (h *file) Chown(uid, gid int) error {
	if err := h.fs.step("chown", h.name); err != nil {
		return err
	}
	return h.File.Chown(uid, gid)
}

func (h *file) Close() error {
	// Closing cannot be skipped by a crash in any way that matters, but
	// it is a call the process makes, so it counts.
	err := h.fs.step("close", h.name)
	cerr := h.File.Close()
	if err != nil {
		return err
	}
	return cerr
}
