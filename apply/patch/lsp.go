package patch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"strings"

	"github.com/txedit/txedit/plan"
)

// An LSP 3.17 WorkspaceEdit (docs/lsp.md): what a language server answers
// a rename or a code action with. This file parses it; lsp_compile.go
// turns it into a write request against the workspace as it is.

// ChangeKind is what one change of a WorkspaceEdit does.
type ChangeKind string

// The kinds of change: a TextDocumentEdit (or an entry of changes) and
// the three resource operations.
const (
	ChangeEdit   ChangeKind = "edit"
	ChangeCreate ChangeKind = "create"
	ChangeRename ChangeKind = "rename"
	ChangeDelete ChangeKind = "delete"
)

// Change is one change of a WorkspaceEdit, in the order the edit gives
// them.
type Change struct {
	Kind ChangeKind
	// Where names the change in the input ("documentChanges[3]",
	// "changes[file:///src/a.go]").
	Where string
	// URI, and for a rename NewURI, as the edit gave them; Path and
	// NewPath are their file paths, percent-decoded.
	URI, NewURI   string
	Path, NewPath string
	// Version is a TextDocumentEdit's document version; nil when null
	// or absent (the file on disk).
	Version *int
	// Edits are the text edits (Where names each), and EditAnnotations
	// the annotation id of each ("" for none).
	Edits           []plan.TextEdit
	EditAnnotations []string
	// The options of the resource operations.
	Overwrite, IgnoreIfExists, Recursive, IgnoreIfNotExists bool
	// Annotation is a resource operation's annotation id, or "".
	Annotation string
}

// Annotation is a change annotation.
type Annotation struct {
	Label             string `json:"label"`
	NeedsConfirmation bool   `json:"needsConfirmation"`
	Description       string `json:"description"`
}

// WorkspaceEdit is a parsed WorkspaceEdit.
type WorkspaceEdit struct {
	// Label is the label of a workspace/applyEdit request's params, if
	// the input was one.
	Label string
	// Changes are the edit's changes in order: documentChanges when it
	// has any, else changes.
	Changes []Change
	// Annotations are changeAnnotations, by id; AnnotationOrder their
	// ids in input order.
	Annotations     map[string]Annotation
	AnnotationOrder []string
	// Warnings say what the input held that was not applied (changes
	// beside documentChanges, which the protocol says win).
	Warnings []string

	// steps and encoding are what Request made of the edit
	// (lsp_compile.go), for Groups.
	steps    []step
	encoding plan.PositionEncoding
}

// wireEdit is a WorkspaceEdit as JSON.
type wireEdit struct {
	Changes           json.RawMessage   `json:"changes"`
	DocumentChanges   []json.RawMessage `json:"documentChanges"`
	ChangeAnnotations json.RawMessage   `json:"changeAnnotations"`
}

type wireTextEdit struct {
	Range        *plan.Range `json:"range"`
	NewText      *string     `json:"newText"`
	AnnotationID string      `json:"annotationId"`
}

type wireChange struct {
	Kind         string `json:"kind"`
	TextDocument *struct {
		URI     string          `json:"uri"`
		Version json.RawMessage `json:"version"`
	} `json:"textDocument"`
	Edits        *[]wireTextEdit `json:"edits"`
	URI          string          `json:"uri"`
	OldURI       string          `json:"oldUri"`
	NewURI       string          `json:"newUri"`
	AnnotationID string          `json:"annotationId"`
	Options      struct {
		Overwrite         bool `json:"overwrite"`
		IgnoreIfExists    bool `json:"ignoreIfExists"`
		Recursive         bool `json:"recursive"`
		IgnoreIfNotExists bool `json:"ignoreIfNotExists"`
	} `json:"options"`
}

// isWorkspaceEdit reports whether the JSON object s is a WorkspaceEdit,
// or holds one as a workspace/applyEdit request, its params, or a
// response's result does (see unwrapEdit).
func isWorkspaceEdit(s []byte) bool {
	_, _, ok := unwrapEdit(s)
	return ok
}

