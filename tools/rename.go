package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/txedit/txedit/apply"
	"github.com/txedit/txedit/apply/patch"
	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/hash"
	"github.com/txedit/txedit/internal/lsp"
	"github.com/txedit/txedit/plan"
)

// A rename through a language server (docs/lsp.md, "txedit rename"):
// txedit starts the server, sends it the files' current content, asks
// prepareRename and rename, and commits the WorkspaceEdit it answers as
// one transaction, guarded by the hashes of what it sent.

// RenameOptions says what to rename.
type RenameOptions struct {
	// Path is the file; Line and Column are 1-based, the column in bytes
	// (as gopls's command line takes them).
	Path         string
	Line, Column int
	NewName      string
	// DryRun previews; Confirm confirms changes whose annotation needs
	// confirmation.
	DryRun, Confirm bool
	// Server is the language server's command; nil picks one by the
	// file's language (gopls serve for Go), found on PATH.
	Server []string
	// Timeout bounds the whole conversation with the server (default
	// DefaultRenameTimeout).
	Timeout time.Duration
}

// DefaultRenameTimeout is how long a rename waits for its server by
// default: a large module's first load takes gopls a while.
const DefaultRenameTimeout = 5 * time.Minute

// knownServer is a language server txedit starts for a file's language
// when none is named.
type knownServer struct {
	argv    []string
	install string
}

// serverFor returns the default server of a file, by its extension.
func serverFor(p string) (knownServer, bool) {
	switch strings.ToLower(path.Ext(p)) {
	case ".go":
		return knownServer{[]string{"gopls", "serve"}, "go install golang.org/x/tools/gopls@latest"}, true
	case ".rs":
		return knownServer{[]string{"rust-analyzer"}, "rustup component add rust-analyzer"}, true
	case ".ts", ".tsx", ".js", ".jsx", ".mts", ".cts", ".mjs", ".cjs":
		return knownServer{[]string{"typescript-language-server", "--stdio"}, "npm install -g typescript-language-server typescript"}, true
	case ".py", ".pyi":
		return knownServer{[]string{"pyright-langserver", "--stdio"}, "npm install -g pyright"}, true
	}
	return knownServer{}, false
}

// languageID is the LSP language identifier of a file.
func languageID(p string) string {
	ext := strings.TrimPrefix(strings.ToLower(path.Ext(p)), ".")
	switch ext {
	case "rs":
		return "rust"
	case "ts", "mts", "cts":
		return "typescript"
	case "tsx":
		return "typescriptreact"
	case "js", "mjs", "cjs":
		return "javascript"
	case "jsx":
		return "javascriptreact"
	case "py", "pyi":
		return "python"
	case "h":
		return "c"
	case "cc", "cxx", "hpp", "hh":
		return "cpp"
	}
	return ext
}

// symbolRename is one rename's conversation with its server.
type symbolRename struct {
	s    *engine.Session
	w    *engine.Workspace
	tree *engine.Tree
	o    RenameOptions
	srv  *lsp.Server
	name string // the server's program, for messages
	root string // the root with its links resolved: what the server is told
	enc  plan.PositionEncoding
	// sent are the documents opened in the server, by root-relative
	// path: their version and the hash of the text sent.
	sent map[string]sentDoc
	// prepare: the server answers prepareRename.
	prepare bool
	// old is the name renamed, for the summary.
	old string
}

type sentDoc struct {
	version int
	hash    string
}

