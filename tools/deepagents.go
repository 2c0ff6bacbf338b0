package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/internal/grep"
	"github.com/txedit/txedit/plan"
)

// deepagentsToolset builds the deepagents toolset (tools.go, toolsets).
func deepagentsToolset() *Toolset {
	return &Toolset{Fail: daFail, Name: "deepagents", Description: "a deep agent's ls, read_file, write_file, edit_file, glob, grep and execute, as the seed's synaptic (Rust) documents them (offsets are 0-based)",
		Tools: []*Tool{daLs(), daRead(), daWrite(), daEdit(), daGlob(), daGrep(), executeTool()}}
}

// daFail is the dialect's error: a string the agent reads, naming the
// arguments as the dialect does.
func daFail(err error) Result {
	err = renamer{names: claudeNames}.err(err)
	msg := "Error: " + err.Error()
	return Result{Value: msg, Text: msg, OK: false, Code: plan.CodeOf(err), Plain: true}
}

func daOK(v any) Result { return Result{Value: v, OK: true} }

// daFailRes is a failed write's answer: daFail's, with txedit's note of
// what changed after a stale_hash refusal that knows it, or a conflict
// after the tries of a commit that outside saves interrupted
// (docs/design.md, "Concurrency").
func daFailRes(res *plan.Result, err error) Result {
	r := daFail(err)
	if d := refusalDelta(res, r.Code); d != nil {
		msg := r.Text + staleNote(d, numbered)
		r.Value, r.Text = msg, msg
	}
	return r
}

func daLs() *Tool {
	return &Tool{
		Name:        "ls",
		Description: "List a directory. Returns a JSON array of {name, is_dir, size} (size null for directories).",
		Schema:      object([]string{"path"}, map[string]any{"path": str("The directory to list.")}),
		ReadOnly:    true,
		Examples:    []string{`{"path":"."}`},
		Run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			var a struct{ Path string }
			if err := decode(args, &a); err != nil {
				return daFail(err)
			}
			ents, err := env.W.List(ctx, a.Path, engine.ListOptions{})
			if err != nil {
				return daFail(err)
			}
			out := []map[string]any{}
			for _, e := range ents {
				var size any = e.Size
				if e.Kind == plan.KindDir {
					size = nil
				}
				out = append(out, map[string]any{"name": e.Name, "is_dir": e.Kind == plan.KindDir, "size": size})
			}
			return daOK(out)
		},
		Compact: func(a map[string]any) string { return compactPath(a, "path") },
	}
}

func daRead() *Tool {
	return &Tool{
		Name:        "read_file",
		Description: "Read a file's lines: offset is 0-based (default 0), limit the number of lines (default 2000). Returns the lines joined by newlines (without line numbers or a final newline).",
		Schema: object([]string{"path"}, map[string]any{"path": str("The file."), "offset": num("First line to return, 0-based (default 0)."),
			"limit": num("Lines to return (default 2000).")}),
		ReadOnly: true,
		Examples: []string{`{"path":"src/lib.rs"}`, `{"path":"big.log","offset":100,"limit":50}`},
		Run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			var a struct {
				Path   string
				Offset int
				Limit  *int
			}
			if err := decode(args, &a); err != nil {
				return daFail(err)
			}
			limit := readLimit
			if a.Limit != nil {
				limit = *a.Limit
			}
			if a.Offset < 0 || limit < 0 {
				return daFail(plan.Errorf(plan.CodeInvalidRequest, a.Path, "offset and limit must not be negative"))
			}
			if limit == 0 {
				return daOK("")
			}
			start, end := a.Offset+1, a.Offset+limit
			rs, err := env.W.Read(ctx, &plan.ReadRequest{Mode: "Line", Path: a.Path, StartLine: &start, EndLine: &end})
			if err != nil {
				return daFail(err)
			}
			r := rs[0]
			switch {
			case r.Code == plan.CodeLineOutOfRange:
				// deepagents' words; synaptic answers "" here.
				return daFail(plan.Errorf(plan.CodeLineOutOfRange, "", "Line offset %d exceeds file length (%d lines)", a.Offset, r.TotalLines))
			case r.Code == plan.CodeBinaryFile:
				// No "Image mode" here: this toolset has none.
				return daFail(plan.Errorf(plan.CodeBinaryFile, a.Path, "is binary (a NUL byte in its first 8000 bytes): read_file reads text files only"))
			case !r.Success:
				return daFail(errorOf(r.Code, r.Error))
			}
			// synaptic's read: the lines (CRLF or LF ended) joined by "\n".
			lines := strings.Split(strings.TrimSuffix(r.Content, "\n"), "\n")
			for i, l := range lines {
				lines[i] = strings.TrimSuffix(l, "\r")
			}
			return daOK(strings.Join(lines, "\n"))
		},
		Compact: func(a map[string]any) string { return compactPath(a, "path") },
	}
}

