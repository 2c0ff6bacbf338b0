package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/plan"
)

func init() {
	register("adk", func() *Toolset {
		return &Toolset{Fail: lcFail, Name: "adk", Description: "an ADK agent's LangChain file tools plus grep_file, find_files and diff_files",
			Tools: []*Tool{adkFileSearch(), adkListDir(), adkRead(), adkWrite(), adkCopyMove("copy_file", "copy"), adkCopyMove("move_file", "move"),
				adkDelete(), adkGrep(), adkFind(), adkDiff()}}
	})
}

// LangChain's tools answer with strings, errors included.
func lcOK(s string) Result { return Result{Value: s, OK: true} }
func lcFail(err error) Result {
	msg := "Error: " + err.Error()
	return Result{Value: msg, OK: false, Code: plan.CodeOf(err)}
}

// The custom tools answer {status, output, message, debug}.
func adkOK(tool string, args any, output any) Result {
	return Result{Value: map[string]any{"status": "success", "output": output, "message": nil, "debug": map[string]any{"tool": tool, "args": args}}, OK: true}
}

func adkFail(tool string, args any, err error) Result {
	return Result{Value: map[string]any{"status": "error", "output": nil, "message": err.Error(), "code": plan.CodeOf(err),
		"debug": map[string]any{"tool": tool, "args": args}}, OK: false, Code: plan.CodeOf(err)}
}

func adkFileSearch() *Tool {
	return &Tool{
		Name:        "file_search",
		Description: "Recursively search for files whose names match a pattern (fnmatch: * ? [...]) under dir_path. Returns matching paths relative to dir_path, one per line.",
		Schema:      object([]string{"pattern"}, map[string]any{"dir_path": str("Directory to search (default \".\")."), "pattern": str("Unix shell pattern for file names, e.g. *.py.")}),
		ReadOnly:    true,
		Examples:    []string{`{"dir_path":"src","pattern":"*.py"}`},
		Run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			var a struct {
				DirPath string `json:"dir_path"`
				Pattern string
			}
			if err := decode(args, &a); err != nil {
				return lcFail(err)
			}
			found, err := findNames(ctx, env, a.DirPath, a.Pattern, "f")
			if err != nil {
				return lcFail(err)
			}
			if len(found) == 0 {
				return lcOK(fmt.Sprintf("No files found for pattern %s in directory %s", a.Pattern, orDot(a.DirPath)))
			}
			return lcOK(strings.Join(found, "\n"))
		},
		Compact: func(a map[string]any) string {
			return fmt.Sprintf("%v in %s", a["pattern"], compactPath(a, "dir_path"))
		},
	}
}

// findNames lists what find DIR -name PATTERN [-type T] lists, hidden
// entries left out: paths relative to dir, sorted.
func findNames(ctx context.Context, env *Env, dir, name, typ string) ([]string, error) {
	if typ != "" && typ != "f" && typ != "d" {
		return nil, plan.Errorf(plan.CodeInvalidRequest, "", "type %q: want f or d", typ)
	}
	if name == "" {
		name = "*"
	}
	if strings.Contains(name, "/") {
		return nil, plan.Errorf(plan.CodeInvalidRequest, "", "bad name pattern %q: a shell pattern for names, without \"/\"", name)
	}
	res, err := env.W.Glob(ctx, engine.GlobOptions{Pattern: name, Path: dir, NoIgnore: true, Dirs: typ == "", OnlyDirs: typ == "d", Relative: true})
	if err != nil {
		return nil, err
	}
	return res.Files, nil
}

func orDot(p string) string {
	if p == "" {
		return "."
	}
	return p
}

func adkListDir() *Tool {
	return &Tool{
		Name:        "list_directory",
		Description: "List the names in a directory, one per line.",
		Schema:      object(nil, map[string]any{"dir_path": str("The directory (default \".\").")}),
		ReadOnly:    true,
		Examples:    []string{`{"dir_path":"."}`},
		Run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			var a struct {
				DirPath string `json:"dir_path"`
			}
			if err := decode(args, &a); err != nil {
				return lcFail(err)
			}
			ents, err := env.W.List(ctx, a.DirPath, engine.ListOptions{})
			if err != nil {
				return lcFail(err)
			}
			if len(ents) == 0 {
				return lcOK("No files found in directory " + orDot(a.DirPath))
			}
			var names []string
			for _, e := range ents {
				names = append(names, e.Name)
			}
			return lcOK(strings.Join(names, "\n"))
		},
		Compact: func(a map[string]any) string { return compactPath(a, "dir_path") },
	}
}

func adkRead() *Tool {
	return &Tool{
		Name:        "read_file",
		Description: "Read a whole file and return its text.",
		Schema:      object([]string{"file_path"}, map[string]any{"file_path": str("The file.")}),
		ReadOnly:    true,
		Examples:    []string{`{"file_path":"README.md"}`},
		Run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			var a struct {
				FilePath string `json:"file_path"`
			}
			if err := decode(args, &a); err != nil {
				return lcFail(err)
			}
			rs, err := env.W.Read(ctx, &plan.ReadRequest{Mode: "Line", Path: a.FilePath})
			if err != nil {
				return lcFail(err)
			}
			if r := rs[0]; !r.Success {
				return lcFail(errorOf(r.Code, r.Error))
			} else {
				return lcOK(r.Content)
			}
		},
		Compact: func(a map[string]any) string { return compactPath(a, "file_path") },
	}
}

