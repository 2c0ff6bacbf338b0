package plan

import (
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/txedit/txedit/hash"
)

// Command is an edit command.
type Command string

// The edit commands.
const (
	Create       Command = "create"
	Write        Command = "write"
	StrReplace   Command = "str_replace"
	Insert       Command = "insert"
	Append       Command = "append"
	AppendText   Command = "append_text"
	Patch        Command = "patch"
	ReplaceLines Command = "replace_lines"
	Delete       Command = "delete"
	Move         Command = "move"
	Copy         Command = "copy"
	TextEdits    Command = "text_edits"
)

// commandNamed is the command of that wire name, or "" (a switch, not a
// package-level map: docs/design.md, "Process start").
func commandNamed(name string) Command {
	switch c := Command(name); c {
	case Create, Write, StrReplace, Insert, Append, AppendText, Patch, ReplaceLines, Delete, Move, Copy, TextEdits:
		return c
	}
	return ""
}

// Op is one validated edit.
type Op struct {
	Index   int // position in its file's edit list
	Command Command
	Text    string // file_text or new_str
	Old     string // old_str
	All     bool   // replace_all
	First   bool   // str_replace: the first of several occurrences
	// patch: the hunks, placed by content; Blocks: as SEARCH/REPLACE;
	// or a git binary patch.
	Hunks  []Hunk
	Blocks bool
	Binary *BinaryPatch
	// IfAbsent (create, write), MissingOK (delete), Overwrite (move,
	// copy): see [Edit].
	IfAbsent, MissingOK, Overwrite bool
	// Start and End: replace_lines covers lines Start..End; insert has
	// Start = End = insert_line.
	Start, End int
	Hash       *hash.Token // edit-level precondition, if any
	NewPath    string      // move, copy
	// text_edits: the edits and the encoding of their positions.
	TextEdits []TextEdit
	Encoding  PositionEncoding
	// Rewrite computes a create's text from the file's current bytes
	// (see [Edit].Rewrite).
	Rewrite func(cur []byte) (string, error)
}

// FileOps is the compiled plan of one file: its operations grouped in the
// order they apply.
type FileOps struct {
	Entry int    // position in fileEdits (0 for the single-file form)
	Path  string // as the request named it
	// ProveRetries: see Request.ProveRetries.
	ProveRetries bool
	// Rebase: see Request.Rebase.
	Rebase bool
	Hash   *hash.Token
	// NumEdits is the number of edits the request gave for the file.
	NumEdits int
	// Create is the create or write that sets the base content.
	Create *Op
	// Patches are the patch and text_edits edits, in request order, each
	// placed in the result of the ones before (after Create, before the
	// line edits).
	Patches     []*Op
	LineEdits   []*Op // ascending by position; see [FileOps.LineEdits]
	StrReplaces []*Op
	Appends     []*Op // append and append_text, in request order
	Final       *Op   // copy, move or delete
	// Mode, if set, is the permission bits the file gets, or
	// fs.ModeSymlink|0o777: it becomes (or stays) a symbolic link whose
	// target is its content (IsLink).
	Mode *fs.FileMode
	// NoFollow: see FileEdit.NoFollow (true also when Mode is a link's).
	NoFollow bool
	// Invalid holds validation failures of individual edits. The edits
	// listed here are not in the groups above.
	Invalid []*Error
}

// IsLink reports whether f's edits make the file a symbolic link.
func (f *FileOps) IsLink() bool { return f.Mode != nil && *f.Mode&fs.ModeSymlink != 0 }

// TextEdits reports whether the file has edits that need text content
// (a binary patch does not).
func (f *FileOps) TextEdits() bool {
	if len(f.LineEdits)+len(f.StrReplaces)+len(f.Appends) > 0 {
		return true
	}
	for _, op := range f.Patches {
		if op.Binary == nil {
			return true
		}
	}
	return false
}