func daWrite() *Tool {
	return &Tool{
		Name:        "write_file",
		Description: "Create a file or replace its whole content with exactly the bytes given (an existing file's line endings are not kept: write \\r\\n to keep CRLF). Returns \"wrote PATH\". Undoable with txedit undo.",
		Schema:      object([]string{"path", "content"}, map[string]any{"path": str("The file."), "content": str("Its whole content.")}),
		Examples:    []string{`{"path":"notes.txt","content":"hello\n"}`},
		Run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			var a struct{ Path, Content string }
			if err := decode(args, &a); err != nil {
				return daFail(err)
			}
			// The bytes as given: the backends write content unchanged.
			res, _ := env.W.Apply(ctx, &plan.Request{Path: a.Path, Edit: plan.Edit{Command: "write", FileText: &a.Content}, DeltaShown: true})
			if !res.Success {
				return daFailRes(res, errorOf(res.Code, res.Error))
			}
			return daOK("wrote " + a.Path)
		},
		Compact: func(a map[string]any) string { return compactPath(a, "path") },
	}
}

func daEdit() *Tool {
	return &Tool{
		Name: "edit_file",
		Description: "Replace old_string with new_string in a file: the first occurrence, or every one with replace_all. Says how many occurrences there were, so you can tell whether the first was the one you meant. " +
			"old_string must match exactly (line endings are matched as str_replace does). Undoable.",
		Schema: object([]string{"path", "old_string", "new_string"}, map[string]any{"path": str("The file."), "old_string": str("The exact text to find."),
			"new_string": str("The replacement."), "replace_all": flag("Replace every occurrence (default false).")}),
		Examples: []string{`{"path":"src/lib.rs","old_string":"fn old()","new_string":"fn new()"}`},
		Run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			var a struct {
				Path       string
				OldString  string `json:"old_string"`
				NewString  string `json:"new_string"`
				ReplaceAll bool   `json:"replace_all"`
			}
			if err := decode(args, &a); err != nil {
				return daFail(err)
			}
			if a.OldString == "" {
				return daFail(plan.Errorf(plan.CodeInvalidRequest, a.Path, "old_string is empty"))
			}
			e := plan.Edit{Command: "str_replace", OldStr: &a.OldString, NewStr: &a.NewString, ReplaceAll: a.ReplaceAll, First: !a.ReplaceAll}
			res, _ := env.W.Apply(ctx, &plan.Request{Path: a.Path, Edit: e, DeltaShown: true})
			if !res.Success {
				return daFailRes(res, errorOf(res.Code, firstError(res)))
			}
			n := res.Files[0].Occurrences
			if a.ReplaceAll {
				return daOK(fmt.Sprintf("replaced %d occurrence(s) in %s", n, a.Path) + rebasedNote(res))
			}
			return daOK(fmt.Sprintf("replaced the first of %d occurrence(s) in %s", n, a.Path) + rebasedNote(res))
		},
		Compact: func(a map[string]any) string { return compactPath(a, "path") },
	}
}

func daGlob() *Tool {
	return &Tool{
		Name:        "glob",
		Description: "Find files matching a glob (e.g. **/*.rs, src/*.toml) matched against paths relative to path (a pattern without / matches path's own files only); .gitignore honoured, dot-files skipped. Returns paths relative to path, one per line.",
		Schema:      object([]string{"pattern"}, map[string]any{"pattern": str("The glob."), "path": str("Base directory (default \".\").")}),
		ReadOnly:    true,
		Examples:    []string{`{"pattern":"**/*.rs"}`},
		Run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			var a struct{ Pattern, Path string }
			if err := decode(args, &a); err != nil {
				return daFail(err)
			}
			// synaptic matches the pattern against the whole path below
			// path and answers paths relative to path.
			res, err := env.W.Glob(ctx, engine.GlobOptions{Pattern: anchored(a.Pattern), Path: a.Path, Relative: true})
			if err != nil {
				return daFail(err)
			}
			return daOK(strings.Join(res.Files, "\n"))
		},
		Compact: func(a map[string]any) string { return fmt.Sprint(a["pattern"]) },
	}
}

