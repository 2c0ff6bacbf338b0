// Package memfs is an in-memory [fsys.FS]: a whole workspace without a
// disk, with the same transactional semantics as the real one (the journal,
// undo and recovery run on it unchanged). It is the backend for agent state
// that lives in memory (seed 004's StateBackend) and the model of the
// power-loss tests.
//
// Besides its current state it keeps, for every file, the data last made
// durable by an fsync or fdatasync and the mode last made durable by an
// fsync (fdatasync leaves a chmod to chance; a file's mode at creation is
// durable with it), and for every directory the entries last made durable
// by an fsync of the directory ([fsys.FS.SyncFS] makes everything
// durable). A new file's name is durable only once its directory is. An
// unnamed file's first link (fsys.Unnamed.Link) is durable only once the
// file is synced after it (an fsync, an fdatasync that writes new data,
// or SyncFS), whatever its directory: as on an ext4 without a journal,
// whose directory fsync writes the entry and not the inode, which still
// says it has no link. [FS.Crash] returns the file system a power loss would leave:
// the durable state plus unsynced changes kept according to a [Drop]
// setting. Fault injection is package faultfs's business: wrap an FS.
//
// A symbolic link is an inode holding its target, durable with its
// directory's entry (as a link's target is written with its inode); Open
// does not follow one (ELOOP, as O_NOFOLLOW): callers resolve links
// themselves. Owners are not kept (Chown does nothing):
// everything belongs to the user of the process, as files it made would.
package memfs

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"math/rand"
	"os"
	"path"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/txedit/txedit/fsys"
)

// FS is an in-memory file system. It is safe for concurrent use.
type FS struct {
	mu     sync.Mutex
	inodes map[uint64]*inode
	next   uint64
	clock  int64
	// lock is the one workspace lock (a semaphore of one).
	lock chan struct{}
	// zombies are inodes without a name that a durable directory entry
	// may still name: a power loss can bring them back. They are dropped
	// once no durable entry names them.
	zombies map[uint64]bool
}

type inode struct {
	ino     uint64
	dir     bool
	mode    fs.FileMode
	smode   fs.FileMode // durable mode
	nlink   int
	data    []byte
	synced  []byte
	durable bool // data was ever fsynced
	// linkPending: an unnamed inode was linked and not synced since, so
	// the link count on disk is still 0 (see the package comment).
	linkPending bool
	entries     map[string]uint64
	sentries    map[string]uint64 // durable entries
	// mtime changes with the data (or entries), ctime with those and
	// with the metadata (a link, a chmod), as on Linux: an identity
	// that leaves the change time out sees a write, not a link.
	mtime, ctime int64
}

// New returns a file system holding files (name → content; names are
// slash-separated, directories are made as needed, and a name ending in
// "/" is an empty directory, and a value starting with SymlinkPrefix a
// symbolic link, as [FS.Files] returns them), all of it durable.
func New(files map[string]string) *FS {
	m := &FS{inodes: map[uint64]*inode{}, next: 2, lock: make(chan struct{}, 1)}
	root := &inode{ino: 1, dir: true, mode: fs.ModeDir | 0o755, smode: fs.ModeDir | 0o755, nlink: 1, entries: map[string]uint64{}, sentries: map[string]uint64{}}
	m.inodes[1] = root
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		dir := root
		isDir := strings.HasSuffix(n, "/")
		parts := strings.Split(strings.Trim(n, "/"), "/")
		if isDir {
			parts = append(parts, "")
		}
		for _, p := range parts[:len(parts)-1] {
			if id, ok := dir.entries[p]; ok {
				dir = m.inodes[id]
				continue
			}
			d := m.newInode(true, fs.ModeDir|0o755)
			dir.entries[p], dir.sentries[p] = d.ino, d.ino
			d.nlink++
			dir = d
		}
		if isDir {
			continue
		}
		content, mode := files[n], fs.FileMode(0o644)
		if t, ok := strings.CutPrefix(content, SymlinkPrefix); ok {
			content, mode = t, fs.ModeSymlink|0o777
		}
		f := m.newInode(false, mode)
		f.data, f.synced, f.durable = []byte(content), []byte(content), true
		base := parts[len(parts)-1]
		dir.entries[base], dir.sentries[base] = f.ino, f.ino
		f.nlink++
	}
	return m
}

