package journal

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/txedit/txedit/fsys"
)

// dirModeBits are the bits of a directory's mode that are kept.
const dirModeBits = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky

// recordDirs records, in m.Dirs, the mode and owner of every directory the
// transaction may remove (m.Rmdirs) as it is now, so that a rollback, a
// recovery or an undo creates it again as it was: a private 0700
// directory must not come back 0755, nor lose its owner or setgid bit.
// States the caller gave for other directories (the ones Mkdirs creates)
// are kept; those of directories not in Mkdirs or Rmdirs are dropped.
func (j *Journal) recordDirs(m *Manifest) error {
	rm := map[string]bool{}
	for _, d := range m.Rmdirs {
		rm[d] = true
	}
	mk := map[string]bool{}
	for _, d := range m.Mkdirs {
		mk[d] = true
	}
	var out []DirState
	for _, s := range m.Dirs {
		if mk[s.Path] && !rm[s.Path] {
			out = append(out, s)
		}
	}
	seen := map[string]bool{}
	for _, d := range m.Rmdirs {
		if seen[d] {
			continue
		}
		seen[d] = true
		fi, err := j.fs.Lstat(d)
		if errors.Is(err, fs.ErrNotExist) || (err == nil && !fi.IsDir()) {
			continue
		}
		if err != nil {
			return err
		}
		id := fsys.IdentityOf(fi)
		out = append(out, DirState{Path: d, Mode: fi.Mode() & dirModeBits, Uid: id.Uid, Gid: id.Gid})
	}
	m.Dirs = out
	return nil
}

// mkdirAs creates directory d, with the mode and owner m records for it if
// it records them (else 0777 less the umask, as mkdir does). It is created
// with at most the recorded permissions, so it is never wider, not even
// for a moment; the owner and the bits the umask took are then set on it.
// An existing directory is left alone (the error is fs.ErrExist).
func (j *Journal) mkdirAs(m *Manifest, d string) error {
	st, ok := m.dirState(d)
	perm := fs.FileMode(0o777)
	if ok {
		perm = st.Mode.Perm()
	}
	if err := j.fs.Mkdir(d, perm); err != nil {
		return err
	}
	if !ok {
		return nil
	}
	return setDir(j.fs, d, st)
}

// setDir gives directory d the owner (where permitted) and mode of st.
func setDir(fsy fsys.FS, d string, st DirState) error {
	f, err := fsy.Open(d)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return nil // not ours any more: leave it
	}
	if id := fsys.IdentityOf(fi); id.Uid != st.Uid || id.Gid != st.Gid {
		// Not permitted (not root, not a member of the group) is not an
		// error: the directory exists, with the mode it should have.
		if err := f.Chown(st.Uid, st.Gid); err != nil && !errors.Is(err, fs.ErrPermission) {
			return err
		}
		if fi, err = f.Stat(); err != nil {
			return err
		}
	}
	if fi.Mode()&dirModeBits != st.Mode {
		if err := f.Chmod(st.Mode); err != nil && !errors.Is(err, fs.ErrPermission) {
			return err
		}
	}
	return nil
}

// wantDirs adds to m.Mkdirs, parents first, the directories of m.MakeDirs
// that do not exist, and their parents that do not (seen: the directories
// already considered). It runs under the lock, as Begin does, so what it
// finds absent is the transaction's to create (and rollback's and undo's
// to remove, if empty).
func (j *Journal) wantDirs(m *Manifest, seen map[string]bool) error {
	for _, d := range m.MakeDirs {
		if err := validName(d); err != nil {
			return fmt.Errorf("directory to make: %w", err)
		}
		for _, x := range append(parents(d), d) {
			if seen[x] {
				continue
			}
			seen[x] = true
			_, err := j.fs.Lstat(x)
			switch {
			case errors.Is(err, fs.ErrNotExist):
				m.Mkdirs = append(m.Mkdirs, x)
			case err != nil:
				return err
			}
		}
	}
	return nil
}
