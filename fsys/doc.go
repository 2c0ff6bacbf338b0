// Package fsys is txedit's file-system layer: the one seam every disk call
// of the engine, the journal and the walker goes through.
//
// [FS] is the interface. [OS] implements it on the operating system's file
// system, confined to one directory: every name is resolved below the
// root's descriptor without following a symlink anywhere on the way
// (openat2 with RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS on Linux, O_NOFOLLOW
// one component at a time elsewhere), so no name escapes through "..", an
// absolute path or a symlink, and none reaches anything but the entry at
// that path, however the tree changes (docs/design.md, "Resolution"),
// with the fast paths a tree walker needs: directory handles ([Dir]),
// getdents-based listings and openat-read-close file reads on Linux, and a
// per-operation [FS.View] that keeps directory handles open.
//
// Beside it, package memfs is an in-memory FS that also models power
// loss, usable as a whole workspace's backend, and package faultfs wraps
// any FS to fail or crash it at the Nth call. The crash tests of the
// journal and the engine run the production code on those.
//
// # Durability
//
// [WriteFileAtomic] is the temp-fsync-rename-fsync sequence for small
// files. Whole transactions are the journal's business.
//
// # Platforms
//
// Linux, macOS and the BSDs. Other platforms do not build: txedit's
// guarantees need rename(2) that replaces atomically, fsync of
// directories, flock(2) and inode identities.
package fsys
