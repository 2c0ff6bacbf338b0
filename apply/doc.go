// Package apply edits the bytes of one file and renders unified diffs.
//
// [Edit] applies a [plan.FileOps] to a file's current content and returns the
// new content with a report of every edit that failed. It keeps what users'
// files are: line endings (in a CRLF file, LF in old_str, new_str and
// file_text means CRLF), a UTF-8 byte-order mark, a missing final newline
// (it stays missing unless an edit adds lines after it), and bytes that are
// not UTF-8. Binary files (a NUL in the first 8000 bytes) refuse text edits.
//
// [Unified] renders a git-style unified diff that both `git apply` and
// `patch -p1` apply.
//
// The package is pure: bytes in, bytes out, no I/O.
package apply
