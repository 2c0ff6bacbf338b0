package plan

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// Code is a stable error code of the wire format (docs/cli.md lists them).
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
	// CodeNotRead: a write to a file the session has not read (docs/agents.md).
	CodeNotRead Code = "not_read"
	// CodeNeedsConfirmation: an LSP WorkspaceEdit carries a change
	// annotation that asks for confirmation, and none was given
	// (docs/lsp.md, "Annotations").
	CodeNeedsConfirmation Code = "needs_confirmation"
	// CodeRefused: a language server refused the operation (a rename
	// onto a name that conflicts, say); the message is the server's own
	// (docs/lsp.md).
	CodeRefused Code = "refused"
	// CodeCommitUnknown is not a failure: the transaction committed (its
	// files changed, the journal lists it committed, the result says
	// success), but the last sync of its commit mark failed, so a power
	// loss before the next sync may roll it back. Result.Durability is
	// "unknown"; the CLI exits 3. Do not retry the request: it took effect.
	CodeCommitUnknown Code = "commit_unknown"
	// CodeUntrustedJournal: the workspace's journal is not this user's,
	// made here (it came with a clone or a copy, an older txedit made it,
	// another user did, or .txedit is not a directory): nothing in it is
	// acted on, and writes are refused until a person adopts it, removes
	// it or repairs it (the message names the command; docs/cli.md).
	CodeUntrustedJournal Code = "untrusted_journal"
)

// Error is a failure with a stable code. Path names the file as the request
// named it. An error about one edit carries the edit's position in its
// file's edit list ([Error.Edit]); one about the file or the request as a
// whole carries none. Make them with [Errorf], [EditErrorf], [Wrap] and
// [Wrapf] (whose cause stays reachable by errors.Is and errors.As).
type Error struct {
	Code Code
	Path string
	// Index is the edit's position, or [NoEdit].
	Index   int
	Command string
	Msg     string
	// Current is the current hash token of the range a stale_hash failure
	// was about, so the caller can re-read just that.
	Current string
	// Delta, on a stale_hash refusal of an edit made against a known
	// version, is what changed since ([FileResult.Delta]).
	Delta *Delta
	Err   error // underlying cause, if any
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(string(e.Code))
	b.WriteString(": ")
	if e.Path != "" {
		b.WriteString(e.Path)
		switch {
		case e.Index >= 0 && e.Command == "hunk":
			fmt.Fprintf(&b, ": hunk %d", e.Index+1) // hunks are counted from 1, as people read a patch
		case e.Index >= 0 && e.Command == "search_replace":
			fmt.Fprintf(&b, ": block %d", e.Index+1)
		case e.Index >= 0:
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

// NoEdit is the Index of an error that concerns no single edit.
const NoEdit = -1

// Edit returns the position of the edit the error is about, and false if
// it concerns the file or the request as a whole.
func (e *Error) Edit() (int, bool) { return e.Index, e.Index >= 0 }

// Errorf returns an *Error with the given code, for the whole file or request.
func Errorf(code Code, path string, format string, args ...any) *Error {
	return &Error{Code: code, Path: path, Index: NoEdit, Msg: fmt.Sprintf(format, args...)}
}

// EditErrorf returns an *Error about edit index (of the given command) of
// the file path.
func EditErrorf(code Code, path string, index int, command string, format string, args ...any) *Error {
	return &Error{Code: code, Path: path, Index: index, Command: command, Msg: fmt.Sprintf(format, args...)}
}

// Wrap returns an *Error with the given code whose message is err's and
// which unwraps to err, for the whole file or request.
func Wrap(code Code, path string, err error) *Error {
	return &Error{Code: code, Path: path, Index: NoEdit, Msg: err.Error(), Err: err}
}

// Wrapf is [Errorf] whose error unwraps to err.
func Wrapf(code Code, path string, err error, format string, args ...any) *Error {
	e := Errorf(code, path, format, args...)
	e.Err = err
	return e
}

// WithEdit returns a copy of e pinned on edit index (of command).
func (e *Error) WithEdit(index int, command string) *Error {
	c := *e
	c.Index, c.Command = index, command
	return &c
}

// As returns the *Error in err's chain, or wraps err with the code
// CodeOf gives it.
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return Wrap(CodeOf(err), "", err)
}

// CodeOf returns the code of the first *Error in err's chain. Any other
// non-nil error is denied when the system refused it (EACCES, EPERM, or a
// read-only file system: EROFS) and io_error otherwise (a refusal that
// reached here unclassified used to be reported as io_error).
func CodeOf(err error) Code {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	if errors.Is(err, fs.ErrPermission) || readOnlyFS(err) {
		return CodeDenied
	}
	return CodeIOError
}

// readOnlyFS reports whether err is EROFS, by its text (this package does
// no I/O, so it does not import syscall; the text is the same on every
// Unix).
func readOnlyFS(err error) bool {
	for ; err != nil; err = errors.Unwrap(err) {
		if err.Error() == "read-only file system" {
			return true
		}
	}
	return false
}
