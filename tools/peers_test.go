package tools_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/tools"
	"github.com/txedit/txedit/tools/mcpserver"
)

// The differential tests: tools/testdata/peers/record.mjs ran each
// session's calls against the pinned release of the real tool and kept
// its answers in testdata/peers/golden/; here every session runs again
// against txedit's toolset, over MCP as an agent calls it, on the same
// tree, and every answer (the text the model reads, whether it is an
// error) and the tree after the session must be the real tool's, or a row
// of testdata/peers/differences.json: the deliberate differences
// docs/toolsets.md lists with their reasons. Anything else fails.

// A golden is one session file's recording.
type golden struct {
	Toolset string `json:"toolset"`
	Peer    string `json:"peer"`
	// Compare names the tools whose answers are compared (all when
	// empty): the release the golden was recorded with is the reference
	// for these only (Claude Code 1.0.96 for LS and MultiEdit); the other
	// calls set the session up (a Read before an edit).
	Compare  []string   `json:"compare"`
	Sessions []gsession `json:"sessions"`
}

type gsession struct {
	Name  string           `json:"name"`
	Peer  string           `json:"peer"`
	Tree  gtree            `json:"tree"`
	Calls []gcall          `json:"calls"`
	After map[string]gfile `json:"after"`
}

type gtree struct {
	Git   bool    `json:"git"`
	Files []gfile `json:"files"`
}

type gfile struct {
	Path    string  `json:"path"`
	Text    *string `json:"text"`
	B64     *string `json:"b64"`
	Repeat  *string `json:"repeat"`
	Times   int     `json:"times"`
	Symlink *string `json:"symlink"`
	Mode    string  `json:"mode"`
	Mtime   *int64  `json:"mtime"`
	// Unchanged (in a snapshot): the file still has its bytes of the
	// tree the session started with.
	Unchanged bool `json:"unchanged"`
}

type gcall struct {
	Tool    string          `json:"tool"`
	Input   json.RawMessage `json:"input"`
	Text    string          `json:"text"`
	IsError bool            `json:"is_error"`
}

// t0 is the modification time of a tree's first file (record.mjs's T0);
// each next file is 10 s younger unless it says otherwise.
const t0 = 1700000000

func (f gfile) bytes() []byte {
	switch {
	case f.B64 != nil:
		b, _ := base64.StdEncoding.DecodeString(*f.B64)
		return b
	case f.Repeat != nil:
		return []byte(strings.Repeat(*f.Repeat, f.Times))
	case f.Text != nil:
		return []byte(*f.Text)
	}
	return nil
}

// isFile: the entry is a regular file (not absent, a directory or a
// symlink).
func (f gfile) isFile() bool { return f.Text != nil || f.B64 != nil || f.Repeat != nil }

