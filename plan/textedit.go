package plan

import (
	"fmt"
	"strings"
)

// PositionEncoding says what the character of an LSP position counts
// (docs/lsp.md, "Positions").
type PositionEncoding string

// The position encodings of LSP 3.17. UTF-16 is the protocol's default.
const (
	EncodingUTF8  PositionEncoding = "utf-8"  // bytes
	EncodingUTF16 PositionEncoding = "utf-16" // UTF-16 code units
	EncodingUTF32 PositionEncoding = "utf-32" // code points
)

// ParsePositionEncoding returns the encoding named s ("" is utf-16, the
// protocol's default).
func ParsePositionEncoding(s string) (PositionEncoding, error) {
	switch e := PositionEncoding(strings.ToLower(s)); e {
	case "":
		return EncodingUTF16, nil
	case EncodingUTF8, EncodingUTF16, EncodingUTF32:
		return e, nil
	}
	return "", Errorf(CodeInvalidRequest, "", "unknown position encoding %q: use utf-8, utf-16 or utf-32", s)
}

// Position is an LSP position: a 0-based line and a 0-based character
// offset in it, counted in the edit's encoding.
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

func (p Position) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Character) }

// Range is an LSP range: from Start up to End, which is not included.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

func (r Range) String() string { return r.Start.String() + "-" + r.End.String() }

// TextEdit is one edit of an LSP TextDocumentEdit: a range of the
// document, in the edit's position encoding, and the exact text that
// replaces it (an empty range inserts).
type TextEdit struct {
	Range   Range  `json:"range"`
	NewText string `json:"newText"`
	// Where names the edit in messages, as its input gave it
	// ("documentChanges[2].edits[0]"); empty, its index in the list.
	Where string `json:"-"`
}

// DirChanges are the directories a request's format changes beside its
// files, in the same transaction: an LSP WorkspaceEdit's rename or delete
// of a directory (docs/lsp.md). Paths are relative to the root,
// slash-separated, as the engine resolves them.
type DirChanges struct {
	// Make lists directories that exist once the transaction commits
	// (a renamed directory at its new name), parents first.
	Make []DirMake
	// Remove lists directories the transaction removes, if they end up
	// empty (a renamed directory at its old name, a deleted one).
	Remove []string
	// KeepParents keeps the directories that the transaction's deletes
	// and moves empty, unless Remove names them (rename(2)'s rule, and
	// LSP's: deleting a file leaves its directory). Without it they go,
	// as git removes them.
	KeepParents bool
}

// DirMake is a directory to make: Path, with the mode and owner of the
// directory ModeOf as it is before the transaction ("" for the default).
type DirMake struct {
	Path   string
	ModeOf string
}
