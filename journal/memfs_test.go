package journal

import (
	"bytes"
	"io"
	"io/fs"
	"math/rand"
	"path"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

// memFS is an in-memory FS that models power loss. It keeps, for every
// file, its current data and the data last made durable by an fsync, and
// for every directory its current entries and the entries last made
// durable by an fsync of the directory; SyncFS makes everything durable.
// crash returns the file system a power loss would leave: durable state,
// plus unsynced changes kept according to a drop setting.
//
// It also injects faults: at call failAt it panics (a crash) or returns
// EIO, like internal/faultfs.
type memFS struct {
	mu     sync.Mutex
	inodes map[uint64]*inode
	next   uint64
	clock  int64
	locked bool

	calls  int
	failAt int
	eio    bool // fail with EIO instead of crashing
	dead   bool
	// full makes the disk full from call failAt on: every write, create,
	// mkdir and link fails with ENOSPC.
	full bool
}

type inode struct {
	ino      uint64
	dir      bool
	mode     fs.FileMode
	data     []byte
	synced   []byte
	durable  bool // data was ever fsynced
	entries  map[string]uint64
	sentries map[string]uint64 // durable entries
	mtime    int64
}

type memCrash struct{ at int }

func newMemFS(files map[string]string) *memFS {
	m := &memFS{inodes: map[uint64]*inode{}, next: 2}
	m.inodes[1] = &inode{ino: 1, dir: true, mode: fs.ModeDir | 0o755, entries: map[string]uint64{}, sentries: map[string]uint64{}}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		dir := m.inodes[1]
		parts := strings.Split(n, "/")
		for _, p := range parts[:len(parts)-1] {
			if id, ok := dir.entries[p]; ok {
				dir = m.inodes[id]
				continue
			}
			d := m.newInode(true, fs.ModeDir|0o755)
			dir.entries[p], dir.sentries[p] = d.ino, d.ino
			dir = d
		}
		f := m.newInode(false, 0o644)
		f.data, f.synced, f.durable = []byte(files[n]), []byte(files[n]), true
		base := parts[len(parts)-1]
		dir.entries[base], dir.sentries[base] = f.ino, f.ino
	}
	return m
}

func (m *memFS) newInode(dir bool, mode fs.FileMode) *inode {
	in := &inode{ino: m.next, dir: dir, mode: mode}
	m.next++
	if dir {
		in.entries, in.sentries = map[string]uint64{}, map[string]uint64{}
	}
	m.inodes[in.ino] = in
	return in
}

// step counts a call and injects the planned fault. Callers hold m.mu.
func (m *memFS) step(op, name string) error {
	if m.dead {
		panic(memCrash{m.calls}) // the caller's deferred Unlock runs
	}
	m.calls++
	if m.full && m.failAt > 0 && m.calls >= m.failAt {
		switch op {
		case "write", "create", "mkdir", "link":
			return &fs.PathError{Op: op, Path: name, Err: syscall.ENOSPC}
		}
		return nil
	}
	if m.failAt > 0 && m.calls == m.failAt {
		if m.eio {
			return &fs.PathError{Op: op, Path: name, Err: syscall.EIO}
		}
		m.dead = true
		panic(memCrash{m.calls})
	}
	return nil
}

func (m *memFS) lookup(name string) (*inode, error) {
	in := m.inodes[1]
	if name == "." || name == "" {
		return in, nil
	}
	for _, p := range strings.Split(name, "/") {
		if !in.dir {
			return nil, syscall.ENOTDIR
		}
		id, ok := in.entries[p]
		if !ok {
			return nil, fs.ErrNotExist
		}
		in = m.inodes[id]
	}
	return in, nil
}

func (m *memFS) parent(name string) (*inode, string, error) {
	d, base := path.Split(name)
	p, err := m.lookup(strings.TrimSuffix(d, "/"))
	if err != nil {
		return nil, "", err
	}
	if !p.dir {
		return nil, "", syscall.ENOTDIR
	}
	return p, base, nil
}

func pathErr(op, name string, err error) error { return &fs.PathError{Op: op, Path: name, Err: err} }

