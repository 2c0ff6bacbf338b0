// Package patch reads the edit formats agents write natively and turns
// each into the same small description: a list of [File] changes, whose
// updates are [plan.Hunk] values that package apply places in the file by
// content ([apply.ApplyHunks], [apply.ApplyBlocks], or [File.Apply]).
//
// [Detect] tells the format from the input; [Parse] reads it. Parsing is
// pure (no file is read) and every error is a *plan.Error with code
// invalid_request whose message names the input line. Whether the change
// applies is the matcher's business: a hunk that does not fit the file is
// not_found, ambiguous or conflict there, never at parse time.
//
// # apply_patch (Codex)
//
//	*** Begin Patch
//	*** Add File: PATH        then "+line" lines: the whole content
//	*** Delete File: PATH
//	*** Update File: PATH
//	*** Move to: NEWPATH      optional, right after Update File
//	@@ [text]                 a hunk; "@@ text" lines are anchors, several may stack
//	 context / -removed / +added
//	*** End of File           optional: the hunk ends the file
//	*** End Patch
//
// As lenient as Codex: marker lines may be padded with spaces, the input
// may be wrapped in a heredoc (apply_patch <<'EOF' … EOF, <<EOF, <<"EOF")
// or a ``` fence, and the first hunk may omit its @@ line. More lenient
// than Codex, on purpose:
//   - stacked "@@ a" "@@ b" lines are anchors found in turn (OpenAI's prompt
//     recommends them; Codex's parser rejects them);
//   - an empty line ending a hunk is dropped, not demanded of the file;
//   - "@@ -12,5 +12,6 @@" (a unified header a model wrote) states the
//     hunk's line; its numbers are a hint, checked like a diff's;
//   - a blank line among an Add File's "+" lines is an empty line;
//   - an Update File with a Move to and no hunks is a pure rename.
//
// Add File over an existing file replaces it, and Move to over an existing
// file replaces that file, as Codex does ([File.Overwrite]). Where txedit
// differs from Codex on purpose (docs/patch-formats.md):
//   - nothing is written when anything fails (Codex keeps the files it
//     wrote before the failure);
//   - old lines that match more than one place are ambiguous (Codex takes
//     the first);
//   - a hunk of added lines under an @@ line goes right after that line, as
//     OpenAI's Agents SDK does (Codex appends it at the end of the file,
//     whatever the @@ line says); without one it appends, as Codex does;
//   - a file without a final newline keeps lacking one (Codex adds it);
//   - a patch sent twice is already applied, not applied twice.
//
// # Responses apply_patch_call (OpenAI)
//
// A JSON object {"type": "apply_patch_call", "operation": {...}}, a bare
// operation {"type": "create_file"|"update_file"|"delete_file", "path",
// "diff"}, or an array of either. create_file's diff is "+" lines (as Add
// File; each line ends with a newline, as Codex writes Add File — OpenAI's
// Agents SDK joins them without a final one); update_file's diff is V4A
// hunks, as an Update File body; delete_file has no diff.
//
// # Unified and git diffs
//
// Several files, in the forms `diff -u`, `diff -ruN` and `git diff` write:
// "diff --git" headers with their extended lines (new file mode, deleted
// file mode, old mode/new mode, rename from/to, similarity index, index),
// ---/+++ names (C-quoted names, a tab and time stamp after them,
// /dev/null for a missing side), "@@ -l,s +l,s @@ section" hunks whose
// counts must match their lines, "\ No newline at end of file". Text
// around the diff (a commit message) is ignored. Decisions:
//   - names lose git's a/ and b/ (or other one-letter) prefixes, or two
//     top directories that differ over the same remainder (diff -ruN);
//     names without a prefix (diff -u, git diff --no-prefix) are kept;
//   - without git headers, differing names do not rename: the file patched
//     is the one GNU patch would prefer were both there (fewer directories,
//     then the shorter base name: diff -u f.orig f patches f); a side whose
//     time stamp is the epoch is missing (diff -N): the file is created or
//     deleted;
//   - a hunk's stated line is where it is looked for first, shifted by the
//     offset of the hunks before it; elsewhere it must match once;
//   - "@@ ... @@" hunks without numbers (Aider's unified diffs) are located
//     by content alone and end at the next header;
//   - an empty line inside a hunk is an empty context line;
//   - refused: binary patches, copies (git diff -C), symbolic links and
//     submodules.
//
// # SEARCH/REPLACE blocks (Aider, Cline)
//
//	path/to/file.py
//	```python
//	<<<<<<< SEARCH
//	old lines
//	=======
//	new lines
//	>>>>>>> REPLACE
//	```
//
// The path is the line before the block, or before the fence lines above
// it (Aider's rule); a block without one belongs to the previous block's
// file. Cline's markers (------- SEARCH, =======, +++++++ REPLACE) work too.
// Blocks apply one after another, each anywhere in the result of the ones
// before (as Aider applies them), and must match exactly once. An empty
// SEARCH creates a missing file ([File.CreateIfMissing]); on a file that
// has content it is refused as ambiguous (Aider appends, Cline replaces the
// whole file). Not done: Aider's "..." elision (a "..." line is matched
// literally) and its dropping of a spurious leading blank SEARCH line.
//
// # Line endings
//
// Parsers drop a "\r" before "\n" in hunk lines; the matcher compares
// lines without it and gives added lines the file's own line ending, so
// patches written with LF apply to CRLF files and keep them CRLF. A diff's
// new file keeps its bytes exactly (a diff of a CRLF file creates a CRLF
// file); an apply_patch Add File is written with LF.
package patch
