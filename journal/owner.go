package journal

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"sync"

	"github.com/txedit/txedit/fsys"
)

// Owners (docs/design.md, "Shared trees"). A file txedit replaces is a
// new inode, so its owner and group are set again from what the file had:
// all of it where the process may (root), else what this user may set.

// keepOwner gives f, the staged replacement of a file whose state is st,
// st's owner and group where it may. A user who may not give a file away
// (anyone but root) still keeps its group, which a member of it may set:
// in a group-writable directory, one user's edit of another's file keeps
// the group the file is shared through, so its owner keeps write access.
// The owner itself cannot be kept then: the file becomes this user's,
// which any rename-style save in that directory would do too, and
// refusing would leave shared trees without txedit. lost reports that the
// owner was not kept: then the file must not keep setuid or setgid either
// (the kernel clears them when another user writes a file).
func keepOwner(f fsys.File, st *State) (meta, lost bool, err error) {
	euid, egid := processIDs()
	if st.Uid < 0 || (st.Uid == euid && st.Gid == egid) || (st.Uid == 0 && st.Gid == 0) {
		return false, false, nil
	}
	err = f.Chown(st.Uid, st.Gid)
	if !errors.Is(err, fs.ErrPermission) {
		return true, false, err
	}
	lost = st.Uid != euid
	if st.Gid != egid {
		if err = f.Chown(-1, st.Gid); err != nil && !errors.Is(err, fs.ErrPermission) {
			return true, lost, err
		}
	}
	return true, lost, nil
}

// processIDs is the process's effective user and group, asked once:
// txedit never changes them, and each is a system call (two a staged
// file, in keepOwner).
var processIDs = sync.OnceValues(func() (int, int) { return os.Geteuid(), os.Getegid() })

// ownedHere is st for a file made where none is now (a deleted file that
// undo or recovery brings back): its recorded owner only if that is this
// user or the owner of the directory it goes into (as it is, or as m
// makes it again: directories come back as they were), else this user
// (its group kept where permitted). Undo and recovery never hand a file
// to another user in a directory that user does not own.
func (j *Journal) ownedHere(m *Manifest, name string, st *State) *State {
	if st == nil || st.Uid < 0 || st.Uid == os.Geteuid() || (st.Uid == 0 && st.Gid == 0) {
		return st
	}
	for d := path.Dir(name); ; d = path.Dir(d) {
		if fi, err := j.fs.Lstat(d); err == nil {
			if fsys.IdentityOf(fi).Uid == st.Uid {
				return st
			}
			break
		}
		if ds, ok := m.dirState(d); ok {
			if ds.Uid == st.Uid {
				return st
			}
			break
		}
		if d == "." {
			break
		}
	}
	c := *st
	c.Uid = os.Geteuid()
	return &c
}