// layTree lays a session's tree out in dir as record.mjs does. A git
// repository is a .git directory with a HEAD, which is what rg looks for.
func layTree(t *testing.T, dir string, tree gtree) {
	t.Helper()
	if tree.Git {
		must(t, os.MkdirAll(filepath.Join(dir, ".git"), 0o755))
		must(t, os.WriteFile(filepath.Join(dir, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644))
	}
	for i, f := range tree.Files {
		p := filepath.Join(dir, f.Path)
		if strings.HasSuffix(f.Path, "/") {
			must(t, os.MkdirAll(p, 0o755))
			continue
		}
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		if f.Symlink != nil {
			must(t, os.Symlink(*f.Symlink, p))
			continue
		}
		mode := os.FileMode(0o644)
		if f.Mode != "" {
			var m uint32
			fmt.Sscanf(f.Mode, "%o", &m)
			mode = os.FileMode(m)
		}
		must(t, os.WriteFile(p, f.bytes(), mode))
		must(t, os.Chmod(p, mode))
		off := int64(i * 10)
		if f.Mtime != nil {
			off = *f.Mtime
		}
		mt := time.Unix(t0+off, 0)
		must(t, os.Chtimes(p, mt, mt))
	}
}

// snapshot is record.mjs's snapshot: the files after a session (not
// .git's insides, not txedit's journal).
func snapshot(t *testing.T, dir string) map[string]gfile {
	out := map[string]gfile{}
	var walk func(rel string)
	walk = func(rel string) {
		ents, err := os.ReadDir(filepath.Join(dir, rel))
		must(t, err)
		for _, e := range ents {
			r := e.Name()
			if rel != "" {
				r = rel + "/" + e.Name()
			}
			if r == ".git" || r == ".txedit" {
				continue
			}
			p := filepath.Join(dir, r)
			fi, err := os.Lstat(p)
			must(t, err)
			switch {
			case fi.Mode()&os.ModeSymlink != 0:
				target, _ := os.Readlink(p)
				out[r] = gfile{Symlink: &target}
			case fi.IsDir():
				if sub, _ := os.ReadDir(p); len(sub) == 0 {
					out[r+"/"] = gfile{}
				}
				walk(r)
			default:
				b, err := os.ReadFile(p)
				must(t, err)
				s := string(b)
				if strings.ToValidUTF8(s, "\uFFFD") == s {
					out[r] = gfile{Text: &s}
				} else {
					e := base64.StdEncoding.EncodeToString(b)
					out[r] = gfile{B64: &e}
				}
			}
		}
	}
	walk("")
	return out
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// A difference is a row of the deliberate-differences table.
type difference struct {
	ID       string   `json:"id"`
	Toolsets []string `json:"toolsets"`
	Tools    []string `json:"tools"` // empty: every tool
	// Kind says how txedit's answer relates to the real one:
	//   prefix: txedit's text is the real text after a prefix matching
	//           TxEdit (the error code over MCP);
	//   suffix: txedit's text is the real text, then a suffix matching
	//           TxEdit (txedit's additions);
	//   status: txedit's text is the real text (after the other rows),
	//           only the error status differs;
	//   texts:  the real text matches Real and txedit's matches TxEdit
	//           (after the prefix and suffix rows); the error status
	//           may differ when Status is "differs";
	//   sorted: txedit's text is the real text's lines sorted;
	//   lines:  txedit's text is the real text without its lines that
	//           match Real (TxEdit: the text when none is left);
	//   file:   a file after the session: the real bytes are txedit's
	//           with TxEdit replaced by Real (JSON escapes: "\r\n").
	// A texts row whose Status is "differs" is a refusal: a file the
	// refused call named may then be left as it was before the session.
	Kind   string `json:"kind"`
	Real   string `json:"real"`
	TxEdit string `json:"txedit"`
	Status string `json:"status"`
	// Sorted (lines rows): txedit's lines are also sorted.
	Sorted bool   `json:"sorted"`
	What   string `json:"what"`
	Why    string `json:"why"`

	real, txedit *regexp.Regexp
}

func (d *difference) applies(toolset, tool string) bool {
	in := func(list []string, s string) bool {
		for _, x := range list {
			if x == s {
				return true
			}
		}
		return len(list) == 0
	}
	return in(d.Toolsets, toolset) && in(d.Tools, tool)
}

func loadDifferences(t *testing.T) []*difference {
	b, err := os.ReadFile(filepath.Join("testdata", "peers", "differences.json"))
	must(t, err)
	var rows []*difference
	must(t, json.Unmarshal(b, &rows))
	seen := map[string]bool{}
	for _, d := range rows {
		if seen[d.ID] || d.ID == "" || d.What == "" || d.Why == "" {
			t.Fatalf("differences.json: row %q needs a unique id, what and why", d.ID)
		}
		seen[d.ID] = true
		if d.Real != "" {
			d.real = regexp.MustCompile(`\A(?:` + d.Real + `)\z`)
		}
		if d.TxEdit != "" && d.Kind != "lines" && d.Kind != "file" {
			anchor := `\A(?:` + d.TxEdit + `)\z`
			if d.Kind == "prefix" {
				anchor = `\A(?:` + d.TxEdit + `)`
			}
			d.txedit = regexp.MustCompile(anchor)
		}
	}
	return rows
}

// classify compares one answer with the real one: "" when identical, the
// ids of the rows that explain the difference, or an error.
func classify(rows []*difference, toolset, tool string, real gcall, text string, isErr bool) ([]string, error) {
	if text == real.Text && isErr == real.IsError {
		return nil, nil
	}
	type cand struct {
		text string
		ids  []string
	}
	cands := []cand{{text: text}}
	for _, d := range rows {
		if !d.applies(toolset, tool) || (d.Kind != "prefix" && d.Kind != "suffix") {
			continue
		}
		for _, c := range cands {
			switch d.Kind {
			case "prefix":
				if m := d.txedit.FindString(c.text); m != "" {
					cands = append(cands, cand{c.text[len(m):], append(append([]string{}, c.ids...), d.ID)})
				}
			case "suffix":
				if strings.HasPrefix(c.text, real.Text) && d.txedit.MatchString(c.text[len(real.Text):]) {
					cands = append(cands, cand{real.Text, append(append([]string{}, c.ids...), d.ID)})
				}
			}
		}
	}
	// A prefix or suffix row whose Status is "differs" lets the error
	// status differ too, and so does a status row (LangChain answers its
	// errors as plain strings).
	for _, d := range rows {
		if d.applies(toolset, tool) && d.Kind == "status" && isErr != real.IsError {
			for _, c := range cands {
				if c.text == real.Text {
					cands = append(cands, cand{c.text, append(append([]string{}, c.ids...), d.ID)})
					break
				}
			}
		}
	}
	statusOK := func(ids []string) bool {
		if isErr == real.IsError {
			return true
		}
		for _, id := range ids {
			for _, d := range rows {
				if d.ID == id && d.Status == "differs" {
					return true
				}
			}
		}
		return false
	}
	for _, c := range cands {
		if c.text == real.Text && statusOK(c.ids) {
			return c.ids, nil
		}
	}
	for _, d := range rows {
		if !d.applies(toolset, tool) || d.Kind != "sorted" {
			continue
		}
		ls := strings.Split(real.Text, "\n")
		sort.Strings(ls)
		for _, c := range cands {
			if c.text == strings.Join(ls, "\n") && c.text != real.Text && statusOK(c.ids) {
				return append(c.ids, d.ID), nil
			}
		}
	}
	for _, d := range rows {
		if !d.applies(toolset, tool) || d.Kind != "lines" || !statusOK(nil) {
			continue
		}
		var kept []string
		for _, l := range strings.Split(real.Text, "\n") {
			if !d.real.MatchString(l) {
				kept = append(kept, l)
			}
		}
		if d.Sorted {
			sort.Strings(kept)
		}
		want := strings.Join(kept, "\n")
		if len(kept) == 0 {
			want = d.TxEdit
		}
		for _, c := range cands {
			if c.text == want && want != real.Text {
				return append(c.ids, d.ID), nil
			}
		}
	}
	for _, d := range rows {
		if !d.applies(toolset, tool) || d.Kind != "texts" || !d.real.MatchString(real.Text) {
			continue
		}
		for _, c := range cands {
			if (isErr == real.IsError || d.Status == "differs" || statusOK(c.ids)) && d.txedit.MatchString(c.text) {
				return append(c.ids, d.ID), nil
			}
		}
	}
	status := ""
	if isErr != real.IsError {
		status = fmt.Sprintf(" (is_error: real %v, txedit %v)", real.IsError, isErr)
	}
	return nil, fmt.Errorf("differs%s\n%s", status, firstDifference(real.Text, text))
}

// firstDifference shows two texts around where they first differ.
func firstDifference(real, got string) string {
	i := 0
	for i < len(real) && i < len(got) && real[i] == got[i] {
		i++
	}
	from := max(0, i-120)
	cut := func(s string) string {
		to := min(len(s), i+200)
		return fmt.Sprintf("%q (%d bytes)", s[from:to], len(s))
	}
	return fmt.Sprintf("  from byte %d:\n  real:   %s\n  txedit: %s", from, cut(real), cut(got))
}

// fileDiffers checks a file after a session against the real one, or a
// "file" row: real's bytes are txedit's with TxEdit replaced by Real (a
// CRLF kept where the real tool writes LF).
func fileDiffers(rows []*difference, toolset, name string, real, got, before gfile, refused map[string]string) ([]string, error) {
	rb, gb := real.bytes(), got.bytes()
	same := bytes.Equal(rb, gb) && (real.Symlink == nil) == (got.Symlink == nil) && (real.Symlink == nil || *real.Symlink == *got.Symlink) &&
		real.isFile() == got.isFile()
	if same {
		return nil, nil
	}
	for _, d := range rows {
		if d.Kind == "file" && d.applies(toolset, "") && real.isFile() && got.isFile() && !bytes.Equal(rb, gb) &&
			bytes.Equal(rb, []byte(strings.ReplaceAll(string(gb), unquote(d.TxEdit), unquote(d.Real)))) {
			return []string{d.ID}, nil
		}
	}
	if id, ok := refused[name]; ok && bytes.Equal(gb, before.bytes()) && got.isFile() == before.isFile() {
		return []string{id}, nil
	}
	return nil, fmt.Errorf("file %s differs after the session\n%s", name, firstDifference(string(rb), string(gb)))
}

// unquote reads a file row's JSON-escaped byte strings ("\r\n").
func unquote(s string) string {
	var out string
	if json.Unmarshal([]byte(`"`+s+`"`), &out) != nil {
		return s
	}
	return out
}

// mcpText is what a model reads of an MCP tool result: the text blocks,
// and an image block as record.mjs writes Claude Code's ("[image TYPE]").
func mcpText(r *mcp.CallToolResult) string {
	var parts []string
	for _, c := range r.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, c.Text)
		case *mcp.ImageContent:
			parts = append(parts, "[image "+c.MIMEType+"]")
		}
	}
	return strings.Join(parts, "\n")
}

