package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/plan"
)

// adkToolset builds the adk toolset (tools.go, toolsets).
func adkToolset() *Toolset {
	return &Toolset{Fail: lcFail, Name: "adk", Description: "an ADK agent's tools: langchain-community 0.3's FileManagementToolkit (read_file, write_file, copy_file, move_file, file_delete, file_search, list_directory) plus the seed's grep_file, find_files and diff_files",
		Tools: []*Tool{adkFileSearch(), adkListDir(), adkRead(), adkWrite(), adkCopyMove("copy_file", "copy"), adkCopyMove("move_file", "move"),
			adkDelete(), adkGrep(), adkFind(), adkDiff()}}
}

// LangChain's tools answer with strings, errors included.
func lcOK(s string) Result { return Result{Value: s, OK: true} }

// lcFail is a failure LangChain has no words of its own for (txedit's
// refusals: not_read, stale_hash, denied, ...): "Error: " and txedit's
// message, as LangChain prints an exception.
func lcFail(err error) Result { return lcError(err, "Error: "+err.Error()) }

func lcError(err error, msg string) Result {
	return Result{Value: msg, OK: false, Code: plan.CodeOf(err), Plain: true}
}

// absPath is the path LangChain's exceptions name: the argument resolved
// against the root directory.
func absPath(env *Env, p string) string {
	if path.IsAbs(p) {
		return path.Clean(p)
	}
	return path.Join(env.W.Root(), p)
}

// lcErr says what LangChain's tool says for the failures it knows (a
// missing file, a directory where a file belongs, a path outside the
// root: Python's own exception texts), and otherwise lcFail's.
func lcErr(env *Env, err error, arg, value string, missing func() string) Result {
	switch plan.CodeOf(err) {
	case plan.CodeOutsideRoot:
		return lcError(err, fmt.Sprintf("Error: Access denied to %s: %s. Permission granted exclusively to the current working directory", arg, value))
	case plan.CodeFileNotFound:
		if missing != nil {
			return lcError(err, missing())
		}
		return lcError(err, fmt.Sprintf("Error: [Errno 2] No such file or directory: '%s'", absPath(env, value)))
	case plan.CodeNotRegular:
		if dir, _ := env.W.IsDir(value); dir {
			return lcError(err, fmt.Sprintf("Error: [Errno 21] Is a directory: '%s'", absPath(env, value)))
		}
		return lcError(err, fmt.Sprintf("Error: [Errno 20] Not a directory: '%s'", absPath(env, value)))
	}
	return lcFail(err)
}

// The custom tools answer {status, output, debug} on success and
// {status, message, debug} on failure; debug says what ran.
func adkOK(debug map[string]any, output any) Result {
	return Result{Value: map[string]any{"status": "success", "output": output, "debug": debug}, OK: true}
}

func adkFail(debug map[string]any, err error, msg string) Result {
	if msg == "" {
		msg = err.Error()
	}
	return Result{Value: map[string]any{"status": "error", "message": msg, "code": plan.CodeOf(err), "debug": debug}, OK: false, Code: plan.CodeOf(err)}
}

func adkFileSearch() *Tool {
	return &Tool{
		Name: "file_search",
		Description: "Recursively search for files whose names match a shell pattern (fnmatch: * ? [seq] [!seq]) under dir_path, hidden and ignored files included (langchain-community 0.3's file_search). " +
			"Returns matching paths relative to dir_path, one per line, sorted.",
		Schema:   object([]string{"pattern"}, map[string]any{"dir_path": str("Directory to search (default \".\")."), "pattern": str("Unix shell pattern for file names, e.g. *.py.")}),
		ReadOnly: true,
		Examples: []string{`{"dir_path":"src","pattern":"*.py"}`},
		Run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			a := struct {
				DirPath string `json:"dir_path"`
				Pattern string `json:"pattern"`
			}{DirPath: "."}
			if err := decode(args, &a); err != nil {
				return lcFail(err)
			}
			none := lcOK(fmt.Sprintf("No files found for pattern %s in directory %s", a.Pattern, a.DirPath))
			// os.walk sees every file, dot-files and ignored ones too;
			// fnmatch compares the names.
			res, err := env.W.Glob(ctx, engine.GlobOptions{Pattern: "*", Path: a.DirPath, Hidden: true, NoIgnore: true, Relative: true})
			if err != nil {
				if c := plan.CodeOf(err); c == plan.CodeFileNotFound || c == plan.CodeNotRegular {
					return none // os.walk of a missing directory finds nothing
				}
				return lcErr(env, err, "dir_path", a.DirPath, nil)
			}
			re := fnmatch(a.Pattern)
			var found []string
			for _, f := range append(res.Files, symlinkFiles(ctx, env, a.DirPath)...) {
				if re.MatchString(path.Base(f)) {
					found = append(found, f)
				}
			}
			sort.Strings(found)
			if len(found) == 0 {
				return none
			}
			return lcOK(strings.Join(found, "\n"))
		},
		Compact: func(a map[string]any) string {
			return fmt.Sprintf("%v in %s", a["pattern"], compactPath(a, "dir_path"))
		},
	}
}