// Positional reports whether the file's edits name positions in the
// content they were planned on (text_edits): on other content they would
// land elsewhere, so a file changed meanwhile is refused, never planned
// again.
func (f *FileOps) Positional() bool {
	for _, op := range f.Patches {
		if op.Command == TextEdits {
			return true
		}
	}
	return false
}

// Plan is a compiled request.
type Plan struct {
	Files   []*FileOps
	Atomic  bool
	DryRun  bool
	Summary string
	// Pattern is the request's pattern_replace part, or nil.
	Pattern *Pattern
}

// Pattern is the pattern_replace part of a request (docs/cli.md, "Replacing across a tree").
type Pattern struct {
	Directory       string
	FilePattern     string
	SedPattern      string
	Recursive       bool
	ExcludePatterns []string
	Literal         bool
	Hidden          bool
	NoIgnore        bool
}

// Compile validates r and groups each file's edits in plan order. A request
// that is malformed as a whole returns an *Error; a malformed edit is
// recorded in its file's Invalid list, so every problem is reported at once.
func Compile(r *Request) (*Plan, error) {
	p := &Plan{Atomic: r.IsAtomic(), DryRun: r.DryRun, Summary: r.Summary}
	single := r.Path != "" || r.FileText != nil || r.OldStr != nil || r.NewStr != nil ||
		r.InsertLine != nil || r.StartLine != nil || r.EndLine != nil || r.ContentHash != "" ||
		r.NewPath != "" || r.ReplaceAll || r.First
	switch {
	case len(r.FileEdits) > 0:
		if single && r.Command != "pattern_replace" {
			return nil, Errorf(CodeInvalidRequest, "", "give either fileEdits or the single-file fields (path, old_str, …), not both")
		}
		if r.Command != "" && r.Command != "pattern_replace" && commandNamed(r.Command) == "" {
			return nil, Errorf(CodeInvalidRequest, "", "unknown command %q", r.Command)
		}
		for i, fe := range r.FileEdits {
			p.Files = append(p.Files, compileFile(i, fe))
		}
	case r.Command == "pattern_replace" || (r.Command == "" && r.HasPattern()):
		if single {
			return nil, Errorf(CodeInvalidRequest, "", "pattern_replace takes directory, file_pattern and sed_pattern, not path or edit fields")
		}
	case r.Command == "":
		return nil, Errorf(CodeInvalidRequest, "", "missing command (one of create, str_replace, insert, append, replace_lines, delete, move, copy, pattern_replace) or fileEdits")
	default:
		if commandNamed(r.Command) == "" {
			return nil, Errorf(CodeInvalidRequest, "", "unknown command %q", r.Command)
		}
		if r.Path == "" {
			return nil, Errorf(CodeInvalidRequest, "", "command %s needs path", r.Command)
		}
		fe := FileEdit{Path: r.Path, Edits: []Edit{r.Edit}}
		if cmd := commandNamed(r.Command); r.ContentHash != "" && !allowedFields()[cmd]["content_hash"] {
			// The single form's content_hash is, as the tool's schema
			// says, the precondition of the file: for a command whose
			// edit takes no hash of its own (str_replace, delete, …) it
			// is the file's, as fileEdits[].content_hash would be.
			fe.ContentHash, fe.Edits[0].ContentHash = r.ContentHash, ""
		}
		p.Files = append(p.Files, compileFile(0, fe))
	}
	if r.HasPattern() {
		pat, err := compilePattern(r)
		if err != nil {
			return nil, err
		}
		p.Pattern = pat
	}
	if len(p.Files) == 0 && p.Pattern == nil && (r.Dirs == nil || len(r.Dirs.Make)+len(r.Dirs.Remove) == 0) {
		return nil, Errorf(CodeInvalidRequest, "", "request has no edits")
	}
	for _, f := range p.Files {
		f.ProveRetries, f.Rebase = r.ProveRetries, r.Rebase
	}
	return p, nil
}

