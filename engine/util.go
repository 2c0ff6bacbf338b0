package engine

import (
	"errors"
	"io"
	"io/fs"
	"sort"
	"syscall"
)

var errEOF = io.EOF

func isENOTDIR(err error) bool { return errors.Is(err, syscall.ENOTDIR) }

// modeExtra are the mode bits kept beside the permissions.
const modeExtra = fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky

func sortedStrings(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

func sortStrings(s []string) { sort.Strings(s) }