// symlinkFiles are the symlinks below dir (relative to it) that os.walk
// lists among a directory's files: those that do not lead to a
// directory. A symlink whose target lies outside the root is left out
// (txedit's files are the workspace's).
func symlinkFiles(ctx context.Context, env *Env, dir string) []string {
	dirs, err := env.W.Glob(ctx, engine.GlobOptions{Pattern: "*", Path: dir, Hidden: true, NoIgnore: true, Dirs: true, OnlyDirs: true, Relative: true})
	if err != nil {
		return nil
	}
	base := strings.TrimSuffix(dir, "/")
	var out []string
	for _, d := range append([]string{""}, dirs.Files...) {
		full := base
		if d != "" {
			full = base + "/" + d
		}
		ents, err := env.W.List(ctx, full, engine.ListOptions{})
		if err != nil {
			continue
		}
		for _, e := range ents {
			if e.Kind != "symlink" {
				continue
			}
			target := e.Target
			if !path.IsAbs(target) {
				target = path.Join(path.Dir(absPath(env, e.Path)), target)
			}
			if outsideRoot(env, target) {
				continue
			}
			if isDir, _ := env.W.IsDir(e.Path); isDir {
				continue
			}
			out = append(out, strings.TrimPrefix(path.Join(d, e.Name), "./"))
		}
	}
	return out
}