func compilePattern(r *Request) (*Pattern, error) {
	if r.SedPattern == "" {
		return nil, Errorf(CodeInvalidRequest, "", "pattern_replace needs sed_pattern")
	}
	if r.FilePattern == "" {
		return nil, Errorf(CodeInvalidRequest, "", "pattern_replace needs file_pattern (use \"*\" for every file)")
	}
	return &Pattern{
		Directory: r.Directory, FilePattern: r.FilePattern, SedPattern: r.SedPattern,
		Recursive: r.Recursive == nil || *r.Recursive, ExcludePatterns: r.ExcludePatterns,
		Literal: r.Literal, Hidden: r.Hidden, NoIgnore: r.NoIgnore,
	}, nil
}

func compileFile(entry int, fe FileEdit) *FileOps {
	f := &FileOps{Entry: entry, Path: fe.Path, NumEdits: len(fe.Edits), NoFollow: fe.NoFollow}
	bad := func(i int, cmd string, code Code, format string, args ...any) {
		f.Invalid = append(f.Invalid, EditErrorf(code, fe.Path, i, cmd, format, args...))
	}
	if fe.Path == "" {
		bad(NoEdit, "", CodeInvalidRequest, "fileEdits entry %d has no path", entry)
		return f
	}
	if strings.ContainsRune(fe.Path, 0) {
		bad(NoEdit, "", CodeInvalidRequest, "path contains a NUL byte")
		return f
	}
	if len(fe.Edits) == 0 {
		bad(NoEdit, "", CodeInvalidRequest, "no edits for this file")
		return f
	}
	if fe.ContentHash != "" {
		tok, err := hash.ParseToken(fe.ContentHash)
		if err != nil {
			bad(NoEdit, "", CodeInvalidRequest, "file content_hash: %v", err)
		} else {
			f.Hash = &tok
		}
	}
	var lineEdits []*Op
	for i, e := range fe.Edits {
		op, msg := compileEdit(i, e)
		if msg != "" {
			bad(i, e.Command, CodeInvalidRequest, "%s", msg)
			continue
		}
		switch op.Command {
		case Create, Write:
			if f.Create != nil {
				bad(i, e.Command, CodeInvalidRequest, "a file takes at most one create or write (edit %d is one)", f.Create.Index)
				continue
			}
			f.Create = op
		case Insert, ReplaceLines:
			lineEdits = append(lineEdits, op)
		case StrReplace:
			f.StrReplaces = append(f.StrReplaces, op)
		case Append, AppendText:
			f.Appends = append(f.Appends, op)
		case Patch, TextEdits:
			f.Patches = append(f.Patches, op)
		default: // Delete, Move, Copy
			if f.Final != nil {
				bad(i, e.Command, CodeInvalidRequest, "a file takes at most one of copy, move and delete (edit %d is %s)", f.Final.Index, f.Final.Command)
				continue
			}
			f.Final = op
		}
	}
	if f.Final != nil && f.Final.Command == Delete && f.NumEdits > 1+len(f.Patches) {
		// (A diff's deleted file carries hunks that must empty it.)
		bad(f.Final.Index, string(Delete), CodeInvalidRequest, "delete cannot be combined with other edits of the same file")
		f.Final = nil
	}
	for i, e := range fe.Edits {
		if e.Mode == "" {
			continue
		}
		m, err := parseMode(e.Mode)
		if err != nil {
			bad(i, e.Command, CodeInvalidRequest, "mode %q: %v", e.Mode, err)
			continue
		}
		f.Mode = &m
		f.NoFollow = f.NoFollow || m&fs.ModeSymlink != 0
	}
	f.LineEdits = orderLineEdits(lineEdits, func(op, prev *Op) {
		f.Invalid = append(f.Invalid, EditErrorf(CodeOverlappingEdits, fe.Path, op.Index, string(op.Command),
			"%s overlaps edit %d (%s)", describe(op), prev.Index, describe(prev)))
	})
	sort.Slice(f.Invalid, func(i, j int) bool { return f.Invalid[i].Index < f.Invalid[j].Index })
	return f
}

