package patch

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/txedit/txedit/apply"
	"github.com/txedit/txedit/plan"
)

// Format names an edit format.
type Format string

// The formats. FormatAuto asks Parse to detect the format.
const (
	FormatAuto          Format = "auto"
	FormatJSON          Format = "json"           // a txedit JSON request: plan.Parse reads it
	FormatApplyPatch    Format = "apply_patch"    // Codex's *** Begin Patch envelope
	FormatResponses     Format = "responses"      // OpenAI Responses apply_patch_call operations
	FormatDiff          Format = "diff"           // unified and git diffs
	FormatSearchReplace Format = "search_replace" // Aider and Cline SEARCH/REPLACE blocks
	FormatLSP           Format = "lsp"            // an LSP WorkspaceEdit (CompileWith; docs/lsp.md)
)

// Formats lists the formats a user may name, FormatAuto first.
var Formats = []Format{FormatAuto, FormatJSON, FormatApplyPatch, FormatResponses, FormatDiff, FormatSearchReplace, FormatLSP}

// ParseFormat returns the format named s ("" means auto).
func ParseFormat(s string) (Format, error) {
	if s == "" {
		return FormatAuto, nil
	}
	for _, f := range Formats {
		if string(f) == s {
			return f, nil
		}
	}
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = string(f)
	}
	return "", plan.Errorf(plan.CodeInvalidRequest, "", "unknown format %q: use one of %s", s, strings.Join(names, ", "))
}

// Op is what a File does.
type Op string

// The file operations.
const (
	// OpAdd creates the file with Content. When Overwrite is set an existing
	// file is replaced (Codex's rule); otherwise (a diff's new file) an
	// existing file with the same content means the change was already
	// made, and with other content is a conflict.
	OpAdd Op = "add"
	// OpDelete removes the file. A diff's deletion carries the hunks that
	// remove its lines: applying them must leave the file empty, which
	// checks the file is what the diff expected.
	OpDelete Op = "delete"
	// OpUpdate applies Hunks to the file, then moves it to MoveTo if set
	// (an existing file there is replaced, as Codex does). Hunks may be
	// empty for a pure rename or mode change.
	OpUpdate Op = "update"
)

// File is one file's change, the same whatever the format it came from.
type File struct {
	Op   Op
	Path string
	// MoveTo is the new path of a renamed file (OpUpdate), or "".
	MoveTo string
	// Content is the whole new content of an OpAdd, exact bytes.
	Content []byte
	// Overwrite: an OpAdd replaces an existing file (apply_patch,
	// responses).
	Overwrite bool
	// Hunks are the changes of an OpUpdate (and the removed lines of a
	// diff's OpDelete), located by content; see apply.ApplyHunks.
	Hunks []plan.Hunk
	// Blocks: the hunks are SEARCH/REPLACE blocks, applied one after
	// another anywhere in the file (apply.ApplyBlocks) rather than in
	// order.
	Blocks bool
	// CreateIfMissing: the file's first block has an empty SEARCH, so a
	// missing file is created by applying the blocks to no content.
	CreateIfMissing bool
	// OldMode and NewMode are git's modes ("100644", "100755", "120000"
	// for a symbolic link) when the diff states them.
	OldMode, NewMode string
	// Binary is a git diff's binary patch of an OpUpdate or OpDelete (an
	// OpAdd's literal is its Content).
	Binary *plan.BinaryPatch
	// Git: the section is a git diff's, where a path names an entry (a
	// symbolic link is one, of mode 120000, its content its target) and
	// is not followed (plan.FileEdit.NoFollow).
	Git bool
	// Line is the 1-based line of the input where the file's section
	// starts, for messages (0 for a Responses operation).
	Line int
}