type tally struct{ identical, deliberate, other int }

func TestPeerGoldens(t *testing.T) {
	rows := loadDifferences(t)
	files, err := filepath.Glob(filepath.Join("testdata", "peers", "golden", "*.json"))
	must(t, err)
	if len(files) == 0 {
		t.Fatal("no goldens in testdata/peers/golden: run tools/testdata/peers/record.mjs")
	}
	counts := map[string]*tally{}
	used := map[string]int{}
	for _, file := range files {
		var g golden
		b, err := os.ReadFile(file)
		must(t, err)
		must(t, json.Unmarshal(b, &g))
		checkSessionsRecorded(t, file, g)
		for _, s := range g.Sessions {
			key := g.Toolset + " vs " + s.Peer
			if counts[key] == nil {
				counts[key] = &tally{}
			}
			c := counts[key]
			t.Run(strings.TrimSuffix(filepath.Base(file), ".json")+"/"+s.Name, func(t *testing.T) {
				replay(t, rows, g.Toolset, g.Compare, s, c, used)
			})
		}
	}
	var keys []string
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		c := counts[k]
		t.Logf("%s: %d calls identical, %d deliberate differences, %d other", k, c.identical, c.deliberate, c.other)
	}
	for _, d := range rows {
		if used[d.ID] == 0 {
			t.Errorf("differences.json row %q explains no difference in any golden: remove it or record the session that shows it", d.ID)
		}
	}
}

