// Package plan defines txedit's wire format and compiles write requests into
// per-file plans.
//
// A [Request] is the RFC's fs_write in any of its three forms: single-file
// (command + path), batch (fileEdits) and pattern_replace, plus txedit's
// extensions. [Parse] decodes it strictly: unknown fields are refused, so a
// misspelt option cannot be silently ignored. [Compile] validates it and
// produces a [Plan]: for every file, its operations in the order they apply:
//
//  1. create (at most one) sets the base content;
//  2. line edits (replace_lines, insert) refer to line numbers of the base
//     content and are applied as if from the bottom up, so none shifts
//     another; overlapping ranges fail with overlapping_edits; inserts at the
//     same line keep request order;
//  3. str_replace edits, in request order, each on the previous result;
//  4. append edits, in request order;
//  5. copy, move or delete of the file.
//
// Line numbers are 1-based and inclusive; insert_line N inserts after line
// N, and 0 inserts before the first line.
//
// The package is pure: no I/O. Failures are [*Error] values carrying a stable
// [Code].
package plan
