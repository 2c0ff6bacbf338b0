package plan

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// ReadRequest is an fs_read request (the batch-operations RFC).
type ReadRequest struct {
	Mode  string   `json:"mode"` // Line, Directory, Search, Image
	Path  string   `json:"path,omitempty"`
	Paths []string `json:"paths,omitempty"`
	// Line mode: 1-based, inclusive; negative counts from the end (-1 is
	// the last line). Defaults: 1 and -1.
	StartLine *int `json:"start_line,omitempty"`
	EndLine   *int `json:"end_line,omitempty"`
	// Directory mode: how many levels below the directory to list (0: its
	// own entries only).
	Depth *int `json:"depth,omitempty"`
	// Search mode: case-insensitive text, matched per line.
	Pattern      string `json:"pattern,omitempty"`
	ContextLines *int   `json:"context_lines,omitempty"` // default 2
	// Image mode.
	ImagePaths []string `json:"image_paths,omitempty"`
	Summary    string   `json:"summary,omitempty"`
}

// ParseRead decodes an fs_read request strictly.
func ParseRead(data []byte) (*ReadRequest, error) {
	var r ReadRequest
	if err := decodeStrict(data, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

func decodeStrict(data []byte, v any) error {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return Errorf(CodeInvalidRequest, "", "empty request: want a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return &Error{Code: CodeInvalidRequest, Index: NoEdit, Msg: "bad request JSON: " + jsonMsg(err), Err: err}
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Errorf(CodeInvalidRequest, "", "bad request JSON: trailing data after the object")
	}
	return nil
}

// ReadResult is the result for one path of an fs_read request.
type ReadResult struct {
	Path    string `json:"path"`
	Success bool   `json:"success"`
	Content string `json:"content,omitempty"`
	// ContentHash covers what Content holds: "HEX" for a whole file,
	// "HEX@S-E" for a line window. FileHash is always the whole file's.
	ContentHash  string `json:"content_hash,omitempty"`
	FileHash     string `json:"file_hash,omitempty"`
	LastModified string `json:"last_modified,omitempty"`
	// Line mode: the window returned and the file's line count.
	StartLine  int `json:"start_line,omitempty"`
	EndLine    int `json:"end_line,omitempty"`
	TotalLines int `json:"total_lines,omitempty"`
	// Directory mode.
	Entries []*DirEntry `json:"entries,omitempty"`
	// Search mode.
	Matches []*Match `json:"matches,omitempty"`
	// Image mode.
	Images []*Image `json:"images,omitempty"`
	// Warning tells about content that JSON cannot carry faithfully.
	Warning string `json:"warning,omitempty"`
	Code    Code   `json:"code,omitempty"`
	Error   string `json:"error,omitempty"`
}

// DirEntry is one entry of a directory listing.
type DirEntry struct {
	Path     string    `json:"path"` // root-relative, "/"
	Name     string    `json:"name"`
	Kind     EntryKind `json:"kind"`
	Size     int64     `json:"size"`
	Mode     string    `json:"mode"` // e.g. "-rw-r--r--"
	Modified string    `json:"modified"`
	Target   string    `json:"target,omitempty"` // a symlink's target
}

// EntryKind is what a directory entry is ([DirEntry.Kind]).
type EntryKind string

// The kinds of directory entry.
const (
	KindFile    EntryKind = "file"
	KindDir     EntryKind = "dir"
	KindSymlink EntryKind = "symlink"
	KindOther   EntryKind = "other" // a device, socket or named pipe
)

// Image is base64 image data with its media type.
type Image struct {
	Path      string `json:"path"`
	Data      string `json:"data"`
	MediaType string `json:"media_type"`
}

// Match is one matching line with its context.
type Match struct {
	Path   string   `json:"path"`
	Line   int      `json:"line"`
	Text   string   `json:"text"`
	Before []string `json:"before,omitempty"`
	After  []string `json:"after,omitempty"`
}

// GrepRequest is the txedit toolset's grep (seed 002's Grep arguments).
type GrepRequest struct {
	Pattern    string     `json:"pattern"`
	Path       string     `json:"path,omitempty"`
	Glob       string     `json:"glob,omitempty"`
	Globs      []string   `json:"globs,omitempty"`
	Type       string     `json:"type,omitempty"`
	OutputMode OutputMode `json:"output_mode,omitempty"` // OutputFiles when empty
	Before     int        `json:"-B,omitempty"`
	After      int        `json:"-A,omitempty"`
	Context    int        `json:"-C,omitempty"`
	LineNums   *bool      `json:"-n,omitempty"`
	IgnoreCase bool       `json:"-i,omitempty"`
	HeadLimit  int        `json:"head_limit,omitempty"`
	Multiline  bool       `json:"multiline,omitempty"`
	Invert     bool       `json:"invert_match,omitempty"` // select lines that do not match
	Literal    bool       `json:"literal,omitempty"`
	Hidden     bool       `json:"hidden,omitempty"`
	NoIgnore   bool       `json:"no_ignore,omitempty"`
	// Sort orders the files: "path" (the default) or "modified", newest
	// first and ties by path (as `ls -t` orders the files rg -l lists;
	// rg --sortr modified sorts each directory's entries as it walks).
	Sort string `json:"sort,omitempty"`
	// RequireGit applies .gitignore files only inside a git repository,
	// as ripgrep does (a .ignore applies everywhere). Not part of any
	// dialect's arguments: a toolset sets it.
	RequireGit bool `json:"-"`
}

// OutputMode is what a grep reports ([GrepRequest.OutputMode],
// [GrepResult.Mode]).
type OutputMode string

// The output modes of grep.
const (
	OutputFiles   OutputMode = "files_with_matches" // the files that match (the default)
	OutputContent OutputMode = "content"            // the matching lines, with context
	OutputCount   OutputMode = "count"              // each file's number of matching lines
)

// Count is a file's number of matching lines.
type Count struct {
	Path  string `json:"path"`
	Count int    `json:"count"`
}

// GrepResult is grep's result. Paths are root-relative with "/".
type GrepResult struct {
	Success   bool       `json:"success"`
	Mode      OutputMode `json:"mode"`
	Files     []string   `json:"files"`
	Counts    []*Count   `json:"counts"`
	Matches   []*Match   `json:"matches"`
	Truncated bool       `json:"truncated"`
	Code      Code       `json:"code,omitempty"`
	Error     string     `json:"error,omitempty"`
}

// GlobResult is glob's result: matching files sorted by path.
type GlobResult struct {
	Success   bool     `json:"success"`
	Files     []string `json:"files"`
	Truncated bool     `json:"truncated,omitempty"`
	Code      Code     `json:"code,omitempty"`
	Error     string   `json:"error,omitempty"`
}
