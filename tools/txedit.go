package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"strings"

	"github.com/txedit/txedit/apply/patch"
	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/internal/grep"
	"github.com/txedit/txedit/plan"
)

// txeditToolset builds the txedit toolset (tools.go, toolsets).
func txeditToolset() *Toolset {
	return &Toolset{Name: "txedit", Description: "txedit's own tools: batch reads with content hashes, transactional writes, search, undo",
		Tools: []*Tool{fsReadTool(false), fsWriteTool(false), applyPatchTool(), renameSymbolTool(), globTool(), grepTool(), undoTool(), historyTool(), allowedDirsTool()}}
}

const hashAdvice = "Reads return content_hash for what they returned (HEX for a whole file, HEX@S-E for lines S..E); send it back with an edit and the edit only applies if those bytes are unchanged, so concurrent changes are never overwritten. On stale_hash, read again."

func readSchema() map[string]any {
	return object([]string{"mode"}, map[string]any{
		"mode":          enum("The mode: Line (file contents), Directory (listing), Search (lines containing a text), Image (base64 image data).", "Line", "Directory", "Search", "Image"),
		"path":          str("A file or directory, relative to the workspace root or absolute inside it; ~ is the home directory."),
		"paths":         strs("Several files to read in one call (Line mode). Each gets its own result, in order; one failing does not stop the others."),
		"start_line":    num("Line mode: first line, 1-based (default 1); negative counts from the end (-1 is the last line)."),
		"end_line":      num("Line mode: last line, inclusive (default -1: the end)."),
		"depth":         num("Directory mode: how many levels below the directory to list (default 0: its own entries)."),
		"pattern":       str("Search mode: text to find, case-insensitive, matched per line."),
		"context_lines": num("Search mode: lines of context around each match (default 2)."),
		"image_paths":   strs("Image mode: image files to return as base64 with their media type."),
	})
}

func fsReadTool(rfc bool) *Tool {
	schema := readSchema()
	if !rfc {
		// txedit's own: a Media mode, and excludes for listings.
		props := schema["properties"].(map[string]any)
		props["mode"] = enum("The mode: Line (file contents), Directory (listing), Search (lines containing a text), Image (base64 image data), Media (any files: images and audio as such, others as embedded resources).", "Line", "Directory", "Search", "Image", "Media")
		props["exclude"] = strs("Directory mode: globs of entries to leave out (without / a glob matches names at any depth; an excluded directory is not listed into).")
	}
	return &Tool{
		Name: "fs_read",
		Description: "Read files, directories and images. Line mode returns the lines as they are (line numbers implied by start_line); " +
			"batch several files with paths (each under a ==> path <== line; a file that cannot be read is reported in its place). " +
			"Over MCP the text is the files' text and the structured content holds content_hash, file_hash, last_modified and the line range. " +
			hashAdvice + " Binary files are refused in Line mode (use Image mode for images).",
		Schema:   schema,
		ReadOnly: true,
		Examples: []string{`{"mode":"Line","path":"src/main.go","start_line":10,"end_line":40}`, `{"mode":"Line","paths":["a.go","b.go"]}`,
			`{"mode":"Directory","path":".","depth":1}`, `{"mode":"Search","path":"README.md","pattern":"install"}`, `{"mode":"Image","image_paths":["logo.png"]}`},
		Run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			var req plan.ReadRequest
			if err := decode(args, &req); err != nil {
				return failure(err, nil)
			}
			var extra struct {
				Exclude []string `json:"exclude"`
			}
			if !rfc {
				decode(args, &extra)
				if strings.EqualFold(req.Mode, "Media") {
					return readMedia(ctx, env, &req)
				}
			}
			var res []*plan.ReadResult
			var err error
			if strings.EqualFold(req.Mode, "Directory") {
				res, err = readDirectories(ctx, env, &req, extra.Exclude)
			} else {
				res, err = env.W.Read(ctx, &req)
			}
			if err != nil {
				return failure(err, nil)
			}
			ok, some := true, false
			var images []Image
			for _, r := range res {
				ok = ok && r.Success
				some = some || r.Success
				for _, img := range r.Images {
					images = append(images, Image{Data: img.Data, MediaType: img.MediaType})
				}
			}
			batch := len(res) > 1 || len(req.Paths) > 0 || len(req.ImagePaths) > 1
			if !rfc && batch {
				// A batch reports a file it cannot read in its place; the
				// call fails only when none can be read.
				ok = some
			}
			r := Result{OK: ok, Images: images}
			var values []any
			for _, x := range res {
				if !x.Success && r.Code == "" && !ok {
					r.Code = x.Code
				}
				if rfc {
					values = append(values, rfcRead(x))
				} else {
					values = append(values, x)
				}
			}
			if len(res) == 1 && len(req.Paths) == 0 && len(req.ImagePaths) <= 1 {
				r.Value = values[0]
			} else if rfc {
				r.Value = values
			} else {
				r.Value = res
			}
			if len(images) > 0 {
				// The images go to the agent as images (MCP image content);
				// its text leaves their base64 out.
				r.Text = withoutImageData(r.Value)
			} else if !rfc {
				// The agent reads the files' text as text; their hashes
				// and metadata go in the structured content.
				r.LazyText = func() string { return readsText(res, batch) }
				r.Structured = readsMeta(res, batch)
			}
			return r
		},
		Compact: func(a map[string]any) string {
			if a["paths"] != nil {
				return fmt.Sprintf("%v files", len(a["paths"].([]any)))
			}
			return compactPath(a, "path", fmt.Sprint(a["mode"]))
		},
	}
}