func adkWrite() *Tool {
	return &Tool{
		Name:        "write_file",
		Description: "Write text to a file, replacing it, or with append adding the text at its end exactly as given. Undoable with txedit undo.",
		Schema: object([]string{"file_path", "text"}, map[string]any{"file_path": str("The file."), "text": str("The text."),
			"append": flag("Add to the end instead of replacing (default false).")}),
		Examples: []string{`{"file_path":"log.txt","text":"done\n","append":true}`},
		Run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			var a struct {
				FilePath string `json:"file_path"`
				Text     string
				Append   bool
			}
			if err := decode(args, &a); err != nil {
				return lcFail(err)
			}
			// LangChain writes the text as given: no line-ending
			// conversion; append adds it at the end (a missing file is
			// created).
			req := &plan.Request{Path: a.FilePath, Edit: plan.Edit{Command: "write", FileText: &a.Text}}
			if a.Append {
				req = &plan.Request{Path: a.FilePath, Edit: plan.Edit{Command: "append_text", NewStr: &a.Text}}
			}
			res, _ := env.W.Apply(ctx, req)
			if !res.Success {
				return lcFail(errorOf(res.Code, res.Error))
			}
			return lcOK(fmt.Sprintf("File written successfully to %s.", a.FilePath))
		},
		Compact: func(a map[string]any) string { return compactPath(a, "file_path") },
	}
}

func adkCopyMove(name, cmd string) *Tool {
	verb := map[string]string{"copy": "copied", "move": "moved"}[cmd]
	return &Tool{
		Name:        name,
		Description: fmt.Sprintf("%s a file to a new path (parent directories are created). The destination must not exist: txedit never overwrites with %s. Undoable.", strings.ToUpper(cmd[:1])+cmd[1:], cmd),
		Schema:      object([]string{"source_path", "destination_path"}, map[string]any{"source_path": str("The file."), "destination_path": str("Where it goes.")}),
		Examples:    []string{`{"source_path":"a.txt","destination_path":"backup/a.txt"}`},
		Run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			var a struct {
				Source string `json:"source_path"`
				Dest   string `json:"destination_path"`
			}
			if err := decode(args, &a); err != nil {
				return lcFail(err)
			}
			res, _ := env.W.Apply(ctx, &plan.Request{Path: a.Source, Edit: plan.Edit{Command: cmd, NewPath: a.Dest}})
			if !res.Success {
				return lcFail(errorOf(res.Code, res.Error))
			}
			return lcOK(fmt.Sprintf("File %s successfully from %s to %s.", verb, a.Source, a.Dest))
		},
		Compact: func(a map[string]any) string { return fmt.Sprintf("%v -> %v", a["source_path"], a["destination_path"]) },
	}
}

func adkDelete() *Tool {
	return &Tool{
		Name:        "file_delete",
		Description: "Delete a file. Undoable with txedit undo (the file comes back with its mode).",
		Schema:      object([]string{"file_path"}, map[string]any{"file_path": str("The file.")}),
		Examples:    []string{`{"file_path":"tmp/old.txt"}`},
		Run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			var a struct {
				FilePath string `json:"file_path"`
			}
			if err := decode(args, &a); err != nil {
				return lcFail(err)
			}
			res, _ := env.W.Apply(ctx, &plan.Request{Path: a.FilePath, Edit: plan.Edit{Command: "delete"}})
			if !res.Success {
				return lcFail(errorOf(res.Code, res.Error))
			}
			return lcOK("File deleted successfully: " + a.FilePath + ".")
		},
		Compact: func(a map[string]any) string { return compactPath(a, "file_path") },
	}
}