func describe(op *Op) string {
	if op.Command == Insert {
		return fmt.Sprintf("insert after line %d", op.Start)
	}
	return fmt.Sprintf("lines %d-%d", op.Start, op.End)
}

// allowedFields are the optional fields each command takes.
var allowedFields = sync.OnceValue(func() map[Command]map[string]bool {
	m := map[Command]map[string]bool{}
	for cmd, names := range map[Command]string{
		Create: "file_text if_absent mode", Write: "file_text if_absent mode", StrReplace: "old_str new_str replace_all first", Insert: "insert_line new_str content_hash",
		Append: "new_str", AppendText: "new_str", ReplaceLines: "start_line end_line new_str content_hash", Delete: "missing_ok", Move: "new_path overwrite", Copy: "new_path overwrite",
		Patch: "hunks blocks mode", TextEdits: "text_edits position_encoding",
	} {
		m[cmd] = map[string]bool{}
		for _, n := range strings.Fields(names) {
			m[cmd][n] = true
		}
	}
	return m
})

// compileEdit validates one edit and returns it as an Op, or a message:
// the command, the fields it takes, the content hash, then each command's
// own fields.
func compileEdit(i int, e Edit) (*Op, string) {
	cmd, msg := editCommand(e.Command)
	if msg != "" {
		return nil, msg
	}
	present := presentFields(e)
	if msg := present.extra(cmd); msg != "" {
		return nil, msg
	}
	op := &Op{Index: i, Command: cmd}
	if e.ContentHash != "" {
		tok, err := hash.ParseToken(e.ContentHash)
		if err != nil {
			return nil, "content_hash: " + err.Error()
		}
		op.Hash = &tok
	}
	if msg := op.takeFields(e, present); msg != "" {
		return nil, msg
	}
	return op, ""
}

// editCommand returns the command an edit names, or a message.
func editCommand(name string) (Command, string) {
	cmd := commandNamed(name)
	switch {
	case cmd != "":
		return cmd, ""
	case name == "":
		return cmd, "missing command"
	case name == "pattern_replace":
		return cmd, "pattern_replace is a request-level command, not an edit"
	}
	return cmd, fmt.Sprintf("unknown command %q", name)
}

// fields says which of an edit's optional fields are set, by wire name.
type fields []struct {
	name string
	set  bool
}

func presentFields(e Edit) fields {
	return fields{
		{"file_text", e.FileText != nil}, {"old_str", e.OldStr != nil}, {"new_str", e.NewStr != nil},
		{"replace_all", e.ReplaceAll}, {"first", e.First}, {"insert_line", e.InsertLine != nil}, {"start_line", e.StartLine != nil},
		{"end_line", e.EndLine != nil}, {"content_hash", e.ContentHash != ""}, {"new_path", e.NewPath != ""},
		{"hunks", e.Hunks != nil}, {"blocks", e.Blocks}, {"if_absent", e.IfAbsent}, {"missing_ok", e.MissingOK}, {"overwrite", e.Overwrite}, {"mode", e.Mode != ""},
		{"text_edits", e.TextEdits != nil}, {"position_encoding", e.PositionEncoding != ""},
	}
}

// extra refuses fields that do not belong to the command: an agent that
// sends insert_line with str_replace has misunderstood something, and
// guessing which it meant is how edits land in the wrong place.
func (present fields) extra(cmd Command) string {
	var extra []string
	for _, f := range present {
		if f.set && !allowedFields()[cmd][f.name] {
			extra = append(extra, f.name)
		}
	}
	if len(extra) > 0 {
		return fmt.Sprintf("%s does not take %s", cmd, strings.Join(extra, ", "))
	}
	return ""
}