func (m *FS) newInode(dir bool, mode fs.FileMode) *inode {
	in := &inode{ino: m.next, dir: dir, mode: mode, smode: mode}
	m.next++
	if dir {
		in.entries, in.sentries = map[string]uint64{}, map[string]uint64{}
	}
	m.inodes[in.ino] = in
	return in
}

func (m *FS) lookup(name string) (*inode, error) {
	in := m.inodes[1]
	if name == "." || name == "" {
		return in, nil
	}
	for _, p := range strings.Split(name, "/") {
		if !in.dir {
			return nil, syscall.ENOTDIR
		}
		if p == "" || p == "." || p == ".." {
			return nil, syscall.EINVAL
		}
		id, ok := in.entries[p]
		if !ok {
			return nil, fs.ErrNotExist
		}
		in = m.inodes[id]
	}
	return in, nil
}

func (m *FS) parent(name string) (*inode, string, error) {
	d, base := path.Split(name)
	if base == "" || base == "." || base == ".." {
		return nil, "", syscall.EINVAL
	}
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

func (m *FS) touch(in *inode) { m.clock++; in.mtime, in.ctime = m.clock, m.clock }

// touchMeta records a change of in's metadata only (its change time).
func (m *FS) touchMeta(in *inode) { m.clock++; in.ctime = m.clock }

// unlink drops one name of an inode. An inode without names stays while
// a durable entry may name it (an open file keeps its own pointer to it).
func (m *FS) unlink(id uint64) {
	in := m.inodes[id]
	if in.nlink--; in.nlink <= 0 {
		if m.zombies == nil {
			m.zombies = map[uint64]bool{}
		}
		m.zombies[id] = true
		if len(m.zombies) >= 1024 {
			m.reap()
		}
	}
}

// reap drops the zombies no durable entry names any more.
func (m *FS) reap() {
	named := map[uint64]bool{}
	for _, in := range m.inodes {
		for _, id := range in.sentries {
			if m.zombies[id] {
				named[id] = true
			}
		}
	}
	for id := range m.zombies {
		if !named[id] && m.inodes[id] != nil && m.inodes[id].nlink <= 0 {
			delete(m.inodes, id)
			delete(m.zombies, id)
		}
	}
}

// Open implements [fsys.FS]. A symbolic link is not followed.
func (m *FS) Open(name string) (fsys.File, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	in, err := m.lookup(name)
	if err != nil {
		return nil, pathErr("open", name, err)
	}
	if in.mode&fs.ModeSymlink != 0 {
		return nil, pathErr("open", name, syscall.ELOOP)
	}
	return &file{m: m, in: in, name: name}, nil
}

// Symlink implements [fsys.FS].
func (m *FS) Symlink(target, name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, base, err := m.parent(name)
	if err != nil {
		return pathErr("symlink", name, err)
	}
	if _, ok := p.entries[base]; ok {
		return pathErr("symlink", name, fs.ErrExist)
	}
	in := m.newInode(false, fs.ModeSymlink|0o777)
	in.data, in.synced, in.durable = []byte(target), []byte(target), true
	in.nlink = 1
	p.entries[base] = in.ino
	m.touch(in)
	m.touch(p)
	return nil
}

// Create implements [fsys.FS].
func (m *FS) Create(name string, perm fs.FileMode) (fsys.File, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, base, err := m.parent(name)
	if err != nil {
		return nil, pathErr("create", name, err)
	}
	if _, ok := p.entries[base]; ok {
		return nil, pathErr("create", name, fs.ErrExist)
	}
	in := m.newInode(false, perm&^fsys.Umask())
	in.nlink = 1
	p.entries[base] = in.ino
	m.touch(in)
	m.touch(p)
	return &file{m: m, in: in, name: name, write: true}, nil
}

// CreateUnnamed implements [fsys.FS]: an inode no directory names until
// it is linked; a power loss before a durable entry names it drops it.
func (m *FS) CreateUnnamed(dir string, perm fs.FileMode) (fsys.Unnamed, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	d, err := m.lookup(dir)
	if err != nil {
		return nil, pathErr("open", dir, err)
	}
	if !d.dir {
		return nil, pathErr("open", dir, syscall.ENOTDIR)
	}
	in := m.newInode(false, perm&^fsys.Umask())
	m.touch(in)
	return &unnamed{file: file{m: m, in: in, name: path.Join(dir, "(unnamed)"), write: true}, dir: dir}, nil
}

type unnamed struct {
	file
	dir string
}

// Link implements [fsys.Unnamed].
func (u *unnamed) Link(name string) error {
	m := u.m
	m.mu.Lock()
	defer m.mu.Unlock()
	if path.Dir(name) != path.Clean(u.dir) {
		return pathErr("link", name, syscall.EXDEV)
	}
	if m.inodes[u.in.ino] != u.in {
		return pathErr("link", name, fs.ErrNotExist) // dropped
	}
	first := u.in.nlink == 0
	if err := m.link(u.in, name); err != nil {
		return err
	}
	if first {
		u.in.linkPending = true
	}
	return nil
}

// Append implements [fsys.FS].
func (m *FS) Append(name string, data []byte, perm fs.FileMode) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, base, err := m.parent(name)
	if err != nil {
		return pathErr("append", name, err)
	}
	var in *inode
	if id, ok := p.entries[base]; ok {
		if in = m.inodes[id]; in.dir {
			return pathErr("append", name, syscall.EISDIR)
		}
	} else {
		in = m.newInode(false, perm&^fsys.Umask())
		in.nlink = 1
		p.entries[base] = in.ino
		m.touch(p)
	}
	in.data = append(in.data, data...)
	m.touch(in)
	return nil
}