// readsText is what an agent reads of fs_read's results: a file's text
// (or a listing, or the matching lines) as it is; for a batch, each
// under a "==> path <==" line as head(1) prints several files, a failure
// as its code and message in its place.
func readsText(res []*plan.ReadResult, batch bool) string {
	if !batch && len(res) == 1 {
		if !res[0].Success {
			return strings.TrimPrefix(res[0].Error, string(res[0].Code)+": ")
		}
		return res[0].Content
	}
	var b strings.Builder
	for i, r := range res {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString("==> " + r.Path + " <==\n")
		text := r.Content
		if !r.Success {
			text = "[" + string(r.Code) + "] " + strings.TrimPrefix(r.Error, string(r.Code)+": ")
		}
		b.WriteString(text)
		if text != "" && !strings.HasSuffix(text, "\n") {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// readsMeta is fs_read's structured content: each result without the
// text the agent reads already ({"results": [...]} for a batch).
func readsMeta(res []*plan.ReadResult, batch bool) map[string]any {
	metas := make([]any, len(res))
	for i, r := range res {
		var m map[string]any
		json.Unmarshal(r.AppendJSON(nil), &m)
		delete(m, "content")
		metas[i] = m
	}
	if !batch && len(metas) == 1 {
		return metas[0].(map[string]any)
	}
	return map[string]any{"results": metas}
}

// readDirectories runs Directory mode: per path, its listing as ls -lA
// prints it (ls -lAR down to depth), and its entries.
func readDirectories(ctx context.Context, env *Env, req *plan.ReadRequest, exclude []string) ([]*plan.ReadResult, error) {
	paths := req.Paths
	if req.Path != "" {
		paths = append([]string{req.Path}, paths...)
	}
	if len(paths) == 0 {
		return nil, plan.Errorf(plan.CodeInvalidRequest, "", "fs_read needs path or paths")
	}
	depth := 0
	if req.Depth != nil {
		depth = *req.Depth
	}
	var out []*plan.ReadResult
	for _, p := range paths {
		r := &plan.ReadResult{Path: p, Success: true}
		ents, text, err := listLong(ctx, env, p, depth, exclude...)
		if err != nil {
			pe := plan.As(err)
			r.Success, r.Code, r.Error = false, pe.Code, pe.Error()
		} else {
			r.Entries, r.Content = ents, text
		}
		out = append(out, r)
	}
	return out, nil
}

// rfcRead is a read result as the RFC shows it: a success always carries
// its content (an empty file's too), beside txedit's hashes.
func rfcRead(r *plan.ReadResult) map[string]any {
	var m map[string]any
	json.Unmarshal(r.AppendJSON(nil), &m)
	if _, has := m["content"]; r.Success && !has {
		m["content"] = r.Content
	}
	// The RFC's Search result is its content, each line once: matches
	// would send the lines that overlapping contexts share again.
	delete(m, "matches")
	return m
}

// withoutImageData is the JSON of v with the base64 of its images left
// out (they travel as images).
func withoutImageData(v any) string {
	b, _ := json.Marshal(v)
	var x any
	json.Unmarshal(b, &x)
	var strip func(any)
	strip = func(x any) {
		switch t := x.(type) {
		case map[string]any:
			if _, ok := t["media_type"]; ok {
				if _, ok := t["data"]; ok {
					t["data"] = "(sent as an image)"
				}
			}
			for _, v := range t {
				strip(v)
			}
		case []any:
			for _, v := range t {
				strip(v)
			}
		}
	}
	strip(x)
	b, _ = json.Marshal(x)
	return string(b)
}

func writeSchema() map[string]any {
	edit := object([]string{"command"}, map[string]any{
		"command":      enum("The edit.", "create", "str_replace", "insert", "append", "replace_lines", "delete", "move", "copy"),
		"file_text":    str("create: the whole content of the file."),
		"old_str":      str("str_replace: the exact text to replace; it must occur once unless replace_all."),
		"new_str":      str("str_replace, insert, append, replace_lines: the new text (insert, append and replace_lines insert whole lines)."),
		"replace_all":  flag("str_replace: replace every occurrence."),
		"insert_line":  num("insert: insert after this line (1-based; 0 inserts at the top)."),
		"start_line":   num("replace_lines: first line to replace (1-based)."),
		"end_line":     num("replace_lines: last line to replace (inclusive)."),
		"content_hash": str("insert, replace_lines: the token read returned for these lines (HEX or HEX@S-E); the edit applies only if they are unchanged."),
		"new_path":     str("move, copy: the destination; it must not exist."),
	})
	return object(nil, map[string]any{
		"command":      enum("The command of a single-file request, or pattern_replace.", "create", "str_replace", "insert", "append", "replace_lines", "delete", "move", "copy", "pattern_replace"),
		"path":         str("The file of a single-file request."),
		"file_text":    str("create: the whole content."),
		"old_str":      str("str_replace: the exact text to replace."),
		"new_str":      str("The new text."),
		"replace_all":  flag("str_replace: replace every occurrence."),
		"insert_line":  num("insert: after this line (0: at the top)."),
		"start_line":   num("replace_lines: first line."),
		"end_line":     num("replace_lines: last line."),
		"new_path":     str("move, copy: destination."),
		"content_hash": str("Precondition: the token a read returned (HEX or HEX@S-E)."),
		"fileEdits": map[string]any{"type": "array", "description": "Many files, many edits each, committed as one transaction. Within a file: create, then line edits (numbered as the file was read; applied bottom-up), then str_replace in order, then append, then copy/move/delete.",
			"items": object([]string{"path", "edits"}, map[string]any{
				"path":         str("The file."),
				"content_hash": str("Precondition for all the file's edits."),
				"edits":        map[string]any{"type": "array", "items": edit},
			})},
		"directory":        str("pattern_replace: the directory to search (default the root)."),
		"file_pattern":     str("pattern_replace: files to change (a glob; without / it matches names at any depth; ** crosses directories)."),
		"sed_pattern":      str("pattern_replace: s/REGEX/REPLACEMENT/FLAGS (any delimiter; RE2 regex; flags g, i, N; & and \\1-\\9 in the replacement)."),
		"recursive":        flag("pattern_replace: include subdirectories (default true)."),
		"exclude_patterns": strs("pattern_replace: globs to leave out; dir/** prunes a subtree."),
		"literal":          flag("pattern_replace: the regex and replacement are plain strings."),
		"hidden":           flag("pattern_replace: include dot-files."),
		"no_ignore":        flag("pattern_replace: do not honour .gitignore."),
		"dry_run":          flag("Preview: return per-file previews and one combined unified diff; write nothing."),
		"atomic":           flag("Default true: if any edit fails nothing is written. False: failed edits are skipped, the rest written."),
		"summary":          str("A short description, kept in the undo log."),
		"rebase":           flag("When a file-level content_hash (a whole-file HEX) no longer matches, apply the edits on top of what changed since instead of failing with stale_hash, if they touch none of it and txedit knows the version that hash names; the file's result then carries the delta (who changed it, and how). Default false: content_hash is a compare-and-swap."),
	})
}

func fsWriteTool(rfc bool) *Tool {
	return &Tool{
		Name: "fs_write",
		Description: "Create and edit files as one all-or-nothing transaction that txedit undo can revert: a single edit (command + path), " +
			"many edits over many files (fileEdits), or a sed-style replacement across a tree (pattern_replace). Use dry_run to preview the diff. " +
			"str_replace needs exactly one match unless replace_all: on not_found the error points at the closest text; on ambiguous it lists the lines. " +
			"Line numbers are 1-based and refer to the file as it was read. Line endings, BOM and a missing final newline are kept. " +
			hashAdvice + " Every failure carries a code and the edit's index; in atomic mode nothing was written.",
		Schema: writeSchema(),
		Examples: []string{`{"command":"str_replace","path":"a.go","old_str":"Foo()","new_str":"Bar()"}`,
			`{"fileEdits":[{"path":"a.go","edits":[{"command":"replace_lines","start_line":3,"end_line":4,"new_str":"x := 1","content_hash":"0123456789abcdef@3-4"}]},{"path":"n.txt","edits":[{"command":"create","file_text":"hi\n"}]}],"dry_run":true}`,
			`{"command":"pattern_replace","directory":"src","file_pattern":"*.js","sed_pattern":"s/var /let /g","exclude_patterns":["node_modules/**"]}`},
		Run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			req, err := decodeWrite(args)
			if err != nil {
				return failure(err, nil)
			}
			// txedit's own dialect says when a request sent again is
			// already in effect (the RFC's says nothing of it).
			req.ProveRetries = !rfc
			// Both print a file's delta (docs/design.md, "Concurrency").
			req.DeltaShown = true
			if rfc {
				// The RFC's answer to a commit shows no diff: a big one is
				// streamed without them, so the engine keeps none
				// (docs/toolsets.md, "The answer budget").
				sctx := ctx
				if !req.DryRun && (req.HasPattern() || len(req.FileEdits) > streamFiles) {
					sctx = engine.StreamResults(ctx, func(*plan.FileResult) {}, false)
				}
				res, _ := env.W.Apply(sctx, req)
				return rfcWriteResult(req, res)
			}
			res, v := applyCapped(ctx, env, req)
			return Result{Value: v, OK: res.Success, Code: res.Code}
		},
		Compact: func(a map[string]any) string {
			if fe, ok := a["fileEdits"].([]any); ok {
				return fmt.Sprintf("%d files", len(fe))
			}
			if a["sed_pattern"] != nil {
				return fmt.Sprintf("%v in %v", a["sed_pattern"], compactPath(a, "directory"))
			}
			return compactPath(a, "path", fmt.Sprint(a["command"]))
		},
	}
}

func applyPatchTool() *Tool {
	return &Tool{
		Name: "apply_patch",
		Description: "Apply a change written in an agent's native edit format: a Codex apply_patch envelope (*** Begin Patch), an OpenAI apply_patch_call, " +
			"a unified or git diff, SEARCH/REPLACE blocks (a path line, then <<<<<<< SEARCH / ======= / >>>>>>> REPLACE), or an LSP WorkspaceEdit " +
			"(changes or documentChanges, positions in UTF-16 unless position_encoding says otherwise). The format is detected. " +
			"All files commit as one transaction, or none; hunks are placed by content (exact, then ignoring whitespace, then Unicode punctuation; " +
			"the result says which per hunk); context that matches twice is refused as ambiguous; a patch already applied is reported, not applied twice.",
		Schema: object([]string{"input"}, map[string]any{
			"input":             str("The patch text (or the WorkspaceEdit's JSON)."),
			"format":            enum("The format (default auto: detected).", "auto", "json", "apply_patch", "responses", "diff", "search_replace", "lsp"),
			"dry_run":           flag("Preview: return the diff; write nothing."),
			"position_encoding": enum("lsp: what a position's character counts (default utf-16, the protocol's).", "utf-8", "utf-16", "utf-32"),
			"confirm":           flag("lsp: confirm the changes whose annotation needs confirmation (preview them first)."),
		}),
		Examples: []string{`{"input":"--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-old\n+new\n"}`,
			`{"input":"{\"changes\":{\"file:///src/app/a.go\":[{\"range\":{\"start\":{\"line\":3,\"character\":5},\"end\":{\"line\":3,\"character\":8}},\"newText\":\"Bar\"}]}}","dry_run":true}`},
		Run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			var a struct {
				Input            string
				Format           string
				DryRun           bool   `json:"dry_run"`
				PositionEncoding string `json:"position_encoding"`
				Confirm          bool   `json:"confirm"`
			}
			if err := decode(args, &a); err != nil {
				return failure(err, nil)
			}
			f, err := patch.ParseFormat(a.Format)
			if err != nil {
				return failure(err, nil) // already an invalid_request: wrapping it again printed the code twice
			}
			enc, err := plan.ParsePositionEncoding(a.PositionEncoding)
			if err != nil {
				return failure(err, nil)
			}
			o := patch.LSPOptions{Tree: env.W.Workspace().Tree(), Encoding: enc, Confirm: a.Confirm, DryRun: a.DryRun}
			req, _, we, err := patch.CompileWith(f, []byte(a.Input), o)
			if err != nil {
				return failure(err, nil)
			}
			req.DryRun = req.DryRun || a.DryRun
			req.DeltaShown = true // the result's JSON shows each file's delta
			res, v := applyCapped(ctx, env, req)
			if we != nil {
				res.Warnings = append(we.Warnings, res.Warnings...)
				if req.DryRun {
					res.Groups, _ = GroupsOf(ctx, env.W.Workspace(), we)
				}
			}
			return Result{Value: v, OK: res.Success, Code: res.Code}
		},
		Compact: func(a map[string]any) string { return fmt.Sprint(orDash(a["format"])) },
	}
}

// GroupsOf is a compiled WorkspaceEdit's changes by change annotation
// (nil when it carries none), on w's files as they are: what a dry run
// shows before a person confirms (docs/lsp.md, "Annotations").
func GroupsOf(ctx context.Context, w *engine.Workspace, we *patch.WorkspaceEdit) ([]plan.ChangeGroup, error) {
	return we.Groups(func(rel string) ([]byte, error) {
		fb, err := w.ReadBytes(ctx, filepath.Join(w.RealRoot(), filepath.FromSlash(rel)))
		if err != nil {
			return nil, err
		}
		return fb.Data, nil
	})
}

// decodeWrite reads an fs_write request leniently (file_edits is accepted
// for fileEdits).
func decodeWrite(args json.RawMessage) (*plan.Request, error) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(args, &probe); err != nil {
		return nil, plan.Wrapf(plan.CodeInvalidRequest, "", err, "bad arguments: %v", err)
	}
	if fe, ok := probe["file_edits"]; ok && probe["fileEdits"] == nil {
		probe["fileEdits"] = fe
		args, _ = json.Marshal(probe)
	}
	var req plan.Request
	if err := decode(args, &req); err != nil {
		return nil, err
	}
	return &req, nil
}

