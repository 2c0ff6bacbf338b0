package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"github.com/txedit/txedit/engine"
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
// long a line it shows before cutting it.
const (
	readLimit  = 2000
	maxLineLen = 2000
)

var imageExt = map[string]bool{".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".webp": true, ".bmp": true}

func claudeRead() *Tool {
	return &Tool{
		Name: "Read",
		Description: "Read a file. Returns cat -n style numbered lines (numbers start at 1), up to 2000 lines from offset; lines longer than 2000 characters are cut. " +
			"Images (png, jpg, gif, webp, bmp) come back as image data. Read a file before editing it; use offset and limit for big files.",
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
				rs, err := env.W.Read(ctx, &plan.ReadRequest{Mode: "Image", ImagePaths: []string{a.FilePath}})
				if err != nil {
					return toolFail(err, a.FilePath)
				}
				if r := rs[0]; !r.Success {
					return toolFail(errorOf(r.Code, r.Error), a.FilePath)
				} else {
					img := r.Images[0]
					return toolOK(ToolResult{Content: fmt.Sprintf("Image %s (%s)", a.FilePath, img.MediaType), ShortResult: "Read image",
						Images: []toolImage{{Data: img.Data, MediaType: img.MediaType}}, FilePath: a.FilePath})
				}
			}
			start := max(a.Offset, 1)
			limit := a.Limit
			if limit <= 0 {
				limit = readLimit
			}
			end := start + limit - 1
			rs, err := env.W.Read(ctx, &plan.ReadRequest{Mode: "Line", Path: a.FilePath, StartLine: &start, EndLine: &end})
			if err != nil {
				return toolFail(err, a.FilePath)
			}
			r := rs[0]
			if !r.Success {
				return toolFail(errorOf(r.Code, r.Error), a.FilePath)
			}
			var b strings.Builder
			lines := strings.SplitAfter(r.Content, "\n")
			if lines[len(lines)-1] == "" {
				lines = lines[:len(lines)-1]
			}
			for i, l := range lines {
				l = strings.TrimSuffix(strings.TrimSuffix(l, "\n"), "\r")
				if len(l) > maxLineLen {
					l = l[:maxLineLen] + "… [line cut]"
				}
				fmt.Fprintf(&b, "%6d\t%s\n", r.StartLine+i, l)
			}
			short := fmt.Sprintf("Read %d lines", len(lines))
			if r.TotalLines > len(lines) {
				short += fmt.Sprintf(" (%d-%d of %d)", r.StartLine, r.EndLine, r.TotalLines)
			}
			if r.TotalLines == 0 {
				short = "Read 0 lines (the file is empty)"
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
// file's status (created or updated).
func writeResult(res *plan.Result, filePath, verb string) Result {
	if !res.Success {
		msg := res.Error
		if len(res.Files) > 0 && len(res.Files[0].FailedEdits) > 0 {
			var parts []string
			for _, fe := range res.Files[0].FailedEdits {
				parts = append(parts, fe.Error)
			}
			msg = strings.Join(parts, "; ")
		}
		return toolFail(errorOf(res.Code, msg), filePath)
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
			return writeResult(res, a.FilePath, "")
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
			if a.OldString == a.NewString {
				return toolFail(plan.Errorf(plan.CodeInvalidRequest, a.FilePath, "old_string and new_string are the same: no change to make"), a.FilePath)
			}
			if a.OldString == "" { // the SDK's way of creating a file
				req := &plan.Request{FileEdits: []plan.FileEdit{{Path: a.FilePath, Edits: []plan.Edit{{Command: "create", FileText: &a.NewString}}}}}
				if rs, _ := env.W.Read(ctx, &plan.ReadRequest{Mode: "Line", Path: a.FilePath}); len(rs) == 1 && rs[0].Success && rs[0].Content != "" {
					return toolFail(plan.Errorf(plan.CodeInvalidRequest, a.FilePath, "old_string is empty but the file has content: give the text to replace"), a.FilePath)
				}
				res, _ := env.W.Apply(ctx, req)
				return writeResult(res, a.FilePath, "created")
			}
			req := &plan.Request{Path: a.FilePath, Edit: plan.Edit{Command: "str_replace", OldStr: &a.OldString, NewStr: &a.NewString, ReplaceAll: a.ReplaceAll}}
			res, _ := env.W.Apply(ctx, req)
			return writeResult(res, a.FilePath, "edited")
		},
		Compact: func(a map[string]any) string { return fmt.Sprint(a["file_path"]) },
	}
}

func claudeMultiEdit() *Tool {
	return &Tool{
		Name: "MultiEdit",
		Description: "Make several replacements in one file, in order, each on the result of the previous, all or nothing: if any edit fails, none is written. " +
			"Each old_string must match exactly once unless its replace_all. Undoable as one change.",
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
			fe := plan.FileEdit{Path: a.FilePath}
			for _, e := range a.Edits {
				fe.Edits = append(fe.Edits, plan.Edit{Command: "str_replace", OldStr: &e.OldString, NewStr: &e.NewString, ReplaceAll: e.ReplaceAll})
			}
			res, _ := env.W.Apply(ctx, &plan.Request{FileEdits: []plan.FileEdit{fe}})
			return writeResult(res, a.FilePath, "edited")
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

func claudeLS() *Tool {
	return &Tool{
		Name:        "LS",
		Description: "List a directory's entries (dot-files too; txedit's journal is never shown). ignore takes globs of names to leave out. Use Glob to find files by pattern across a tree.",
		Schema:      object([]string{"path"}, map[string]any{"path": str("The directory."), "ignore": strs("Globs of entries to leave out.")}),
		ReadOnly:    true,
		Examples:    []string{`{"path":"."}`, `{"path":"src","ignore":["*.test.ts"]}`},
		Run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			var a struct {
				Path   string   `json:"path"`
				Ignore []string `json:"ignore"`
			}
			if err := decode(args, &a); err != nil {
				return toolFail(err, "")
			}
			ents, err := env.W.List(ctx, a.Path, engine.ListOptions{Ignore: a.Ignore})
			if err != nil {
				return toolFail(err, a.Path)
			}
			var b strings.Builder
			fmt.Fprintf(&b, "- %s/\n", strings.TrimSuffix(a.Path, "/"))
			for _, e := range ents {
				name := e.Name
				if e.Kind == "dir" {
					name += "/"
				}
				fmt.Fprintf(&b, "  - %s\n", name)
			}
			return toolOK(ToolResult{Content: b.String(), ShortResult: fmt.Sprintf("Listed %d entries", len(ents)), FilePath: a.Path})
		},
		Compact: func(a map[string]any) string { return compactPath(a, "path") },
	}
}

func claudeGlob() *Tool {
	return &Tool{
		Name:        "Glob",
		Description: "Find files by pattern (e.g. **/*.ts, src/**/*.{js,jsx}); a pattern without / matches names at any depth. .gitignore is honoured, dot-files skipped. Returns paths relative to the workspace, sorted.",
		Schema:      object([]string{"pattern"}, map[string]any{"pattern": str("The glob."), "path": str("The directory to search (default the workspace).")}),
		ReadOnly:    true,
		Examples:    []string{`{"pattern":"**/*.go"}`},
		Run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			var a struct{ Pattern, Path string }
			if err := decode(args, &a); err != nil {
				return toolFail(err, "")
			}
			res, err := env.W.Glob(ctx, engine.GlobOptions{Pattern: a.Pattern, Path: a.Path, Limit: 1000})
			if err != nil {
				return toolFail(err, "")
			}
			content := strings.Join(res.Files, "\n")
			if len(res.Files) == 0 {
				content = "No files found"
			} else if res.Truncated {
				content += "\n(Results are truncated at 1000 files. Use a more specific path or pattern.)"
			}
			return toolOK(ToolResult{Content: content, ShortResult: fmt.Sprintf("Found %d files", len(res.Files))})
		},
		Compact: func(a map[string]any) string { return fmt.Sprintf("%v in %s", a["pattern"], compactPath(a, "path")) },
	}
}

func claudeGrep() *Tool {
	return &Tool{
		Name:        "Grep",
		Description: "Search file contents with ripgrep's semantics (RE2 regex; .gitignore honoured; hidden and binary files skipped). output_mode files_with_matches (default) lists files, content shows matching lines (-n numbers, -A/-B/-C context), count gives matching lines per file; head_limit cuts the output.",
		Schema:      grepSchema(),
		ReadOnly:    true,
		Examples:    []string{`{"pattern":"useState","glob":"*.{ts,tsx}"}`, `{"pattern":"TODO","output_mode":"content","-n":true,"-C":1}`},
		Run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			var req plan.GrepRequest
			if err := decode(args, &req); err != nil {
				return toolFail(err, "")
			}
			res, err := env.W.Grep(ctx, &req)
			if err != nil {
				return toolFail(err, "")
			}
			var b strings.Builder
			short := ""
			switch res.Mode {
			case "files_with_matches":
				if len(res.Files) == 0 {
					b.WriteString("No files found")
				} else {
					fmt.Fprintf(&b, "Found %d files\n%s", len(res.Files), strings.Join(res.Files, "\n"))
				}
				short = fmt.Sprintf("Found %d files", len(res.Files))
			case "count":
				total := 0
				for _, c := range res.Counts {
					fmt.Fprintf(&b, "%s:%d\n", c.Path, c.Count)
					total += c.Count
				}
				short = fmt.Sprintf("%d matches in %d files", total, len(res.Counts))
			default:
				nums := req.LineNums == nil || *req.LineNums
				for _, m := range res.Matches {
					for i, l := range m.Before {
						fmt.Fprintf(&b, "%s-%s%s\n", m.Path, lineNo(nums, m.Line-len(m.Before)+i, "-"), l)
					}
					fmt.Fprintf(&b, "%s:%s%s\n", m.Path, lineNo(nums, m.Line, ":"), m.Text)
					for i, l := range m.After {
						fmt.Fprintf(&b, "%s-%s%s\n", m.Path, lineNo(nums, m.Line+1+i, "-"), l)
					}
				}
				if len(res.Matches) == 0 {
					b.WriteString("No matches found")
				}
				short = fmt.Sprintf("Found %d matching lines", len(res.Matches))
			}
			if res.Truncated {
				b.WriteString("\n(Results are cut at head_limit.)")
			}
			return toolOK(ToolResult{Content: b.String(), ShortResult: short})
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

func lineNo(show bool, n int, sep string) string {
	if !show {
		return ""
	}
	return fmt.Sprintf("%d%s", n, sep)
}
