// Package txedit is the map of the module; the code lives in its packages.
//
// txedit lets AI agents (and people) read, search and change the files of a
// workspace through one transactional engine: every change is compiled into
// a plan, checked against content hashes, previewed as a diff, and committed
// all-or-nothing through atomic renames recorded in an undo journal.
//
// Data flows one way, request → plan → apply → journal → result:
//
//	hash          content-hash tokens (xxhash64, whole file or line range)
//	plan          wire types, strict parsing, validation, per-file ordering (pure)
//	apply         bytes in, bytes out: edits, sed s///, hunks, diffs (pure)
//	apply/patch   agents' native edit formats, parsed into plans (pure)
//	fsys          the file-system seam (os.Root), with memfs, faultfs, fstest
//	journal       manifest, pack, commit protocol, recovery, log, GC
//	engine        the Workspace: the only orchestrator; knows no agent dialect
//	tools         the agent toolsets (and tools/mcpserver), clients of the engine
//	cmd/txedit    the command line: flags, output, exit codes
//
// internal/walk (the tree walker), internal/ignore (gitignore, globs,
// overrides, file types), internal/grep (the line searcher) and
// internal/par (the worker pool) serve them. deps_test.go pins the arrows.
package txedit