func replay(t *testing.T, rows []*difference, toolset string, compare []string, s gsession, c *tally, used map[string]int) {
	dir := t.TempDir()
	root, err := filepath.EvalSymlinks(dir)
	must(t, err)
	layTree(t, root, s.Tree)
	w, err := engine.Open(root, &engine.Options{})
	must(t, err)
	defer w.Close()
	ts, err := tools.Get(toolset)
	must(t, err)
	server := mcpserver.New(ts, w, mcpserver.Options{Version: "test"})
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := server.Connect(ctx, st, nil)
	must(t, err)
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "peers-test", Version: "1"}, nil).Connect(ctx, ct, nil)
	must(t, err)
	defer cs.Close()
	refused := map[string]string{} // root-relative path: the row that explains the refusal
	byID := map[string]*difference{}
	for _, d := range rows {
		byID[d.ID] = d
	}
	for i, call := range s.Calls {
		var args map[string]any
		must(t, json.Unmarshal([]byte(strings.ReplaceAll(string(call.Input), "$ROOT", root)), &args))
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: call.Tool, Arguments: args})
		must(t, err)
		text := strings.ReplaceAll(mcpText(r), root, "$ROOT")
		if len(compare) > 0 && !contains(compare, call.Tool) {
			continue // a setup call: another release is its reference
		}
		ids, err := classify(rows, toolset, call.Tool, call, text, r.IsError)
		switch {
		case err != nil:
			c.other++
			t.Errorf("call %d %s %s: %v", i+1, call.Tool, call.Input, err)
		case ids == nil:
			c.identical++
		default:
			c.deliberate++
			t.Logf("call %d %s: deliberate %v", i+1, call.Tool, ids)
			for _, id := range ids {
				used[id]++
				if byID[id].Status == "differs" {
					var target map[string]any
					json.Unmarshal(call.Input, &target)
					for _, k := range []string{"file_path", "path", "source_path", "destination_path"} {
						if p, ok := target[k].(string); ok {
							refused[strings.TrimPrefix(strings.TrimPrefix(p, "$ROOT"), "/")] = id
						}
					}
				}
			}
		}
	}
	before := map[string]gfile{}
	for _, f := range s.Tree.Files {
		before[f.Path] = f
	}
	for n, f := range s.After {
		if f.Unchanged {
			s.After[n] = before[n]
		}
	}
	got := snapshot(t, root)
	var names []string
	for n := range s.After {
		names = append(names, n)
	}
	for n := range got {
		if _, ok := s.After[n]; !ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		ids, err := fileDiffers(rows, toolset, n, s.After[n], got[n], before[n], refused)
		if err != nil {
			c.other++
			t.Error(err)
		}
		for _, id := range ids {
			used[id]++
		}
	}
}

