//go:build !linux

package fsys

import (
	"errors"
	"os"
)

func syncfs(*os.File) error { return errors.ErrUnsupported }
