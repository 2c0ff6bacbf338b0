// Package faultfs wraps a journal.FS to fail or "crash" it at the Nth call.
//
// A crash panics with [Crash] and leaves the wrapper dead: every later call
// from any goroutine panics too, as if the process had been killed at that
// instant. What reached the underlying file system stays, as it does after
// kill -9 (the page cache survives a process crash; power loss is another
// model). An I/O error returns EIO at call N, or at every call from N on.
package faultfs

import (
	"fmt"
	"io/fs"
	"sync"
	"syscall"
	"time"

	"github.com/txedit/txedit/journal"
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
)

// FS is a fault-injecting journal.FS.
type FS struct {
	Inner journal.FS
	// FailAt is the 1-based call to fail; 0 never fails.
	FailAt int
	Mode   Mode
	// Record, if set, collects "op name" for every call.
	Record bool

	// parent, for a view made by WithDirCache: calls count and fail
	// there, so a view shares its creator's fault schedule.
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
	fail := f.FailAt > 0 && (n == f.FailAt || (n > f.FailAt && f.Mode == ModeErrorPersistent))
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

func (f *FS) Open(name string) (journal.File, error) {
	if err := f.step("open", name); err != nil {
		return nil, err
	}
	h, err := f.Inner.Open(name)
	if err != nil {
		return nil, err
	}
	return &file{File: h, fs: f, name: name}, nil
}

func (f *FS) Create(name string, perm fs.FileMode) (journal.File, error) {
	if err := f.step("create", name); err != nil {
		return nil, err
	}
	h, err := f.Inner.Create(name, perm)
	if err != nil {
		return nil, err
	}
	return &file{File: h, fs: f, name: name}, nil
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

func (f *FS) Link(oldname, newname string) error {
	if err := f.step("link", oldname+" "+newname); err != nil {
		return err
	}
	return f.Inner.Link(oldname, newname)
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

// WithDirCache forwards the inner file system's directory-handle view
// (journal.DirCacher), wrapped so that its calls count and fail here too.
func (f *FS) WithDirCache() (journal.FS, func()) {
	dc, ok := f.Inner.(journal.DirCacher)
	if !ok {
		return f, func() {}
	}
	inner, release := dc.WithDirCache()
	return &FS{Inner: inner, parent: f}, release
}

// Revalidate forwards journal.Revalidator.
func (f *FS) Revalidate() error {
	if err := f.step("revalidate", "."); err != nil {
		return err
	}
	if rv, ok := f.Inner.(journal.Revalidator); ok {
		return rv.Revalidate()
	}
	return nil
}

type file struct {
	journal.File
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
