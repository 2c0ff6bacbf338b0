//go:build !linux

package journal

import (
	"errors"
	"os"
)

func syncfs(*os.File) error { return errors.ErrUnsupported }