func globTool() *Tool {
	return &Tool{
		Name:        "glob",
		Description: "Find files by name: pattern is relative to path; ** crosses directories, {a,b} and [abc] work; a pattern without / matches names at any depth. .gitignore is honoured and dot-files are skipped. Returns root-relative paths sorted by path.",
		Schema: object([]string{"pattern"}, map[string]any{"pattern": str("A glob, e.g. **/*.go or src/**/*.{ts,tsx}."), "path": str("Directory to search (default the root)."),
			"exclude": strs("Globs, relative to path, of files and directories to leave out (without / a glob matches names at any depth; an excluded directory is not entered), e.g. [\"node_modules\", \"*.min.js\"].")}),
		ReadOnly: true,
		Examples: []string{`{"pattern":"**/*.go"}`, `{"pattern":"*.md","path":"docs"}`, `{"pattern":"**/*.js","exclude":["node_modules","dist/**"]}`},
		Run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			var a struct {
				Pattern, Path string
				Exclude       []string
			}
			if err := decode(args, &a); err != nil {
				return failure(err, nil)
			}
			res, err := env.W.Glob(ctx, engine.GlobOptions{Pattern: a.Pattern, Path: a.Path, Exclude: a.Exclude})
			if err != nil {
				return failure(err, res)
			}
			return Result{Value: res, OK: true}
		},
		Compact: func(a map[string]any) string { return fmt.Sprintf("%v in %s", a["pattern"], compactPath(a, "path")) },
	}
}

