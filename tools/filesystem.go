package tools

import (
	"context"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"net/url"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/plan"
)

// The filesystem toolset is a drop-in for the official MCP filesystem
// server, @modelcontextprotocol/server-filesystem at the release named in
// FilesystemRelease: its tools, their names, arguments, descriptions and
// schemas (filesystem_tools.json is the release's own tools/list), and
// its answers — text, errors, structuredContent — on txedit's engine:
// every write journaled and undoable (history and undo are offered
// beside), the read-before-write rule by hash, CRLF and BOM kept, moves of
// directories and create_directory as transactions, several allowed
// directories each with its own journal. docs/filesystem.md lists the
// deliberate differences and why; tools/testdata/filesystem holds the
// release's recorded answers that tools/mcpserver's TestFilesystemGoldens
// replays.

// FilesystemRelease is the release of the official server the
// filesystem toolset follows.
const FilesystemRelease = "@modelcontextprotocol/server-filesystem@2026.8.31"

//go:embed filesystem_tools.json
var filesystemDefs []byte

// fsDef is one tool as the official server lists it.
type fsDef struct {
	Name         string         `json:"name"`
	Title        string         `json:"title"`
	Description  string         `json:"description"`
	InputSchema  map[string]any `json:"inputSchema"`
	OutputSchema map[string]any `json:"outputSchema"`
	Annotations  map[string]any `json:"annotations"`
}

// fsNotes are what txedit adds to an official description, where it
// answers differently on purpose.
var fsNotes = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"write_file":       " txedit: an existing file must have been read in this session (read_text_file, read_multiple_files) and be unchanged since, or the write is refused and nothing is written; every write is journaled (the undo tool takes it back). Line endings and a BOM of an existing file are kept.",
		"edit_file":        " txedit: the edits apply all or none; text that matches only once whitespace is ignored is used (the answer says so), text that matches in several places is refused, never guessed. A file must have been read in this session first (a dryRun needs no read and writes nothing); undoable with the undo tool.",
		"create_directory": " txedit: undoable with the undo tool.",
		"move_file":        " txedit: directories move with everything in them; undoable with the undo tool. A move between two allowed directories is refused (each keeps its own undo journal).",
	}
})

func filesystemToolset() *Toolset {
	var defs []fsDef
	if err := json.Unmarshal(filesystemDefs, &defs); err != nil {
		panic("filesystem_tools.json: " + err.Error())
	}
	runs := map[string]func(context.Context, *Env, json.RawMessage) Result{
		"read_file": fsReadText, "read_text_file": fsReadText, "read_media_file": fsReadMedia, "read_multiple_files": fsReadMultiple,
		"write_file": fsWrite, "edit_file": fsEdit, "create_directory": fsMkdir, "list_directory": fsList,
		"list_directory_with_sizes": fsListSizes, "directory_tree": fsTree, "move_file": fsMove, "search_files": fsSearch,
		"get_file_info": fsInfo, "list_allowed_directories": fsAllowed,
	}
	ts := &Toolset{Name: "filesystem", Description: "the official MCP filesystem server's tools (" + FilesystemRelease + ") on txedit's engine: every write journaled and undoable",
		Fail: fsFailErr, Roots: true}
	for _, d := range defs {
		run := runs[d.Name]
		if run == nil {
			panic("filesystem_tools.json: no handler for " + d.Name)
		}
		ro, _ := d.Annotations["readOnlyHint"].(bool)
		t := &Tool{Name: d.Name, Title: d.Title, Description: d.Description + fsNotes()[d.Name], Schema: d.InputSchema,
			OutputSchema: d.OutputSchema, Annotations: d.Annotations, ReadOnly: ro, Run: run, Examples: fsExamples()[d.Name]}
		name := d.Name
		t.Compact = func(a map[string]any) string { return fsCompact(name, a) }
		ts.Tools = append(ts.Tools, t)
	}
	ts.Tools = append(ts.Tools, fsHistoryTool(), fsUndoTool())
	return ts
}