// need returns a message if the field name is missing, else "".
func (present fields) need(cmd Command, name string) string {
	for _, f := range present {
		if f.name == name && !f.set {
			return fmt.Sprintf("%s needs %s", cmd, name)
		}
	}
	return ""
}

// takeFields checks and copies the fields of op's command from e.
func (op *Op) takeFields(e Edit, present fields) string {
	cmd := op.Command
	need := func(name string) string { return present.need(cmd, name) }
	switch cmd {
	case Create, Write:
		if e.Rewrite != nil {
			if cmd != Create || e.IfAbsent {
				return "a rewrite is a create of an existing file's new text, without if_absent"
			}
			op.Rewrite = e.Rewrite
			if e.FileText != nil {
				op.Text = *e.FileText
			}
			break
		}
		if m := need("file_text"); m != "" {
			return m
		}
		op.Text, op.IfAbsent = *e.FileText, e.IfAbsent
	case Patch:
		if len(e.Hunks) == 0 && e.Mode == "" && e.Binary == nil {
			return "patch needs hunks (or, for a mode change alone, mode)"
		}
		if e.Binary != nil && len(e.Hunks) > 0 {
			return "a patch is hunks or a binary patch, not both"
		}
		op.Hunks, op.Blocks, op.Binary = e.Hunks, e.Blocks, e.Binary
	case Delete:
		op.MissingOK = e.MissingOK
	case TextEdits:
		return op.takeTextEdits(e)
	case StrReplace:
		if m := need("old_str") + need("new_str"); m != "" {
			return m
		}
		if *e.OldStr == "" {
			return "old_str is empty: give the exact text to replace (use create to write a whole file)"
		}
		if e.ReplaceAll && e.First {
			return "replace_all and first contradict each other: give one"
		}
		op.Old, op.Text, op.All, op.First = *e.OldStr, *e.NewStr, e.ReplaceAll, e.First
	case Insert:
		if m := need("insert_line") + need("new_str"); m != "" {
			return m
		}
		if *e.InsertLine < 0 {
			return fmt.Sprintf("insert_line %d is negative: lines are 1-based and 0 inserts before the first line", *e.InsertLine)
		}
		op.Start, op.End, op.Text = *e.InsertLine, *e.InsertLine, *e.NewStr
		if op.Hash != nil && op.Hash.IsRange() && (op.Start < op.Hash.Start-1 || op.Start > op.Hash.End) {
			return fmt.Sprintf("insert_line %d lies outside the range %d-%d its content_hash covers", op.Start, op.Hash.Start, op.Hash.End)
		}
	case Append, AppendText:
		if m := need("new_str"); m != "" {
			return m
		}
		op.Text = *e.NewStr
	case ReplaceLines:
		if m := need("start_line") + need("end_line") + need("new_str"); m != "" {
			return m
		}
		op.Start, op.End, op.Text = *e.StartLine, *e.EndLine, *e.NewStr
		if op.Start < 1 || op.End < op.Start {
			return fmt.Sprintf("start_line %d, end_line %d: want 1 <= start_line <= end_line (1-based, inclusive)", op.Start, op.End)
		}
		if op.Hash != nil && op.Hash.IsRange() && (op.Start < op.Hash.Start || op.End > op.Hash.End) {
			return fmt.Sprintf("lines %d-%d lie outside the range %d-%d their content_hash covers", op.Start, op.End, op.Hash.Start, op.Hash.End)
		}
	case Move, Copy:
		if m := need("new_path"); m != "" {
			return m
		}
		if strings.ContainsRune(e.NewPath, 0) {
			return "new_path contains a NUL byte"
		}
		op.NewPath, op.Overwrite = e.NewPath, e.Overwrite
	}
	return ""
}

