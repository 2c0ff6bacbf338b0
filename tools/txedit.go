package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/txedit/txedit/apply/patch"
	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/internal/grep"
	"github.com/txedit/txedit/plan"
)

func init() {
	register("txedit", func() *Toolset {
		return &Toolset{Name: "txedit", Description: "txedit's own tools: batch reads with content hashes, transactional writes, search, undo",
			Tools: []*Tool{fsReadTool(false), fsWriteTool(false), applyPatchTool(), globTool(), grepTool(), undoTool(), historyTool()}}
	})
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
	return &Tool{
		Name: "fs_read",
		Description: "Read files, directories and images. Line mode returns lines with line numbers implied by start_line; " +
			"batch several files with paths. " + hashAdvice + " Binary files are refused in Line mode (use Image mode for images).",
		Schema:   readSchema(),
		ReadOnly: true,
		Examples: []string{`{"mode":"Line","path":"src/main.go","start_line":10,"end_line":40}`, `{"mode":"Line","paths":["a.go","b.go"]}`,
			`{"mode":"Directory","path":".","depth":1}`, `{"mode":"Search","path":"README.md","pattern":"install"}`, `{"mode":"Image","image_paths":["logo.png"]}`},
		Run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			var req plan.ReadRequest
			if err := decode(args, &req); err != nil {
				return failure(err, nil)
			}
			var res []*plan.ReadResult
			var err error
			if strings.EqualFold(req.Mode, "Directory") {
				res, err = readDirectories(ctx, env, &req)
			} else {
				res, err = env.W.Read(ctx, &req)
			}
			if err != nil {
				return failure(err, nil)
			}
			ok := true
			var images []Image
			for _, r := range res {
				ok = ok && r.Success
				for _, img := range r.Images {
					images = append(images, Image{Data: img.Data, MediaType: img.MediaType})
				}
			}
			r := Result{OK: ok, Images: images}
			var values []any
			for _, x := range res {
				if !x.Success && r.Code == "" {
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

// readDirectories runs Directory mode: per path, its listing as ls -lA
// prints it (ls -lAR down to depth), and its entries.
func readDirectories(ctx context.Context, env *Env, req *plan.ReadRequest) ([]*plan.ReadResult, error) {
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
		ents, text, err := listLong(ctx, env, p, depth)
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
			res, _ := env.W.Apply(ctx, req)
			if rfc {
				return rfcWriteResult(req, res)
			}
			return Result{Value: res, OK: res.Success, Code: res.Code}
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
			"a unified or git diff, or SEARCH/REPLACE blocks (a path line, then <<<<<<< SEARCH / ======= / >>>>>>> REPLACE). The format is detected. " +
			"All files commit as one transaction, or none; hunks are placed by content (exact, then ignoring whitespace, then Unicode punctuation; " +
			"the result says which per hunk); context that matches twice is refused as ambiguous; a patch already applied is reported, not applied twice.",
		Schema: object([]string{"input"}, map[string]any{
			"input":   str("The patch text."),
			"format":  enum("The format (default auto: detected).", "auto", "json", "apply_patch", "responses", "diff", "search_replace"),
			"dry_run": flag("Preview: return the diff; write nothing."),
		}),
		Examples: []string{`{"input":"--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-old\n+new\n"}`},
		Run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			var a struct {
				Input  string
				Format string
				DryRun bool `json:"dry_run"`
			}
			if err := decode(args, &a); err != nil {
				return failure(err, nil)
			}
			f, err := patch.ParseFormat(a.Format)
			if err != nil {
				return failure(plan.Errorf(plan.CodeInvalidRequest, "", "%v", err), nil)
			}
			req, _, err := patch.Compile(f, []byte(a.Input))
			if err != nil {
				return failure(err, nil)
			}
			req.DryRun = req.DryRun || a.DryRun
			res, _ := env.W.Apply(ctx, req)
			return Result{Value: res, OK: res.Success, Code: res.Code}
		},
		Compact: func(a map[string]any) string { return fmt.Sprint(orDash(a["format"])) },
	}
}

// decodeWrite reads an fs_write request leniently (file_edits is accepted
// for fileEdits).
func decodeWrite(args json.RawMessage) (*plan.Request, error) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(args, &probe); err != nil {
		return nil, plan.Errorf(plan.CodeInvalidRequest, "", "bad arguments: %v", err)
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
		Schema:      object([]string{"pattern"}, map[string]any{"pattern": str("A glob, e.g. **/*.go or src/**/*.{ts,tsx}."), "path": str("Directory to search (default the root).")}),
		ReadOnly:    true,
		Examples:    []string{`{"pattern":"**/*.go"}`, `{"pattern":"*.md","path":"docs"}`},
		Run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			var a struct{ Pattern, Path string }
			if err := decode(args, &a); err != nil {
				return failure(err, nil)
			}
			res, err := env.W.Glob(ctx, engine.GlobOptions{Pattern: a.Pattern, Path: a.Path})
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
		Name:        "history",
		Description: "List the transactions of the workspace, newest first: id, time, state (committed, undone, rolled_back), files and summary.",
		Schema:      object(nil, map[string]any{"limit": num("At most this many (default 20).")}),
		ReadOnly:    true,
		Examples:    []string{`{}`, `{"limit":5}`},
		Run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			var a struct{ Limit int }
			if err := decode(args, &a); err != nil {
				return failure(err, nil)
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
		Compact: func(a map[string]any) string { return "" },
	}
}
