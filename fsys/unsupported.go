//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package fsys

// txedit's guarantees rest on POSIX file-system semantics: rename(2) that
// replaces atomically, fsync of directories, flock(2), inode identities.
// This platform lacks some of them, so txedit does not build here rather
// than build and promise what it cannot keep (see the README, Platforms).
var _ int = "txedit supports Linux, macOS and the BSDs only (see README: Platforms)"