// Rename renames the symbol at o's position through a language server,
// as one transaction (a dry run previews it). The result is never nil;
// when it is a failure, the error is the *plan.Error behind its code:
// refused (the server's own message: "the new name conflicts with …"),
// not_found (nothing to rename there), conflict (a file changed while
// the server computed the rename: nothing was written), io_error (the
// server could not be started, or stopped answering).
func Rename(ctx context.Context, s *engine.Session, o RenameOptions) (*plan.Result, error) {
	res := &plan.Result{DryRun: o.DryRun, Files: []*plan.FileResult{}}
	r, rel, content, err := newRenamer(s, o)
	if err != nil {
		return failed(res, err)
	}
	off, err := r.offset(content)
	if err != nil {
		return failed(res, err)
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultRenameTimeout
	}
	// The timeout bounds the conversation with the server, not the
	// commit.
	talk, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	if err := r.start(talk); err != nil {
		return failed(res, err)
	}
	defer r.srv.Close(5 * time.Second)
	req, we, err := r.edit(talk, rel, content, off)
	if err != nil {
		return failed(res, err)
	}
	res, err = s.Apply(ctx, req)
	res.Warnings = append(we.Warnings, res.Warnings...)
	if o.DryRun {
		res.Groups, _ = GroupsOf(ctx, r.w, we)
	}
	if res.Code == plan.CodeStaleHash {
		// The hashes are of what the server was sent: a file changed
		// since, so the edit was computed against other content.
		e := plan.Errorf(plan.CodeConflict, "", "a file changed while %s computed the rename, so its edit no longer fits; nothing was written (run the rename again): %s", r.name, res.Error)
		res.Code, res.Error = e.Code, e.Error()
		return res, e
	}
	return res, err
}

func failed(res *plan.Result, err error) (*plan.Result, error) {
	pe := plan.As(err)
	res.Success, res.Code, res.Error = false, pe.Code, pe.Error()
	return res, pe
}

// newRenamer checks o and reads the file.
func newRenamer(s *engine.Session, o RenameOptions) (*symbolRename, string, []byte, error) {
	switch {
	case o.Path == "":
		return nil, "", nil, plan.Errorf(plan.CodeInvalidRequest, "", "rename needs a file")
	case o.Line < 1 || o.Column < 1:
		return nil, "", nil, plan.Errorf(plan.CodeInvalidRequest, o.Path, "line %d, column %d: both are 1-based (the column in bytes)", o.Line, o.Column)
	case strings.TrimSpace(o.NewName) == "":
		return nil, "", nil, plan.Errorf(plan.CodeInvalidRequest, o.Path, "rename needs a new name")
	}
	w := s.Workspace()
	if !w.OnDisk() {
		return nil, "", nil, plan.Errorf(plan.CodeInvalidRequest, o.Path, "a rename runs a language server, which reads the files from disk: this workspace is not on disk")
	}
	r := &symbolRename{s: s, w: w, tree: w.Tree(), o: o, root: w.RealRoot(), sent: map[string]sentDoc{}}
	fb, err := w.ReadBytes(context.Background(), o.Path)
	if err != nil {
		return nil, "", nil, err
	}
	if len(o.Server) == 0 {
		ks, ok := serverFor(fb.Path)
		if !ok {
			return nil, "", nil, plan.Errorf(plan.CodeInvalidRequest, o.Path, "no language server is known for %s files: name one (--server 'CMD ARGS', e.g. --server 'typescript-language-server --stdio')", path.Ext(fb.Path))
		}
		r.o.Server = ks.argv
	}
	r.name = filepath.Base(r.o.Server[0])
	return r, fb.Path, fb.Data, nil
}

// start starts the server and initializes it.
func (r *symbolRename) start(ctx context.Context) error {
	srv, err := lsp.Start(r.o.Server, r.root)
	if err != nil {
		msg := fmt.Sprintf("cannot start the language server %s: %v", strings.Join(r.o.Server, " "), err)
		if errors.Is(err, lsp.ErrNotFound) {
			msg = fmt.Sprintf("the language server %s is not on PATH", r.o.Server[0])
			for _, ext := range []string{".go", ".rs", ".ts", ".py"} {
				if ks, _ := serverFor("x" + ext); ks.argv[0] == r.o.Server[0] {
					msg += ": install it with `" + ks.install + "`"
				}
			}
			msg += ", or name another with --server"
		}
		return plan.Wrapf(plan.CodeIOError, "", err, "%s", msg)
	}
	r.srv = srv
	uri := lsp.FileURI(r.root)
	srv.Folders = []lsp.WorkspaceFolder{{URI: uri, Name: filepath.Base(r.root)}}
	var init struct {
		Capabilities struct {
			PositionEncoding string          `json:"positionEncoding"`
			RenameProvider   json.RawMessage `json:"renameProvider"`
		} `json:"capabilities"`
	}
	if err := srv.Call(ctx, "initialize", initializeParams(uri, srv.Folders), &init); err != nil {
		srv.Close(time.Second)
		return r.serverErr("initialize", err)
	}
	caps := init.Capabilities
	if r.enc, err = plan.ParsePositionEncoding(caps.PositionEncoding); err != nil {
		srv.Close(time.Second)
		return plan.Errorf(plan.CodeIOError, "", "%s chose the position encoding %q, which txedit did not offer", r.name, caps.PositionEncoding)
	}
	var rp struct {
		PrepareProvider bool `json:"prepareProvider"`
	}
	switch rn := strings.TrimSpace(string(caps.RenameProvider)); {
	case rn == "" || rn == "false" || rn == "null":
		srv.Close(time.Second)
		return plan.Errorf(plan.CodeRefused, "", "%s does not rename symbols (no renameProvider)", r.name)
	case rn != "true":
		json.Unmarshal(caps.RenameProvider, &rp)
	}
	r.prepare = rp.PrepareProvider
	return srv.Notify("initialized", struct{}{})
}