type info struct {
	name string
	in   *inode
	mode fs.FileMode
	size int64
	id   fsys.Identity
}

func (i *info) Name() string       { return i.name }
func (i *info) Size() int64        { return i.size }
func (i *info) Mode() fs.FileMode  { return i.mode }
func (i *info) ModTime() time.Time { return time.Unix(0, i.in.mtime) }
func (i *info) IsDir() bool        { return i.in.dir }
func (i *info) Sys() any           { return &i.id }

// euid and egid are every file's owner.
var euid, egid = os.Geteuid(), os.Getegid()

func (m *FS) info(name string, in *inode) *info {
	size := int64(len(in.data))
	return &info{name: path.Base(name), in: in, mode: in.mode, size: size,
		id: fsys.Identity{Dev: 1, Ino: in.ino, Nlink: uint64(max(in.nlink, 1)), Ctime: in.ctime, Size: size, Mode: in.mode, Mtime: in.mtime, Uid: euid, Gid: egid}}
}

// Lstat implements [fsys.FS].
func (m *FS) Lstat(name string) (fs.FileInfo, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	in, err := m.lookup(name)
	if err != nil {
		return nil, pathErr("lstat", name, err)
	}
	return m.info(name, in), nil
}

type dirEntry struct{ *info }

func (e dirEntry) Type() fs.FileMode          { return e.mode.Type() }
func (e dirEntry) Info() (fs.FileInfo, error) { return e.info, nil }

// ReadDir implements [fsys.FS]: entries sorted by name.
func (m *FS) ReadDir(name string) ([]fs.DirEntry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	in, err := m.lookup(name)
	if err != nil {
		return nil, pathErr("readdir", name, err)
	}
	if !in.dir {
		return nil, pathErr("readdir", name, syscall.ENOTDIR)
	}
	out := make([]fs.DirEntry, 0, len(in.entries))
	for n, id := range in.entries {
		out = append(out, dirEntry{m.info(n, m.inodes[id])})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out, nil
}

// Readlink implements [fsys.FS].
func (m *FS) Readlink(name string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	in, err := m.lookup(name)
	if err != nil {
		return "", pathErr("readlink", name, err)
	}
	if in.mode&fs.ModeSymlink == 0 {
		return "", pathErr("readlink", name, syscall.EINVAL)
	}
	return string(in.data), nil
}

// Mkdir implements [fsys.FS].
func (m *FS) Mkdir(name string, perm fs.FileMode) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, base, err := m.parent(name)
	if err != nil {
		return pathErr("mkdir", name, err)
	}
	if _, ok := p.entries[base]; ok {
		return pathErr("mkdir", name, fs.ErrExist)
	}
	d := m.newInode(true, fs.ModeDir|perm&^fsys.Umask())
	d.nlink = 1
	p.entries[base] = d.ino
	m.touch(p)
	return nil
}

