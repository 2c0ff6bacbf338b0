package plan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Request is a write request: the RFC's fs_write with txedit's extensions.
// Pointer fields distinguish "absent" from the zero value.
type Request struct {
	// The single-file form: one edit (see [Edit]) of the file Path.
	Edit
	Path string `json:"path,omitempty"`

	FileEdits []FileEdit `json:"fileEdits,omitempty"`

	// pattern_replace fields (docs/cli.md, "Replacing across a tree").
	Directory       string   `json:"directory,omitempty"`
	FilePattern     string   `json:"file_pattern,omitempty"`
	SedPattern      string   `json:"sed_pattern,omitempty"`
	Recursive       *bool    `json:"recursive,omitempty"`
	ExcludePatterns []string `json:"exclude_patterns,omitempty"`
	Literal         bool     `json:"literal,omitempty"`
	Hidden          bool     `json:"hidden,omitempty"`
	NoIgnore        bool     `json:"no_ignore,omitempty"`

	DryRun bool  `json:"dry_run,omitempty"`
	Atomic *bool `json:"atomic,omitempty"`

	// Summary is a short human description recorded in the journal. The
	// chat CLI's fs_write sends one; txedit makes one up when it is empty.
	Summary string `json:"summary,omitempty"`
	// ProveRetries lets the journal prove a failed str_replace or line
	// edit already in effect (the same request sent again: the
	// transaction in effect on the file made exactly this change), which
	// is then already_applied, naming that transaction. Patches always
	// may (docs/patch-formats.md). Off for dialects whose tool answers a
	// repeated edit with its own failure (Claude Code, deepagents): the
	// command line and the txedit toolset set it.
	ProveRetries bool `json:"-"`
	// Dirs, if set, are directories the request changes beside its files
	// (a format whose operations name directories: an LSP WorkspaceEdit).
	Dirs *DirChanges `json:"-"`
	// Rebase lets an edit whose file-level content_hash (a whole-file
	// token) no longer matches be applied on top of what changed since,
	// when the version that hash names is known and the edit does not
	// touch the change (docs/design.md, "Concurrency"); without it a
	// content_hash is a compare-and-swap and a mismatch is stale_hash.
	Rebase bool `json:"rebase,omitempty"`
	// DeltaShown says that the caller shows the agent the Delta of a
	// stale_hash refusal (FileResult.Delta): a delta shown whole then
	// counts as the session's read of the file's current version, and a
	// cut one as a read of the region it shows (docs/design.md,
	// "Concurrency"). The toolsets that print the delta set it.
	DeltaShown bool `json:"-"`
}

// FileEdit is one entry of fileEdits: a file and its edits.
type FileEdit struct {
	Path string `json:"path"`
	// ContentHash is a precondition for all the file's edits: "HEX" for the
	// whole file or "HEX@S-E" for lines S..E.
	ContentHash string `json:"content_hash,omitempty"`
	Edits       []Edit `json:"edits"`
	// NoFollow: a symbolic link at Path (and at a move's new_path) is
	// the entry the edits are about, as in a git diff, where a link is an
	// entry of mode 120000 whose content is its target: a delete or move
	// takes the link, not what it leads to. Directories on the way are
	// followed. An edit with mode "120000" implies it. (Go library and
	// git diffs only; JSON requests do not carry it.)
	NoFollow bool `json:"-"`
}