var fsExamples = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"read_file": {`{"path":"README.md"}`}, "read_text_file": {`{"path":"src/main.go","head":40}`},
		"read_media_file": {`{"path":"logo.png"}`}, "read_multiple_files": {`{"paths":["a.go","b.go"]}`},
		"write_file":       {`{"path":"notes.txt","content":"hello\n"}`},
		"edit_file":        {`{"path":"a.go","edits":[{"oldText":"Foo()","newText":"Bar()"}],"dryRun":true}`},
		"create_directory": {`{"path":"docs/api"}`}, "list_directory": {`{"path":"."}`},
		"list_directory_with_sizes": {`{"path":".","sortBy":"size"}`}, "directory_tree": {`{"path":"src","excludePatterns":["node_modules"]}`},
		"move_file": {`{"source":"a.txt","destination":"old/a.txt"}`}, "search_files": {`{"path":".","pattern":"**/*.go","excludePatterns":["vendor/**"]}`},
		"get_file_info": {`{"path":"go.mod"}`}, "list_allowed_directories": {`{}`},
	}
})

func fsCompact(name string, a map[string]any) string {
	switch name {
	case "move_file":
		return fmt.Sprintf("%v -> %v", a["source"], a["destination"])
	case "read_multiple_files":
		if ps, ok := a["paths"].([]any); ok {
			return fmt.Sprintf("%d files", len(ps))
		}
	case "search_files":
		return fmt.Sprintf("%v in %v", a["pattern"], a["path"])
	case "list_allowed_directories":
		return ""
	}
	return fmt.Sprint(a["path"])
}

// fsOK is a successful answer: the text, and {content: text} as its
// structured content (the official outputSchema).
func fsOK(text string) Result {
	return Result{OK: true, Value: map[string]any{"content": text}, LazyText: func() string { return text }}
}

// fsFailErr is a failed answer: the message as it is (the official
// server's text where it has one), no structured content; the code goes
// in the result's _meta.
func fsFailErr(err error) Result {
	var code plan.Code
	msg := err.Error()
	if pe, ok := err.(*fsPlainErr); ok {
		code = pe.code
	} else {
		e := plan.As(err)
		code = e.Code
		msg = "[" + string(code) + "] " + strings.TrimPrefix(e.Error(), string(code)+": ")
	}
	return Result{OK: false, Code: code, Plain: true, Value: map[string]any{"isError": true, "code": code, "error": msg},
		LazyText: func() string { return msg }}
}

type fsPathArg struct {
	Path string `json:"path"`
}

// fsArgs decodes arguments that are a path and resolves it.
func fsArgs(env *Env, args json.RawMessage, a *fsPathArg) (*fsPath, error) {
	if err := decode(args, a); err != nil {
		return nil, err
	}
	return fsResolve(rootsOf(env), a.Path)
}

func fsReadText(ctx context.Context, env *Env, args json.RawMessage) Result {
	var a struct {
		Path string   `json:"path"`
		Head *float64 `json:"head"`
		Tail *float64 `json:"tail"`
	}
	if err := decode(args, &a); err != nil {
		return fsFailErr(err)
	}
	p, err := fsResolve(rootsOf(env), a.Path)
	if err != nil {
		return fsFailErr(err)
	}
	truthy := func(f *float64) bool { return f != nil && *f != 0 && !math.IsNaN(*f) }
	if truthy(a.Head) && truthy(a.Tail) {
		return fsFailErr(plain(plan.CodeInvalidRequest, "Cannot specify both head and tail parameters simultaneously"))
	}
	b, err := p.root.S.ReadBytes(ctx, p.abs)
	if err != nil {
		return fsFailErr(fsError(err, p, "open"))
	}
	text := decodeUTF8(b.Data)
	switch {
	case truthy(a.Tail):
		text = tailLines(text, *a.Tail)
	case truthy(a.Head):
		text = headLines(text, *a.Head)
	}
	return fsOK(text)
}

// decodeUTF8 decodes bytes as Node's "utf-8" decoding does: each maximal
// ill-formed subsequence becomes one U+FFFD (the WHATWG rule); a BOM is
// kept.
func decodeUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	sb.Grow(len(b) + 8)
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r != utf8.RuneError || n > 1 {
			sb.Write(b[i : i+n])
			i += n
			continue
		}
		// The longest prefix of a valid sequence that starts here
		// becomes one U+FFFD.
		n, _ = utf8Prefix(b, i)
		sb.WriteRune(utf8.RuneError)
		i += n
	}
	return sb.String()
}