func (m *memFS) touch(in *inode) { m.clock++; in.mtime = m.clock }

func (m *memFS) Open(name string) (File, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.step("open", name); err != nil {
		return nil, err
	}
	in, err := m.lookup(name)
	if err != nil {
		return nil, pathErr("open", name, err)
	}
	return &memFile{m: m, in: in, name: name}, nil
}

func (m *memFS) Create(name string, perm fs.FileMode) (File, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.step("create", name); err != nil {
		return nil, err
	}
	p, base, err := m.parent(name)
	if err != nil {
		return nil, pathErr("create", name, err)
	}
	if _, ok := p.entries[base]; ok {
		return nil, pathErr("create", name, fs.ErrExist)
	}
	in := m.newInode(false, perm)
	p.entries[base] = in.ino
	m.touch(in)
	m.touch(p)
	return &memFile{m: m, in: in, name: name}, nil
}

type memInfo struct {
	name string
	in   *inode
	n    int
	mode fs.FileMode
	size int64
}

func (i memInfo) Name() string       { return i.name }
func (i memInfo) Size() int64        { return i.size }
func (i memInfo) Mode() fs.FileMode  { return i.mode }
func (i memInfo) ModTime() time.Time { return time.Unix(0, i.in.mtime) }
func (i memInfo) IsDir() bool        { return i.in.dir }
func (i memInfo) Sys() any {
	return &Identity{Dev: 1, Ino: i.in.ino, Nlink: uint64(i.n), Ctime: i.in.mtime}
}

func (m *memFS) info(name string, in *inode) memInfo {
	n := 0
	for _, x := range m.inodes {
		for _, id := range x.entries {
			if id == in.ino {
				n++
			}
		}
	}
	return memInfo{name: path.Base(name), in: in, n: n, mode: in.mode, size: int64(len(in.data))}
}

func (m *memFS) Lstat(name string) (fs.FileInfo, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.step("lstat", name); err != nil {
		return nil, err
	}
	in, err := m.lookup(name)
	if err != nil {
		return nil, pathErr("lstat", name, err)
	}
	return m.info(name, in), nil
}

type memDirEntry struct{ memInfo }

func (e memDirEntry) Type() fs.FileMode          { return e.mode.Type() }
func (e memDirEntry) Info() (fs.FileInfo, error) { return e.memInfo, nil }

func (m *memFS) ReadDir(name string) ([]fs.DirEntry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.step("readdir", name); err != nil {
		return nil, err
	}
	in, err := m.lookup(name)
	if err != nil {
		return nil, pathErr("readdir", name, err)
	}
	if !in.dir {
		return nil, pathErr("readdir", name, syscall.ENOTDIR)
	}
	var out []fs.DirEntry
	for n, id := range in.entries {
		out = append(out, memDirEntry{m.info(n, m.inodes[id])})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out, nil
}

func (m *memFS) Readlink(name string) (string, error) {
	return "", pathErr("readlink", name, syscall.EINVAL)
}

func (m *memFS) Mkdir(name string, perm fs.FileMode) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.step("mkdir", name); err != nil {
		return err
	}
	p, base, err := m.parent(name)
	if err != nil {
		return pathErr("mkdir", name, err)
	}
	if _, ok := p.entries[base]; ok {
		return pathErr("mkdir", name, fs.ErrExist)
	}
	d := m.newInode(true, fs.ModeDir|perm)
	p.entries[base] = d.ino
	m.touch(p)
	return nil
}

func (m *memFS) Rename(oldname, newname string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.step("rename", oldname+" "+newname); err != nil {
		return err
	}
	op, ob, err := m.parent(oldname)
	if err != nil {
		return pathErr("rename", oldname, err)
	}
	id, ok := op.entries[ob]
	if !ok {
		return pathErr("rename", oldname, fs.ErrNotExist)
	}
	np, nb, err := m.parent(newname)
	if err != nil {
		return pathErr("rename", newname, err)
	}
	delete(op.entries, ob)
	np.entries[nb] = id
	m.touch(op)
	m.touch(np)
	return nil
}