// Edit is one edit command. Which fields apply depends on Command:
//
//	create        file_text, if_absent, mode
//	write         file_text, if_absent, mode
//	str_replace   old_str, new_str, replace_all, first
//	insert        insert_line, new_str, content_hash
//	append        new_str
//	append_text   new_str
//	replace_lines start_line, end_line, new_str, content_hash
//	patch         hunks, blocks, mode
//	text_edits    text_edits, position_encoding
//	delete        missing_ok
//	move, copy    new_path, overwrite
//
// create makes a file, or replaces an existing one's content keeping its
// line endings and BOM; write puts file_text's exact bytes, creating or
// replacing. append adds whole lines in the file's line endings;
// append_text adds new_str's exact bytes (and creates a missing file).
// str_replace with first replaces the first occurrence even when there are
// several (the result counts them).
//
// The native edit formats (docs/patch-formats.md) compile to these commands: patch
// places hunks by content (SEARCH/REPLACE blocks with blocks); if_absent
// refuses to replace a file that exists unless it already holds exactly
// file_text (then the edit is already applied); missing_ok makes deleting
// a missing file already applied when txedit's journal shows a transaction
// in effect deleted it (a retried patch), file_not_found otherwise; overwrite
// lets move and copy replace the destination (Codex's Move to); mode sets
// the permission bits ("100755", "0755"). text_edits applies an LSP
// TextDocumentEdit's edits, whose ranges all refer to the content the
// edits before it in the file left (positions in position_encoding,
// utf-16 by default; docs/lsp.md): an LSP WorkspaceEdit compiles to it.
type Edit struct {
	Command     string  `json:"command,omitempty"`
	FileText    *string `json:"file_text,omitempty"`
	OldStr      *string `json:"old_str,omitempty"`
	NewStr      *string `json:"new_str,omitempty"`
	ReplaceAll  bool    `json:"replace_all,omitempty"`
	First       bool    `json:"first,omitempty"`
	InsertLine  *int    `json:"insert_line,omitempty"`
	StartLine   *int    `json:"start_line,omitempty"`
	EndLine     *int    `json:"end_line,omitempty"`
	ContentHash string  `json:"content_hash,omitempty"`
	NewPath     string  `json:"new_path,omitempty"`
	Hunks       []Hunk  `json:"hunks,omitempty"`
	Blocks      bool    `json:"blocks,omitempty"`
	IfAbsent    bool    `json:"if_absent,omitempty"`
	MissingOK   bool    `json:"missing_ok,omitempty"`
	Overwrite   bool    `json:"overwrite,omitempty"`
	Mode        string  `json:"mode,omitempty"`
	// TextEdits and PositionEncoding are text_edits' (see [TextEdit]).
	TextEdits        []TextEdit `json:"text_edits,omitempty"`
	PositionEncoding string     `json:"position_encoding,omitempty"`
	// Binary is a patch's git binary patch (patch only; the formats of
	// docs/patch-formats.md compile to it, JSON requests do not carry it).
	Binary *BinaryPatch `json:"-"`
	// Rewrite, for create only and only from Go (a tool of the library;
	// not on the wire), computes file_text from the file's current bytes
	// (nil when it does not exist) instead of taking FileText: an edit
	// that is a pure function of the text, such as a tool's own list of
	// replacements applied in order. The engine may call it more than once
	// and on other versions of the file (a rebase on a version changed
	// since the session read it: docs/design.md, "Concurrency"), so it must
	// depend on its argument alone. Its error fails the edit with the
	// error's code. FileText may then be left nil.
	Rewrite func(cur []byte) (string, error) `json:"-"`
}

// IsAtomic reports the request's atomic setting (default true).
func (r *Request) IsAtomic() bool { return r.Atomic == nil || *r.Atomic }

// HasPattern reports whether the request carries pattern_replace fields.
func (r *Request) HasPattern() bool {
	return r.Command == "pattern_replace" || r.SedPattern != "" || r.FilePattern != "" || r.Directory != ""
}

// Parse decodes a request strictly: unknown fields, trailing data and
// mistyped values are refused with invalid_request. The batch field may also
// be spelt file_edits, as the RFC's branch schema spells it.
func Parse(data []byte) (*Request, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, Errorf(CodeInvalidRequest, "", "empty request: want a JSON object")
	}
	// Accept the snake_case spelling of fileEdits without loosening the
	// strict decoder for every other field.
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(data, &probe); err == nil {
		if fe, ok := probe["file_edits"]; ok {
			if _, both := probe["fileEdits"]; both {
				return nil, Errorf(CodeInvalidRequest, "", "both fileEdits and file_edits given")
			}
			delete(probe, "file_edits")
			probe["fileEdits"] = fe
			data, _ = json.Marshal(probe)
		}
	}
	var r Request
	if err := decodeStrict(data, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

func jsonMsg(err error) string {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "json: ")
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%s (at byte %d)", msg, se.Offset)
	}
	return msg
}