func grepSchema() map[string]any {
	return object([]string{"pattern"}, map[string]any{
		"pattern":     str("Regular expression (RE2 syntax, as ripgrep)."),
		"path":        str("File or directory to search (default the root)."),
		"glob":        str("Only files matching this glob (e.g. *.{ts,tsx}); !glob excludes."),
		"output_mode": enum("files_with_matches (default): paths; content: matching lines; count: matching lines per file.", "content", "files_with_matches", "count"),
		"-B":          num("Lines of context before each match (content mode)."),
		"-A":          num("Lines of context after each match (content mode)."),
		"-C":          num("Lines of context around each match (content mode)."),
		"-n":          flag("Show line numbers (content mode; they are always in the JSON)."),
		"-i":          flag("Case-insensitive."),
		"type":        str("Only files of this type: go, py, js, ts, rust, java, c, cpp, md, json, yaml, sh, …"),
		"head_limit":  num("Return at most this many entries."),
		"multiline":   flag("Let matches span lines (. still does not match a newline)."),
		"sort":        enum("The files' order: path (default), or modified: the most recently modified first, ties by path.", "path", "modified"),
	})
}

func grepTool() *Tool {
	return &Tool{
		Name: "grep",
		Description: "Search file contents with ripgrep's semantics: RE2 regex, .gitignore honoured, hidden and binary files skipped. Returns files, per-file counts of matching lines, or matching lines with context, sorted by path; truncated tells when head_limit cut the list. " +
			"The text is ripgrep's output (path:line:text, context as path-line-text, -- between groups); the structured result holds the same as JSON.",
		Schema:   grepSchema(),
		ReadOnly: true,
		Examples: []string{`{"pattern":"func \\w+\\(","type":"go","output_mode":"count"}`, `{"pattern":"TODO","output_mode":"content","-C":2,"head_limit":50}`},
		Run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			var req plan.GrepRequest
			if err := decode(args, &req); err != nil {
				return failure(err, nil)
			}
			res, err := env.W.Grep(ctx, &req)
			if err != nil {
				return failure(err, res)
			}
			return Result{Value: res, OK: true, LazyText: func() string { return grepTextOf(env, &req, res) }}
		},
		Compact: func(a map[string]any) string { return fmt.Sprintf("%q in %s", a["pattern"], compactPath(a, "path")) },
	}
}