// initializeParams are txedit's client capabilities: versioned document
// changes with the three resource operations, transactional failure
// handling (txedit's commit makes it true), every position encoding,
// change annotations, prepareRename.
func initializeParams(uri string, folders []lsp.WorkspaceFolder) map[string]any {
	return map[string]any{
		"processId":        nil,
		"clientInfo":       map[string]any{"name": "txedit"},
		"rootUri":          uri,
		"workspaceFolders": folders,
		"capabilities": map[string]any{
			"general": map[string]any{"positionEncodings": []string{"utf-8", "utf-32", "utf-16"}},
			"workspace": map[string]any{
				"applyEdit": false, "configuration": true, "workspaceFolders": true,
				"workspaceEdit": map[string]any{
					"documentChanges": true, "resourceOperations": []string{"create", "rename", "delete"},
					"failureHandling": "transactional", "normalizesLineEndings": false,
					"changeAnnotationSupport": map[string]any{"groupsOnLabel": true},
				},
			},
			"textDocument": map[string]any{
				"synchronization": map[string]any{"didSave": false, "willSave": false},
				"rename":          map[string]any{"prepareSupport": true, "honorsChangeAnnotations": true},
			},
			"window": map[string]any{"workDoneProgress": true},
		},
	}
}

// serverErr is a failure of a request: the server's own answer
// (refused, its message as it is), or its end.
func (r *symbolRename) serverErr(method string, err error) error {
	var re *lsp.ResponseError
	if errors.As(err, &re) {
		return plan.Wrapf(plan.CodeRefused, "", err, "%s: %s (nothing was written)", r.name, re.Message)
	}
	return plan.Wrapf(plan.CodeIOError, "", err, "%s (%s): %v", r.name, method, err)
}

// maxRounds bounds how often the rename is asked again after opening
// the files its answer named.
const maxRounds = 3

// edit asks for the rename until the answer edits only documents that
// were sent (a file the server read from disk itself is sent, and the
// rename asked again), and compiles the last answer.
func (r *symbolRename) edit(ctx context.Context, rel string, content []byte, off int) (*plan.Request, *patch.WorkspaceEdit, error) {
	if err := r.open(rel, content); err != nil {
		return nil, nil, err
	}
	pos := apply.PositionOf(content, off, r.enc)
	uri := lsp.FileURI(filepath.Join(r.root, filepath.FromSlash(rel)))
	var err error
	if r.old, err = r.prepareRename(ctx, uri, pos, identAt(content, off)); err != nil {
		return nil, nil, err
	}
	for round := 1; ; round++ {
		var raw json.RawMessage
		params := map[string]any{"textDocument": map[string]any{"uri": uri}, "position": pos, "newName": r.o.NewName}
		if err := r.srv.Call(ctx, "textDocument/rename", params, &raw); err != nil {
			return nil, nil, r.serverErr("rename", err)
		}
		if s := strings.TrimSpace(string(raw)); s == "" || s == "null" {
			return nil, nil, plan.Errorf(plan.CodeNotFound, r.o.Path, "%s renames nothing at %d:%d", r.name, r.o.Line, r.o.Column)
		}
		we, err := patch.ParseWorkspaceEdit(raw)
		if err != nil {
			return nil, nil, plan.Wrapf(plan.CodeIOError, "", err, "%s answered the rename with an edit txedit cannot read: %v", r.name, err)
		}
		opened, err := r.openNamed(we)
		if err != nil {
			return nil, nil, err
		}
		if !opened {
			req, err := r.compile(we)
			return req, we, err
		}
		if round == maxRounds {
			return nil, nil, plan.Errorf(plan.CodeConflict, "", "%s's rename kept naming files it had not been sent (%d rounds); nothing was written", r.name, round)
		}
	}
}