// tailLines is the official tail: the last n lines of the text with CRLF
// made LF, split on "\n" (so a final newline counts as an empty last
// line).
func tailLines(text string, n float64) string {
	if n < 0 {
		return ""
	}
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	k := int(math.Ceil(n))
	if k < len(lines) {
		lines = lines[len(lines)-k:]
	}
	return strings.Join(lines, "\n")
}

// headLines is the official head: the first n lines without their "\n"
// ("\r" stays), joined by "\n", and what follows the last newline if the
// file has fewer lines.
func headLines(text string, n float64) string {
	var lines []string
	for float64(len(lines)) < n {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			if text != "" {
				lines = append(lines, text)
			}
			break
		}
		lines = append(lines, text[:i])
		text = text[i+1:]
	}
	return strings.Join(lines, "\n")
}

var mediaTypes = sync.OnceValue(func() map[string]string {
	return map[string]string{
		".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp",
		".bmp": "image/bmp", ".svg": "image/svg+xml", ".mp3": "audio/mpeg", ".wav": "audio/wav", ".ogg": "audio/ogg", ".flac": "audio/flac",
	}
})

// Media is a binary content block of an answer: an image or audio clip
// (Kind "image", "audio") or any other file as an embedded resource
// (Kind "resource", with URI).
type Media struct {
	Kind     string
	Data     []byte
	MimeType string
	URI      string
}

// JSON is the block as MCP's content (and the official structured
// content) spells it.
func (m Media) JSON() map[string]any {
	data := base64.StdEncoding.EncodeToString(m.Data)
	if m.Kind == "resource" {
		return map[string]any{"type": "resource", "resource": map[string]any{"uri": m.URI, "mimeType": m.MimeType, "blob": data}}
	}
	return map[string]any{"type": m.Kind, "data": data, "mimeType": m.MimeType}
}

func fsReadMedia(ctx context.Context, env *Env, args json.RawMessage) Result {
	var a fsPathArg
	p, err := fsArgs(env, args, &a)
	if err != nil {
		return fsFailErr(err)
	}
	b, err := p.root.S.ReadBytes(ctx, p.abs)
	if err != nil {
		return fsFailErr(fsError(err, p, "open"))
	}
	real := filepath.Join(p.root.S.RealRoot(), filepath.FromSlash(b.Path))
	mt := mediaTypes()[strings.ToLower(filepath.Ext(real))]
	m := Media{Data: b.Data, MimeType: mt}
	switch {
	case strings.HasPrefix(mt, "image/"):
		m.Kind = "image"
	case strings.HasPrefix(mt, "audio/"):
		m.Kind = "audio"
	default:
		m.Kind, m.MimeType = "resource", "application/octet-stream"
		m.URI = (&url.URL{Scheme: "file", Path: filepath.ToSlash(real)}).String()
	}
	return Result{OK: true, Media: []Media{m}, Value: map[string]any{"content": []any{m.JSON()}}}
}

func fsReadMultiple(ctx context.Context, env *Env, args json.RawMessage) Result {
	var a struct {
		Paths []string `json:"paths"`
	}
	if err := decode(args, &a); err != nil {
		return fsFailErr(err)
	}
	roots := rootsOf(env)
	parts := make([]string, len(a.Paths))
	for i, name := range a.Paths {
		p, err := fsResolve(roots, name)
		if err == nil {
			var b *engine.FileBytes
			if b, err = p.root.S.ReadBytes(ctx, p.abs); err == nil {
				parts[i] = name + ":\n" + decodeUTF8(b.Data) + "\n"
				continue
			}
			err = fsError(err, p, "open")
		}
		parts[i] = name + ": Error - " + err.Error()
	}
	return fsOK(strings.Join(parts, "\n---\n"))
}

// parentExists refuses, as the official server's open or rename would, a
// path whose directory does not exist (txedit's engine would create it).
func parentExists(ctx context.Context, p *fsPath) error {
	dir := filepath.Dir(p.abs)
	st, err := p.root.S.Stat(ctx, dir)
	if err != nil || !st.Mode.IsDir() {
		return nodeError(plan.CodeFileNotFound, "ENOENT", "open", p.shown())
	}
	return nil
}

