package plan

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
	"testing"
)

// TestCodeOfRefusals: an error the system refused with (EACCES, EPERM,
// EROFS) that reaches a caller without a code is denied, not io_error
// (docs/testing.md, the reliability audit); any other is io_error.
func TestCodeOfRefusals(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want Code
	}{
		{&fs.PathError{Op: "open", Path: "/r", Err: syscall.EACCES}, CodeDenied},
		{&fs.PathError{Op: "rename", Path: "f", Err: syscall.EPERM}, CodeDenied},
		{fmt.Errorf("committing: %w", &fs.PathError{Op: "mkdir", Path: ".txedit", Err: syscall.EROFS}), CodeDenied},
		{&fs.PathError{Op: "read", Path: "f", Err: syscall.EIO}, CodeIOError},
		{errors.New("something else"), CodeIOError},
		{Errorf(CodeConflict, "f", "x"), CodeConflict},
	} {
		if got := CodeOf(tc.err); got != tc.want {
			t.Errorf("CodeOf(%v) = %s, want %s", tc.err, got, tc.want)
		}
		if got := As(tc.err).Code; got != tc.want {
			t.Errorf("As(%v).Code = %s, want %s", tc.err, got, tc.want)
		}
	}
}