// Rename implements [fsys.FS]: newname is replaced atomically.
// Exchange implements [fsys.FS]: the two entries swap, durable as any
// change of a directory's entries is (once the directory is synced).
// ReadLease implements fsys.FS: there are no other processes here.
func (m *FS) ReadLease(name string) (fsys.Lease, error) { return nil, errors.ErrUnsupported }

func (m *FS) Exchange(a, b string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	pa, ba, err := m.parent(a)
	if err != nil {
		return pathErr("exchange", a, err)
	}
	pb, bb, err := m.parent(b)
	if err != nil {
		return pathErr("exchange", b, err)
	}
	ia, ok := pa.entries[ba]
	if !ok {
		return pathErr("exchange", a, fs.ErrNotExist)
	}
	ib, ok := pb.entries[bb]
	if !ok {
		return pathErr("exchange", b, fs.ErrNotExist)
	}
	pa.entries[ba], pb.entries[bb] = ib, ia
	m.touch(pa)
	m.touch(pb)
	return nil
}

func (m *FS) Rename(oldname, newname string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
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
	if oldname == newname {
		return nil
	}
	src := m.inodes[id]
	if src.dir && (newname == oldname || strings.HasPrefix(newname, oldname+"/")) {
		return pathErr("rename", newname, syscall.EINVAL)
	}
	if old, ok := np.entries[nb]; ok {
		if old == id {
			return nil
		}
		dst := m.inodes[old]
		switch {
		case dst.dir && !src.dir:
			return pathErr("rename", newname, syscall.EISDIR)
		case !dst.dir && src.dir:
			return pathErr("rename", newname, syscall.ENOTDIR)
		case dst.dir && len(dst.entries) > 0:
			return pathErr("rename", newname, syscall.ENOTEMPTY)
		}
		m.unlink(old)
	}
	delete(op.entries, ob)
	np.entries[nb] = id
	m.touch(op)
	m.touch(np)
	return nil
}

// Link implements [fsys.FS].
func (m *FS) Link(oldname, newname string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	in, err := m.lookup(oldname)
	if err != nil {
		return pathErr("link", oldname, err)
	}
	if in.dir {
		return pathErr("link", oldname, syscall.EPERM)
	}
	return m.link(in, newname)
}

// link gives inode in the name newname, which must not exist. The caller
// holds m.mu.
func (m *FS) link(in *inode, newname string) error {
	np, nb, err := m.parent(newname)
	if err != nil {
		return pathErr("link", newname, err)
	}
	if _, ok := np.entries[nb]; ok {
		return pathErr("link", newname, fs.ErrExist)
	}
	np.entries[nb] = in.ino
	in.nlink++
	m.touchMeta(in)
	m.touch(np)
	return nil
}

// Remove implements [fsys.FS]: a file, or an empty directory.
func (m *FS) Remove(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
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
	m.unlink(id)
	m.touch(p)
	return nil
}

// SyncDir implements [fsys.FS].
func (m *FS) SyncDir(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	in, err := m.lookup(name)
	if err != nil {
		return pathErr("syncdir", name, err)
	}
	if !in.dir {
		return pathErr("syncdir", name, syscall.ENOTDIR)
	}
	in.sentries = copyEntries(in.entries)
	in.smode = in.mode
	return nil
}

// SyncFS implements [fsys.FS]: everything becomes durable.
func (m *FS) SyncFS(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, in := range m.inodes {
		if in.dir {
			in.sentries = copyEntries(in.entries)
		} else {
			in.synced, in.durable = append([]byte(nil), in.data...), true
		}
		in.smode = in.mode
		in.linkPending = false
	}
	m.reap()
	return nil
}