func (m *memFS) Link(oldname, newname string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.step("link", oldname+" "+newname); err != nil {
		return err
	}
	in, err := m.lookup(oldname)
	if err != nil {
		return pathErr("link", oldname, err)
	}
	np, nb, err := m.parent(newname)
	if err != nil {
		return pathErr("link", newname, err)
	}
	if _, ok := np.entries[nb]; ok {
		return pathErr("link", newname, fs.ErrExist)
	}
	np.entries[nb] = in.ino
	m.touch(in)
	m.touch(np)
	return nil
}

func (m *memFS) Remove(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.step("remove", name); err != nil {
		return err
	}
	p, base, err := m.parent(name)
	if err != nil {
		return pathErr("remove", name, err)
	}
	id, ok := p.entries[base]
	if !ok {
		return pathErr("remove", name, fs.ErrNotExist)
	}
	if in := m.inodes[id]; in.dir && len(in.entries) > 0 {
		return pathErr("remove", name, syscall.ENOTEMPTY)
	}
	delete(p.entries, base)
	m.touch(p)
	return nil
}

func (m *memFS) SyncDir(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.step("syncdir", name); err != nil {
		return err
	}
	in, err := m.lookup(name)
	if err != nil {
		return pathErr("syncdir", name, err)
	}
	in.sentries = copyEntries(in.entries)
	return nil
}

func (m *memFS) SyncFS(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.step("syncfs", name); err != nil {
		return err
	}
	for _, in := range m.inodes {
		if in.dir {
			in.sentries = copyEntries(in.entries)
		} else {
			in.synced, in.durable = append([]byte(nil), in.data...), true
		}
	}
	return nil
}

func (m *memFS) Lock(name string, timeout time.Duration) (func() error, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.step("lock", name); err != nil {
		return nil, err
	}
	if m.locked {
		return nil, ErrBusy
	}
	m.locked = true
	return func() error {
		m.mu.Lock()
		m.locked = false
		m.mu.Unlock()
		return nil
	}, nil
}

func copyEntries(e map[string]uint64) map[string]uint64 {
	out := make(map[string]uint64, len(e))
	for k, v := range e {
		out[k] = v
	}
	return out
}

type memFile struct {
	m    *memFS
	in   *inode
	name string
	off  int
}

func (f *memFile) Read(p []byte) (int, error) {
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	if err := f.m.step("read", f.name); err != nil {
		return 0, err
	}
	if f.off >= len(f.in.data) {
		return 0, io.EOF
	}
	n := copy(p, f.in.data[f.off:])
	f.off += n
	return n, nil
}