// writeAnswer turns a failed write into the toolset's answer: the rule
// of read before write in the words an agent can act on.
func writeAnswer(res *plan.Result, p *fsPath, op string) error {
	err := resultErr(res)
	switch e := plan.As(err); e.Code {
	case plan.CodeNotRead:
		return plain(e.Code, fmt.Sprintf("[not_read] %s has not been read in this session: read it first (read_text_file or read_multiple_files), then write again. Nothing was written: txedit writes only files whose current content the agent has seen.", p.named))
	case plan.CodeStaleHash:
		if d := resultDelta(res); d != nil {
			return plain(e.Code, fmt.Sprintf("[stale_hash] %s changed since this session read it. Nothing was written.", p.named)+staleNote(d, numbered))
		}
		return plain(e.Code, fmt.Sprintf("[stale_hash] %s changed since this session read it: read it again, then write again. Nothing was written (%s).", p.named, e.Msg))
	case plan.CodeConflict:
		if d := refusalDelta(res, e.Code); d != nil {
			return plain(e.Code, fmt.Sprintf("[conflict] %s: another program was saving it each time this edit was to be committed. Nothing was written.", p.named)+staleNote(d, numbered))
		}
	}
	return fsError(err, p, op)
}

func fsWrite(ctx context.Context, env *Env, args json.RawMessage) Result {
	var a struct {
		Path    string `json:"path"`
		Content string `json:"content"`
	}
	if err := decode(args, &a); err != nil {
		return fsFailErr(err)
	}
	p, err := fsResolve(rootsOf(env), a.Path)
	if err != nil {
		return fsFailErr(err)
	}
	if err := parentExists(ctx, p); err != nil {
		return fsFailErr(err)
	}
	if st, err := p.root.S.Stat(ctx, p.abs); err == nil && st.Mode.IsDir() {
		return fsFailErr(nodeError(plan.CodeNotRegular, "EISDIR", "open", p.shown()))
	}
	text := a.Content
	res, _ := p.root.S.Apply(ctx, &plan.Request{Path: p.abs, Summary: "write_file " + a.Path, Edit: plan.Edit{Command: string(plan.Create), FileText: &text}, DeltaShown: true})
	if !res.Success {
		return fsFailErr(writeAnswer(res, p, "open"))
	}
	return fsOK("Successfully wrote to " + a.Path)
}

func fsMkdir(ctx context.Context, env *Env, args json.RawMessage) Result {
	var a fsPathArg
	if err := decode(args, &a); err != nil {
		return fsFailErr(err)
	}
	p, err := fsResolve(rootsOf(env), a.Path)
	if err != nil {
		return fsFailErr(err)
	}
	res, err := p.root.S.MakeDir(ctx, p.abs)
	if err != nil || !res.Success {
		e := plan.As(err)
		switch e.Code {
		case plan.CodeConflict:
			if strings.HasSuffix(e.Msg, "exists and is not a directory") && strings.HasPrefix(e.Msg, lastRel(p)+" ") {
				return fsFailErr(nodeError(e.Code, "EEXIST", "mkdir", p.shown()))
			}
			return fsFailErr(nodeError(e.Code, "ENOTDIR", "mkdir", p.shown()))
		case plan.CodeFileNotFound:
			return fsFailErr(nodeError(e.Code, "ENOTDIR", "realpath", p.shown()))
		}
		return fsFailErr(fsError(err, p, "mkdir"))
	}
	return fsOK("Successfully created directory " + a.Path)
}