// fnmatch compiles a Python fnmatch pattern: * and ? match any characters,
// [seq] and [!seq] classes, everything else literally, the whole name.
func fnmatch(pat string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString(`(?s)\A`)
	for i := 0; i < len(pat); {
		c := pat[i]
		switch {
		case c == '*':
			b.WriteString(".*")
			i++
		case c == '?':
			b.WriteString(".")
			i++
		case c == '[':
			j := i + 1
			if j < len(pat) && pat[j] == '!' {
				j++
			}
			if j < len(pat) && pat[j] == ']' {
				j++
			}
			for j < len(pat) && pat[j] != ']' {
				j++
			}
			if j >= len(pat) {
				b.WriteString(`\[`)
				i++
				continue
			}
			class := pat[i+1 : j]
			neg := strings.HasPrefix(class, "!")
			class = strings.TrimPrefix(class, "!")
			class = strings.ReplaceAll(class, `\`, `\\`)
			b.WriteString("[")
			if neg {
				b.WriteString("^")
			} else if strings.HasPrefix(class, "^") {
				b.WriteString(`\`)
			}
			b.WriteString(class)
			b.WriteString("]")
			i = j + 1
		default:
			r, n := utf8.DecodeRuneInString(pat[i:])
			b.WriteString(regexp.QuoteMeta(string(r)))
			i += n
		}
	}
	b.WriteString(`\z`)
	re, err := regexp.Compile(b.String())
	if err != nil {
		return regexp.MustCompile(`\A` + regexp.QuoteMeta(pat) + `\z`)
	}
	return re
}

func adkListDir() *Tool {
	return &Tool{
		Name:        "list_directory",
		Description: "List the names in a directory (dot-files too), one per line, sorted (langchain-community 0.3's list_directory).",
		Schema:      object(nil, map[string]any{"dir_path": str("The directory (default \".\").")}),
		ReadOnly:    true,
		Examples:    []string{`{"dir_path":"."}`},
		Run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			a := struct {
				DirPath string `json:"dir_path"`
			}{DirPath: "."}
			if err := decode(args, &a); err != nil {
				return lcFail(err)
			}
			ents, err := env.W.List(ctx, a.DirPath, engine.ListOptions{})
			if err != nil {
				return lcErr(env, err, "dir_path", a.DirPath, nil)
			}
			if len(ents) == 0 {
				return lcOK("No files found in directory " + a.DirPath)
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
		Description: "Read a whole file and return its text (langchain-community 0.3's read_file: as Python reads text, line endings become \\n). A binary file is refused.",
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
			missing := func() string { return "Error: no such file or directory: " + a.FilePath }
			rs, err := env.W.Read(ctx, &plan.ReadRequest{Mode: "Line", Path: a.FilePath})
			if err != nil {
				return lcErr(env, err, "file_path", a.FilePath, missing)
			}
			r := rs[0]
			if r.Code == plan.CodeBinaryFile {
				// No "Image mode" here: this toolset has none.
				return lcError(errorOf(r.Code, r.Error), fmt.Sprintf("Error: %s is binary (a NUL byte in its first 8000 bytes): read_file reads text files only", a.FilePath))
			}
			if !r.Success {
				return lcErr(env, errorOf(r.Code, r.Error), "file_path", a.FilePath, missing)
			}
			if msg := pyDecodeError(r.Content); msg != "" {
				return lcError(plan.Errorf(plan.CodeBinaryFile, a.FilePath, "%s", msg), "Error: "+msg)
			}
			// open(path, "r"): universal newlines.
			text := strings.ReplaceAll(r.Content, "\r\n", "\n")
			return lcOK(strings.ReplaceAll(text, "\r", "\n"))
		},
		Compact: func(a map[string]any) string { return compactPath(a, "file_path") },
	}
}

// pyDecodeError is Python's UnicodeDecodeError message for the first
// invalid UTF-8 in s, or "".
func pyDecodeError(s string) string {
	for i := 0; i < len(s); {
		c := s[i]
		if c < 0x80 {
			i++
			continue
		}
		if _, n := utf8.DecodeRuneInString(s[i:]); n > 1 {
			i += n
			continue
		}
		k, lead := utf8Prefix(s, i)
		if !lead {
			return fmt.Sprintf("'utf-8' codec can't decode byte 0x%02x in position %d: invalid start byte", c, i)
		}
		reason := "invalid continuation byte"
		if i+k >= len(s) {
			reason = "unexpected end of data"
		}
		if k == 1 {
			return fmt.Sprintf("'utf-8' codec can't decode byte 0x%02x in position %d: %s", c, i, reason)
		}
		return fmt.Sprintf("'utf-8' codec can't decode bytes in position %d-%d: %s", i, i+k-1, reason)
	}
	return ""
}

func adkWrite() *Tool {
	return &Tool{
		Name:        "write_file",
		Description: "Write text to a file exactly as given (langchain-community 0.3's write_file), replacing it, or with append adding the text at its end. The file's directory is created if its parent exists, as LangChain does. Undoable with txedit undo.",
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
			// created). It makes the file's directory, not its parents
			// (mkdir(parents=False)).
			if outsideRoot(env, a.FilePath) {
				return lcErr(env, plan.Errorf(plan.CodeOutsideRoot, "", "outside the workspace"), "file_path", a.FilePath, nil)
			}
			if dir := path.Dir(a.FilePath); dir != "." {
				if missing, msg := missingDir(env, path.Dir(dir)); missing {
					return lcError(plan.Errorf(plan.CodeFileNotFound, a.FilePath, "its directory's parent does not exist"), strings.Replace(msg, absPath(env, path.Dir(dir)), absPath(env, dir), 1))
				}
			}
			req := &plan.Request{Path: a.FilePath, Edit: plan.Edit{Command: "write", FileText: &a.Text}}
			if a.Append {
				req = &plan.Request{Path: a.FilePath, Edit: plan.Edit{Command: "append_text", NewStr: &a.Text}}
			}
			res, _ := env.W.Apply(ctx, req)
			if !res.Success {
				return lcErr(env, resultErr(res), "file_path", a.FilePath, nil)
			}
			return lcOK(fmt.Sprintf("File written successfully to %s.", a.FilePath))
		},
		Compact: func(a map[string]any) string { return compactPath(a, "file_path") },
	}
}

// outsideRoot tells whether a path argument, taken from the root as
// LangChain's get_relative_path takes it (lexically here; the engine
// refuses symlinks that lead out), leaves the root.
func outsideRoot(env *Env, p string) bool {
	root := strings.TrimSuffix(env.W.Root(), "/")
	abs := absPath(env, p)
	return abs != root && !strings.HasPrefix(abs, root+"/")
}

// missingDir is Python's error for a file whose directory does not exist
// (the path named is the one Python names).
func missingDir(env *Env, dir string) (bool, string) {
	if dir == "." || dir == "" || dir == "/" {
		return false, ""
	}
	if _, err := env.W.IsDir(dir); err != nil && plan.CodeOf(err) == plan.CodeFileNotFound {
		return true, fmt.Sprintf("Error: [Errno 2] No such file or directory: '%s'", absPath(env, dir))
	}
	return false, ""
}

func adkCopyMove(name, cmd string) *Tool {
	verb := map[string]string{"copy": "copied", "move": "moved"}[cmd]
	desc := "Copy a file to a new path, as shutil.copy2 does (langchain-community 0.3's copy_file): into destination_path if it is a directory; the destination's directory must exist. " +
		"txedit never overwrites an existing file (it says so). Undoable."
	if cmd == "move" {
		desc = "Move or rename a file or a directory, as shutil.move does (langchain-community 0.3's move_file): into destination_path if it is a directory; the destination's directory must exist. " +
			"Read the files first. txedit never overwrites an existing file (it says so). Undoable."
	}
	return &Tool{
		Name:        name,
		Description: desc,
		Schema:      object([]string{"source_path", "destination_path"}, map[string]any{"source_path": str("The file."), "destination_path": str("Where it goes: a new file name, or a directory to put it in.")}),
		Examples:    []string{`{"source_path":"a.txt","destination_path":"backup/a.txt"}`},
		Run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			var a struct {
				Source string `json:"source_path"`
				Dest   string `json:"destination_path"`
			}
			if err := decode(args, &a); err != nil {
				return lcFail(err)
			}
			// LangChain checks the source, then the destination.
			denied := plan.Errorf(plan.CodeOutsideRoot, "", "outside the workspace")
			if outsideRoot(env, a.Source) {
				return lcErr(env, denied, "source_path", a.Source, nil)
			}
			if outsideRoot(env, a.Dest) {
				return lcErr(env, denied, "destination_path", a.Dest, nil)
			}
			srcDir, srcErr := env.W.IsDir(a.Source)
			if srcErr != nil {
				if plan.CodeOf(srcErr) == plan.CodeFileNotFound {
					if cmd == "move" {
						return lcError(srcErr, "Error: no such file or directory "+a.Source)
					}
					return lcError(srcErr, fmt.Sprintf("Error: [Errno 2] No such file or directory: '%s'", absPath(env, a.Source)))
				}
				return lcErr(env, srcErr, "source_path", a.Source, nil)
			}
			if srcDir && cmd == "copy" {
				return lcErr(env, plan.Errorf(plan.CodeNotRegular, a.Source, "is a directory"), "source_path", a.Source, nil)
			}
			// shutil puts the file inside an existing directory.
			dest := a.Dest
			if dir, err := env.W.IsDir(a.Dest); err == nil && dir {
				dest = strings.TrimSuffix(a.Dest, "/") + "/" + path.Base(a.Source)
			}
			if absPath(env, dest) == absPath(env, a.Source) {
				if cmd == "move" { // os.rename onto itself: nothing to do
					return lcOK(fmt.Sprintf("File %s successfully from %s to %s.", verb, a.Source, a.Dest))
				}
				same := plan.Errorf(plan.CodeInvalidRequest, a.Source, "source and destination are the same file")
				return lcError(same, fmt.Sprintf("Error: PosixPath('%s') and PosixPath('%s') are the same file", absPath(env, a.Source), absPath(env, dest)))
			}
			if missing, msg := missingDir(env, path.Dir(dest)); missing {
				return lcError(plan.Errorf(plan.CodeFileNotFound, dest, "its directory does not exist"), strings.Replace(msg, absPath(env, path.Dir(dest)), absPath(env, dest), 1))
			}
			req := &plan.Request{Path: a.Source, Edit: plan.Edit{Command: cmd, NewPath: dest}}
			if srcDir {
				var err error
				if req, err = moveDir(ctx, env, a.Source, dest); err != nil {
					return lcErr(env, err, "source_path", a.Source, nil)
				}
			}
			res, _ := env.W.Apply(ctx, req)
			if !res.Success {
				err := resultErr(res)
				if plan.CodeOf(err) == plan.CodeOutsideRoot && !strings.Contains(err.Error(), a.Source) {
					return lcErr(env, err, "destination_path", a.Dest, nil)
				}
				return lcErr(env, err, "source_path", a.Source, nil)
			}
			return lcOK(fmt.Sprintf("File %s successfully from %s to %s.", verb, a.Source, a.Dest))
		},
		Compact: func(a map[string]any) string { return fmt.Sprintf("%v -> %v", a["source_path"], a["destination_path"]) },
	}
}

// moveDir is shutil.move of a directory as one transaction: every file
// below src (dot-files and ignored ones too) moved to the same place
// below dest.
func moveDir(ctx context.Context, env *Env, src, dest string) (*plan.Request, error) {
	res, err := env.W.Glob(ctx, engine.GlobOptions{Pattern: "*", Path: src, Hidden: true, NoIgnore: true, Relative: true})
	if err != nil {
		return nil, err
	}
	if len(res.Files) == 0 {
		return nil, plan.Errorf(plan.CodeInvalidRequest, src, "is a directory with no files: txedit moves files")
	}
	req := &plan.Request{}
	for _, f := range res.Files {
		from := strings.TrimSuffix(src, "/") + "/" + f
		req.FileEdits = append(req.FileEdits, plan.FileEdit{Path: from, Edits: []plan.Edit{{Command: "move", NewPath: strings.TrimSuffix(dest, "/") + "/" + f}}})
	}
	return req, nil
}

func adkDelete() *Tool {
	return &Tool{
		Name:        "file_delete",
		Description: "Delete a file (langchain-community 0.3's file_delete); read it first. Undoable with txedit undo (the file comes back with its mode).",
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
				return lcErr(env, resultErr(res), "file_path", a.FilePath, func() string { return "Error: no such file or directory: " + a.FilePath })
			}
			return lcOK("File deleted successfully: " + a.FilePath + ".")
		},
		Compact: func(a map[string]any) string { return compactPath(a, "file_path") },
	}
}

// shellArgs renders a command line for debug as the ADK tools do (the
// arguments joined by spaces).
func shellArgs(args ...string) string { return strings.Join(args, " ") }

func adkGrep() *Tool {
	return &Tool{
		Name: "grep_file",
		Fail: func(err error) Result { return adkFail(map[string]any{}, err, "") },
		Description: "Search for a pattern (RE2 regular expression) in a file, or recursively in a directory, as grep does: options mirror grep's -i -w -n -r -v -c -l; " +
			"a recursive search reads every file (dot-files and ignored ones too), counts list every file, binary files are counted and listed but their lines not shown. " +
			"Returns {status, output, debug}: the matching lines, the counts or the file names, or a sentence saying nothing matched; {status, message, debug} on failure.",
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
				return adkFail(map[string]any{}, err, "")
			}
			full := absPath(env, a.FilePath)
			cmdline := []string{"grep"}
			for _, f := range []struct {
				on   bool
				flag string
			}{{a.IgnoreCase, "-i"}, {a.WholeWord, "-w"}, {a.LineNumbers, "-n"}, {a.Recursive, "-r"}, {a.Invert, "-v"}, {a.Count, "-c"}, {a.FilesWithMat, "-l"}} {
				if f.on {
					cmdline = append(cmdline, f.flag)
				}
			}
			debug := map[string]any{"command_executed": shellArgs(append(cmdline, a.Pattern, full)...), "full_path_searched": full}
			fail := func(err error, stderr string) Result {
				debug["return_code"], debug["stderr"] = 2, stderr
				return adkFail(debug, err, fmt.Sprintf("Error executing grep command for %s: %s", a.FilePath, stderr))
			}
			pat := a.Pattern
			if a.WholeWord {
				pat = `\b(?:` + pat + `)\b`
			}
			if _, err := regexp.Compile(pat); err != nil {
				return fail(plan.Wrapf(plan.CodeInvalidRequest, "", err, "bad pattern: %v", err), fmt.Sprintf("grep: %v", err))
			}
			isDir, err := env.W.IsDir(a.FilePath)
			if err != nil {
				if plan.CodeOf(err) == plan.CodeFileNotFound {
					debug["return_code"], debug["stderr"] = 2, fmt.Sprintf("grep: %s: No such file or directory", full)
					return adkFail(debug, err, fmt.Sprintf("Error: File or directory not found at specified path: %s (resolved to %s)", a.FilePath, full))
				}
				return fail(err, "grep: "+err.Error())
			}
			if isDir && !a.Recursive {
				return fail(plan.Errorf(plan.CodeInvalidRequest, a.FilePath, "is a directory: set recursive to search it"), fmt.Sprintf("grep: %s: Is a directory", full))
			}
			out, stderr, selected, err := grepFiles(ctx, env, a.FilePath, isDir, &plan.GrepRequest{Pattern: pat, IgnoreCase: a.IgnoreCase, Invert: a.Invert},
				a.LineNumbers, a.Count, a.FilesWithMat)
			if err != nil {
				return fail(err, "grep: "+err.Error())
			}
			code := 0
			if !selected {
				code = 1
			}
			debug["return_code"], debug["stderr"] = code, strings.TrimSpace(stderr)
			switch {
			case !selected && a.Invert:
				return adkOK(debug, fmt.Sprintf("All lines matched the pattern '%s' in %s.", a.Pattern, a.FilePath))
			case !selected:
				return adkOK(debug, fmt.Sprintf("No lines found matching the pattern '%s' in %s.", a.Pattern, a.FilePath))
			}
			return adkOK(debug, strings.TrimSpace(out))
		},
		Compact: func(a map[string]any) string {
			return fmt.Sprintf("%q in %s", a["pattern"], compactPath(a, "file_path"))
		},
	}
}

// grepFiles runs grep [-n] [-c] [-l] over one file, or recursively over a
// directory (every file: dot-files and ignored ones too; symlinks met on
// the way are not followed, as grep -r does not): GNU grep's stdout and
// stderr, and whether any line was selected (grep's exit status 0).
// Files are in path order; a binary file (a NUL byte) counts and is
// listed, but its lines are not printed: stderr says it matches.
func grepFiles(ctx context.Context, env *Env, operand string, isDir bool, req *plan.GrepRequest, numbers, count, list bool) (stdout, stderr string, selected bool, err error) {
	files := []string{operand}
	if isDir {
		if files, err = grepTree(ctx, env, operand); err != nil {
			return "", "", false, err
		}
	}
	hits := grepEach(ctx, env, files, req)
	var out, errs strings.Builder
	for i, f := range files {
		h := hits[i]
		if h.err != nil {
			if plan.CodeOf(h.err) == plan.CodeDenied {
				fmt.Fprintf(&errs, "grep: %s: Permission denied\n", f)
				continue
			}
			return "", "", false, h.err
		}
		if h.count > 0 {
			selected = true
		}
		h.print(&out, &errs, f, isDir, numbers, count, list)
	}
	return out.String(), errs.String(), selected, nil
}

// grepTree lists the files grep -r searches under dir: every file,
// dot-files and ignored ones too, in path order, less the symlinks.
func grepTree(ctx context.Context, env *Env, dir string) ([]string, error) {
	res, err := env.W.Glob(ctx, engine.GlobOptions{Pattern: "*", Path: dir, Hidden: true, NoIgnore: true, Relative: true})
	if err != nil {
		return nil, err
	}
	var files []string
	prefix := strings.TrimSuffix(dir, "/") + "/"
	links := map[string]bool{}
	listed := map[string]bool{}
	for _, f := range res.Files {
		p := prefix + f
		if dir := path.Dir(p); !listed[dir] {
			listed[dir] = true
			if ents, err := env.W.List(ctx, dir, engine.ListOptions{}); err == nil {
				for _, e := range ents {
					if e.Kind == plan.KindSymlink {
						links[dir+"/"+e.Name] = true
					}
				}
			}
		}
		if !links[p] {
			files = append(files, p)
		}
	}
	return files, nil
}

// grepHit is what grep found in one file.
type grepHit struct {
	count  int
	lines  []*plan.Match
	binary bool
	err    error
}

// grepEach searches each file for req (8 at a time), and checks the files
// that match for a NUL byte (grep's binary files).
func grepEach(ctx context.Context, env *Env, files []string, req *plan.GrepRequest) []grepHit {
	hits := make([]grepHit, len(files))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i, f := range files {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			r := *req
			r.Path, r.OutputMode, r.Hidden, r.NoIgnore = f, plan.OutputContent, true, true
			res, err := env.W.Grep(ctx, &r)
			if err != nil {
				hits[i].err = err
				return
			}
			hits[i].count, hits[i].lines = len(res.Matches), res.Matches
			if len(res.Matches) > 0 {
				nul, err := env.W.Grep(ctx, &plan.GrepRequest{Pattern: "\x00", Literal: true, Path: f, OutputMode: plan.OutputCount})
				hits[i].binary = err == nil && len(nul.Counts) > 0
			}
		}()
	}
	wg.Wait()
	return hits
}

// print writes what GNU grep prints for file f's hit: its name (-l), its
// count (-c), that a binary file matches (on stderr), or its lines (-n
// numbered); names precede counts and lines when many files are searched.
func (h grepHit) print(out, errs *strings.Builder, f string, many, numbers, count, list bool) {
	name := ""
	if many {
		name = f
	}
	switch {
	case list:
		if h.count > 0 {
			out.WriteString(f + "\n")
		}
	case count:
		if many {
			fmt.Fprintf(out, "%s:%d\n", name, h.count)
		} else {
			fmt.Fprintf(out, "%d\n", h.count)
		}
	case h.binary:
		fmt.Fprintf(errs, "grep: %s: binary file matches\n", f)
	default:
		for _, m := range h.lines {
			if many {
				out.WriteString(name + ":")
			}
			if numbers {
				fmt.Fprintf(out, "%d:", m.Line)
			}
			out.WriteString(m.Text + "\n")
		}
	}
}

func adkFind() *Tool {
	return &Tool{
		Name:        "find_files",
		Fail:        func(err error) Result { return adkFail(map[string]any{}, err, "") },
		Description: "Find files or directories under dir_path by name (find -name: * ? [...]), as find does, skipping hidden ones. Returns {status, output: [paths relative to dir_path, \".\" for dir_path itself], debug}.",
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
				return adkFail(map[string]any{}, err, "")
			}
			full := absPath(env, a.DirPath)
			cmd := []string{"find", full, "-path", "*/.*", "-prune", "-o"}
			if a.Type != "" {
				cmd = append(cmd, "-type", a.Type)
			}
			if a.NamePattern != "" {
				cmd = append(cmd, "-name", a.NamePattern)
			}
			debug := map[string]any{"command_executed": shellArgs(append(cmd, "-print")...), "full_search_path": full}
			found, err := findNames(ctx, env, a.DirPath, a.NamePattern, a.Type)
			if err != nil {
				why := err.Error()
				if plan.CodeOf(err) == plan.CodeFileNotFound {
					why = fmt.Sprintf("find: '%s': No such file or directory", full)
				}
				debug["return_code"], debug["stderr"] = 1, why
				return adkFail(debug, err, fmt.Sprintf("Error executing find command for %s: %s", a.DirPath, why))
			}
			return adkOK(debug, found)
		},
		Compact: func(a map[string]any) string {
			return compactPath(a, "dir_path", fmt.Sprint(orDash(a["name_pattern"])))
		},
	}
}

// findNames lists what `find DIR -path '*/.*' -prune -o -name PATTERN
// -type T -print` lists (DIR itself as "." when it matches), relative to
// DIR, sorted; hidden entries are left out.
func findNames(ctx context.Context, env *Env, dir, name, typ string) ([]string, error) {
	if typ != "" && typ != "f" && typ != "d" {
		return nil, plan.Errorf(plan.CodeInvalidRequest, "", "Invalid type specified: %s. Use 'f' for file or 'd' for directory.", typ)
	}
	re := fnmatch(name)
	if name == "" {
		re = fnmatch("*")
	}
	res, err := env.W.Glob(ctx, engine.GlobOptions{Pattern: "*", Path: dir, NoIgnore: true, Dirs: typ != "f", OnlyDirs: typ == "d", Relative: true})
	if err != nil {
		return nil, err
	}
	found := []string{}
	if typ != "f" && re.MatchString(path.Base(dir)) {
		found = append(found, ".") // find prints its starting point too
	}
	for _, f := range res.Files { // sorted by path
		if re.MatchString(path.Base(f)) {
			found = append(found, f)
		}
	}
	return found, nil
}

func adkDiff() *Tool {
	return &Tool{
		Name:        "diff_files",
		Fail:        func(err error) Result { return adkFail(map[string]any{}, err, "") },
		Description: "Compare two files as diff -u does. Returns {status, output, debug}; output is the unified diff, or \"Files are identical.\"",
		Schema:      object([]string{"file_path1", "file_path2"}, map[string]any{"file_path1": str("The first file."), "file_path2": str("The second file.")}),
		ReadOnly:    true,
		Examples:    []string{`{"file_path1":"a.txt","file_path2":"b.txt"}`},
		Run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			var a struct {
				F1 string `json:"file_path1"`
				F2 string `json:"file_path2"`
			}
			if err := decode(args, &a); err != nil {
				return adkFail(map[string]any{}, err, "")
			}
			full1, full2 := absPath(env, a.F1), absPath(env, a.F2)
			debug := map[string]any{"command_executed": shellArgs("diff", "-u", full1, full2), "full_path1": full1, "full_path2": full2}
			d, err := env.W.Diff(ctx, a.F1, a.F2)
			if err != nil {
				debug["return_code"] = 2
				if plan.CodeOf(err) == plan.CodeFileNotFound {
					missing := a.F1
					if !strings.Contains(err.Error(), a.F1) {
						missing = a.F2
					}
					debug["stderr"] = fmt.Sprintf("diff: %s: No such file or directory", absPath(env, missing))
					return adkFail(debug, err, "Error: File not found at specified path: "+missing)
				}
				debug["stderr"] = "diff: " + err.Error()
				return adkFail(debug, err, "Error executing diff command: diff: "+err.Error())
			}
			if d == "" {
				debug["return_code"] = 0
				return adkOK(debug, "Files are identical.")
			}
			debug["return_code"] = 1
			return adkOK(debug, strings.TrimSpace(diffTimes(ctx, env, d, a.F1, a.F2)))
		},
		Compact: func(a map[string]any) string { return fmt.Sprintf("%v %v", a["file_path1"], a["file_path2"]) },
	}
}

// diffTimes gives a diff's ---/+++ lines the files' modification times,
// as diff -u prints them.
func diffTimes(ctx context.Context, env *Env, d, f1, f2 string) string {
	mt := modTimes(ctx, env, []string{rootRel(env, f1), rootRel(env, f2)})
	stamp := func(f string) string {
		t, ok := mt[rootRel(env, f)]
		if !ok {
			return ""
		}
		return "\t" + t.Local().Format("2006-01-02 15:04:05.000000000 -0700")
	}
	lines := strings.SplitN(d, "\n", 3)
	if len(lines) == 3 && strings.HasPrefix(lines[0], "--- ") && strings.HasPrefix(lines[1], "+++ ") {
		lines[0] = "--- " + f1 + stamp(f1)
		lines[1] = "+++ " + f2 + stamp(f2)
		return strings.Join(lines, "\n")
	}
	return d
}
