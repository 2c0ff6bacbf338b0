package engine

import (
	"errors"
	"io/fs"
	"syscall"
)

func isENOTDIR(err error) bool { return errors.Is(err, syscall.ENOTDIR) }

// modeExtra are the mode bits kept beside the permissions.
const modeExtra = fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky
