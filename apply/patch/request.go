package patch

import (
	"github.com/txedit/txedit/hash"
	"github.com/txedit/txedit/plan"
)

// Request compiles parsed files into one write request: every file's
// changes become edits of one fileEdits entry (files named several times
// get their edits in order), so the whole patch commits as one
// transaction, or not at all.
//
//   - Add: write the exact content; an apply_patch or Responses add
//     replaces an existing file (Overwrite), a diff's new file must not
//     exist unless it already holds that content (then it is already
//     applied).
//   - Delete: delete; a file already gone is already applied (a retried
//     patch). A diff's deleted file carries hunks that must empty it.
//   - Update: patch with the hunks (SEARCH/REPLACE blocks as blocks), then
//     move to MoveTo, which replaces an existing file in apply_patch and
//     Responses, as Codex does, and never in a diff (as git apply).
//   - A git mode travels as mode; a git section's path names the entry
//     (NoFollow), so a symbolic link (mode 120000) is created, changed,
//     deleted or moved as a link. A git type change (a deletion and a
//     creation of one path) writes the new entry over the old, which must
//     be what the deletion's hunks hold (a content_hash of it).
func Request(f Format, files []*File) (*plan.Request, error) {
	replace := f == FormatApplyPatch || f == FormatResponses
	var order []string
	byPath := map[string]*plan.FileEdit{}
	for _, fl := range files {
		fe := byPath[fl.Path]
		if fe == nil {
			fe = &plan.FileEdit{Path: fl.Path}
			byPath[fl.Path] = fe
			order = append(order, fl.Path)
		}
		fe.NoFollow = fe.NoFollow || fl.Git
		if n := len(fe.Edits); n > 0 {
			if typeChange(fe, fl) {
				if err := becomeNew(fe, fl); err != nil {
					return nil, err
				}
				continue
			}
			if last := fe.Edits[n-1].Command; last == "delete" || last == "move" {
				return nil, plan.Errorf(plan.CodeInvalidRequest, fl.Path, "line %d: the patch changes %s again after it %sd it: give each file's changes once", fl.Line, fl.Path, last)
			}
		}
		switch fl.Op {
		case OpAdd:
			text := string(fl.Content)
			fe.Edits = append(fe.Edits, plan.Edit{Command: "write", FileText: &text, IfAbsent: !fl.Overwrite, Mode: fl.NewMode})
		case OpDelete:
			if len(fl.Hunks) > 0 || fl.Binary != nil {
				mode := ""
				if fl.OldMode == linkMode {
					mode = linkMode // the hunks remove a link's target
				}
				fe.Edits = append(fe.Edits, plan.Edit{Command: "patch", Hunks: fl.Hunks, Binary: fl.Binary, Mode: mode})
			}
			fe.Edits = append(fe.Edits, plan.Edit{Command: "delete", MissingOK: true})
		case OpUpdate:
			mode := ""
			if fl.NewMode != "" && fl.NewMode != fl.OldMode || fl.NewMode == linkMode {
				mode = fl.NewMode // a link's mode always: its hunks change a target
			}
			if len(fl.Hunks) > 0 || mode != "" || fl.Binary != nil {
				fe.Edits = append(fe.Edits, plan.Edit{Command: "patch", Hunks: fl.Hunks, Blocks: fl.Blocks, Mode: mode, Binary: fl.Binary})
			}
			if fl.MoveTo != "" && fl.MoveTo != fl.Path {
				fe.Edits = append(fe.Edits, plan.Edit{Command: "move", NewPath: fl.MoveTo, Overwrite: replace})
			}
		}
	}
	req := &plan.Request{}
	for _, p := range order {
		if len(byPath[p].Edits) > 0 {
			req.FileEdits = append(req.FileEdits, *byPath[p])
		}
	}
	if len(req.FileEdits) == 0 {
		return nil, plan.Errorf(plan.CodeInvalidRequest, "", "the patch changes nothing")
	}
	return req, nil
}

// linkMode is git's mode of a symbolic link.
const linkMode = "120000"

// typeChange reports whether fl, a git creation, follows a git deletion of
// the same path in fe: a file replaced by a symbolic link, or a link by a
// file (git writes a type change so).
func typeChange(fe *plan.FileEdit, fl *File) bool {
	n := len(fe.Edits)
	return fl.Git && fl.Op == OpAdd && fe.Edits[n-1].Command == "delete" && (n == 1 || fe.Edits[0].Command == "patch" && n == 2)
}

// becomeNew turns fe, a deletion, into the writing of fl's new entry over
// the old one, which must be what the deletion's hunks remove (its whole
// content: the file-level content_hash).
func becomeNew(fe *plan.FileEdit, fl *File) error {
	old := []byte(nil)
	if fe.Edits[0].Command == "patch" {
		p := fe.Edits[0]
		if p.Binary != nil {
			return plan.Errorf(plan.CodeInvalidRequest, fl.Path, "line %d: a binary file replaced by a new entry: write it without --binary's type change, or delete and create it in two patches", fl.Line)
		}
		for _, h := range p.Hunks {
			for i, l := range h.Old {
				old = append(old, l...)
				if i < len(h.Old)-1 || !h.OldNoEOL {
					old = append(old, '\n')
				}
			}
		}
	}
	text := string(fl.Content)
	fe.ContentHash = hash.Of(old).String()
	fe.Edits = []plan.Edit{{Command: "write", FileText: &text, Mode: fl.NewMode}}
	return nil
}

// Compile detects (for FormatAuto) and parses input and compiles it into a
// write request. JSON input is an ordinary request (plan.Parse). An LSP
// WorkspaceEdit needs the workspace: CompileWith compiles it.
func Compile(f Format, input []byte) (*plan.Request, Format, error) {
	req, f, _, err := CompileWith(f, input, LSPOptions{})
	return req, f, err
}

// CompileWith is Compile for every format, an LSP WorkspaceEdit too,
// which it compiles with o (o.Tree is the workspace; it returns the parsed
// edit, whose Warnings a caller shows). Other formats ignore o.
func CompileWith(f Format, input []byte, o LSPOptions) (*plan.Request, Format, *WorkspaceEdit, error) {
	if f == FormatAuto || f == "" {
		f = Detect(input)
		if f == "" {
			return nil, f, nil, plan.Errorf(plan.CodeInvalidRequest, "", "cannot tell the format of the input: want a JSON request, an apply_patch envelope (*** Begin Patch), an apply_patch_call, a unified or git diff, SEARCH/REPLACE blocks, or an LSP WorkspaceEdit")
		}
	}
	if f == FormatLSP {
		if o.Tree == nil {
			return nil, f, nil, errNeedsTree()
		}
		req, we, err := CompileLSP(input, o)
		return req, f, we, err
	}
	req, f, err := compileText(f, input)
	return req, f, nil, err
}

// compileText compiles the formats that need nothing but the input.
func compileText(f Format, input []byte) (*plan.Request, Format, error) {
	if f == FormatJSON {
		req, err := plan.Parse(input)
		return req, f, err
	}
	files, err := Parse(f, input)
	if err != nil {
		return nil, f, err
	}
	req, err := Request(f, files)
	return req, f, err
}
