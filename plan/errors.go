package plan

import (
	"errors"
	"fmt"
	"strings"
)

// Code is a stable error code of the wire format (SPEC §10).
type Code string

// The error codes. They never change meaning; new ones may be added.
const (
	CodeInvalidRequest   Code = "invalid_request"
	CodeFileNotFound     Code = "file_not_found"
	CodeNotFound         Code = "not_found"
	CodeAmbiguous        Code = "ambiguous"
	CodeStaleHash        Code = "stale_hash"
	CodeConflict         Code = "conflict"
	CodeLineOutOfRange   Code = "line_out_of_range"
	CodeOverlappingEdits Code = "overlapping_edits"
	CodeOutsideRoot      Code = "outside_root"
	CodeDenied           Code = "denied"
	CodeNotRegular       Code = "not_regular"
	CodeBinaryFile       Code = "binary_file"
	CodeTooLarge         Code = "too_large"
	CodeBusy             Code = "busy"
	CodeIOError          Code = "io_error"
)

// Error is a failure with a stable code. Path names the file as the request
// named it; Index is the edit's position in its file's edit list, or -1 when
// the failure concerns the file or the request as a whole.
type Error struct {
	Code    Code
	Path    string
	Index   int
	Command string
	Msg     string
	// Current is the current hash token of the range a stale_hash failure
	// was about, so the caller can re-read just that.
	Current string
	Err     error // underlying cause, if any
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(string(e.Code))
	b.WriteString(": ")
	if e.Path != "" {
		b.WriteString(e.Path)
		if e.Index >= 0 {
			fmt.Fprintf(&b, ": edit %d", e.Index)
			if e.Command != "" {
				fmt.Fprintf(&b, " (%s)", e.Command)
			}
		}
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with the given code, for the whole file or request.
func Errorf(code Code, path string, format string, args ...any) *Error {
	return &Error{Code: code, Path: path, Index: -1, Msg: fmt.Sprintf(format, args...)}
}

// CodeOf returns the code of the first *Error in err's chain, or io_error
// for any other non-nil error.
func CodeOf(err error) Code {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeIOError
}
