//go:build !windows

package clientconfig

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/google/renameio/v2"
	"golang.org/x/sys/unix"
)

// writeAtomic replaces path with data through a temporary file in the same
// directory that is synced and renamed over it: a reader (or a crash) sees
// the old file or the new one. The file keeps its permissions (perm is for
// a new file) and, when run as root, its owner: a client that rewrites its
// own file (Claude Code does) must still be able to.
func writeAtomic(path string, data []byte, perm fs.FileMode, prev fs.FileInfo) error {
	dir := filepath.Dir(path)
	t, err := renameio.NewPendingFile(path, renameio.WithPermissions(perm), renameio.WithExistingPermissions(), renameio.WithTempDir(dir))
	if err != nil {
		return err
	}
	defer t.Cleanup()
	if _, err := t.Write(data); err != nil {
		return err
	}
	if prev != nil && os.Geteuid() == 0 {
		if st, ok := prev.Sys().(*syscall.Stat_t); ok && (st.Uid != 0 || st.Gid != 0) {
			if err := t.Chown(int(st.Uid), int(st.Gid)); err != nil {
				return err
			}
		}
	}
	if err := t.CloseAtomicallyReplace(); err != nil {
		return err
	}
	// The rename is durable once the directory is.
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// canWrite reports whether this process may write path (access(2)).
func canWrite(path string) error {
	return unix.Access(path, unix.W_OK)
}

// lockDir takes an exclusive flock of directory dir, waiting for it, and
// returns its release. A directory that cannot be opened is not locked
// (the write will say why it fails).
func lockDir(dir string) (func(), error) {
	f, err := os.Open(dir)
	if err != nil {
		return func() {}, nil
	}
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return func() {}, nil // not lockable here (some network file systems): go on unlocked
	}
	return func() {
		unix.Flock(int(f.Fd()), unix.LOCK_UN)
		f.Close()
	}, nil
}