// grepTextOf is what an agent reads of a grep result over MCP: ripgrep's
// output of it (the JSON is the structured content), and a last line
// when head_limit cut it.
func grepTextOf(env *Env, req *plan.GrepRequest, res *plan.GrepResult) string {
	isDir, _ := env.W.IsDir(req.Path)
	text, n, _ := grepText(res, grep.PrintOptions{
		LineNumbers: req.LineNums == nil || *req.LineNums,
		NoPath:      req.Path != "" && !isDir,
		Context:     req.Before > 0 || req.After > 0 || req.Context > 0,
	})
	if n == 0 {
		text = "No matches found\n"
	}
	if res.Truncated {
		text += fmt.Sprintf("[head_limit %d cut the results: there are more]\n", req.HeadLimit)
	}
	return text
}

func undoTool() *Tool {
	return &Tool{
		Name:        "undo",
		Description: "Revert a committed transaction (default: the newest one still in effect; repeat to walk back) as a new transaction. Undoing an undo is redo. If a file changed since, it refuses with conflict and names the files; force undoes anyway, journaling the bytes it overwrites. dry_run previews.",
		Schema: object(nil, map[string]any{"transaction_id": str("The transaction (or a unique prefix of its id); see history."),
			"force": flag("Undo even files that changed since."), "dry_run": flag("Preview only.")}),
		Examples: []string{`{}`, `{"transaction_id":"20261121-0817","dry_run":true}`},
		Run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			var a struct {
				TransactionID string `json:"transaction_id"`
				Force         bool   `json:"force"`
				DryRun        bool   `json:"dry_run"`
			}
			if err := decode(args, &a); err != nil {
				return failure(err, nil)
			}
			res, _ := env.W.Undo(ctx, engine.UndoOptions{ID: a.TransactionID, Force: a.Force, DryRun: a.DryRun})
			return Result{Value: res, OK: res.Success, Code: res.Code}
		},
		Compact: func(a map[string]any) string { return compactPath(a, "transaction_id") },
	}
}

