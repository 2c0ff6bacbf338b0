//go:build !linux

package fsys

import (
	"io/fs"
	"os"
)

// beneath has no fast path where there is no openat2(2): os.Root resolves
// every name.
type beneath struct{}

func (b *beneath) init(*os.Root) {}
func (b *beneath) close()        {}

func (b *beneath) lstat(string) (fs.FileInfo, bool, error) { return nil, false, nil }
func (b *beneath) rename(string, string) (bool, error)     { return false, nil }