// unwrapEdit finds the WorkspaceEdit in s: s itself (it has changes or
// documentChanges), the edit of ApplyWorkspaceEditParams ({label, edit}),
// or that inside a JSON-RPC message's params or result.
func unwrapEdit(s []byte) (edit json.RawMessage, label string, ok bool) {
	var top map[string]json.RawMessage
	if json.Unmarshal(s, &top) != nil {
		return nil, "", false
	}
	if _, c := top["changes"]; c {
		return s, "", true
	}
	if _, c := top["documentChanges"]; c {
		return s, "", true
	}
	if e, c := top["edit"]; c && isObject(e) {
		json.Unmarshal(top["label"], &label)
		if inner, _, ok := unwrapEdit(e); ok {
			return inner, label, true
		}
	}
	for _, k := range []string{"params", "result"} {
		if v, c := top[k]; c && isObject(v) && top["jsonrpc"] != nil {
			if inner, l, ok := unwrapEdit(v); ok {
				return inner, l, true
			}
		}
	}
	return nil, "", false
}

func isObject(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	return len(v) > 0 && v[0] == '{'
}

// ParseWorkspaceEdit parses an LSP WorkspaceEdit (or a workspace/applyEdit
// request, its params, or a response whose result is one). Every error is
// an invalid_request naming where in the input it is.
func ParseWorkspaceEdit(input []byte) (*WorkspaceEdit, error) {
	input = bytes.TrimSpace(bytes.TrimPrefix(input, []byte("\ufeff")))
	raw, label, ok := unwrapEdit(input)
	if !ok {
		return nil, lspErr("", "not an LSP WorkspaceEdit: want a JSON object with changes or documentChanges (or a workspace/applyEdit request holding one)")
	}
	var w wireEdit
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, lspErr("", "%s", jsonMessage(err))
	}
	we := &WorkspaceEdit{Label: label, Annotations: map[string]Annotation{}}
	if err := we.parseAnnotations(w.ChangeAnnotations); err != nil {
		return nil, err
	}
	changes, err := parseChangesMap(w.Changes)
	if err != nil {
		return nil, err
	}
	switch {
	case len(w.DocumentChanges) > 0:
		for i, dc := range w.DocumentChanges {
			c, err := parseDocumentChange(fmt.Sprintf("documentChanges[%d]", i), dc)
			if err != nil {
				return nil, err
			}
			we.Changes = append(we.Changes, *c)
		}
		if len(changes) > 0 {
			// The protocol: documentChanges win. Both sent is a server's
			// habit (Serena applied the empty one and changed nothing).
			we.Warnings = append(we.Warnings, fmt.Sprintf("the edit has both documentChanges and changes: documentChanges were applied, as the protocol says, and the %d entries of changes left out", len(changes)))
		}
	default:
		we.Changes = changes
	}
	if len(we.Changes) == 0 {
		return nil, lspErr("", "the WorkspaceEdit changes nothing (no changes, no documentChanges)")
	}
	return we, nil
}

// parseAnnotations reads changeAnnotations, keeping the ids' order.
func (we *WorkspaceEdit) parseAnnotations(raw json.RawMessage) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return objectEntries(raw, "changeAnnotations", func(id string, v json.RawMessage) error {
		var a Annotation
		if err := json.Unmarshal(v, &a); err != nil {
			return lspErr("changeAnnotations["+id+"]", "%s", jsonMessage(err))
		}
		we.Annotations[id] = a
		we.AnnotationOrder = append(we.AnnotationOrder, id)
		return nil
	})
}

// parseChangesMap reads changes (URI to text edits) in input order.
func parseChangesMap(raw json.RawMessage) ([]Change, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var out []Change
	err := objectEntries(raw, "changes", func(uri string, v json.RawMessage) error {
		where := "changes[" + uri + "]"
		var edits []wireTextEdit
		if err := json.Unmarshal(v, &edits); err != nil {
			return lspErr(where, "%s", jsonMessage(err))
		}
		c := Change{Kind: ChangeEdit, Where: where, URI: uri}
		if err := c.setEdits(edits); err != nil {
			return err
		}
		var err error
		c.Path, err = filePath(where, uri)
		out = append(out, c)
		return err
	})
	return out, err
}

// objectEntries calls fn with each key and value of the JSON object raw,
// in order; a key given twice is refused.
func objectEntries(raw json.RawMessage, what string, fn func(key string, v json.RawMessage) error) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return lspErr(what, "want an object")
	}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return lspErr(what, "%s", jsonMessage(err))
		}
		key := t.(string)
		if seen[key] {
			return lspErr(what, "%q is given twice", key)
		}
		seen[key] = true
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return lspErr(what+"["+key+"]", "%s", jsonMessage(err))
		}
		if err := fn(key, v); err != nil {
			return err
		}
	}
	return nil
}