func historyTool() *Tool {
	return &Tool{
		Name: "history",
		Description: "List the transactions of the workspace, newest first: id, time, state (committed, undone, rolled_back), files and summary. " +
			"With transaction_id, that transaction's record and its diffs, file by file ({path, diff}), from the journal: what a write's answer left out past its budget (diffs_omitted, files_omitted). " +
			"The diffs come a page at a time, whole, under the write's budget: offset skips that many, limit caps the page, next_offset is where the next page starts (absent on the last); path gives one file's.",
		Schema: object(nil, map[string]any{"limit": num("At most this many transactions (default 20); with transaction_id, at most this many diffs."),
			"transaction_id": str("A transaction (or a unique prefix of its id): return its diffs."),
			"path":           str("With transaction_id: only this file's diff."),
			"offset":         num("With transaction_id: skip this many diffs (default 0).")}),
		ReadOnly: true,
		Examples: []string{`{}`, `{"limit":5}`, `{"transaction_id":"20261121-0817","offset":40}`},
		Run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			var a struct {
				Limit         int
				Offset        int
				Path          string
				TransactionID string `json:"transaction_id"`
			}
			if err := decode(args, &a); err != nil {
				return failure(err, nil)
			}
			if a.TransactionID != "" {
				return txnDiffs(ctx, env, a.TransactionID, a.Path, a.Offset, a.Limit)
			}
			if a.Limit <= 0 {
				a.Limit = 20
			}
			log, err := env.W.Log(ctx, engine.LogOptions{Limit: a.Limit})
			if err != nil {
				return failure(err, nil)
			}
			if log == nil {
				log = []*engine.TxnInfo{}
			}
			return Result{Value: map[string]any{"success": true, "transactions": log}, OK: true}
		},
		Compact: func(a map[string]any) string { return compactPath(a, "transaction_id") },
	}
}

