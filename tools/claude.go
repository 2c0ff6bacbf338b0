package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/internal/grep"
	"github.com/txedit/txedit/plan"
)

func init() {
	register("claude", func() *Toolset {
		return &Toolset{Fail: func(err error) Result { return toolFail(err, "") }, Name: "claude", Description: "the TypeScript agent SDK's Read, Write, Edit, MultiEdit, LS, Glob and Grep (ToolResult results)",
			Tools: []*Tool{claudeRead(), claudeWrite(), claudeEdit(), claudeMultiEdit(), claudeLS(), claudeGlob(), claudeGrep()}}
	})
}

// ToolResult is seed 002's result of every tool.
type ToolResult struct {
	Success     bool        `json:"success"`
	Content     string      `json:"content"`
	ShortResult string      `json:"shortResult,omitempty"`
	Error       string      `json:"error,omitempty"`
	Images      []toolImage `json:"images,omitempty"`
	FilePath    string      `json:"filePath,omitempty"`
	// Code is txedit's stable error code (an addition to the seed).
	Code plan.Code `json:"code,omitempty"`
}

// AppendJSON appends r as encoding/json encodes it (without HTML
// escaping), with the content encoded by plan's string encoder: a Grep or
// Read result's content is the bulk of what a tool prints.
func (r ToolResult) AppendJSON(b []byte) []byte {
	b = append(b, `{"success":`...)
	b = strconv.AppendBool(b, r.Success)
	b = append(b, `,"content":`...)
	b = plan.AppendJSONString(b, r.Content)
	for _, f := range []struct{ name, v string }{{"shortResult", r.ShortResult}, {"error", r.Error}} {
		if f.v != "" {
			b = append(append(append(b, `,"`...), f.name...), `":`...)
			b = plan.AppendJSONString(b, f.v)
		}
	}
	if len(r.Images) > 0 {
		b = append(b, `,"images":[`...)
		for i, im := range r.Images {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"data":`...)
			b = plan.AppendJSONString(b, im.Data)
			b = append(b, `,"mediaType":`...)
			b = plan.AppendJSONString(b, im.MediaType)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if r.FilePath != "" {
		b = append(b, `,"filePath":`...)
		b = plan.AppendJSONString(b, r.FilePath)
	}
	if r.Code != "" {
		b = append(b, `,"code":`...)
		b = plan.AppendJSONString(b, string(r.Code))
	}
	return append(b, '}')
}

type toolImage struct {
	Data      string `json:"data"`
	MediaType string `json:"mediaType"`
}

func toolOK(tr ToolResult) Result {
	tr.Success = true
	return Result{Value: tr, Text: tr.Content, OK: true}
}

func toolFail(err error, filePath string) Result {
	code := plan.CodeOf(err)
	tr := ToolResult{Success: false, Error: err.Error(), FilePath: filePath, Code: code}
	return Result{Value: tr, Text: "Error: " + err.Error(), OK: false, Code: code}
}

// readLimit is how many lines Read returns by default, and maxLineLen how
// many characters of a line it shows before cutting it.
const (
	readLimit  = 2000
	maxLineLen = 2000
)

var imageExt = map[string]bool{".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".webp": true, ".bmp": true}

// claudeNames are Claude Code's names for the engine's arguments.
var claudeNames = map[string]string{"old_str": "old_string", "new_str": "new_string", "file_text": "content"}

// claudeErr rewrites an engine error in Claude Code's terms.
func claudeErr(err error) error { return renamer{names: claudeNames}.err(err) }

// Claude Code's notices, byte for byte: they are answers, not errors.
const (
	emptyFileNotice = "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>"
	shortFileNotice = "<system-reminder>Warning: the file exists but is shorter than the provided offset (%d). The file has %d lines.</system-reminder>"
)

func claudeRead() *Tool {
	return &Tool{
		Name: "Read",
		Description: "Read a file. Returns cat -n style numbered lines (numbers start at 1), up to 2000 lines from offset; lines longer than 2000 characters are cut. " +
			"Images (png, jpg, gif, webp, bmp) come back as images. Read a file before editing it; use offset and limit for big files.",
		Schema: object([]string{"file_path"}, map[string]any{
			"file_path": str("The file: absolute inside the workspace, or relative to it."),
			"offset":    num("The line number to start at (1-based)."),
			"limit":     num("How many lines to read (default 2000)."),
		}),
		ReadOnly: true,
		Examples: []string{`{"file_path":"src/main.go"}`, `{"file_path":"/repo/big.log","offset":1000,"limit":200}`},
		Run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			var a struct {
				FilePath string `json:"file_path"`
				Offset   int    `json:"offset"`
				Limit    int    `json:"limit"`
			}
			if err := decode(args, &a); err != nil {
				return toolFail(err, "")
			}
			if imageExt[strings.ToLower(path.Ext(a.FilePath))] {
				return claudeReadImage(ctx, env, a.FilePath)
			}
			start := max(a.Offset, 1)
			limit := a.Limit
			if limit <= 0 {
				limit = readLimit
			}
			end := start + limit - 1
			rs, err := env.W.Read(ctx, &plan.ReadRequest{Mode: "Line", Path: a.FilePath, StartLine: &start, EndLine: &end})
			if err != nil {
				return toolFail(claudeErr(err), a.FilePath)
			}
			r := rs[0]
			switch {
			case r.Code == plan.CodeLineOutOfRange:
				return toolOK(ToolResult{Content: fmt.Sprintf(shortFileNotice, start, r.TotalLines), ShortResult: fmt.Sprintf("Read 0 lines (the file has %d)", r.TotalLines), FilePath: a.FilePath})
			case r.Code == plan.CodeBinaryFile:
				return toolFail(plan.Errorf(plan.CodeBinaryFile, a.FilePath, "cannot read binary files: Read shows text files, and images (.png, .jpg, .jpeg, .gif, .webp, .bmp)"), a.FilePath)
			case !r.Success:
				return toolFail(claudeErr(errorOf(r.Code, r.Error)), a.FilePath)
			case r.TotalLines == 0:
				return toolOK(ToolResult{Content: emptyFileNotice, ShortResult: "Read 0 lines (the file is empty)", FilePath: a.FilePath})
			}
			var b strings.Builder
			lines := strings.SplitAfter(r.Content, "\n")
			if lines[len(lines)-1] == "" {
				lines = lines[:len(lines)-1]
			}
			for i, l := range lines {
				fmt.Fprintf(&b, "%6d\t%s\n", r.StartLine+i, cutLine(strings.TrimSuffix(strings.TrimSuffix(l, "\n"), "\r")))
			}
			short := fmt.Sprintf("Read %d lines", len(lines))
			if r.TotalLines > len(lines) {
				short += fmt.Sprintf(" (%d-%d of %d)", r.StartLine, r.EndLine, r.TotalLines)
			}
			return toolOK(ToolResult{Content: b.String(), ShortResult: short, FilePath: a.FilePath})
		},
		Compact: func(a map[string]any) string {
			s := fmt.Sprint(a["file_path"])
			if a["offset"] != nil || a["limit"] != nil {
				s += fmt.Sprintf(" (offset %v, limit %v)", orDash(a["offset"]), orDash(a["limit"]))
			}
			return s
		},
	}
}

// cutLine cuts a line longer than maxLineLen characters (not bytes: a
// character is never split) and marks the cut as the SDK does.
func cutLine(l string) string {
	if len(l) <= maxLineLen || utf8.RuneCountInString(l) <= maxLineLen {
		return l
	}
	n := 0
	for i := range l {
		if n == maxLineLen {
			return l[:i] + "..."
		}
		n++
	}
	return l
}

// claudeReadImage returns an image as Claude Code does: the picture
// itself (an MCP image block; images in the ToolResult), not text.
func claudeReadImage(ctx context.Context, env *Env, filePath string) Result {
	rs, err := env.W.Read(ctx, &plan.ReadRequest{Mode: "Image", ImagePaths: []string{filePath}})
	if err != nil {
		return toolFail(claudeErr(err), filePath)
	}
	r := rs[0]
	if !r.Success {
		return toolFail(claudeErr(errorOf(r.Code, r.Error)), filePath)
	}
	img := r.Images[0]
	res := toolOK(ToolResult{Content: fmt.Sprintf("Image %s (%s)", filePath, img.MediaType), ShortResult: "Read image",
		Images: []toolImage{{Data: img.Data, MediaType: img.MediaType}}, FilePath: filePath})
	res.Images = []Image{{Data: img.Data, MediaType: img.MediaType}}
	return res
}

// canCreate refuses Claude Code's create-by-empty-old_string when the file
// already has content.
func canCreate(ctx context.Context, env *Env, filePath string) error {
	// The workspace's read, not the session's: looking does not count as
	// the agent having read the file.
	if rs, _ := env.W.Workspace.Read(ctx, &plan.ReadRequest{Mode: "Line", Path: filePath}); len(rs) == 1 && rs[0].Success && rs[0].Content != "" {
		return plan.Errorf(plan.CodeInvalidRequest, filePath, "Cannot create new file - file already exists.")
	}
	return nil
}

func orDash(v any) any {
	if v == nil {
		return "-"
	}
	return v
}

func errorOf(code plan.Code, msg string) error {
	return plan.Errorf(code, "", "%s", strings.TrimPrefix(msg, string(code)+": "))
}

// writeResult turns an Apply result into a ToolResult; verb "" takes the
// file's status (created or updated). rn names the engine's arguments
// and edit positions as the tool does.
func writeResult(res *plan.Result, filePath, verb string, rn renamer) Result {
	if !res.Success {
		return toolFail(rn.err(resultErr(res)), filePath)
	}
	var add, del int
	if len(res.Files) == 1 {
		f := res.Files[0]
		add, del = f.LinesAdded, f.LinesRemoved
		if verb == "" {
			verb = "updated"
			if f.Status == "created" {
				verb = "created"
			}
		}
	}
	return toolOK(ToolResult{Content: fmt.Sprintf("The file %s has been %s.", filePath, verb) + hashNote(res),
		ShortResult: fmt.Sprintf("%s %s (+%d -%d)", strings.ToUpper(verb[:1])+verb[1:], filePath, add, del), FilePath: filePath})
}

func hashNote(res *plan.Result) string {
	if len(res.Files) == 1 && res.Files[0].ContentHash != "" {
		return fmt.Sprintf(" Its content_hash is now %s.", res.Files[0].ContentHash)
	}
	return ""
}

func claudeWrite() *Tool {
	return &Tool{
		Name:        "Write",
		Description: "Write a whole file, creating it (and its directories) or replacing its content. An existing file keeps its line endings and BOM. Prefer Edit for changes to an existing file. Undoable with txedit undo.",
		Schema:      object([]string{"file_path", "content"}, map[string]any{"file_path": str("The file to write."), "content": str("Its whole content.")}),
		Examples:    []string{`{"file_path":"docs/notes.md","content":"# Notes\n"}`},
		Run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			var a struct {
				FilePath string `json:"file_path"`
				Content  string `json:"content"`
			}
			if err := decode(args, &a); err != nil {
				return toolFail(err, "")
			}
			res, _ := env.W.Apply(ctx, &plan.Request{Path: a.FilePath, Edit: plan.Edit{Command: "create", FileText: &a.Content}})
			return writeResult(res, a.FilePath, "", renamer{names: claudeNames})
		},
		Compact: func(a map[string]any) string { return fmt.Sprint(a["file_path"]) },
	}
}

func claudeEdit() *Tool {
	return &Tool{
		Name: "Edit",
		Description: "Replace text in a file: old_string must match exactly once (copy it from Read output without the line-number prefix, with its indentation), unless replace_all. " +
			"On not_found the error points at the closest text; on ambiguous it lists the lines — add surrounding lines to make it unique. Line endings are kept. Undoable.",
		Schema: object([]string{"file_path", "old_string", "new_string"}, map[string]any{
			"file_path":   str("The file to edit."),
			"old_string":  str("The exact text to replace."),
			"new_string":  str("The text to put instead (must differ)."),
			"replace_all": flag("Replace every occurrence (default false)."),
		}),
		Examples: []string{`{"file_path":"a.go","old_string":"func Foo()","new_string":"func Bar()"}`, `{"file_path":"a.go","old_string":"foo","new_string":"bar","replace_all":true}`},
		Run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			var a struct {
				FilePath   string `json:"file_path"`
				OldString  string `json:"old_string"`
				NewString  string `json:"new_string"`
				ReplaceAll bool   `json:"replace_all"`
			}
			if err := decode(args, &a); err != nil {
				return toolFail(err, "")
			}
			rn := renamer{names: claudeNames}
			if a.OldString == a.NewString {
				return toolFail(plan.Errorf(plan.CodeInvalidRequest, a.FilePath, "No changes to make: old_string and new_string are exactly the same."), a.FilePath)
			}
			if a.OldString == "" { // Claude Code's way of creating a file
				if err := canCreate(ctx, env, a.FilePath); err != nil {
					return toolFail(err, a.FilePath)
				}
				res, _ := env.W.Apply(ctx, &plan.Request{Path: a.FilePath, Edit: plan.Edit{Command: "create", FileText: &a.NewString}})
				return writeResult(res, a.FilePath, "created", rn)
			}
			req := &plan.Request{Path: a.FilePath, Edit: plan.Edit{Command: "str_replace", OldStr: &a.OldString, NewStr: &a.NewString, ReplaceAll: a.ReplaceAll}}
			res, _ := env.W.Apply(ctx, req)
			return writeResult(res, a.FilePath, "edited", rn)
		},
		Compact: func(a map[string]any) string { return fmt.Sprint(a["file_path"]) },
	}
}

func claudeMultiEdit() *Tool {
	return &Tool{
		Name: "MultiEdit",
		Description: "Make several replacements in one file, in order, each on the result of the previous, all or nothing: if any edit fails, none is written. " +
			"Each old_string must match exactly once unless its replace_all. To create a file, give the first edit an empty old_string and the content as new_string. Undoable as one change.",
		Schema: object([]string{"file_path", "edits"}, map[string]any{
			"file_path": str("The file to edit."),
			"edits": map[string]any{"type": "array", "minItems": 1, "description": "The edits, applied in order.",
				"items": object([]string{"old_string", "new_string"}, map[string]any{
					"old_string": str("The exact text to replace."), "new_string": str("The new text."), "replace_all": flag("Replace every occurrence.")})},
		}),
		Examples: []string{`{"file_path":"a.go","edits":[{"old_string":"a := 1","new_string":"a := 2"},{"old_string":"b()","new_string":"c()","replace_all":true}]}`},
		Run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			var a struct {
				FilePath string `json:"file_path"`
				Edits    []struct {
					OldString  string `json:"old_string"`
					NewString  string `json:"new_string"`
					ReplaceAll bool   `json:"replace_all"`
				} `json:"edits"`
			}
			if err := decode(args, &a); err != nil {
				return toolFail(err, "")
			}
			// Edit N is 1-based in Claude Code's messages.
			rn := renamer{names: claudeNames, edit: func(i int) string { return fmt.Sprintf("Edit %d", i+1) }}
			fe := plan.FileEdit{Path: a.FilePath}
			verb := "edited"
			for i, e := range a.Edits {
				if e.OldString == e.NewString {
					return toolFail(plan.Errorf(plan.CodeInvalidRequest, a.FilePath, "Edit %d: No changes to make: old_string and new_string are exactly the same.", i+1), a.FilePath)
				}
				if e.OldString == "" {
					// As in Claude Code, a first edit with an empty
					// old_string creates the file; the others apply to it.
					if i > 0 {
						return toolFail(plan.Errorf(plan.CodeInvalidRequest, a.FilePath, "Edit %d: old_string is empty: only the first edit may create the file", i+1), a.FilePath)
					}
					if err := canCreate(ctx, env, a.FilePath); err != nil {
						return toolFail(err, a.FilePath)
					}
					fe.Edits = append(fe.Edits, plan.Edit{Command: "create", FileText: &e.NewString})
					verb = "created"
					continue
				}
				fe.Edits = append(fe.Edits, plan.Edit{Command: "str_replace", OldStr: &e.OldString, NewStr: &e.NewString, ReplaceAll: e.ReplaceAll})
			}
			res, _ := env.W.Apply(ctx, &plan.Request{FileEdits: []plan.FileEdit{fe}})
			if !res.Success && plan.CodeOf(resultErr(res)) == plan.CodeFileNotFound && verb == "edited" {
				return toolFail(plan.Errorf(plan.CodeFileNotFound, a.FilePath, "File does not exist. For new files, the first edit must have an empty old_string to create the file content."), a.FilePath)
			}
			return writeResult(res, a.FilePath, verb, rn)
		},
		Compact: func(a map[string]any) string {
			n := 0
			if e, ok := a["edits"].([]any); ok {
				n = len(e)
			}
			return fmt.Sprintf("%v (%d edits)", a["file_path"], n)
		},
	}
}

// lsMax is how many entries LS lists, as Claude Code's LS does.
const lsMax = 1000

const lsTruncated = "There are more than 1000 files in the repository. Use the LS tool (passing a specific path), Bash tool, and other tools to explore nested directories. The first 1000 files and directories are included below:\n\n"

func claudeLS() *Tool {
	return &Tool{
		Name: "LS",
		Description: "List a directory as a tree: every file and subdirectory below it, breadth first, up to 1000 entries; dot-files and __pycache__ are skipped. " +
			"ignore takes globs of names to leave out. Prefer Glob and Grep when you know what to look for.",
		Schema:   object([]string{"path"}, map[string]any{"path": str("The directory (absolute, or relative to the workspace)."), "ignore": strs("Globs of entries to leave out.")}),
		ReadOnly: true,
		Examples: []string{`{"path":"."}`, `{"path":"src","ignore":["*.test.ts"]}`},
		Run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			var a struct {
				Path   string   `json:"path"`
				Ignore []string `json:"ignore"`
			}
			if err := decode(args, &a); err != nil {
				return toolFail(err, "")
			}
			// Breadth first, as Claude Code's LS walks, so that a cut keeps
			// the shallow entries.
			var found []string // root-relative; directories end in "/"
			queue := []string{a.Path}
			more := false
			for len(queue) > 0 && !more {
				dir := queue[0]
				queue = queue[1:]
				ents, err := env.W.List(ctx, dir, engine.ListOptions{Ignore: a.Ignore})
				if err != nil {
					if dir == a.Path {
						return toolFail(claudeErr(err), a.Path)
					}
					continue // unreadable below: skipped, as Claude Code does
				}
				for _, e := range ents {
					if strings.HasPrefix(e.Name, ".") || e.Name == "__pycache__" && e.Kind == "dir" {
						continue
					}
					if len(found) == lsMax {
						more = true
						break
					}
					if e.Kind == "dir" {
						found = append(found, e.Path+"/")
						queue = append(queue, e.Path)
					} else {
						found = append(found, e.Path)
					}
				}
			}
			sort.Strings(found)
			var b strings.Builder
			if more {
				b.WriteString(lsTruncated)
			}
			fmt.Fprintf(&b, "- %s/\n", strings.TrimSuffix(env.W.Root(), "/"))
			printTree(&b, found)
			return toolOK(ToolResult{Content: b.String(), ShortResult: fmt.Sprintf("Listed %d paths", len(found)), FilePath: a.Path})
		},
		Compact: func(a map[string]any) string { return compactPath(a, "path") },
	}
}

// printTree prints sorted root-relative paths (directories ending in "/")
// as Claude Code's LS does: a tree of "- name" lines, two spaces deeper
// per level, directories with a trailing "/", children under their
// parent in the order they first appear, below the root's own line.
func printTree(b *strings.Builder, paths []string) {
	type node struct {
		name     string
		dir      bool
		children []*node
		index    map[string]*node
	}
	root := &node{index: map[string]*node{}}
	for _, p := range paths {
		parts := strings.Split(p, "/") // a directory's last part is ""
		cur := root
		for i, part := range parts {
			if part == "" {
				continue
			}
			n := cur.index[part]
			if n == nil {
				n = &node{name: part, dir: i < len(parts)-1, index: map[string]*node{}}
				cur.index[part] = n
				cur.children = append(cur.children, n)
			}
			cur = n
		}
	}
	var walk func(n *node, depth int)
	walk = func(n *node, depth int) {
		for _, c := range n.children {
			name := c.name
			if c.dir {
				name += "/"
			}
			fmt.Fprintf(b, "%s- %s\n", strings.Repeat("  ", depth), name)
			walk(c, depth+1)
		}
	}
	walk(root, 1)
}

// globLimit is how many files Glob returns, as Claude Code's does.
const globLimit = 100

func claudeGlob() *Tool {
	return &Tool{
		Name: "Glob",
		Description: "Find files by glob pattern, e.g. **/*.ts or src/**/*.{js,jsx}; the pattern is matched against paths relative to path (a pattern without / matches only path's own entries: use **/ to go deeper), or give an absolute pattern. " +
			".gitignore is honoured, dot-files skipped. Returns paths relative to the workspace, most recently modified first, up to 100.",
		Schema:   object([]string{"pattern"}, map[string]any{"pattern": str("The glob."), "path": str("The directory to search (default the workspace).")}),
		ReadOnly: true,
		Examples: []string{`{"pattern":"**/*.go"}`, `{"pattern":"*.md","path":"docs"}`},
		Run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			var a struct{ Pattern, Path string }
			if err := decode(args, &a); err != nil {
				return toolFail(err, "")
			}
			dir, pat := a.Path, a.Pattern
			if path.IsAbs(pat) {
				dir, pat = splitGlobBase(pat)
			}
			// node-glob's semantics: the pattern is matched against the
			// whole path below dir.
			res, err := env.W.Glob(ctx, engine.GlobOptions{Pattern: anchored(pat), Path: dir, Limit: globLimit, NewestFirst: true})
			if err != nil {
				return toolFail(claudeErr(err), "")
			}
			content := strings.Join(res.Files, "\n")
			if len(res.Files) == 0 {
				content = "No files found"
			} else if res.Truncated {
				content += "\n(Results are truncated. Consider using a more specific path or pattern.)"
			}
			return toolOK(ToolResult{Content: content, ShortResult: fmt.Sprintf("Found %d %s", len(res.Files), plural(len(res.Files), "file"))})
		},
		Compact: func(a map[string]any) string { return fmt.Sprintf("%v in %s", a["pattern"], compactPath(a, "path")) },
	}
}

// splitGlobBase splits an absolute pattern into the directory before its
// first segment with a wildcard and the rest (Claude Code's
// extractGlobBaseDirectory).
func splitGlobBase(pat string) (dir, rest string) {
	parts := strings.Split(pat, "/")
	i := 0
	for i < len(parts)-1 && !strings.ContainsAny(parts[i], "*?[{") {
		i++
	}
	dir = strings.Join(parts[:i], "/")
	if dir == "" {
		dir = "/"
	}
	return dir, strings.Join(parts[i:], "/")
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// grepHeadLimit is Claude Code's default head_limit.
const grepHeadLimit = 250

func claudeGrepSchema() map[string]any {
	s := grepSchema()
	props := s["properties"].(map[string]any)
	props["head_limit"] = num("Show only the first N lines (content), files or count lines, like | head -N; default 250, 0 for all.")
	props["offset"] = num("Skip the first N lines or entries before head_limit applies, like | tail -n +N (default 0).")
	props["multiline"] = flag("Let a match span lines, and . match a newline (rg -U --multiline-dotall).")
	props["-n"] = flag("Show line numbers (content mode; default true).")
	props["glob"] = str("Only files matching this glob (e.g. *.{ts,tsx}); several separated by spaces or commas; !glob excludes.")
	delete(props, "sort") // Claude Code's Grep always lists the newest first
	return s
}

func claudeGrep() *Tool {
	return &Tool{
		Name: "Grep",
		Description: "Search file contents with ripgrep's semantics and output (RE2 regex; .gitignore honoured; hidden and binary files skipped). output_mode files_with_matches (default) lists files, most recently modified first; " +
			"content shows matching lines as rg prints them (-n numbers, on by default; -A/-B/-C context); count gives matching lines per file. head_limit (default 250, 0 for all) and offset page through the output.",
		Schema:   claudeGrepSchema(),
		ReadOnly: true,
		Examples: []string{`{"pattern":"useState","glob":"*.{ts,tsx}"}`, `{"pattern":"TODO","output_mode":"content","-n":true,"-C":1}`},
		Run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			var a struct {
				plan.GrepRequest
				HeadLimit *int `json:"head_limit"`
				Offset    int  `json:"offset"`
			}
			if err := decode(args, &a); err != nil {
				return toolFail(err, "")
			}
			req := a.GrepRequest
			// Claude Code's rg flags: -U --multiline-dotall for multiline;
			// glob split on spaces and commas (braces kept whole).
			if req.Multiline {
				req.Pattern = "(?s)" + req.Pattern
			}
			req.Globs, req.Glob = splitGlobs(req.Glob), ""
			if req.OutputMode != "content" {
				req.Before, req.After, req.Context = 0, 0, 0
			}
			limit := grepHeadLimit
			if a.HeadLimit != nil {
				limit = *a.HeadLimit
			}
			if limit < 0 || a.Offset < 0 {
				return toolFail(plan.Errorf(plan.CodeInvalidRequest, "", "head_limit and offset must not be negative"), "")
			}
			req.HeadLimit = 0
			if limit > 0 && req.OutputMode != "files_with_matches" && req.OutputMode != "" {
				// Every match prints at least one line: the first
				// offset+limit matches are enough.
				req.HeadLimit = a.Offset + limit
			}
			if req.OutputMode == "files_with_matches" || req.OutputMode == "" {
				req.Sort = "modified" // Claude Code lists the newest first
			}
			res, err := env.W.Grep(ctx, &req)
			if err != nil {
				return toolFail(claudeErr(err), "")
			}
			isDir, _ := env.W.IsDir(req.Path)
			text, n, cut := grepText(res, grep.PrintOptions{
				LineNumbers: req.LineNums == nil || *req.LineNums,
				NoPath:      req.Path != "" && !isDir,
				Context:     req.Before > 0 || req.After > 0 || req.Context > 0,
				Offset:      a.Offset, HeadLimit: limit,
			})
			cut = cut || res.Truncated
			text = strings.TrimSuffix(text, "\n")
			var page []string
			if cut {
				page = append(page, fmt.Sprintf("limit: %d", limit))
			}
			if a.Offset > 0 {
				page = append(page, fmt.Sprintf("offset: %d", a.Offset))
			}
			pagination := strings.Join(page, ", ")
			var content, short string
			switch res.Mode {
			case "files_with_matches":
				if n == 0 {
					content = "No files found"
				} else {
					content = fmt.Sprintf("Found %d %s", n, plural(n, "file"))
					if pagination != "" {
						content += " " + pagination
					}
					content += "\n" + text
				}
				short = fmt.Sprintf("Found %d %s", n, plural(n, "file"))
			case "count":
				total, files := 0, 0
				for _, l := range strings.Split(text, "\n") {
					if c, err := strconv.Atoi(l[strings.LastIndexByte(l, ':')+1:]); err == nil && l != "" {
						total += c
						files++
					}
				}
				content = text
				if content == "" {
					content = "No matches found"
				}
				content += fmt.Sprintf("\n\nFound %d total %s across %d %s.", total, plural(total, "occurrence"), files, plural(files, "file"))
				if pagination != "" {
					content += " with pagination = " + pagination
				}
				short = fmt.Sprintf("%d matches in %d %s", total, files, plural(files, "file"))
			default:
				content = text
				if content == "" {
					content = "No matches found"
				}
				if pagination != "" {
					content += "\n\n[Showing results with pagination = " + pagination + "]"
				}
				short = fmt.Sprintf("Found %d %s", n, plural(n, "line"))
			}
			return toolOK(ToolResult{Content: content, ShortResult: short})
		},
		Compact: func(a map[string]any) string {
			s := fmt.Sprintf("%q in %s", a["pattern"], compactPath(a, "path"))
			if a["glob"] != nil {
				s += fmt.Sprintf(" (%v)", a["glob"])
			}
			return s
		},
	}
}

// splitGlobs splits Grep's glob as Claude Code does: on whitespace, and
// on commas within a pattern without braces.
func splitGlobs(g string) []string {
	var out []string
	for _, f := range strings.Fields(g) {
		if strings.Contains(f, "{") && strings.Contains(f, "}") {
			out = append(out, f)
			continue
		}
		for _, p := range strings.Split(f, ",") {
			if p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}
