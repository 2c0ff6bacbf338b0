// Package engine is txedit's orchestrator: a [Workspace] is a directory
// tree that agents and people read, search and change, every change going
// plan → verify → edit (in parallel) → diff → one all-or-nothing commit
// through the journal, undoable.
//
//	w, err := engine.Open(root, nil)          // recovers crashed commits
//	req, err := plan.Parse(requestJSON)       // the fs_write wire format
//	res, err := w.Apply(ctx, req)             // res.Files: status, diff, new hash
//	res, err = w.Undo(ctx, engine.UndoOptions{})
//
// Reads ([Workspace.Read], Grep, Glob, List, Diff) return content hashes
// that edits may carry back, so a change made meanwhile is never
// overwritten. Every path is confined to the root (symlinks resolved
// inside it and checked, then opened following none: docs/design.md,
// "Resolution"); .txedit/ is the journal and never listed.
//
// All file access goes through [Options].FS (package fsys): the operating
// system's, or an in-memory one (fsys/memfs) with the same transactional
// semantics. The engine speaks no agent dialect: the toolsets and the MCP
// server (package tools) are its clients, and so is the command line.
//
// A Workspace is safe for concurrent use; commits are serialised by the
// journal's lock, across processes too. Failures are *plan.Error values
// with a stable code.
package engine