// lastRel is p relative to its root, as the engine names it.
func lastRel(p *fsPath) string {
	for _, d := range []string{p.root.Dir, p.root.S.RealRoot()} {
		if rel, err := filepath.Rel(d, p.abs); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	return p.abs
}

// fsEntry is one entry of a directory as the official server sees it
// (readdir with file types: a symlink is not a directory).
type fsEntry struct {
	name  string
	isDir bool
	size  int64
	kind  plan.EntryKind
}

// listDir lists a directory in the official order (libuv sorts scandir
// by strcmp), txedit's journal left out.
func listDir(ctx context.Context, p *fsPath, dir string) ([]fsEntry, error) {
	ents, err := p.root.S.List(ctx, dir, engine.ListOptions{})
	if err != nil {
		if e := plan.As(err); e.Code == plan.CodeNotRegular && strings.Contains(e.Msg, "not a directory") {
			return nil, nodeError(plan.CodeNotRegular, "ENOTDIR", "scandir", shownOf(p, dir))
		}
		sub := *p
		sub.abs = dir
		return nil, fsError(err, &sub, "scandir")
	}
	out := make([]fsEntry, 0, len(ents))
	for _, e := range ents {
		out = append(out, fsEntry{name: e.Name, isDir: e.Kind == plan.KindDir, size: e.Size, kind: e.Kind})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

func shownOf(p *fsPath, abs string) string {
	q := *p
	q.abs = abs
	return q.shown()
}

func fsList(ctx context.Context, env *Env, args json.RawMessage) Result {
	var a fsPathArg
	if err := decode(args, &a); err != nil {
		return fsFailErr(err)
	}
	p, err := fsResolve(rootsOf(env), a.Path)
	if err != nil {
		return fsFailErr(err)
	}
	ents, err := listDir(ctx, p, p.abs)
	if err != nil {
		return fsFailErr(err)
	}
	lines := make([]string, len(ents))
	for i, e := range ents {
		tag := "[FILE]"
		if e.isDir {
			tag = "[DIR]"
		}
		lines[i] = tag + " " + e.name
	}
	return fsOK(strings.Join(lines, "\n"))
}

func fsListSizes(ctx context.Context, env *Env, args json.RawMessage) Result {
	var a struct {
		Path   string `json:"path"`
		SortBy string `json:"sortBy"`
	}
	if err := decode(args, &a); err != nil {
		return fsFailErr(err)
	}
	p, err := fsResolve(rootsOf(env), a.Path)
	if err != nil {
		return fsFailErr(err)
	}
	ents, err := listDir(ctx, p, p.abs)
	if err != nil {
		return fsFailErr(err)
	}
	for i, e := range ents {
		if e.kind == plan.KindSymlink {
			// fs.stat follows the link: its target's size (0 if it
			// cannot be followed).
			ents[i].size = 0
			if st, err := p.root.S.Stat(ctx, filepath.Join(p.abs, e.name)); err == nil {
				ents[i].size = st.Size
			}
		}
	}
	sorted := append([]fsEntry(nil), ents...)
	if a.SortBy == "size" {
		sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].size > sorted[j].size })
	} else {
		sort.SliceStable(sorted, func(i, j int) bool { return localeCompare(sorted[i].name, sorted[j].name) < 0 })
	}
	var lines []string
	files, dirs, total := 0, 0, int64(0)
	for _, e := range sorted {
		if e.isDir {
			lines = append(lines, "[DIR] "+padEnd(e.name, 30)+" ")
			dirs++
			continue
		}
		lines = append(lines, "[FILE] "+padEnd(e.name, 30)+" "+padStart(formatSize(e.size), 10))
		files++
		total += e.size
	}
	lines = append(lines, "", fmt.Sprintf("Total: %d files, %d directories", files, dirs), "Combined size: "+formatSize(total))
	return fsOK(strings.Join(lines, "\n"))
}

func padEnd(s string, n int) string {
	if k := jsLen(s); k < n {
		return s + strings.Repeat(" ", n-k)
	}
	return s
}

func padStart(s string, n int) string {
	if k := jsLen(s); k < n {
		return strings.Repeat(" ", n-k) + s
	}
	return s
}

// formatSize is the official server's: bytes under 1 KB as "N B", else
// two decimals of the largest unit, rounded as JavaScript's toFixed does
// (half away from zero on the exact binary value).
func formatSize(n int64) string {
	units := []string{"B", "KB", "MB", "GB", "TB"}
	if n <= 0 {
		return "0 B"
	}
	i := int(math.Floor(math.Log(float64(n)) / math.Log(1024)))
	if i <= 0 {
		return strconv.FormatInt(n, 10) + " B"
	}
	i = min(i, len(units)-1)
	x := new(big.Rat).SetFloat64(float64(n) / math.Pow(1024, float64(i)))
	x.Mul(x, big.NewRat(100, 1))
	x.Add(x, big.NewRat(1, 2))
	hundredths := new(big.Int).Quo(x.Num(), x.Denom())
	s := hundredths.String()
	for len(s) < 3 {
		s = "0" + s
	}
	return s[:len(s)-2] + "." + s[len(s)-2:] + " " + units[i]
}

type fsTreeEntry struct {
	Name     string         `json:"name"`
	Type     string         `json:"type"`
	Children *[]fsTreeEntry `json:"children,omitempty"`
}