func (f *memFile) ReadAt(p []byte, off int64) (int, error) {
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	if err := f.m.step("readat", f.name); err != nil {
		return 0, err
	}
	if off >= int64(len(f.in.data)) {
		return 0, io.EOF
	}
	n := copy(p, f.in.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (f *memFile) Write(p []byte) (int, error) {
	n, err := f.WriteAt(p, int64(f.off))
	f.off += n
	return n, err
}

func (f *memFile) WriteAt(p []byte, off int64) (int, error) {
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	if err := f.m.step("write", f.name); err != nil {
		return 0, err
	}
	if need := int(off) + len(p); need > len(f.in.data) {
		f.in.data = append(f.in.data, make([]byte, need-len(f.in.data))...)
	}
	copy(f.in.data[off:], p)
	f.m.touch(f.in)
	return len(p), nil
}

func (f *memFile) Sync() error {
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	if err := f.m.step("fsync", f.name); err != nil {
		return err
	}
	if f.in.dir {
		f.in.sentries = copyEntries(f.in.entries)
	} else {
		f.in.synced, f.in.durable = append([]byte(nil), f.in.data...), true
	}
	return nil
}

func (f *memFile) Stat() (fs.FileInfo, error) {
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	return f.m.info(f.name, f.in), nil
}

func (f *memFile) Chmod(mode fs.FileMode) error {
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	if err := f.m.step("chmod", f.name); err != nil {
		return err
	}
	f.in.mode = f.in.mode.Type() | mode
	return nil
}

func (f *memFile) Chown(uid, gid int) error { return nil }

func (f *memFile) Close() error {
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	return f.m.step("close", f.name)
}

// Drop settings: what a power loss keeps of what was not made durable.
const (
	dropAll    = iota // nothing unsynced survives
	keepAll           // everything survives (as if the cache was written back)
	randomMix         // each unsynced entry change and each file's data independently
	tornBlocks        // like randomMix, and file data torn per 4 KiB block
)

// crash returns the file system as a power loss leaves it.
func (m *memFS) crash(rng *rand.Rand, setting int) *memFS {
	keep := func() bool {
		switch setting {
		case dropAll:
			return false
		case keepAll:
			return true
		}
		return rng.Intn(2) == 0
	}
	c := &memFS{inodes: map[uint64]*inode{}, next: m.next, clock: m.clock}
	for id, in := range m.inodes {
		n := &inode{ino: id, dir: in.dir, mode: in.mode, mtime: in.mtime}
		if in.dir {
			n.entries = copyEntries(in.sentries)
			names := map[string]bool{}
			for k := range in.entries {
				names[k] = true
			}
			for k := range in.sentries {
				names[k] = true
			}
			keys := make([]string, 0, len(names))
			for k := range names {
				keys = append(keys, k)
			}
			sort.Strings(keys) // deterministic use of rng
			for _, k := range keys {
				cur, isCur := in.entries[k]
				dur, isDur := in.sentries[k]
				if isCur == isDur && cur == dur {
					continue
				}
				if keep() {
					if isCur {
						n.entries[k] = cur
					} else {
						delete(n.entries, k)
					}
				}
			}
			n.sentries = copyEntries(n.entries)
		} else {
			old := []byte(nil)
			if in.durable {
				old = in.synced
			}
			data := old
			if !bytes.Equal(in.data, old) {
				switch {
				case setting == tornBlocks:
					data = tear(rng, old, in.data)
				case keep():
					data = in.data
				}
			}
			n.data, n.synced, n.durable = append([]byte(nil), data...), append([]byte(nil), data...), true
		}
		c.inodes[id] = n
	}
	// Directories whose entry did not survive take their contents along.
	reach := map[uint64]bool{1: true}
	var walk func(id uint64)
	walk = func(id uint64) {
		for _, child := range c.inodes[id].entries {
			if !reach[child] {
				reach[child] = true
				if c.inodes[child].dir {
					walk(child)
				}
			}
		}
	}
	walk(1)
	for id := range c.inodes {
		if !reach[id] {
			delete(c.inodes, id)
		}
	}
	return c
}

// tear mixes old and new 4 KiB blocks, with the length of either.
func tear(rng *rand.Rand, old, new []byte) []byte {
	n := len(new)
	if rng.Intn(2) == 0 {
		n = len(old)
	}
	out := make([]byte, n)
	for off := 0; off < n; off += 4096 {
		src := new
		if rng.Intn(2) == 0 {
			src = old
		}
		end := min(off+4096, n)
		for i := off; i < end; i++ {
			if i < len(src) {
				out[i] = src[i]
			}
		}
	}
	return out
}

// tree returns every file and directory outside the journal.
func (m *memFS) tree() map[string]string {
	out := map[string]string{}
	var walk func(dir string, id uint64)
	walk = func(dir string, id uint64) {
		for name, child := range m.inodes[id].entries {
			p := name
			if dir != "" {
				p = dir + "/" + name
			}
			if p == Dir {
				continue
			}
			if in := m.inodes[child]; in.dir {
				out[p+"/"] = ""
				walk(p, child)
			} else {
				out[p] = string(in.data)
			}
		}
	}
	walk("", 1)
	return out
}

// temps lists staging files left anywhere, the journal included.
func (m *memFS) temps() []string {
	var out []string
	var walk func(dir string, id uint64)
	walk = func(dir string, id uint64) {
		for name, child := range m.inodes[id].entries {
			p := path.Join(dir, name)
			if IsTemp(name) || strings.HasSuffix(name, ".tmp") {
				out = append(out, p)
			}
			if m.inodes[child].dir {
				walk(p, child)
			}
		}
	}
	walk("", 1)
	return out
}