// Apply applies f's hunks to content, the file's current bytes (nil when
// it does not exist), as f's format means them: in order for apply_patch
// and diffs, one block after another for SEARCH/REPLACE. For an OpAdd it
// returns f.Content, already applied when content is the same; for an
// OpDelete without hunks, empty content.
func (f *File) Apply(content []byte) *apply.HunkOutcome {
	switch {
	case f.Op == OpAdd:
		return &apply.HunkOutcome{Content: f.Content, AlreadyApplied: content != nil && bytes.Equal(content, f.Content)}
	case f.Binary != nil:
		return apply.ApplyBinary(f.Path, content, f.Binary)
	case f.Op == OpDelete && len(f.Hunks) == 0:
		return &apply.HunkOutcome{}
	case f.Blocks:
		return apply.ApplyBlocks(f.Path, content, f.Hunks)
	}
	return apply.ApplyHunks(f.Path, content, f.Hunks)
}

// Parse parses input in format f (FormatAuto detects it) into the files it
// changes, in input order. A path may appear in several files (a diff
// naming a file twice, an apply_patch updating it twice): each applies to
// the result of the ones before. Every error is a *plan.Error with code
// invalid_request whose message names the input line.
func Parse(f Format, input []byte) ([]*File, error) {
	if f == FormatAuto || f == "" {
		f = Detect(input)
	}
	switch f {
	case FormatApplyPatch:
		return parseApplyPatch(input)
	case FormatResponses:
		return parseResponses(input)
	case FormatDiff:
		return parseUnified(input)
	case FormatSearchReplace:
		return parseSearchReplace(input)
	case FormatJSON:
		return nil, plan.Errorf(plan.CodeInvalidRequest, "", "the input is a JSON request, which plan.Parse reads, not an edit format")
	case FormatLSP:
		return nil, errNeedsTree()
	case "":
		return nil, plan.Errorf(plan.CodeInvalidRequest, "", "cannot tell the input's format: expected a JSON request, an apply_patch envelope (*** Begin Patch … *** End Patch), a unified diff (---, +++ and @@ lines) or SEARCH/REPLACE blocks (<<<<<<< SEARCH, =======, >>>>>>> REPLACE)")
	}
	return nil, plan.Errorf(plan.CodeInvalidRequest, "", "unknown format %q", f)
}

func errNeedsTree() *plan.Error {
	return plan.Errorf(plan.CodeInvalidRequest, "", "the input is an LSP WorkspaceEdit, which compiles against the workspace: use CompileWith (or CompileLSP) with a Tree")
}

// lines splits input into lines without "\n", dropping the empty piece
// after a final newline and a leading BOM. A "\r" before the "\n" is kept:
// a patch's lines may carry their own line ends (a git diff of a CRLF file),
// and the lines of such a patch are applied byte for byte
// (docs/patch-formats.md, "Line ends"). Unless every line ends in "\r\n",
// the patch's own lines (headers, markers) too: then the CRs are how the
// patch was carried (saved on Windows, pasted through a terminal), not
// its content, and they are removed.
func lines(input []byte) []string {
	s := strings.TrimPrefix(string(input), "\ufeff")
	if s == "" {
		return nil
	}
	carried := crlfCarried(s)
	ls := strings.Split(s, "\n")
	if ls[len(ls)-1] == "" {
		ls = ls[:len(ls)-1]
	}
	if carried {
		for i, l := range ls {
			ls[i] = strings.TrimSuffix(l, "\r")
		}
	}
	return ls
}

// crlfCarried reports whether every line break of s is CRLF.
func crlfCarried(s string) bool {
	n := strings.Count(s, "\n")
	return n > 0 && strings.Count(s, "\r\n") == n
}

// errAt reports a malformed input at 1-based line n.
func errAt(n int, path, format string, args ...any) *plan.Error {
	return plan.Errorf(plan.CodeInvalidRequest, path, "line %d: %s", n, fmt.Sprintf(format, args...))
}

// clip shortens s for a message.
func clip(s string) string {
	if len(s) <= 60 {
		return s
	}
	n := 57
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
