package clientconfig

import (
	"io/fs"
	"os"
	"path/filepath"
)

// writeAtomic replaces path with data through a temporary file in the same
// directory, synced and then renamed over it (MoveFileEx with
// MOVEFILE_REPLACE_EXISTING). renameio does not support Windows; this is
// the same protocol without its guarantees on every file system. A new
// file gets the default permissions of its directory.
func writeAtomic(path string, data []byte, perm fs.FileMode, prev fs.FileInfo) error {
	t, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"*")
	if err != nil {
		return err
	}
	defer os.Remove(t.Name())
	if _, err := t.Write(data); err != nil {
		t.Close()
		return err
	}
	if err := t.Sync(); err != nil {
		t.Close()
		return err
	}
	if err := t.Close(); err != nil {
		return err
	}
	return os.Rename(t.Name(), path)
}

// canWrite: Windows has no access(2); the read-only attribute shows in the
// permission bits, which the caller checks.
func canWrite(path string) error { return nil }

// lockDir does not lock on Windows (no flock); concurrent installs there
// are caught by the check before the replace, not serialised.
func lockDir(string) (func(), error) { return func() {}, nil }