func adkGrep() *Tool {
	return &Tool{
		Name: "grep_file",
		Fail: func(err error) Result { return adkFail("grep_file", nil, err) },
		Description: "Search for a pattern (RE2 regular expression) in a file, or recursively in a directory, like grep. Options mirror grep's -i -w -n -r -v -c -l. " +
			"Returns {status, output, message, debug}; output is the matching lines, the counts or the file names, or a sentence saying nothing matched.",
		Schema: object([]string{"file_path", "pattern"}, map[string]any{
			"file_path": str("File or directory, relative to the workspace."), "pattern": str("The pattern."),
			"ignore_case": flag("grep -i"), "whole_word": flag("grep -w"), "show_line_numbers": flag("grep -n"), "recursive": flag("grep -r"),
			"invert_match": flag("grep -v"), "count_matches": flag("grep -c"), "files_with_matches": flag("grep -l"),
		}),
		ReadOnly: true,
		Examples: []string{`{"file_path":"src","pattern":"TODO","recursive":true,"show_line_numbers":true}`},
		Run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			var a struct {
				FilePath     string `json:"file_path"`
				Pattern      string `json:"pattern"`
				IgnoreCase   bool   `json:"ignore_case"`
				WholeWord    bool   `json:"whole_word"`
				LineNumbers  bool   `json:"show_line_numbers"`
				Recursive    bool   `json:"recursive"`
				Invert       bool   `json:"invert_match"`
				Count        bool   `json:"count_matches"`
				FilesWithMat bool   `json:"files_with_matches"`
			}
			if err := decode(args, &a); err != nil {
				return adkFail("grep_file", nil, err)
			}
			pat := a.Pattern
			if a.WholeWord {
				pat = `\b(?:` + pat + `)\b`
			}
			if _, err := regexp.Compile(pat); err != nil {
				return adkFail("grep_file", a, plan.Errorf(plan.CodeInvalidRequest, "", "bad pattern: %v", err))
			}
			req := &plan.GrepRequest{Pattern: pat, Path: a.FilePath, IgnoreCase: a.IgnoreCase, Invert: a.Invert, OutputMode: "content", NoIgnore: true}
			switch {
			case a.FilesWithMat:
				req.OutputMode = "files_with_matches"
			case a.Count:
				req.OutputMode = "count"
			}
			dir, err := env.W.IsDir(a.FilePath)
			if err != nil {
				return adkFail("grep_file", a, err)
			}
			if dir && !a.Recursive {
				return adkFail("grep_file", a, plan.Errorf(plan.CodeInvalidRequest, a.FilePath, "is a directory: set recursive to search it"))
			}
			res, err := env.W.Grep(ctx, req)
			if err != nil {
				return adkFail("grep_file", a, err)
			}
			var lines []string
			prefix := func(p string) string {
				if dir {
					return p + ":"
				}
				return ""
			}
			lines = append(lines, res.Files...)
			for _, c := range res.Counts {
				lines = append(lines, fmt.Sprintf("%s%d", prefix(c.Path), c.Count))
			}
			for _, m := range res.Matches {
				n := ""
				if a.LineNumbers {
					n = fmt.Sprintf("%d:", m.Line)
				}
				lines = append(lines, prefix(m.Path)+n+m.Text)
			}
			if len(lines) == 0 {
				return adkOK("grep_file", a, fmt.Sprintf("No lines found matching pattern '%s' in %s.", a.Pattern, a.FilePath))
			}
			return adkOK("grep_file", a, strings.Join(lines, "\n"))
		},
		Compact: func(a map[string]any) string {
			return fmt.Sprintf("%q in %s", a["pattern"], compactPath(a, "file_path"))
		},
	}
}

func adkFind() *Tool {
	return &Tool{
		Name:        "find_files",
		Fail:        func(err error) Result { return adkFail("find_files", nil, err) },
		Description: "Find files or directories under dir_path by name (like find -name), skipping hidden ones. Returns {status, output: [paths relative to dir_path], message, debug}.",
		Schema: object([]string{"dir_path"}, map[string]any{"dir_path": str("Where to search."), "name_pattern": str("A name pattern, e.g. *.py."),
			"type": enum("f for files, d for directories.", "f", "d")}),
		ReadOnly: true,
		Examples: []string{`{"dir_path":".","name_pattern":"*.md","type":"f"}`},
		Run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			var a struct {
				DirPath     string `json:"dir_path"`
				NamePattern string `json:"name_pattern"`
				Type        string `json:"type"`
			}
			if err := decode(args, &a); err != nil {
				return adkFail("find_files", nil, err)
			}
			found, err := findNames(ctx, env, a.DirPath, a.NamePattern, a.Type)
			if err != nil {
				return adkFail("find_files", a, err)
			}
			return adkOK("find_files", a, found)
		},
		Compact: func(a map[string]any) string {
			return compactPath(a, "dir_path", fmt.Sprint(orDash(a["name_pattern"])))
		},
	}
}

func adkDiff() *Tool {
	return &Tool{
		Name:        "diff_files",
		Fail:        func(err error) Result { return adkFail("diff_files", nil, err) },
		Description: "Compare two files as diff -u does. Returns {status, output, message, debug}; output is the unified diff, or \"Files are identical.\"",
		Schema:      object([]string{"file_path1", "file_path2"}, map[string]any{"file_path1": str("The first file."), "file_path2": str("The second file.")}),
		ReadOnly:    true,
		Examples:    []string{`{"file_path1":"a.txt","file_path2":"b.txt"}`},
		Run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			var a struct {
				F1 string `json:"file_path1"`
				F2 string `json:"file_path2"`
			}
			if err := decode(args, &a); err != nil {
				return adkFail("diff_files", nil, err)
			}
			d, err := env.W.Diff(ctx, a.F1, a.F2)
			if err != nil {
				return adkFail("diff_files", a, err)
			}
			if d == "" {
				d = "Files are identical."
			}
			return adkOK("diff_files", a, d)
		},
		Compact: func(a map[string]any) string { return fmt.Sprintf("%v %v", a["file_path1"], a["file_path2"]) },
	}
}