// takeTextEdits checks a text_edits edit's encoding and ranges (each
// start before its end, nothing negative); where the positions fall is
// apply's to check, on the content.
func (op *Op) takeTextEdits(e Edit) string {
	if e.TextEdits == nil {
		return "text_edits needs text_edits (an empty list changes nothing)"
	}
	enc, err := ParsePositionEncoding(e.PositionEncoding)
	if err != nil {
		return err.(*Error).Msg
	}
	for i, te := range e.TextEdits {
		r := te.Range
		where := te.Where
		if where == "" {
			where = fmt.Sprintf("text_edits[%d]", i)
		}
		if r.Start.Line < 0 || r.Start.Character < 0 || r.End.Line < 0 || r.End.Character < 0 {
			return fmt.Sprintf("%s: range %s has a negative line or character (they are 0-based)", where, r)
		}
		if r.End.Line < r.Start.Line || r.End.Line == r.Start.Line && r.End.Character < r.Start.Character {
			return fmt.Sprintf("%s: range %s ends before it starts", where, r)
		}
	}
	op.TextEdits, op.Encoding = e.TextEdits, enc
	return ""
}

// parseMode reads a permission mode as git writes it ("100755"; "120000"
// is a symbolic link) or as octal ("0755", "755").
func parseMode(s string) (fs.FileMode, error) {
	n, err := strconv.ParseUint(s, 8, 32)
	if err != nil {
		return 0, fmt.Errorf("want octal permission bits such as 0644 or git's 100755")
	}
	if n == 0o120000 {
		return fs.ModeSymlink | 0o777, nil
	}
	if n > 0o777 {
		if n>>9 != 0o100 { // git: 100644, 100755
			return 0, fmt.Errorf("only regular file modes (100644, 100755) and symbolic links (120000) are supported")
		}
		n &= 0o777
	}
	return fs.FileMode(n), nil
}

// orderLineEdits sorts line edits by where they apply in the base content
// and drops those that overlap an earlier one (by request order), reporting
// each through overlap.
//
// Positions: insert after line N sits at the boundary between lines N and
// N+1; replace_lines S..E covers the lines between boundaries S-1 and E. An
// insert at a range's edge (N = S-1 or N = E) touches it but does not
// overlap; an insert strictly inside does. At one boundary inserts come
// before a range that starts there and keep their request order.
func orderLineEdits(ops []*Op, overlap func(op, prev *Op)) []*Op {
	var kept []*Op
	for _, op := range ops {
		var clash *Op
		for _, k := range kept {
			if overlaps(op, k) {
				clash = k
				break
			}
		}
		if clash != nil {
			overlap(op, clash)
			continue
		}
		kept = append(kept, op)
	}
	sort.SliceStable(kept, func(i, j int) bool {
		a, b := kept[i], kept[j]
		ka, kb := startBoundary(a), startBoundary(b)
		if ka != kb {
			return ka < kb
		}
		// At the same boundary: inserts first, in request order.
		return a.Command == Insert && b.Command != Insert
	})
	return kept
}

func startBoundary(op *Op) int {
	if op.Command == Insert {
		return op.Start
	}
	return op.Start - 1
}

func overlaps(a, b *Op) bool {
	switch {
	case a.Command == Insert && b.Command == Insert:
		return false
	case a.Command == Insert:
		return b.Start-1 < a.Start && a.Start < b.End
	case b.Command == Insert:
		return a.Start-1 < b.Start && b.Start < a.End
	default:
		return a.Start <= b.End && b.Start <= a.End
	}
}

// AllOps returns every valid op of the file in request order.
func (f *FileOps) AllOps() []*Op {
	var ops []*Op
	if f.Create != nil {
		ops = append(ops, f.Create)
	}
	ops = append(ops, f.Patches...)
	ops = append(ops, f.LineEdits...)
	ops = append(ops, f.StrReplaces...)
	ops = append(ops, f.Appends...)
	if f.Final != nil {
		ops = append(ops, f.Final)
	}
	sort.SliceStable(ops, func(i, j int) bool { return ops[i].Index < ops[j].Index })
	return ops
}