// parseDocumentChange reads one entry of documentChanges.
func parseDocumentChange(where string, raw json.RawMessage) (*Change, error) {
	var w wireChange
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, lspErr(where, "%s", jsonMessage(err))
	}
	c := &Change{Where: where, Annotation: w.AnnotationID}
	o := w.Options
	var err error
	switch w.Kind {
	case "":
		if w.TextDocument == nil || w.Edits == nil {
			return nil, lspErr(where, "want a TextDocumentEdit (textDocument and edits) or a resource operation (kind create, rename or delete)")
		}
		c.Kind, c.URI = ChangeEdit, w.TextDocument.URI
		if c.Version, err = version(where, w.TextDocument.Version); err != nil {
			return nil, err
		}
		if err := c.setEdits(*w.Edits); err != nil {
			return nil, err
		}
	case "create":
		c.Kind, c.URI, c.Overwrite, c.IgnoreIfExists = ChangeCreate, w.URI, o.Overwrite, o.IgnoreIfExists
	case "rename":
		c.Kind, c.URI, c.NewURI, c.Overwrite, c.IgnoreIfExists = ChangeRename, w.OldURI, w.NewURI, o.Overwrite, o.IgnoreIfExists
		if c.NewPath, err = filePath(where+".newUri", w.NewURI); err != nil {
			return nil, err
		}
	case "delete":
		c.Kind, c.URI, c.Recursive, c.IgnoreIfNotExists = ChangeDelete, w.URI, o.Recursive, o.IgnoreIfNotExists
	default:
		return nil, lspErr(where, "unknown kind %q: want create, rename or delete", w.Kind)
	}
	field := ".uri"
	switch c.Kind {
	case ChangeEdit:
		field = ".textDocument.uri"
	case ChangeRename:
		field = ".oldUri"
	}
	if c.Path, err = filePath(where+field, c.URI); err != nil {
		return nil, err
	}
	return c, nil
}

// version reads a TextDocumentEdit's version: a number, or null.
func version(where string, raw json.RawMessage) (*int, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var v int
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, lspErr(where+".textDocument.version", "want an integer or null")
	}
	return &v, nil
}

// setEdits checks and keeps a TextDocumentEdit's edits.
func (c *Change) setEdits(edits []wireTextEdit) error {
	c.Edits = make([]plan.TextEdit, 0, len(edits))
	for i, e := range edits {
		where := fmt.Sprintf("%s.edits[%d]", c.Where, i)
		switch {
		case e.Range == nil:
			return lspErr(where, "the edit has no range")
		case e.NewText == nil:
			return lspErr(where, "the edit has no newText")
		}
		c.Edits = append(c.Edits, plan.TextEdit{Range: *e.Range, NewText: *e.NewText, Where: where})
		c.EditAnnotations = append(c.EditAnnotations, e.AnnotationID)
	}
	return nil
}

// filePath returns the file path of a file URI, percent-decoded. Other
// schemes, a host other than localhost, a query or fragment, and a NUL
// are refused: they name nothing txedit can write.
func filePath(where, uri string) (string, error) {
	if uri == "" {
		return "", lspErr(where, "missing URI")
	}
	u, err := url.Parse(uri)
	switch {
	case err != nil:
		return "", lspErr(where, "%q is not a URI: %v", uri, err)
	case u.Scheme != "file":
		return "", lspErr(where, "%q is not a file URI (want file:///absolute/path)", uri)
	case u.Host != "" && u.Host != "localhost":
		return "", lspErr(where, "%q names host %q: only local files (file:///…) can be written", uri, u.Host)
	case u.RawQuery != "" || u.Fragment != "" || u.Opaque != "":
		return "", lspErr(where, "%q has a query, fragment or opaque part: want file:///absolute/path", uri)
	case !strings.HasPrefix(u.Path, "/"):
		return "", lspErr(where, "%q has no absolute path", uri)
	case strings.ContainsRune(u.Path, 0):
		return "", lspErr(where, "%q holds a NUL byte", uri)
	}
	return path.Clean(u.Path), nil
}

// lspErr is an invalid_request about where in the WorkspaceEdit.
func lspErr(where, format string, args ...any) *plan.Error {
	msg := fmt.Sprintf(format, args...)
	if where != "" {
		msg = where + ": " + msg
	}
	return plan.Errorf(plan.CodeInvalidRequest, "", "WorkspaceEdit: %s", msg)
}

// jsonMessage is a decoding error without encoding/json's prefix.
func jsonMessage(err error) string { return strings.TrimPrefix(err.Error(), "json: ") }