func fsTree(ctx context.Context, env *Env, args json.RawMessage) Result {
	var a struct {
		Path            string   `json:"path"`
		ExcludePatterns []string `json:"excludePatterns"`
	}
	if err := decode(args, &a); err != nil {
		return fsFailErr(err)
	}
	roots := rootsOf(env)
	excl, err := compileTreeExcludes(a.ExcludePatterns)
	if err != nil {
		return fsFailErr(err)
	}
	var build func(rel string) ([]fsTreeEntry, error)
	build = func(rel string) ([]fsTreeEntry, error) {
		p, err := fsResolve(roots, path.Join(a.Path, rel))
		if rel == "" {
			p, err = fsResolve(roots, a.Path)
		}
		if err != nil {
			return nil, err
		}
		ents, err := listDir(ctx, p, p.abs)
		if err != nil {
			return nil, err
		}
		out := []fsTreeEntry{}
		for _, e := range ents {
			sub := path.Join(rel, e.name)
			if matchesAny(sub, excl) {
				continue
			}
			te := fsTreeEntry{Name: e.name, Type: "file"}
			if e.isDir {
				te.Type = "directory"
				kids, err := build(sub)
				if err != nil {
					return nil, err
				}
				te.Children = &kids
			}
			out = append(out, te)
		}
		return out, nil
	}
	tree, err := build("")
	if err != nil {
		return fsFailErr(err)
	}
	var sb strings.Builder
	enc := json.NewEncoder(&sb)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	enc.Encode(tree)
	return fsOK(strings.TrimSuffix(sb.String(), "\n"))
}

// compileTreeExcludes compiles directory_tree's exclusions: a pattern
// with "*" matches the path below the listed directory; one without
// matches it as a name at any depth, or a directory above it.
func compileTreeExcludes(patterns []string) ([]*mmPattern, error) {
	var out []*mmPattern
	for _, pat := range patterns {
		forms := []string{pat}
		if !strings.Contains(pat, "*") {
			forms = append(forms, "**/"+pat, "**/"+pat+"/**")
		}
		for _, f := range forms {
			m, err := compileMinimatch(f)
			if err != nil {
				return nil, err
			}
			out = append(out, m)
		}
	}
	return out, nil
}

func fsMove(ctx context.Context, env *Env, args json.RawMessage) Result {
	var a struct {
		Source      string `json:"source"`
		Destination string `json:"destination"`
	}
	if err := decode(args, &a); err != nil {
		return fsFailErr(err)
	}
	roots := rootsOf(env)
	src, err := fsResolve(roots, a.Source)
	if err != nil {
		return fsFailErr(err)
	}
	dst, err := fsResolve(roots, a.Destination)
	if err != nil {
		return fsFailErr(err)
	}
	if _, err := dst.root.S.Stat(ctx, dst.abs); err == nil {
		return fsFailErr(plain(plan.CodeConflict, "Destination already exists: "+dst.shown()))
	}
	renameErr := func(errno string, code plan.Code) Result {
		return fsFailErr(nodeError(code, errno, "rename", src.shown(), dst.shown()))
	}
	if _, err := src.root.S.Stat(ctx, src.abs); err != nil {
		if isNotExist(err) {
			return renameErr("ENOENT", plan.CodeFileNotFound)
		}
		return fsFailErr(fsError(err, src, "rename"))
	}
	if st, err := dst.root.S.Stat(ctx, filepath.Dir(dst.abs)); err != nil || !st.Mode.IsDir() {
		return renameErr("ENOENT", plan.CodeFileNotFound)
	}
	if src.root != dst.root {
		return fsFailErr(plain(plan.CodeDenied, fmt.Sprintf("[denied] %s and %s are under two allowed directories (%s and %s), each with its own undo journal: txedit refuses a change it could not commit or undo as one. Nothing was moved; copy the file with read_text_file and write_file instead.",
			a.Source, a.Destination, src.root.Dir, dst.root.Dir)))
	}
	if within(dst.abs, src.abs) {
		return renameErr("EINVAL", plan.CodeInvalidRequest)
	}
	res, err := src.root.S.Move(ctx, src.abs, dst.abs)
	if err != nil || !res.Success {
		if err == nil {
			err = resultErr(res)
		}
		return fsFailErr(fsError(err, src, "rename"))
	}
	return fsOK(fmt.Sprintf("Successfully moved %s to %s", a.Source, a.Destination))
}