// fileDiff is one file's diff of a transaction (history).
type fileDiff struct {
	Path string `json:"path"`
	Diff string `json:"diff"`
}

// txnDiffs is history of one transaction: its record without its file
// list (a 50,000-file transaction's is megabytes) and a page of its diffs
// under the answer budget, each whole (the first one of a page even when
// it alone is over the budget); the journal hands them over one at a time.
func txnDiffs(ctx context.Context, env *Env, id, p string, offset, limit int) Result {
	var info *engine.TxnInfo
	page := []fileDiff{}
	total, next, size := 0, 0, 0
	want := ""
	if p != "" {
		if filepath.IsAbs(p) {
			if rel, err := filepath.Rel(env.W.RealRoot(), p); err == nil {
				p = rel
			}
		}
		want = path.Clean(filepath.ToSlash(p))
	}
	err := env.W.ShowFiles(ctx, id, func(ti *engine.TxnInfo) error { info = ti; return nil }, func(fp, d string) error {
		if want != "" && fp != want {
			return nil
		}
		i := total
		total++
		if i < offset || next != 0 {
			return nil
		}
		// The page's compact JSON counts, as a write's answer's does.
		b, _ := json.Marshal(fileDiff{fp, d})
		if len(page) > 0 && (size+len(b) > diffBudget || (limit > 0 && len(page) >= limit)) {
			next = i
			return nil
		}
		page = append(page, fileDiff{fp, d})
		size += len(b)
		return nil
	})
	if err != nil {
		return failure(err, nil)
	}
	files := len(info.Files)
	head := *info
	head.Files = nil
	v := map[string]any{"success": true, "transaction": &head, "files": files, "diffs_total": total, "offset": offset, "diffs": page}
	if next != 0 {
		v["next_offset"] = next
	}
	return Result{Value: v, OK: true}
}

