package engine

import (
	"errors"
	"io"
	"io/fs"
	"syscall"
)

var errEOF = io.EOF

func isENOTDIR(err error) bool { return errors.Is(err, syscall.ENOTDIR) }

// modeExtra are the mode bits kept beside the permissions.
const modeExtra = fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky
