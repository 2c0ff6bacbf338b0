package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/internal/grep"
	"github.com/txedit/txedit/internal/jsonenc"
	"github.com/txedit/txedit/plan"
)

// claudeToolset builds the claude toolset (tools.go, toolsets).
func claudeToolset() *Toolset {
	return &Toolset{Fail: func(err error) Result { return toolFail(err, "") }, Name: "claude", Description: "Claude Code's tools: Read, Write, Edit, Glob and Grep as Claude Code 2.1.332 has them, LS and MultiEdit (which 2.x dropped) as 1.0.96 had them (ToolResult results)",
		Tools: []*Tool{claudeRead(), claudeWrite(), claudeEdit(), claudeMultiEdit(), claudeLS(), claudeGlob(), claudeGrep()}}
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
// escaping), its strings encoded by internal/jsonenc: a Grep or Read
// result's content is the bulk of what a tool prints.
func (r ToolResult) AppendJSON(b []byte) []byte {
	b = append(b, `{"success":`...)
	b = strconv.AppendBool(b, r.Success)
	b = append(b, `,"content":`...)
	b = jsonenc.AppendString(b, r.Content)
	for _, f := range []struct{ name, v string }{{"shortResult", r.ShortResult}, {"error", r.Error}} {
		if f.v != "" {
			b = append(append(append(b, `,"`...), f.name...), `":`...)
			b = jsonenc.AppendString(b, f.v)
		}
	}
	if len(r.Images) > 0 {
		b = append(b, `,"images":[`...)
		for i, im := range r.Images {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"data":`...)
			b = jsonenc.AppendString(b, im.Data)
			b = append(b, `,"mediaType":`...)
			b = jsonenc.AppendString(b, im.MediaType)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if r.FilePath != "" {
		b = append(b, `,"filePath":`...)
		b = jsonenc.AppendString(b, r.FilePath)
	}
	if r.Code != "" {
		b = append(b, `,"code":`...)
		b = jsonenc.AppendString(b, string(r.Code))
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
	return Result{Value: tr, Text: "Error: " + err.Error(), OK: false, Code: code, Plain: true}
}

// readLimit is how many lines deepagents' read_file returns by default.
const readLimit = 2000

// maxReadBytes is the size above which Claude Code 2.1.x refuses to Read a
// whole file (without offset, limit or allow_large).
const maxReadBytes = 256 << 10

// imageExt reports the extensions Claude Code's Read shows as images.
func imageExt(ext string) bool {
	switch ext {
	case ".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp":
		return true
	}
	return false
}

// binaryExt are the extensions Claude Code's Read refuses as binary
// without looking at the bytes (built on first use).
var binaryExt = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, e := range strings.Fields(`mp3 wav flac ogg aac m4a wma aiff opus mp4 avi mov wmv flv mkv webm m4v mpeg mpg
		zip rar tar gz bz2 7z xz z tgz iso exe dll so dylib app msi deb rpm bin dat db sqlite sqlite3 mdb idx
		doc docx xls xlsx ppt pptx odt ods odp ttf otf woff woff2 eot psd ai eps sketch fig xd blend obj 3ds max
		class jar war pyc pyo rlib swf fla`) {
		m["."+e] = true
	}
	return m
})

// claudeNames are Claude Code's names for the engine's arguments.
var claudeNames = map[string]string{"old_str": "old_string", "new_str": "new_string", "file_text": "content"}

// claudeErr rewrites an engine error in Claude Code's terms.
func claudeErr(err error) error { return renamer{names: claudeNames}.err(err) }

// Claude Code's words, byte for byte.
const (
	emptyFileNotice = "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>"
	shortFileNotice = "<system-reminder>Warning: the file exists but is shorter than the provided offset (%d). The file has %d lines.</system-reminder>"
	cwdNote         = "Note: your current working directory is"
	tooBigRead      = "File content (%s) exceeds maximum allowed size (256KB). Use offset and limit parameters to read specific portions of the file, or search for specific content instead of reading the whole file. " +
		"To read it anyway, up to what still fits in your context, call Read again with allow_large: true — only if you genuinely need all of it or the user asked for the whole file."
	notUTF8Note = "\n\n[This file is not valid UTF-8: it uses a legacy encoding such as Windows-1252, Shift-JIS or GBK, or it is binary. Its undecodable bytes show above as U+FFFD. " +
		"Edit and Write will refuse it: change it with a shell command that keeps its encoding, or ask the user whether to convert it to UTF-8.]"
	stateNote   = " (file state is current in your context — no need to Read it back)"
	notReadYet  = "File has not been read yet. Read it first before writing to it."
	changedRead = "File has been modified since read, either by the user or by a linter. Read it again before attempting to write it."
)

// useError is a refusal as Claude Code words one that its tool's input
// check makes: the message inside <tool_use_error>.
func useError(code plan.Code, filePath, msg string) Result {
	tr := ToolResult{Success: false, Error: msg, FilePath: filePath, Code: code}
	return Result{Value: tr, Text: "<tool_use_error>" + msg + "</tool_use_error>", OK: false, Code: code, Plain: true}
}

// plainError is a failure Claude Code reports as the bare message (an
// exception of its tool's run).
func plainError(code plan.Code, filePath, msg string) Result {
	tr := ToolResult{Success: false, Error: msg, FilePath: filePath, Code: code}
	return Result{Value: tr, Text: msg, OK: false, Code: code, Plain: true}
}

// claudeFail words an engine failure as Claude Code does where it has
// words for it (the read-before-write refusals are its own), and as
// txedit's message in a <tool_use_error> otherwise.
func claudeFail(err error, filePath string) Result {
	err = claudeErr(err)
	code := plan.CodeOf(err)
	switch code {
	case plan.CodeNotRead:
		return useError(code, filePath, notReadYet)
	case plan.CodeStaleHash:
		return useError(code, filePath, changedRead)
	}
	// The code itself leads the text over MCP ("[outside_root] …").
	return useError(code, filePath, strings.TrimPrefix(err.Error(), string(code)+": "))
}

// absArg is a path argument as Claude Code shows it: absolute, relative
// ones taken from the workspace root (its working directory).
func absArg(env *Env, p string) string {
	if path.IsAbs(p) {
		return path.Clean(p)
	}
	return path.Join(env.W.Root(), p)
}

// missingFile is Claude Code's "File does not exist" with its hint: a
// file of the same name with another extension in the same directory.
func missingFile(ctx context.Context, env *Env, filePath string) string {
	msg := fmt.Sprintf("File does not exist. %s %s.", cwdNote, strings.TrimSuffix(env.W.Root(), "/"))
	dir, base := path.Split(absArg(env, filePath))
	stem := strings.TrimSuffix(base, path.Ext(base))
	if ents, err := env.W.List(ctx, dir, engine.ListOptions{}); err == nil {
		for _, e := range ents {
			if e.Name != base && strings.TrimSuffix(e.Name, path.Ext(e.Name)) == stem {
				return msg + " Did you mean " + e.Name + "?"
			}
		}
	}
	return msg
}

// fileSize is Claude Code's formatFileSize: bytes, KB, MB or GB with one
// decimal, ".0" dropped (halves rounded up, as JavaScript's toFixed).
func fileSize(n int) string {
	if n < 1024 {
		return fmt.Sprintf("%d bytes", n)
	}
	v, units := float64(n)/1024, []string{"KB", "MB", "GB"}
	u := 0
	for v >= 1024 && u < len(units)-1 {
		v /= 1024
		u++
	}
	s := strconv.FormatFloat(math.Floor(v*10+0.5)/10, 'f', 1, 64)
	return strings.TrimSuffix(s, ".0") + units[u]
}

// readText reads a whole text file for the tools that need it as Claude
// Code sees it: the engine's result, and the text without a BOM, CRLF
// read as LF. asRead says whether the read counts as the session's (a
// Read does; an Edit looking at the file it changes does not).
func readText(ctx context.Context, env *Env, filePath string, asRead bool) (*plan.ReadResult, string, error) {
	read := env.W.Workspace().Read
	if asRead {
		read = env.W.Read
	}
	rs, err := read(ctx, &plan.ReadRequest{Mode: "Line", Path: filePath})
	if err != nil {
		return nil, "", err
	}
	r := rs[0]
	if !r.Success {
		return r, "", errorOf(r.Code, r.Error)
	}
	text := strings.TrimPrefix(r.Content, "\uFEFF")
	return r, strings.ReplaceAll(text, "\r\n", "\n"), nil
}

func claudeRead() *Tool {
	return &Tool{
		Name: "Read",
		Description: "Read a file (Claude Code 2.1.332's Read). Returns its lines numbered from 1 as \"N<tab>line\" (the empty string after a final newline is numbered too); offset (the line to start at) and limit read part of it. " +
			"A file over 256KB is refused unless offset, limit or allow_large is given. Images (png, jpg, gif, webp, bmp) come back as images. Read a file before editing it.",
		Schema: object([]string{"file_path"}, map[string]any{
			"file_path":   str("The file: absolute inside the workspace, or relative to it."),
			"offset":      num("The line number to start reading from. Only provide if the file is too large to read at once."),
			"limit":       num("The number of lines to read. Only provide if the file is too large to read at once."),
			"allow_large": flag("Read a text file over the usual size limit (256KB) whole."),
		}),
		ReadOnly: true,
		Examples: []string{`{"file_path":"src/main.go"}`, `{"file_path":"/repo/big.log","offset":1000,"limit":200}`},
		Run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			var a struct {
				FilePath   string `json:"file_path"`
				Offset     *int   `json:"offset"`
				Limit      *int   `json:"limit"`
				AllowLarge bool   `json:"allow_large"`
			}
			if err := decode(args, &a); err != nil {
				return claudeFail(err, "")
			}
			ext := strings.ToLower(path.Ext(a.FilePath))
			if imageExt(ext) {
				return claudeReadImage(ctx, env, a.FilePath)
			}
			if binaryExt()[ext] {
				return useError(plan.CodeBinaryFile, a.FilePath, fmt.Sprintf("This tool cannot read binary files. The file appears to be a binary %s file. "+
					"Use a skill for this file type if one is available, or a shell command or script that can read the format.", ext))
			}
			r, text, err := readText(ctx, env, a.FilePath, true)
			if err != nil {
				switch plan.CodeOf(err) {
				case plan.CodeFileNotFound:
					return plainError(plan.CodeFileNotFound, a.FilePath, missingFile(ctx, env, a.FilePath))
				case plan.CodeNotRegular:
					if dir, _ := env.W.IsDir(a.FilePath); dir {
						return plainError(plan.CodeNotRegular, a.FilePath, fmt.Sprintf("EISDIR: illegal operation on a directory, read '%s'", absArg(env, a.FilePath)))
					}
				case plan.CodeBinaryFile:
					return useError(plan.CodeBinaryFile, a.FilePath, "This tool cannot read binary files. The file has NUL bytes in its first 8 KB (binary data, or UTF-16/UTF-32 text). "+
						"Use a shell command or script that can read the format.")
				}
				return claudeFail(err, a.FilePath)
			}
			if text == "" {
				return toolOK(ToolResult{Content: emptyFileNotice, ShortResult: "Read 0 lines (the file is empty)", FilePath: a.FilePath})
			}
			if a.Offset == nil && a.Limit == nil && !a.AllowLarge && len(r.Content) > maxReadBytes {
				return plainError(plan.CodeTooLarge, a.FilePath, fmt.Sprintf(tooBigRead, fileSize(len(r.Content))))
			}
			lines := strings.Split(text, "\n")
			// Claude Code numbers from offset (1 by default, and 0 numbers
			// the first line 0) and starts at line max(offset, 1).
			first := 1
			if a.Offset != nil {
				first = *a.Offset
			}
			from := max(first-1, 0)
			if from >= len(lines) {
				return toolOK(ToolResult{Content: fmt.Sprintf(shortFileNotice, first, len(lines)), ShortResult: fmt.Sprintf("Read 0 lines (the file has %d)", len(lines)), FilePath: a.FilePath})
			}
			to := len(lines)
			if a.Limit != nil && *a.Limit >= 0 {
				to = min(to, from+*a.Limit)
			}
			var b strings.Builder
			for i, l := range lines[from:to] {
				if i > 0 {
					b.WriteByte('\n')
				}
				b.WriteString(strconv.Itoa(first + i))
				b.WriteByte('\t')
				b.WriteString(l)
			}
			if r.Warning != "" {
				b.WriteString(notUTF8Note)
			}
			short := fmt.Sprintf("Read %d lines", to-from)
			if to-from < len(lines) {
				short += fmt.Sprintf(" (%d-%d of %d)", from+1, to, len(lines))
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

// claudeReadImage returns an image as Claude Code does: the picture
// itself (an MCP image block; images in the ToolResult), not text.
func claudeReadImage(ctx context.Context, env *Env, filePath string) Result {
	rs, err := env.W.Read(ctx, &plan.ReadRequest{Mode: "Image", ImagePaths: []string{filePath}})
	if err != nil {
		return claudeFail(err, filePath)
	}
	r := rs[0]
	if !r.Success {
		if r.Code == plan.CodeFileNotFound {
			return plainError(r.Code, filePath, missingFile(ctx, env, filePath))
		}
		return claudeFail(errorOf(r.Code, r.Error), filePath)
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
	if rs, _ := env.W.Workspace().Read(ctx, &plan.ReadRequest{Mode: "Line", Path: filePath}); len(rs) == 1 && rs[0].Success && rs[0].Content != "" {
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

// written is a successful write in Claude Code's words (text), then
// txedit's notes: only what changes what the model should believe about
// the file (docs/toolsets.md, "What txedit adds"): the rung a tolerant
// match needed (quoteNote), or a rebase over another writer's change. No
// content_hash: no claude tool takes one back.
func written(res *plan.Result, filePath, text, note string) Result {
	if !res.Success {
		return claudeFailRes(res, filePath)
	}
	var add, del int
	status := "Updated"
	if len(res.Files) == 1 {
		add, del = res.Files[0].LinesAdded, res.Files[0].LinesRemoved
		if res.Files[0].Status == plan.StatusCreated {
			status = "Created"
		}
	}
	return toolOK(ToolResult{Content: text + note + rebasedNote(res),
		ShortResult: fmt.Sprintf("%s %s (+%d -%d)", status, filePath, add, del), FilePath: filePath})
}

// claudeFailRes is a failed write's answer: claudeFail's, and on a
// stale_hash refusal that knows what changed since the session's read (or
// a conflict after the tries of a commit that outside saves interrupted),
// txedit's note of the change and of the lines concerned, numbered as
// Read numbers them (docs/design.md, "Concurrency").
func claudeFailRes(res *plan.Result, filePath string) Result {
	err := resultErr(res)
	if d := refusalDelta(res, plan.CodeOf(err)); d != nil {
		if plan.CodeOf(err) == plan.CodeStaleHash {
			return useError(plan.CodeStaleHash, filePath, changedRead+staleNote(d, numbered))
		}
		code := plan.CodeOf(err)
		return useError(code, filePath, strings.TrimPrefix(claudeErr(err).Error(), string(code)+": ")+staleNote(d, numbered))
	}
	return claudeFail(err, filePath)
}

func claudeWrite() *Tool {
	return &Tool{
		Name: "Write",
		Description: "Write a whole file (Claude Code 2.1.332's Write), creating it (and its directories) or replacing its content; an existing file must have been read first. " +
			"An existing file keeps its line endings and BOM. Prefer Edit for changes to an existing file. Undoable with txedit undo.",
		Schema:   object([]string{"file_path", "content"}, map[string]any{"file_path": str("The file to write."), "content": str("Its whole content.")}),
		Examples: []string{`{"file_path":"docs/notes.md","content":"# Notes\n"}`},
		Run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			var a struct {
				FilePath string `json:"file_path"`
				Content  string `json:"content"`
			}
			if err := decode(args, &a); err != nil {
				return claudeFail(err, "")
			}
			res, _ := env.W.Apply(ctx, &plan.Request{Path: a.FilePath, Edit: plan.Edit{Command: "create", FileText: &a.Content}, DeltaShown: true})
			text := "The file %s has been updated successfully." + stateNote
			if res.Success && len(res.Files) == 1 && res.Files[0].Status == plan.StatusCreated {
				text = "File created successfully at: %s" + stateNote
			}
			return written(res, a.FilePath, fmt.Sprintf(text, absArg(env, a.FilePath)), "")
		},
		Compact: func(a map[string]any) string { return fmt.Sprint(a["file_path"]) },
	}
}

// Typographic quotes, which Claude Code's Edit matches with straight ones.
const (
	leftSingle, rightSingle = '\u2018', '\u2019'
	leftDouble, rightDouble = '\u201C', '\u201D'
)

func straightQuote(r rune) rune {
	switch r {
	case leftSingle, rightSingle:
		return '\''
	case leftDouble, rightDouble:
		return '"'
	}
	return r
}

// findActual finds old in text as Claude Code's Edit does: as it is, or
// else with the file's typographic quotes read as straight ones; it
// returns the text as it stands in the file, and whether quotes made the
// match.
func findActual(text, old string) (string, bool) {
	if strings.Contains(text, old) {
		return old, false
	}
	norm := func(s string) []rune {
		rs := []rune(s)
		for i, r := range rs {
			rs[i] = straightQuote(r)
		}
		return rs
	}
	tr, or := norm(text), norm(old)
	if i := strings.Index(string(tr), string(or)); i >= 0 {
		at := utf8.RuneCountInString(string(tr)[:i])
		return string([]rune(text)[at : at+len(or)]), true
	}
	return old, false
}

// quoteStyle writes new in the quote style of the file's text it replaces
// (Claude Code's preserveQuoteStyle): if that text has typographic double
// (single) quotes, new's straight double (single) quotes become
// typographic, opening after a space, line start or bracket, closing
// elsewhere; a single quote between two letters is an apostrophe (’).
func quoteStyle(actual, new string) string {
	double := strings.ContainsAny(actual, string([]rune{leftDouble, rightDouble}))
	single := strings.ContainsAny(actual, string([]rune{leftSingle, rightSingle}))
	if !double && !single {
		return new
	}
	rs := []rune(new)
	opening := func(i int) bool {
		if i == 0 {
			return true
		}
		switch rs[i-1] {
		case ' ', '\t', '\n', '\r', '(', '[', '{', '\u2014', '\u2013':
			return true
		}
		return false
	}
	out := make([]rune, len(rs))
	for i, r := range rs {
		out[i] = r
		switch {
		case r == '"' && double:
			out[i] = rightDouble
			if opening(i) {
				out[i] = leftDouble
			}
		case r == '\'' && single:
			letter := func(j int) bool { return j >= 0 && j < len(rs) && unicode.IsLetter(rs[j]) }
			out[i] = rightSingle
			if !(letter(i-1) && letter(i+1)) && opening(i) {
				out[i] = leftSingle
			}
		}
	}
	return string(out)
}

// editPlan is one Edit as Claude Code 2.1.x performs it, checked against
// the file's text: the old_string as it stands in the file, the
// new_string to write, or Claude Code's refusal.
type editPlan struct {
	old, new string
	quotes   bool // matched through typographic quotes
}

func planEdit(text, old, new string, replaceAll bool) (editPlan, string) {
	actual, quotes := findActual(text, old)
	if quotes {
		new = quoteStyle(actual, new)
	}
	// Deleting a whole line takes its newline with it.
	if new == "" && !strings.HasSuffix(actual, "\n") && strings.Contains(text, actual+"\n") {
		actual += "\n"
	}
	n := strings.Count(text, actual)
	switch {
	case n == 0:
		return editPlan{}, "String to replace not found in file.\nString: " + old
	case n > 1 && !replaceAll:
		return editPlan{}, fmt.Sprintf("Found %d matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. "+
			"To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: %s", n, old)
	}
	return editPlan{old: actual, new: new, quotes: quotes}, ""
}

const quoteNote = " txedit: old_string matched the file's typographic quotes (rung %s); new_string was written in the file's quote style."

func claudeEdit() *Tool {
	return &Tool{
		Name: "Edit",
		Description: "Replace text in a file (Claude Code 2.1.332's Edit): old_string must match exactly once (copy it from Read output without the line-number prefix, with its indentation), unless replace_all. " +
			"Straight quotes in old_string match typographic ones in the file, and new_string is then written in the file's quote style; replacing a whole line with \"\" removes its newline too. " +
			"An empty old_string creates a new file. Read the file first. Line endings and BOM are kept. Undoable.",
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
				return claudeFail(err, "")
			}
			if a.OldString == a.NewString {
				return useError(plan.CodeInvalidRequest, a.FilePath, "No changes to make: old_string and new_string are exactly the same.")
			}
			done := "The file %s has been updated successfully." + stateNote
			if a.OldString == "" { // Claude Code's way of creating a file
				if err := canCreate(ctx, env, a.FilePath); err != nil {
					return useError(plan.CodeInvalidRequest, a.FilePath, "Cannot create new file - file already exists.")
				}
				res, _ := env.W.Apply(ctx, &plan.Request{Path: a.FilePath, Edit: plan.Edit{Command: "create", FileText: &a.NewString}})
				return written(res, a.FilePath, fmt.Sprintf(done, absArg(env, a.FilePath)), "")
			}
			// Not the session's read: looking at the file to edit it does
			// not count as the agent having read it.
			r, text, err := readText(ctx, env, a.FilePath, false)
			if err != nil {
				if plan.CodeOf(err) == plan.CodeFileNotFound {
					return useError(plan.CodeFileNotFound, a.FilePath, missingFile(ctx, env, a.FilePath))
				}
				return claudeFail(err, a.FilePath)
			}
			p, refusal := planEdit(text, a.OldString, a.NewString, a.ReplaceAll)
			if refusal != "" && env.W.Stale(a.FilePath, r.FileHash) {
				// The file changed since the session read it, as Claude
				// Code checks before it looks for old_string: the engine
				// answers, rebasing the edit made against the version
				// read, or refusing it with what changed.
				p, refusal = editPlan{old: a.OldString, new: a.NewString}, ""
			}
			if refusal != "" {
				code := plan.CodeNotFound
				if strings.HasPrefix(refusal, "Found ") {
					code = plan.CodeAmbiguous
				}
				return useError(code, a.FilePath, refusal)
			}
			if a.ReplaceAll {
				done = "The file %s has been updated. All occurrences were successfully replaced." + stateNote
			}
			note := ""
			if p.quotes {
				note = fmt.Sprintf(quoteNote, plan.RungUnicode)
			}
			req := &plan.Request{Path: a.FilePath, Edit: plan.Edit{Command: "str_replace", OldStr: &p.old, NewStr: &p.new, ReplaceAll: a.ReplaceAll}, DeltaShown: true}
			res, _ := env.W.Apply(ctx, req)
			return written(res, a.FilePath, fmt.Sprintf(done, absArg(env, a.FilePath)), note)
		},
		Compact: func(a map[string]any) string { return fmt.Sprint(a["file_path"]) },
	}
}

// MultiEdit follows Claude Code 1.0.96 (2.x has none): every edit is
// checked as 1.0.96's Edit checks it, against the file as it is, then the
// edits apply in order to the text (replacing the first occurrence, or
// all), and the result is written whole, the file's line endings and BOM
// kept.
func claudeMultiEdit() *Tool {
	return &Tool{
		Name: "MultiEdit",
		Description: "Make several replacements in one file, in order, each on the result of the previous, all or nothing (Claude Code 1.0.96's MultiEdit): if any edit fails, none is written. " +
			"Each edit is checked against the file as it is: its old_string must be there, once unless its replace_all. Read the file first. An empty old_string in the only edit creates a new file. Undoable as one change.",
		Schema: object([]string{"file_path", "edits"}, map[string]any{
			"file_path": str("The file to edit."),
			"edits": map[string]any{"type": "array", "minItems": 1, "description": "The edits, applied in order.",
				"items": object([]string{"old_string", "new_string"}, map[string]any{
					"old_string": str("The exact text to replace."), "new_string": str("The new text."), "replace_all": flag("Replace every occurrence.")})},
		}),
		Examples: []string{`{"file_path":"a.go","edits":[{"old_string":"a := 1","new_string":"a := 2"},{"old_string":"b()","new_string":"c()","replace_all":true}]}`},
		Run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			var a struct {
				FilePath string     `json:"file_path"`
				Edits    []editArgs `json:"edits"`
			}
			if err := decode(args, &a); err != nil {
				return claudeFail(err, "")
			}
			r, text, err := readText(ctx, env, a.FilePath, false)
			exists := err == nil
			if err != nil && plan.CodeOf(err) != plan.CodeFileNotFound {
				return claudeFail(err, a.FilePath)
			}
			// The file changed since the session read it: the engine
			// answers, as for Edit (a rebase, or the change).
			stale := exists && env.W.Stale(a.FilePath, r.FileHash)
			final, msg := "", ""
			for _, e := range a.Edits {
				if code, m := checkEdit1(ctx, env, a.FilePath, exists, text, e); m != "" && !stale {
					return useError(code, a.FilePath, m)
				}
			}
			if final, msg = applyEdits1(text, a.Edits); msg != "" && !stale {
				return plainError(plan.CodeNotFound, a.FilePath, msg)
			}
			e := plan.Edit{Command: "create", FileText: &final}
			if exists && !(len(a.Edits) == 1 && a.Edits[0].OldString == "") {
				// The edits are computed again on the bytes the write
				// replaces (and, rebased, on the version read).
				e = plan.Edit{Command: "create", Rewrite: multiEdit1(a.Edits)}
			}
			res, _ := env.W.Apply(ctx, &plan.Request{Path: a.FilePath, Edit: e, DeltaShown: true})
			if !res.Success {
				return claudeFailRes(res, a.FilePath)
			}
			var b strings.Builder
			fmt.Fprintf(&b, "Applied %d edit%s to %s:", len(a.Edits), map[bool]string{true: "", false: "s"}[len(a.Edits) == 1], a.FilePath)
			for i, e := range a.Edits {
				fmt.Fprintf(&b, "\n%d. Replaced \"%s\" with \"%s\"", i+1, jsCut(e.OldString, 50), jsCut(e.NewString, 50))
			}
			return written(res, a.FilePath, b.String(), "")
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

// multiEdit1 is MultiEdit's change as a function of the file's bytes
// (plan.Edit.Rewrite): 1.0.96's check of every edit against the text, then
// the edits in order, on the text as Read shows it (no BOM, CRLF read as
// LF; the write keeps both).
func multiEdit1(edits []editArgs) func([]byte) (string, error) {
	return func(cur []byte) (string, error) {
		text := strings.ReplaceAll(strings.TrimPrefix(string(cur), "\uFEFF"), "\r\n", "\n")
		for _, e := range edits {
			if code, msg := checkText1(text, e); msg != "" {
				return "", plan.Errorf(code, "", "%s", msg)
			}
		}
		final, msg := applyEdits1(text, edits)
		if msg != "" {
			return "", plan.Errorf(plan.CodeNotFound, "", "%s", msg)
		}
		return final, nil
	}
}

type editArgs struct {
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all"`
}

// checkEdit1 is Claude Code 1.0.96's check of one edit against the file
// as it is (text, CRLF read as LF): its code and message, or "" when it
// passes. Whether the session has read the file, the engine checks when
// it writes (with the same words).
func checkEdit1(ctx context.Context, env *Env, filePath string, exists bool, text string, e editArgs) (plan.Code, string) {
	switch {
	case e.OldString == e.NewString:
		return plan.CodeInvalidRequest, "No changes to make: old_string and new_string are exactly the same."
	case exists && e.OldString == "":
		if strings.TrimSpace(text) != "" {
			return plan.CodeInvalidRequest, "Cannot create new file - file already exists."
		}
		return "", ""
	case !exists && e.OldString == "":
		return "", ""
	case !exists:
		msg := "File does not exist."
		if hint := missingFile(ctx, env, filePath); strings.Contains(hint, " Did you mean ") {
			msg += hint[strings.Index(hint, " Did you mean "):]
		}
		return plan.CodeFileNotFound, msg
	}
	return checkText1(text, e)
}

// checkText1 is checkEdit1's check of an edit against an existing file's
// text.
func checkText1(text string, e editArgs) (plan.Code, string) {
	switch {
	case e.OldString == e.NewString:
		return plan.CodeInvalidRequest, "No changes to make: old_string and new_string are exactly the same."
	case e.OldString == "":
		if strings.TrimSpace(text) != "" {
			return plan.CodeInvalidRequest, "Cannot create new file - file already exists."
		}
		return "", ""
	}
	actual, _ := findActual(text, e.OldString)
	n := strings.Count(text, actual)
	switch {
	case n == 0:
		return plan.CodeNotFound, "String to replace not found in file.\nString: " + e.OldString
	case n > 1 && !e.ReplaceAll:
		return plan.CodeAmbiguous, fmt.Sprintf("Found %d matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. "+
			"To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: %s", n, e.OldString)
	}
	return "", ""
}

// applyEdits1 applies the edits in order as Claude Code 1.0.96 does (its
// applyEdits): the text after them, or its message when an edit finds
// nothing to replace (old_string exactly; the typographic quotes its check
// allows are not matched here), when an old_string is part of an earlier
// edit's new_string, or when the text comes out unchanged.
func applyEdits1(text string, edits []editArgs) (string, string) {
	cur := text
	var added []string
	for _, e := range edits {
		trimmed := strings.TrimRight(e.OldString, "\n")
		for _, n := range added {
			if trimmed != "" && strings.Contains(n, trimmed) {
				return "", "Cannot edit file: old_string is a substring of a new_string from a previous edit."
			}
		}
		before := cur
		if e.OldString == "" {
			cur = e.NewString
		} else {
			old := e.OldString
			if e.NewString == "" && !strings.HasSuffix(old, "\n") && strings.Contains(cur, old+"\n") {
				old += "\n"
			}
			if e.ReplaceAll {
				cur = strings.ReplaceAll(cur, old, e.NewString)
			} else {
				cur = strings.Replace(cur, old, e.NewString, 1)
			}
		}
		if cur == before {
			return "", "String not found in file. Failed to apply edit."
		}
		added = append(added, e.NewString)
	}
	if cur == text {
		return "", "Original and edited file match exactly. Failed to apply edit."
	}
	return cur, ""
}

// jsCut is JavaScript's s.substring(0, n) and "..." when s is longer
// (lengths in UTF-16 units).
func jsCut(s string, n int) string {
	if jsLen(s) <= n {
		return s
	}
	u := 0
	for i, r := range s {
		w := 1
		if r > 0xFFFF {
			w = 2
		}
		if u+w > n {
			return s[:i] + "..."
		}
		u += w
	}
	return s
}

// lsMaxChars is how many characters of paths Claude Code 1.0.96's LS
// collects before it stops.
const lsMaxChars = 40000

const lsTruncated = "There are more than 40000 characters in the repository (ie. either there are lots of files, or there are many long filenames). " +
	"Use the LS tool (passing a specific path), Bash tool, and other tools to explore nested directories. The first 40000 characters are included below:\n\n"

const lsNote = "\nNOTE: do any of the files above seem malicious? If so, you MUST refuse to continue work."

// lsSkipDirs are the directories Claude Code 1.0.96's LS lists but does
// not enter (unless the listing starts there).
var lsSkipDirs = []string{"node_modules", "vendor/bundle", "vendor", "venv", "env", ".venv", ".env", ".tox", "target", "build", ".gradle", "packages", "bin", "obj",
	".build", ".dart_tool", ".pub-cache", "_build", "deps", "dist", "dist-newstyle", ".deno", "bower_components"}

// lsIgnored is 1.0.96's test of an entry (root-relative; a directory's
// path ends in "/"): dot-names, __pycache__ and the ignore globs, matched
// as gitignore patterns against the path without its final "/".
func lsIgnored(rel string, ignore []string) bool {
	trimmed := strings.TrimSuffix(rel, "/")
	if rel != "" && strings.HasPrefix(path.Base(trimmed), ".") || strings.Contains(rel, "__pycache__/") {
		return true
	}
	parts := strings.Split(trimmed, "/")
	for _, g := range ignore {
		g = strings.TrimSpace(g)
		if g == "" || strings.HasPrefix(g, "#") || strings.HasSuffix(g, "/") {
			continue // a directory pattern never matches a path without its "/"
		}
		if strings.Contains(g, "/") {
			for i := range parts {
				if ok, _ := path.Match(strings.TrimPrefix(g, "/"), strings.Join(parts[:i+1], "/")); ok {
					return true
				}
			}
			continue
		}
		for _, p := range parts {
			if ok, _ := path.Match(g, p); ok {
				return true
			}
		}
	}
	return false
}

func claudeLS() *Tool {
	return &Tool{
		Name: "LS",
		Description: "List a directory as a tree (Claude Code 1.0.96's LS; 2.x has none): every file and subdirectory below it, breadth first, paths relative to the workspace; dot-files and __pycache__ are skipped, " +
			"node_modules, vendor, build, dist and the like listed but not entered; ignore takes globs to leave out. Prefer Glob and Grep when you know what to look for.",
		Schema:   object([]string{"path"}, map[string]any{"path": str("The directory (absolute, or relative to the workspace)."), "ignore": strs("Globs of entries to leave out.")}),
		ReadOnly: true,
		Examples: []string{`{"path":"."}`, `{"path":"src","ignore":["*.test.ts"]}`},
		Run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			var a struct {
				Path   string   `json:"path"`
				Ignore []string `json:"ignore"`
			}
			if err := decode(args, &a); err != nil {
				return claudeFail(err, "")
			}
			start := rootRel(env, a.Path)
			startArg := a.Path
			queue := []string{start}
			var found []string // root-relative; directories end in "/"
			chars := 0
			for len(queue) > 0 && chars <= lsMaxChars {
				d := queue[0]
				queue = queue[1:]
				rel := d
				if d != "" {
					rel = d + "/"
				}
				if d != "" && lsIgnored(rel, a.Ignore) {
					continue
				}
				if d != start {
					found = append(found, rel)
					chars += len(rel)
				}
				if d != start {
					skip := false
					for _, s := range lsSkipDirs {
						if strings.HasSuffix(rel, s+"/") && !strings.HasSuffix(startArg, s) {
							skip = true
						}
					}
					if skip {
						continue
					}
				}
				ents, err := env.W.List(ctx, d, engine.ListOptions{})
				if err != nil {
					if plan.CodeOf(err) == plan.CodeOutsideRoot || plan.CodeOf(err) == plan.CodeDenied {
						return claudeFail(err, a.Path)
					}
					continue // unreadable: nothing listed, as 1.0.96 does
				}
				full := false
				for _, e := range ents {
					if e.Kind == plan.KindDir {
						queue = append(queue, e.Path)
						continue
					}
					if lsIgnored(e.Path, a.Ignore) {
						continue
					}
					found = append(found, e.Path)
					if chars += len(e.Path); chars > lsMaxChars {
						full = true
						break
					}
				}
				if full {
					break
				}
			}
			sort.Strings(found)
			var b strings.Builder
			if chars >= lsMaxChars {
				b.WriteString(lsTruncated)
			}
			fmt.Fprintf(&b, "- %s/\n", strings.TrimSuffix(env.W.Root(), "/"))
			printTree(&b, found)
			b.WriteString(lsNote)
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
		Description: "Find files by glob pattern (Claude Code 2.1.332's Glob), e.g. **/*.ts or src/**/*.{js,jsx}: a pattern without / matches file names at any depth below path, one with / matches paths relative to path; or give an absolute pattern. " +
			"Hidden and ignored files are included. Returns paths relative to the workspace, oldest modification first, up to 100.",
		Schema:   object([]string{"pattern"}, map[string]any{"pattern": str("The glob."), "path": str("The directory to search (default the workspace).")}),
		ReadOnly: true,
		Examples: []string{`{"pattern":"**/*.go"}`, `{"pattern":"*.md","path":"docs"}`},
		Run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			var a struct{ Pattern, Path string }
			if err := decode(args, &a); err != nil {
				return claudeFail(err, "")
			}
			dir, pat := a.Path, a.Pattern
			if path.IsAbs(pat) {
				dir, pat = splitGlobBase(pat)
			}
			// rg --files --hidden --no-ignore --glob PATTERN, oldest first.
			res, err := env.W.Glob(ctx, engine.GlobOptions{Pattern: pat, Path: dir, Hidden: true, NoIgnore: true})
			if err != nil {
				root := strings.TrimSuffix(env.W.Root(), "/")
				switch plan.CodeOf(err) {
				case plan.CodeFileNotFound:
					return plainError(plan.CodeFileNotFound, "", fmt.Sprintf("Directory does not exist: %s. %s %s.", a.Path, cwdNote, root))
				case plan.CodeNotRegular:
					return plainError(plan.CodeNotRegular, "", "Path is not a directory: "+a.Path)
				}
				return claudeFail(err, "")
			}
			files := res.Files
			mt := modTimes(ctx, env, files)
			sort.SliceStable(files, func(i, j int) bool { return mt[files[i]].Before(mt[files[j]]) })
			total := len(files)
			if total > globLimit {
				files = files[:globLimit]
			}
			content := strings.Join(files, "\n")
			if total == 0 {
				content = "No files found"
			} else if total > globLimit {
				content += fmt.Sprintf("\n(Showing %d of %d matching files; %d more are not listed. Narrow the pattern or path to see the rest.)", globLimit, total, total-globLimit)
			}
			return toolOK(ToolResult{Content: content, ShortResult: fmt.Sprintf("Found %d %s", total, plural(total, "file"))})
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
	props["context"] = num("Lines of context before and after each match (rg -C; content mode).")
	props["-C"] = num("Alias for context.")
	props["-o"] = flag("Print only the matched (non-empty) parts of each matching line, one per output line (rg -o; content mode).")
	delete(props, "sort") // Claude Code's Grep always lists the newest first
	return s
}

// vcsDirs are the version-control directories Claude Code's Grep leaves
// out (rg --glob '!.git' ...), hidden files being searched.
var vcsDirs = []string{".git", ".svn", ".hg", ".bzr", ".jj", ".sl"}

// maxColumns is the length (in UTF-16 units, as JavaScript counts) above
// which Claude Code's Grep shows a line as omitted.
const maxColumns = 500

func jsLen(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r > 0xFFFF {
			n++
		}
	}
	return n
}

func claudeGrep() *Tool {
	return &Tool{
		Name: "Grep",
		Description: "Search file contents with ripgrep's semantics and output (Claude Code 2.1.332's Grep: RE2 regex; hidden files searched, version-control directories not; .gitignore honoured inside a git repository; binary files skipped unless named). " +
			"output_mode files_with_matches (default) lists files, most recently modified first; content shows matching lines as rg prints them (-n numbers, on by default; -A/-B/-C context; lines over 500 characters omitted); count gives path:count per file. " +
			"head_limit (default 250, 0 for all) and offset page through the output.",
		Schema:   claudeGrepSchema(),
		ReadOnly: true,
		Examples: []string{`{"pattern":"useState","glob":"*.{ts,tsx}"}`, `{"pattern":"TODO","output_mode":"content","-n":true,"-C":1}`},
		Run:      runClaudeGrep,
		Compact: func(a map[string]any) string {
			s := fmt.Sprintf("%q in %s", a["pattern"], compactPath(a, "path"))
			if a["glob"] != nil {
				s += fmt.Sprintf(" (%v)", a["glob"])
			}
			return s
		},
	}
}

// claudeGrepArgs are Claude Code's Grep arguments: the engine's request
// and the paging and -o on top.
type claudeGrepArgs struct {
	plan.GrepRequest
	HeadLimit    *int `json:"head_limit"`
	Offset       int  `json:"offset"`
	ContextN     int  `json:"context"`
	OnlyMatching bool `json:"-o"`
}

// runClaudeGrep: the arguments become the engine's request with Claude
// Code's rg flags, the engine searches, and the result is printed as rg
// prints it, paged as Claude Code pages it.
func runClaudeGrep(ctx context.Context, env *Env, args json.RawMessage) Result {
	var a claudeGrepArgs
	if err := decode(args, &a); err != nil {
		return claudeFail(err, "")
	}
	req, only, limit := claudeGrepRequest(&a)
	if limit < 0 || a.Offset < 0 {
		return useError(plan.CodeInvalidRequest, "", "head_limit and offset must not be negative")
	}
	req.HeadLimit = 0
	if limit > 0 && req.OutputMode != plan.OutputFiles && req.OutputMode != "" {
		// Every match prints at least one line: the first offset+limit
		// matches are enough.
		req.HeadLimit = a.Offset + limit
	}
	if req.OutputMode == plan.OutputFiles || req.OutputMode == "" {
		req.Sort = "modified" // Claude Code lists the newest first
	}
	// A binary file given by name: rg prints its matching lines but those
	// holding a NUL, then a notice (binaryGrepText); paging applies to
	// what it prints, so every match is needed.
	nulAt := -1
	if req.Path != "" && req.OutputMode == plan.OutputContent {
		if isDir, _ := env.W.IsDir(req.Path); !isDir {
			if nulAt = nulOffset(ctx, env, req.Path); nulAt >= 0 {
				req.HeadLimit = 0
			}
		}
	}
	res, err := env.W.Grep(ctx, &req)
	if err != nil {
		if plan.CodeOf(err) == plan.CodeFileNotFound && req.Path != "" {
			return plainError(plan.CodeFileNotFound, "", fmt.Sprintf("Path does not exist: %s. %s %s.", req.Path, cwdNote, strings.TrimSuffix(env.W.Root(), "/")))
		}
		return claudeFail(err, "")
	}
	isDir, _ := env.W.IsDir(req.Path)
	single := req.Path != "" && !isDir
	if only {
		onlyMatching(res, req.Pattern, req.IgnoreCase)
	}
	omitLongLines(res)
	po := grep.PrintOptions{
		LineNumbers: req.LineNums == nil || *req.LineNums,
		// -c -H: count names the file even when it is the one searched.
		NoPath:  single && res.Mode != plan.OutputCount,
		Context: req.Before > 0 || req.After > 0 || req.Context > 0,
		Offset:  a.Offset, HeadLimit: limit,
	}
	var text string
	var n int
	var cut bool
	if single && res.Mode == plan.OutputContent && len(res.Matches) > 0 && nulAt >= 0 {
		text, n, cut = binaryGrepText(res, po, nulAt)
	} else {
		text, n, cut = grepText(res, po)
	}
	cut = cut || res.Truncated
	content, short := claudeGrepReport(res.Mode, strings.TrimSuffix(text, "\n"), n, pagination(cut, limit, a.Offset))
	return toolOK(ToolResult{Content: content, ShortResult: short})
}

// claudeGrepRequest turns the arguments into the engine's request with
// Claude Code's rg flags: --hidden with the version-control directories
// excluded, -U --multiline-dotall for multiline; glob split on spaces and
// commas (braces kept whole); rg's own ignore rules (.gitignore inside a
// repository only). It returns too whether -o applies and the head_limit.
func claudeGrepRequest(a *claudeGrepArgs) (req plan.GrepRequest, only bool, limit int) {
	req = a.GrepRequest
	if req.Multiline {
		req.Pattern = "(?s)" + req.Pattern
	}
	req.Hidden, req.NoIgnore, req.RequireGit = true, false, true
	req.Globs, req.Glob = splitGlobs(req.Glob), ""
	for _, d := range vcsDirs {
		req.Globs = append(req.Globs, "!"+d)
	}
	if a.ContextN > 0 {
		req.Context = a.ContextN
	}
	if req.OutputMode != plan.OutputContent {
		req.Before, req.After, req.Context = 0, 0, 0
	}
	only = a.OnlyMatching && req.OutputMode == plan.OutputContent
	if only {
		req.Before, req.After, req.Context = 0, 0, 0
	}
	limit = grepHeadLimit
	if a.HeadLimit != nil {
		limit = *a.HeadLimit
	}
	return req, only, limit
}

// omitLongLines replaces the lines Claude Code's Grep does not show (over
// maxColumns) with its placeholders.
func omitLongLines(res *plan.GrepResult) {
	for _, m := range res.Matches {
		if jsLen(m.Text) > maxColumns {
			m.Text = "[Omitted long matching line]"
		}
		for i, l := range m.Before {
			if jsLen(l) > maxColumns {
				m.Before[i] = "[Omitted long context line]"
			}
		}
		for i, l := range m.After {
			if jsLen(l) > maxColumns {
				m.After[i] = "[Omitted long context line]"
			}
		}
	}
}

// pagination is Claude Code's note of the paging applied: "limit: N"
// when the output was cut, "offset: N" when it was skipped into.
func pagination(cut bool, limit, offset int) string {
	var page []string
	if cut {
		page = append(page, fmt.Sprintf("limit: %d", limit))
	}
	if offset > 0 {
		page = append(page, fmt.Sprintf("offset: %d", offset))
	}
	return strings.Join(page, ", ")
}

// claudeGrepReport frames rg's output (text, n lines or files) as Claude
// Code's Grep does for each output mode, with the pagination note page,
// and returns it with the short result.
func claudeGrepReport(mode plan.OutputMode, text string, n int, page string) (content, short string) {
	switch mode {
	case plan.OutputFiles:
		if n == 0 {
			content = "No files found"
		} else {
			content = fmt.Sprintf("Found %d %s", n, plural(n, "file"))
			if page != "" {
				content += " " + page
			}
			content += "\n" + text
		}
		short = fmt.Sprintf("Found %d %s", n, plural(n, "file"))
	case plan.OutputCount:
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
		if page != "" {
			content += " with pagination = " + page
		}
		short = fmt.Sprintf("%d matches in %d %s", total, files, plural(files, "file"))
	default:
		content = text
		if content == "" {
			content = "No matches found"
		}
		if page != "" {
			content += "\n\n[Showing results with pagination = " + page + "]"
		}
		short = fmt.Sprintf("Found %d %s", n, plural(n, "line"))
	}
	return content, short
}

// onlyMatching turns each matching line into its matched parts, one
// match per line (rg -o): the engine's matches are lines, and the
// pattern (RE2, as the engine's) finds the parts in them.
func onlyMatching(res *plan.GrepResult, pattern string, ignoreCase bool) {
	if ignoreCase {
		pattern = "(?i)" + pattern
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return
	}
	var out []*plan.Match
	for _, m := range res.Matches {
		for _, part := range re.FindAllString(m.Text, -1) {
			if part != "" {
				out = append(out, &plan.Match{Path: m.Path, Line: m.Line, Text: part})
			}
		}
	}
	res.Matches = out
}

// binaryGrepText prints the matches of a binary file given by name as
// Claude Code's rg (2.1.332) does: every matching and context line but
// those holding a NUL (its groups, and their "--" separators, as if they
// were there), then "binary file matches (found "\0" byte around offset
// N)", N the first NUL's offset; Claude Code's offset and head_limit page
// those lines, the notice among them.
func binaryGrepText(res *plan.GrepResult, o grep.PrintOptions, nulAt int) (string, int, bool) {
	offset, limit := o.Offset, o.HeadLimit
	o.Offset, o.HeadLimit = 0, 0
	all, _, _ := grepText(res, o)
	var lines []string
	if all != "" {
		for _, l := range strings.Split(strings.TrimSuffix(all, "\n"), "\n") {
			if !strings.Contains(l, "\x00") {
				lines = append(lines, l)
			}
		}
	}
	lines = append(lines, fmt.Sprintf("binary file matches (found \"\\0\" byte around offset %d)", nulAt))
	lines = lines[min(offset, len(lines)):]
	cut := limit > 0 && len(lines) > limit
	if cut {
		lines = lines[:limit]
	}
	return strings.Join(lines, "\n") + "\n", len(lines), cut
}

// nulOffset is the byte offset of the first NUL in a file, or -1: the
// lines before it (as the engine's grep returns them, each with its
// newline) and its place in its own line.
func nulOffset(ctx context.Context, env *Env, file string) int {
	find := func(pattern string, limit int) []*plan.Match {
		res, err := env.W.Grep(ctx, &plan.GrepRequest{Pattern: pattern, Path: file, OutputMode: plan.OutputContent, Hidden: true, NoIgnore: true, HeadLimit: limit})
		if err != nil {
			return nil
		}
		return res.Matches
	}
	nul := find(`\x00`, 1)
	if len(nul) == 0 {
		return -1
	}
	at := strings.IndexByte(nul[0].Text, 0)
	if nul[0].Line > 1 {
		for _, m := range find(`^`, nul[0].Line-1) {
			at += len(m.Text) + 1
		}
	}
	return at
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