// readMedia is fs_read's Media mode: each file as the agent can take it
// (an image or an audio clip as such, anything else as an embedded
// resource with its bytes), through the session (they count as read); a
// file that cannot be read is reported in the structured results.
func readMedia(ctx context.Context, env *Env, req *plan.ReadRequest) Result {
	paths := append(append([]string(nil), req.Paths...), req.ImagePaths...)
	if req.Path != "" {
		paths = append([]string{req.Path}, paths...)
	}
	if len(paths) == 0 {
		return failure(plan.Errorf(plan.CodeInvalidRequest, "", "Media mode needs path or paths"), nil)
	}
	var media []Media
	var results []any
	var firstErr error
	for _, p := range paths {
		b, err := env.W.ReadBytes(ctx, p)
		if err != nil {
			pe := plan.As(err)
			results = append(results, map[string]any{"path": p, "success": false, "code": pe.Code, "error": pe.Error()})
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		m := mediaOf(b.Path, b.Data, env.W.RealRoot())
		media = append(media, m)
		results = append(results, map[string]any{"path": p, "success": true, "kind": m.Kind, "media_type": m.MimeType,
			"size": len(b.Data), "content_hash": b.Hash, "file_hash": b.Hash})
	}
	value := map[string]any{"success": len(media) > 0, "results": results}
	if len(media) == 0 {
		r := failure(firstErr, value)
		return r
	}
	return Result{OK: true, Media: media, Value: value}
}

// mediaOf is a file's content block: by its extension as the official
// filesystem server decides, else by its first bytes for images.
func mediaOf(rel string, data []byte, root string) Media {
	mt := mediaTypes()[strings.ToLower(path.Ext(rel))]
	if mt == "" {
		mt = sniffImage(data)
	}
	m := Media{Data: data, MimeType: mt}
	switch {
	case strings.HasPrefix(mt, "image/"):
		m.Kind = "image"
	case strings.HasPrefix(mt, "audio/"):
		m.Kind = "audio"
	default:
		m.Kind, m.MimeType = "resource", "application/octet-stream"
		m.URI = (&url.URL{Scheme: "file", Path: path.Join(filepath.ToSlash(root), rel)}).String()
	}
	return m
}

func allowedDirsTool() *Tool {
	return &Tool{
		Name:        "list_allowed_directories",
		Description: "The directory this server reads and writes in (its workspace root); paths may be relative to it or absolute inside it.",
		Schema:      object(nil, map[string]any{}),
		ReadOnly:    true,
		Examples:    []string{`{}`},
		Run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			dirs := AllowedDirs(rootsOf(env))
			text := "Allowed directories:\n" + strings.Join(dirs, "\n")
			return Result{OK: true, Value: map[string]any{"success": true, "directories": dirs}, Text: text}
		},
		Compact: func(a map[string]any) string { return "" },
	}
}

// sniffImage names an image's media type from its first bytes ("" when
// it is none of the common formats).
func sniffImage(b []byte) string {
	s := string(b[:min(len(b), 16)])
	switch {
	case strings.HasPrefix(s, "\x89PNG\r\n\x1a\n"):
		return "image/png"
	case strings.HasPrefix(s, "\xff\xd8\xff"):
		return "image/jpeg"
	case strings.HasPrefix(s, "GIF87a"), strings.HasPrefix(s, "GIF89a"):
		return "image/gif"
	case len(s) >= 12 && s[:4] == "RIFF" && s[8:12] == "WEBP":
		return "image/webp"
	}
	return ""
}
