package journal

import (
	"errors"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/txedit/txedit/fsys"
)

// A shared workspace is one whose root directory is group-writable
// (sharedDir says exactly when): the tree of a team, where each member runs txedit as themselves
// (docs/design.md, "Shared trees"). A journal there cannot be one user's:
// the first user's would refuse every other user's writes (0700, their
// key). So in a shared workspace the journal is made shared:
//
//	.txedit/              setgid and sticky, group-writable, the root's group
//	  LOCK                the one lock every member's writes take (0660)
//	  .gitignore
//	  users/UID/          each user's own journal (0700): their transactions,
//	                      their id, signed with their own key
//
// A member's txedit works in users/UID as it would in .txedit: its trust
// (its id and key), its recovery, undo and retention are that user's
// alone. Another member's interrupted transaction is left to that member
// (whose files it touched are the files they may write); it never blocks
// or changes this user's work, which classifies files by content as
// always. The lock is shared, so members' commits are serialised.
//
// Which layout a journal has is decided once per Journal (New): a journal
// with users/ is shared; where there is no journal yet, one is made shared
// if the root is group-writable. A journal one user made before is that
// user's (another member's writes are refused, saying so).

const (
	usersDir = Dir + "/users"
	// sharedMode is the shared directories' mode: group-writable, setgid
	// (what is made in them keeps the group) and sticky (a member cannot
	// remove or rename another's entry).
	sharedMode = 0o770 | fs.ModeSetgid | fs.ModeSticky
)

// sharedDir reports whether fi, a workspace root, is shared: writable by
// its group, and either setgid (the mark of a directory a team shares) or
// of a group that is not this user's own. A user's own tree made under a
// umask of 002 is group-writable too, but in the group of that user
// alone (the user-private groups of Debian and others): not shared.
func sharedDir(fi fs.FileInfo) bool {
	if fi.Mode().Perm()&0o020 == 0 {
		return false
	}
	return fi.Mode()&fs.ModeSetgid != 0 || fsys.IdentityOf(fi).Gid != os.Getegid()
}

// sharedHome decides the journal's layout on fsy: the directory of this
// user's own journal in a shared one, or "" for a journal of one user.
func sharedHome(fsy fsys.FS) string {
	home := usersDir + "/" + strconv.Itoa(os.Geteuid())
	fi, err := fsy.Lstat(Dir)
	switch {
	case err == nil && fi.IsDir():
		if ufi, err := fsy.Lstat(usersDir); err == nil && ufi.IsDir() {
			return home
		}
		return ""
	case errors.Is(err, fs.ErrNotExist):
		if rfi, err := fsy.Lstat("."); err == nil && sharedDir(rfi) {
			return home
		}
	}
	return ""
}

// sharedFS is the journal's file system in a shared workspace: the
// journal's own names (.txedit/…) are this user's directory's
// (.txedit/users/UID/…), but for the lock and the .gitignore, which are
// everyone's; every other name is the workspace's, as it is.
type sharedFS struct {
	fsys.FS
	home string
}

func (s sharedFS) name(n string) string {
	switch {
	case n == lockName, n == Dir+"/.gitignore", n == Dir+"/.gitignore.tmp":
		return n
	case n == Dir:
		return s.home
	case strings.HasPrefix(n, Dir+"/"):
		return s.home + n[len(Dir):]
	}
	return n
}

func (s sharedFS) Open(name string) (fsys.File, error) { return s.FS.Open(s.name(name)) }
func (s sharedFS) Create(name string, perm fs.FileMode) (fsys.File, error) {
	return s.FS.Create(s.name(name), perm)
}
func (s sharedFS) Append(name string, data []byte, perm fs.FileMode) error {
	return s.FS.Append(s.name(name), data, perm)
}
func (s sharedFS) Lstat(name string) (fs.FileInfo, error)        { return s.FS.Lstat(s.name(name)) }
func (s sharedFS) ReadDir(name string) ([]fs.DirEntry, error)    { return s.FS.ReadDir(s.name(name)) }
func (s sharedFS) Readlink(name string) (string, error)          { return s.FS.Readlink(s.name(name)) }
func (s sharedFS) Mkdir(name string, perm fs.FileMode) error     { return s.FS.Mkdir(s.name(name), perm) }
func (s sharedFS) Rename(a, b string) error                      { return s.FS.Rename(s.name(a), s.name(b)) }
func (s sharedFS) Exchange(a, b string) error                    { return s.FS.Exchange(s.name(a), s.name(b)) }
func (s sharedFS) ReadLease(name string) (fsys.Lease, error)     { return s.FS.ReadLease(s.name(name)) }
func (s sharedFS) Link(a, b string) error                        { return s.FS.Link(s.name(a), s.name(b)) }
func (s sharedFS) Remove(name string) error                      { return s.FS.Remove(s.name(name)) }
func (s sharedFS) SyncDir(name string) error                     { return s.FS.SyncDir(s.name(name)) }
func (s sharedFS) SyncFS(name string) error                      { return s.FS.SyncFS(s.name(name)) }
func (s sharedFS) OpenDir(name string) (fsys.Dir, error)         { return s.FS.OpenDir(s.name(name)) }
func (s sharedFS) HoldDir(name string) (fsys.Dir, func(), error) { return s.FS.HoldDir(s.name(name)) }
func (s sharedFS) CreateUnnamed(dir string, perm fs.FileMode) (fsys.Unnamed, error) {
	return s.FS.CreateUnnamed(s.name(dir), perm)
}
func (s sharedFS) Lock(name string, timeout time.Duration) (func() error, error) {
	return s.FS.Lock(s.name(name), timeout)
}
func (s sharedFS) View() (fsys.FS, func()) {
	v, release := s.FS.View()
	return sharedFS{v, s.home}, release
}

// initShared makes the shared part of a shared journal, what of it is
// missing (see the top of this file), and this user's directory in it.
// Racing members are harmless: each Mkdir and Create is atomic, and what
// one made the others find.
func (j *Journal) initShared() error {
	s := j.fs.(sharedFS)
	outer := s.FS
	root, err := outer.Lstat(".")
	if err != nil {
		return err
	}
	gid := fsys.IdentityOf(root).Gid
	for _, d := range []string{Dir, usersDir} {
		err := outer.Mkdir(d, 0o770)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return err
		}
		if err := setDir(outer, d, DirState{Path: d, Mode: sharedMode, Uid: os.Geteuid(), Gid: gid}); err != nil {
			return err
		}
	}
	if f, err := outer.Create(lockName, 0o660); err == nil {
		// Every member opens it to take the lock: group-writable whatever
		// the umask, in the root's group.
		err = f.Chmod(0o660)
		if cerr := f.Chown(-1, gid); err == nil && cerr != nil && !errors.Is(cerr, fs.ErrPermission) {
			err = cerr
		}
		f.Close()
		if err != nil {
			return err
		}
	} else if !errors.Is(err, fs.ErrExist) {
		return err
	}
	if err := outer.Mkdir(s.home, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	if j.opts.Sync == SyncNone {
		return nil
	}
	// The shared entries durable with the rest (the lock syncs the root
	// and this user's directory).
	return j.each(2, func(i int) error { return outer.SyncDir([]string{Dir, usersDir}[i]) })
}