func daGrep() *Tool {
	return &Tool{
		Name:        "grep",
		Description: "Search file contents with a regular expression. output_mode files_with_matches (default: one path per line), content (file:line:text) or count (file:count).",
		Schema: object([]string{"pattern"}, map[string]any{"pattern": str("Regular expression."), "path": str("Directory or file (default the workspace)."),
			"glob": str("Only files matching this glob, e.g. *.rs."), "output_mode": enum("The output.", "files_with_matches", "content", "count")}),
		ReadOnly: true,
		Examples: []string{`{"pattern":"fn main","glob":"*.rs","output_mode":"content"}`},
		Run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			// Only the dialect's own arguments: rg's others (multiline,
			// context, ...) are not part of it and are ignored.
			var a struct {
				Pattern    string          `json:"pattern"`
				Path       string          `json:"path"`
				Glob       string          `json:"glob"`
				OutputMode plan.OutputMode `json:"output_mode"`
			}
			if err := decode(args, &a); err != nil {
				return daFail(err)
			}
			res, err := env.W.Grep(ctx, &plan.GrepRequest{Pattern: a.Pattern, Path: a.Path, Glob: a.Glob, OutputMode: a.OutputMode})
			if err != nil {
				return daFail(err)
			}
			// Paths relative to path, as synaptic's are.
			if isDir, _ := env.W.IsDir(a.Path); isDir {
				base := rootRel(env, a.Path)
				for i, f := range res.Files {
					res.Files[i] = relTo(base, f)
				}
				for _, c := range res.Counts {
					c.Path = relTo(base, c.Path)
				}
				for _, m := range res.Matches {
					m.Path = relTo(base, m.Path)
				}
			}
			text, _, _ := grepText(res, grep.PrintOptions{LineNumbers: true})
			return daOK(strings.TrimSuffix(text, "\n"))
		},
		Compact: func(a map[string]any) string { return fmt.Sprintf("%q", a["pattern"]) },
	}
}

// execute runs shell commands: offered only when the server allows it.

func executeTool() *Tool {
	return &Tool{
		Name: "execute",
		Description: "Run a shell command (sh -c) in the workspace root and return {stdout, stderr, exit_code}. Output is capped; timeout is in seconds (default 120). " +
			"Its effects are OUTSIDE txedit's journal: txedit undo cannot revert what a command does. Prefer the file tools for edits.",
		Schema:   object([]string{"command"}, map[string]any{"command": str("The shell command."), "timeout": num("Seconds before it is killed (default 120).")}),
		Execute:  true,
		Examples: []string{`{"command":"go test ./..."}`, `{"command":"ls -la","timeout":10}`},
		Run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			var a struct {
				Command string
				Timeout int
			}
			if err := decode(args, &a); err != nil {
				return failure(err, nil)
			}
			if strings.TrimSpace(a.Command) == "" {
				return failure(plan.Errorf(plan.CodeInvalidRequest, "", "execute needs a command"), nil)
			}
			return runCommand(ctx, env, a.Command, a.Timeout)
		},
		Compact: func(a map[string]any) string { return fmt.Sprint(a["command"]) },
	}
}

// capped keeps the first max bytes written to it.
type capped struct {
	buf bytes.Buffer
	max int
	cut bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); room < len(p) {
		c.cut = true
		if room > 0 {
			c.buf.Write(p[:room])
		}
		return len(p), nil
	}
	return c.buf.Write(p)
}

func (c *capped) String() string {
	if c.cut {
		return c.buf.String() + "\n[output cut]"
	}
	return c.buf.String()
}

func runCommand(ctx context.Context, env *Env, command string, timeout int) Result {
	d := env.ExecTimeout
	if d <= 0 {
		d = 120 * time.Second
	}
	if timeout > 0 {
		d = time.Duration(timeout) * time.Second
	}
	max := env.MaxOutput
	if max <= 0 {
		max = 1 << 20
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Dir = env.W.Root()
	cmd.WaitDelay = 2 * time.Second
	stdout, stderr := &capped{max: max}, &capped{max: max}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err := cmd.Run()
	code := 0
	if err != nil {
		var ee *exec.ExitError
		switch {
		case ctx.Err() == context.DeadlineExceeded:
			code = -1
			stderr.Write([]byte(fmt.Sprintf("\n[killed after %v]", d)))
		case errors.As(err, &ee):
			code = ee.ExitCode()
		default:
			return failure(plan.Wrapf(plan.CodeIOError, "", err, "cannot run the command: %v", err), nil)
		}
	}
	return Result{Value: map[string]any{"stdout": stdout.String(), "stderr": stderr.String(), "exit_code": code}, OK: true}
}
