//go:build !linux

package fsys

import (
	"errors"
	"io/fs"
)

// CreateUnnamed implements [FS]: only Linux has O_TMPFILE.
func (o *OS) CreateUnnamed(dir string, perm fs.FileMode) (Unnamed, error) {
	return nil, errors.ErrUnsupported
}