func fsSearch(ctx context.Context, env *Env, args json.RawMessage) Result {
	var a struct {
		Path            string   `json:"path"`
		Pattern         string   `json:"pattern"`
		ExcludePatterns []string `json:"excludePatterns"`
	}
	if err := decode(args, &a); err != nil {
		return fsFailErr(err)
	}
	// Each pattern is compiled once for the call (matching is then linear
	// in the path; docs/filesystem.md, "Limits").
	match, err := compileMinimatch(a.Pattern)
	if err != nil {
		return fsFailErr(err)
	}
	excl, err := compileMinimatches(a.ExcludePatterns)
	if err != nil {
		return fsFailErr(err)
	}
	roots := rootsOf(env)
	top, err := fsResolve(roots, a.Path)
	if err != nil {
		return fsFailErr(err)
	}
	base, err := top.root.S.Stat(ctx, top.abs)
	if err != nil {
		return fsFailErr(fsError(err, top, "scandir"))
	}
	// The official server lists the directory's real path.
	start := filepath.Join(top.root.S.RealRoot(), filepath.FromSlash(base.Path))
	var results []string
	var search func(dir, rel string) error
	search = func(dir, rel string) error {
		if err := ctx.Err(); err != nil {
			return err // the client cancelled the call
		}
		p := &fsPath{named: a.Path, abs: dir, root: top.root, allowed: top.allowed}
		ents, err := listDir(ctx, p, dir)
		if err != nil {
			return err
		}
		for _, e := range ents {
			full := filepath.Join(dir, e.name)
			sub := path.Join(rel, e.name)
			if e.kind == plan.KindSymlink {
				// validatePath: a link that leaves the allowed
				// directories is skipped; one that stays is listed.
				if _, err := top.root.S.Stat(ctx, full); err != nil {
					continue
				}
			}
			if matchesAny(sub, excl) {
				continue
			}
			if match.Match(sub) {
				results = append(results, full)
			}
			if e.isDir {
				if err := search(full, sub); err != nil && ctx.Err() != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := search(start, ""); err != nil {
		return fsFailErr(err)
	}
	if len(results) == 0 {
		return fsOK("No matches found")
	}
	return fsOK(strings.Join(results, "\n"))
}

func compileMinimatches(patterns []string) ([]*mmPattern, error) {
	out := make([]*mmPattern, 0, len(patterns))
	for _, pat := range patterns {
		m, err := compileMinimatch(pat)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

func matchesAny(rel string, patterns []*mmPattern) bool {
	for _, m := range patterns {
		if m.Match(rel) {
			return true
		}
	}
	return false
}

func fsInfo(ctx context.Context, env *Env, args json.RawMessage) Result {
	var a fsPathArg
	if err := decode(args, &a); err != nil {
		return fsFailErr(err)
	}
	p, err := fsResolve(rootsOf(env), a.Path)
	if err != nil {
		return fsFailErr(err)
	}
	st, err := p.root.S.Stat(ctx, p.abs)
	if err != nil {
		return fsFailErr(fsError(err, p, "stat"))
	}
	perm := fmt.Sprintf("%03o", uint32(st.Mode.Perm()))
	lines := []string{
		"size: " + strconv.FormatInt(st.Size, 10),
		// Go reads no birth time: the inode's change time stands in.
		"created: " + jsDate(st.Changed),
		"modified: " + jsDate(st.Modified),
		"accessed: " + jsDate(st.Accessed),
		"isDirectory: " + strconv.FormatBool(st.Mode.IsDir()),
		"isFile: " + strconv.FormatBool(st.Mode.IsRegular()),
		"permissions: " + perm,
	}
	return fsOK(strings.Join(lines, "\n"))
}

// jsDate renders a time as JavaScript's Date.prototype.toString does in
// the local zone ("Tue Aug 19 2025 14:03:12 GMT+0000 (Coordinated
// Universal Time)"); Go knows the zone's abbreviation, not its long name,
// but for UTC.
func jsDate(t time.Time) string {
	t = t.Local()
	name, _ := t.Zone()
	if name == "UTC" {
		name = "Coordinated Universal Time"
	}
	return t.Format("Mon Jan 02 2006 15:04:05 GMT-0700") + " (" + name + ")"
}

func fsAllowed(ctx context.Context, env *Env, args json.RawMessage) Result {
	return fsOK("Allowed directories:\n" + strings.Join(AllowedDirs(rootsOf(env)), "\n"))
}