// Lock implements [fsys.FS]: one lock per file system, whatever the name,
// waited for up to timeout.
func (m *FS) Lock(name string, timeout time.Duration) (func() error, error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case m.lock <- struct{}{}:
	case <-t.C:
		return nil, fsys.ErrBusy
	}
	var once sync.Once
	return func() error {
		once.Do(func() { <-m.lock })
		return nil
	}, nil
}

// OpenDir implements [fsys.FS] by path.
func (m *FS) OpenDir(name string) (fsys.Dir, error) { return fsys.PathDir(m, name) }

// HoldDir implements [fsys.FS] by path: there are no handles to cache.
func (m *FS) HoldDir(name string) (fsys.Dir, func(), error) {
	d, err := fsys.OpenDirBeneath(m, name)
	if err != nil {
		return nil, nil, err
	}
	return d, func() {}, nil
}

// View implements [fsys.FS]: there are no handles to cache.
func (m *FS) View() (fsys.FS, func()) { return m, func() {} }

// Revalidate implements [fsys.FS].
func (m *FS) Revalidate() error { return nil }

func copyEntries(e map[string]uint64) map[string]uint64 {
	out := make(map[string]uint64, len(e))
	for k, v := range e {
		out[k] = v
	}
	return out
}

type file struct {
	m     *FS
	in    *inode
	name  string
	off   int
	write bool
}

func (f *file) Read(p []byte) (int, error) {
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	if f.in.dir {
		return 0, pathErr("read", f.name, syscall.EISDIR)
	}
	if f.off >= len(f.in.data) {
		return 0, io.EOF
	}
	n := copy(p, f.in.data[f.off:])
	f.off += n
	return n, nil
}

func (f *file) ReadAt(p []byte, off int64) (int, error) {
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	if f.in.dir {
		return 0, pathErr("read", f.name, syscall.EISDIR)
	}
	if off < 0 {
		return 0, pathErr("readat", f.name, syscall.EINVAL)
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

func (f *file) Write(p []byte) (int, error) {
	n, err := f.WriteAt(p, int64(f.off))
	f.off += n
	return n, err
}

func (f *file) WriteAt(p []byte, off int64) (int, error) {
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	if !f.write {
		return 0, pathErr("write", f.name, syscall.EBADF)
	}
	if off < 0 {
		return 0, pathErr("writeat", f.name, syscall.EINVAL)
	}
	if need := int(off) + len(p); need > len(f.in.data) {
		f.in.data = append(f.in.data, make([]byte, need-len(f.in.data))...)
	}
	copy(f.in.data[off:], p)
	f.m.touch(f.in)
	return len(p), nil
}

func (f *file) Sync() error {
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	f.sync()
	f.in.smode = f.in.mode
	f.in.linkPending = false // the inode is written
	return nil
}

// DataSync makes the data durable (a directory's entries are its data),
// not a mode changed since the file was made.
func (f *file) DataSync() error {
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	f.sync()
	return nil
}

func (f *file) sync() {
	if f.in.dir {
		f.in.sentries = copyEntries(f.in.entries)
	} else {
		if !f.in.durable || !bytes.Equal(f.in.synced, f.in.data) {
			f.in.linkPending = false // new data: the inode is written with it
		}
		f.in.synced, f.in.durable = append([]byte(nil), f.in.data...), true
	}
}

func (f *file) Stat() (fs.FileInfo, error) {
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	return f.m.info(f.name, f.in), nil
}

func (f *file) Chmod(mode fs.FileMode) error {
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	f.in.mode = f.in.mode.Type() | mode&(fs.ModePerm|fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky)
	f.m.touchMeta(f.in)
	return nil
}

func (f *file) Chown(uid, gid int) error { return nil }
func (f *file) Close() error             { return nil }

// Drop says what a power loss keeps of what was not made durable.
type Drop int

// The drop settings.
const (
	DropAll    Drop = iota // nothing unsynced survives
	KeepAll                // everything survives (as if the cache was written back)
	RandomMix              // each unsynced entry change and each file's data independently
	TornBlocks             // like RandomMix, and file data torn per 4 KiB block
)

// Crash returns the file system as a power loss leaves it: the durable
// state, plus unsynced changes as drop says (rng decides where it is
// random). m is not changed.
func (m *FS) Crash(rng *rand.Rand, drop Drop) *FS {
	m.mu.Lock()
	defer m.mu.Unlock()
	keep := func() bool {
		switch drop {
		case DropAll:
			return false
		case KeepAll:
			return true
		}
		return rng.Intn(2) == 0
	}
	c := &FS{inodes: map[uint64]*inode{}, next: m.next, clock: m.clock, lock: make(chan struct{}, 1)}
	ids := make([]uint64, 0, len(m.inodes))
	for id := range m.inodes {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] }) // deterministic use of rng
	for _, id := range ids {
		if m.inodes[id].linkPending && !keep() {
			continue // on disk it has no link: gone, and its entries with it
		}
		c.inodes[id] = crashInode(id, m.inodes[id], keep, rng, drop)
	}
	c.dropDangling()
	c.dropUnreachable()
	return c
}