// offset is the byte offset of the 1-based line and byte column, lines
// ending at "\n" (as gopls's command line counts them).
func (r *symbolRename) offset(content []byte) (int, error) {
	start := 0
	for l := 1; l < r.o.Line; l++ {
		i := bytes.IndexByte(content[start:], '\n')
		if i < 0 {
			return 0, plan.Errorf(plan.CodeLineOutOfRange, r.o.Path, "line %d is past the end: the file has %d lines", r.o.Line, l)
		}
		start += i + 1
	}
	end := len(content)
	if i := bytes.IndexByte(content[start:], '\n'); i >= 0 {
		end = start + i
	}
	off := start + r.o.Column - 1
	switch {
	case off > end:
		return 0, plan.Errorf(plan.CodeLineOutOfRange, r.o.Path, "column %d is past the end of line %d (%d bytes)", r.o.Column, r.o.Line, end-start)
	case off < len(content) && !utf8.RuneStart(content[off]):
		return 0, plan.Errorf(plan.CodeInvalidRequest, r.o.Path, "column %d of line %d falls inside a character (columns count bytes)", r.o.Column, r.o.Line)
	}
	return off, nil
}

// identAt is the identifier around off, or "".
func identAt(content []byte, off int) string {
	word := func(c byte) bool {
		return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= utf8.RuneSelf
	}
	lo, hi := off, off
	for lo > 0 && word(content[lo-1]) {
		lo--
	}
	for hi < len(content) && word(content[hi]) {
		hi++
	}
	return string(content[lo:hi])
}

// prepareRename asks whether there is something to rename at pos, when
// the server answers that; it returns the old name.
func (r *symbolRename) prepareRename(ctx context.Context, uri string, pos plan.Position, old string) (string, error) {
	if !r.prepare {
		return old, nil
	}
	var raw json.RawMessage
	params := map[string]any{"textDocument": map[string]any{"uri": uri}, "position": pos}
	if err := r.srv.Call(ctx, "textDocument/prepareRename", params, &raw); err != nil {
		return "", r.serverErr("prepareRename", err)
	}
	if s := strings.TrimSpace(string(raw)); s == "" || s == "null" {
		return "", plan.Errorf(plan.CodeNotFound, r.o.Path, "%s finds nothing to rename at %d:%d", r.name, r.o.Line, r.o.Column)
	}
	var p struct {
		Placeholder string `json:"placeholder"`
	}
	if json.Unmarshal(raw, &p) == nil && p.Placeholder != "" {
		old = p.Placeholder
	}
	return old, nil
}

// open sends the server a document's current content (didOpen).
func (r *symbolRename) open(rel string, content []byte) error {
	if _, ok := r.sent[rel]; ok {
		return nil
	}
	if !utf8.Valid(content) {
		// A document is text: the server reads such a file itself, and
		// the hash of what txedit read guards it.
		r.sent[rel] = sentDoc{version: -1, hash: hashOf(content)}
		return nil
	}
	abs := filepath.Join(r.root, filepath.FromSlash(rel))
	doc := map[string]any{"uri": lsp.FileURI(abs), "languageId": languageID(rel), "version": 1, "text": string(content)}
	if err := r.srv.Notify("textDocument/didOpen", map[string]any{"textDocument": doc}); err != nil {
		return r.serverErr("didOpen", err)
	}
	r.sent[rel] = sentDoc{version: 1, hash: hashOf(content)}
	return nil
}