// checkSessionsRecorded: every session of the session file was recorded
// with the calls it has now (a changed session needs a new recording).
func checkSessionsRecorded(t *testing.T, goldenFile string, g golden) {
	b, err := os.ReadFile(filepath.Join("testdata", "peers", "sessions", filepath.Base(goldenFile)))
	must(t, err)
	var spec struct {
		Sessions []struct {
			Name  string          `json:"name"`
			Tree  json.RawMessage `json:"tree"`
			Calls []struct {
				Tool  string          `json:"tool"`
				Input json.RawMessage `json:"input"`
			} `json:"calls"`
		} `json:"sessions"`
	}
	must(t, json.Unmarshal(b, &spec))
	if len(spec.Sessions) != len(g.Sessions) {
		t.Fatalf("%s: %d sessions recorded, the session file has %d: record again", goldenFile, len(g.Sessions), len(spec.Sessions))
	}
	for i, s := range spec.Sessions {
		gs := g.Sessions[i]
		same := s.Name == gs.Name && len(s.Calls) == len(gs.Calls)
		for j := 0; same && j < len(s.Calls); j++ {
			same = s.Calls[j].Tool == gs.Calls[j].Tool && jsonEqual(s.Calls[j].Input, gs.Calls[j].Input)
		}
		var tree gtree
		if json.Unmarshal(s.Tree, &tree) != nil || !jsonEqualV(tree, gs.Tree) {
			same = false
		}
		if !same {
			t.Fatalf("%s: session %q changed since it was recorded: record again", goldenFile, s.Name)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && jsonEqualV(x, y)
}

func jsonEqualV(x, y any) bool {
	a, _ := json.Marshal(x)
	b, _ := json.Marshal(y)
	return bytes.Equal(a, b)
}

// TestToolsetsDoc: docs/toolsets.md's tables of deliberate differences
// are differences.json's rows, toolset by toolset (between
// "<!-- differences:TOOLSET -->" and "<!-- /differences -->"). With
// TXEDIT_UPDATE_DOCS=1 the test writes them.
func TestToolsetsDoc(t *testing.T) {
	rows := loadDifferences(t)
	docPath := filepath.Join("..", "docs", "toolsets.md")
	b, err := os.ReadFile(docPath)
	must(t, err)
	doc := string(b)
	toolsets := map[string]bool{}
	for _, d := range rows {
		for _, ts := range d.Toolsets {
			toolsets[ts] = true
		}
	}
	const end = "<!-- /differences -->"
	for ts := range toolsets {
		var tb strings.Builder
		tb.WriteString("| id | tools | difference | why |\n|---|---|---|---|\n")
		for _, d := range rows {
			if !d.applies(ts, "") && !contains(d.Toolsets, ts) {
				continue
			}
			tools := "all"
			if len(d.Tools) > 0 {
				tools = strings.Join(d.Tools, ", ")
			}
			if d.Kind == "file" {
				tools = "(the files written)"
			}
			fmt.Fprintf(&tb, "| `%s` | %s | %s | %s |\n", d.ID, tools, strings.ReplaceAll(d.What, "|", "\\|"), strings.ReplaceAll(d.Why, "|", "\\|"))
		}
		start := "<!-- differences:" + ts + " -->\n"
		i := strings.Index(doc, start)
		j := -1
		if i >= 0 {
			j = strings.Index(doc[i:], end)
		}
		if i < 0 || j < 0 {
			t.Errorf("docs/toolsets.md has no %q ... %q block", strings.TrimSpace(start), end)
			continue
		}
		got := doc[i+len(start) : i+j]
		if got == tb.String() {
			continue
		}
		if os.Getenv("TXEDIT_UPDATE_DOCS") != "" {
			doc = doc[:i+len(start)] + tb.String() + doc[i+j:]
			continue
		}
		t.Errorf("docs/toolsets.md's %s table is not differences.json's rows (TXEDIT_UPDATE_DOCS=1 rewrites it):\n%s", ts, tb.String())
	}
	if os.Getenv("TXEDIT_UPDATE_DOCS") != "" {
		must(t, os.WriteFile(docPath, []byte(doc), 0o644))
	}
}