// crashInode returns what a power loss leaves of inode id (in): its durable mode,
// entries and data, and each unsynced change kept as keep says (file
// data torn per block for TornBlocks).
func crashInode(id uint64, in *inode, keep func() bool, rng *rand.Rand, drop Drop) *inode {
	n := &inode{ino: id, dir: in.dir, mode: in.smode, mtime: in.mtime, ctime: in.ctime}
	if in.mode != in.smode && keep() {
		n.mode = in.mode
	}
	n.smode = n.mode
	if in.dir {
		n.entries = crashEntries(in, keep)
		n.sentries = copyEntries(n.entries)
		return n
	}
	old := []byte(nil)
	if in.durable {
		old = in.synced
	}
	data := old
	if !bytes.Equal(in.data, old) {
		switch {
		case drop == TornBlocks:
			data = tear(rng, old, in.data)
		case keep():
			data = in.data
		}
	}
	n.data, n.synced, n.durable = append([]byte(nil), data...), append([]byte(nil), data...), true
	return n
}

// crashEntries returns directory in's durable entries, with each unsynced
// change (an entry added, removed or replaced) kept as keep says, in name
// order.
func crashEntries(in *inode, keep func() bool) map[string]uint64 {
	entries := copyEntries(in.sentries)
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
	sort.Strings(keys)
	for _, k := range keys {
		cur, isCur := in.entries[k]
		dur, isDur := in.sentries[k]
		if isCur == isDur && cur == dur {
			continue
		}
		if keep() {
			if isCur {
				entries[k] = cur
			} else {
				delete(entries, k)
			}
		}
	}
	return entries
}

// dropDangling removes the entries that name inodes which were dropped
// (their last name was removed before the crash, durably or not).
func (c *FS) dropDangling() {
	for _, in := range c.inodes {
		for k, child := range in.entries {
			if _, ok := c.inodes[child]; !ok {
				delete(in.entries, k)
				delete(in.sentries, k)
			}
		}
	}
}

// dropUnreachable removes what no surviving entry reaches from the root
// (directories whose entry did not survive take their contents along),
// and sets link counts to what the surviving entries say.
func (c *FS) dropUnreachable() {
	reach := map[uint64]bool{1: true}
	c.inodes[1].nlink = 1
	var walk func(id uint64)
	walk = func(id uint64) {
		for _, child := range c.inodes[id].entries {
			c.inodes[child].nlink++
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

// SymlinkPrefix marks a symbolic link in [New]'s and [FS.Files]' maps: the
// value is the prefix and the link's target.
const SymlinkPrefix = "\x00symlink\x00"

// Files returns every file (name → content), directory (name + "/" → "")
// and symbolic link (name → SymlinkPrefix + target) of the current state.
func (m *FS) Files() map[string]string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]string{}
	var walk func(dir string, id uint64)
	walk = func(dir string, id uint64) {
		for name, child := range m.inodes[id].entries {
			p := path.Join(dir, name)
			switch in := m.inodes[child]; {
			case in.dir:
				out[p+"/"] = ""
				walk(p, child)
			case in.mode&fs.ModeSymlink != 0:
				out[p] = SymlinkPrefix + string(in.data)
			default:
				out[p] = string(in.data)
			}
		}
	}
	walk("", 1)
	return out
}

var _ fsys.FS = (*FS)(nil)