// openNamed sends the files the edit names that were not sent yet; it
// reports whether it sent any.
func (r *symbolRename) openNamed(we *patch.WorkspaceEdit) (bool, error) {
	opened := false
	for _, c := range we.Changes {
		if c.Kind != patch.ChangeEdit && c.Kind != patch.ChangeRename {
			continue
		}
		rel, err := r.tree.Resolve(c.Path)
		if err != nil {
			continue // compiling the edit refuses it, naming the change
		}
		if _, ok := r.sent[rel]; ok {
			continue
		}
		if exists, dir, _ := r.tree.Stat(rel); !exists || dir {
			continue
		}
		fb, err := r.w.ReadBytes(context.Background(), c.Path)
		if err != nil {
			return false, err
		}
		if err := r.open(rel, fb.Data); err != nil {
			return false, err
		}
		opened = true
	}
	return opened, nil
}

// compile turns the server's last answer into the request, guarded by
// the hashes and versions of what it was sent.
func (r *symbolRename) compile(we *patch.WorkspaceEdit) (*plan.Request, error) {
	hashes, versions := map[string]string{}, map[string]int{}
	for rel, d := range r.sent {
		hashes[rel] = d.hash
		if d.version > 0 {
			versions[rel] = d.version
		}
	}
	req, err := we.Request(patch.LSPOptions{Tree: r.tree, Encoding: r.enc, Confirm: r.o.Confirm, DryRun: r.o.DryRun, Hashes: hashes, Versions: versions})
	if err != nil {
		return nil, err
	}
	req.DryRun = r.o.DryRun
	if req.Summary == "" {
		old := r.old
		if old == "" {
			old = "the symbol"
		}
		req.Summary = fmt.Sprintf("rename %s to %s (%s:%d:%d, %s)", old, r.o.NewName, r.o.Path, r.o.Line, r.o.Column, r.name)
	}
	return req, nil
}

func hashOf(b []byte) string { return hash.Of(b).String() }

// renameSymbolTool is the txedit toolset's rename through a language
// server.
func renameSymbolTool() *Tool {
	return &Tool{
		Name: "rename_symbol",
		Description: "Rename a symbol (function, method, type, field, variable, package) everywhere it is used, as the language's own server computes it: " +
			"exactly the occurrences that are this symbol, not a text match. txedit starts the workspace's language server (gopls for Go), sends it the files' " +
			"current content, asks it for the rename and commits its edit as one transaction (undo reverts it); a file changed meanwhile is a conflict and " +
			"nothing is written. A rename the server refuses (\"the new name conflicts with …\") writes nothing and returns its message with code refused. " +
			"line and column are 1-based, the column in bytes (as gopls rename file.go:LINE:COL takes it). Use dry_run to preview the diff.",
		Schema: object([]string{"path", "line", "column", "new_name"}, map[string]any{
			"path":     str("The file that holds the symbol (relative to the workspace root, or absolute inside it)."),
			"line":     num("The symbol's line, 1-based."),
			"column":   num("The column of any byte of the symbol's name on that line, 1-based, in bytes."),
			"new_name": str("The new name."),
			"dry_run":  flag("Preview: return the diff; write nothing."),
			"confirm":  flag("Confirm changes the server marks as needing confirmation (change annotations); preview them first."),
		}),
		Examples: []string{`{"path":"server/handler.go","line":42,"column":6,"new_name":"ServeUser"}`, `{"path":"main.go","line":10,"column":2,"new_name":"count","dry_run":true}`},
		Run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			var a struct {
				Path    string `json:"path"`
				Line    int    `json:"line"`
				Column  int    `json:"column"`
				NewName string `json:"new_name"`
				DryRun  bool   `json:"dry_run"`
				Confirm bool   `json:"confirm"`
			}
			if err := decode(args, &a); err != nil {
				return failure(err, nil)
			}
			res, _ := Rename(ctx, env.W, RenameOptions{Path: a.Path, Line: a.Line, Column: a.Column, NewName: a.NewName, DryRun: a.DryRun, Confirm: a.Confirm, Server: env.LanguageServer})
			return Result{Value: capResult(res), OK: res.Success, Code: res.Code}
		},
		Compact: func(a map[string]any) string {
			return fmt.Sprintf("%v:%v:%v → %v", a["path"], a["line"], a["column"], a["new_name"])
		},
	}
}
