package mcpserver

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/journal"
	"github.com/txedit/txedit/tools"
)

// The filesystem toolset against the official MCP filesystem server:
// tools/testdata/filesystem/golden holds the official server's answers
// (recorded by record.sh with the official TypeScript client) to the
// calls of scenarios.json, and the tree after each call. This test makes
// the same calls to txedit's filesystem toolset through the Go SDK's
// client and compares status, content (text, images, audio, resources),
// structuredContent and the tree after every call. A difference must be
// one of differences.json, named by the call; any other fails.

const fsTestdata = "../testdata/filesystem"

type fsScenario struct {
	Name  string                     `json:"name"`
	Dirs  []string                   `json:"dirs"`
	Tree  map[string]json.RawMessage `json:"tree"`
	Calls []struct {
		Tool       string         `json:"tool"`
		Args       map[string]any `json:"args"`
		Deliberate string         `json:"deliberate"`
	} `json:"calls"`
}

type fsGolden struct {
	Server string `json:"server"`
	Name   string `json:"name"`
	Steps  []struct {
		Result map[string]any `json:"result"`
		Tree   map[string]any `json:"tree"`
	} `json:"steps"`
}

func readJSON(t *testing.T, name string, v any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(fsTestdata, name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// makeFsTree writes a scenario's tree under base.
func makeFsTree(t *testing.T, base string, tree map[string]json.RawMessage) {
	t.Helper()
	names := make([]string, 0, len(tree))
	for n := range tree {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		full := filepath.Join(base, n)
		if strings.HasSuffix(n, "/") {
			must(t, os.MkdirAll(full, 0o755))
			continue
		}
		must(t, os.MkdirAll(filepath.Dir(full), 0o755))
		var text string
		if json.Unmarshal(tree[n], &text) == nil {
			must(t, os.WriteFile(full, []byte(text), 0o644))
			continue
		}
		var e struct {
			Text    *string `json:"text"`
			Base64  *string `json:"base64"`
			Symlink *string `json:"symlink"`
			Mode    *uint32 `json:"mode"`
		}
		must(t, json.Unmarshal(tree[n], &e))
		switch {
		case e.Symlink != nil:
			must(t, os.Symlink(strings.ReplaceAll(*e.Symlink, "$BASE", base), full))
		case e.Base64 != nil:
			data, err := base64.StdEncoding.DecodeString(*e.Base64)
			must(t, err)
			must(t, os.WriteFile(full, data, 0o644))
		default:
			must(t, os.WriteFile(full, []byte(*e.Text), 0o644))
		}
		if e.Mode != nil {
			must(t, os.Chmod(full, fs.FileMode(*e.Mode)))
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// fsSnapshot is the tree under base as the recorder writes it, txedit's
// journals left out.
func fsSnapshot(t *testing.T, base string) map[string]any {
	t.Helper()
	out := map[string]any{}
	err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(base, p)
		if rel == "." {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if d.Name() == journal.Dir {
			return filepath.SkipDir
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = map[string]any{"symlink": strings.ReplaceAll(target, base, "$BASE")}
		case fi.IsDir():
			out[rel+"/"] = ""
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			e := map[string]any{}
			if s := string(data); strings.ToValidUTF8(s, "\uFFFD") == s {
				e["text"] = s
			} else {
				e["base64"] = base64.StdEncoding.EncodeToString(data)
			}
			if m := fi.Mode() & 0o7777; m != 0o644 {
				e["mode"] = float64(m)
			}
			if len(e) == 1 && e["text"] != nil {
				out[rel] = e["text"]
			} else {
				out[rel] = e
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var (
	timeLine = regexp.MustCompile(`(?m)^(created|modified|accessed): .*$`)
	dirSize  = regexp.MustCompile(`(?m)^size: \d+$`)
)

// scrubFs replaces base with $BASE and times with $TIME in every string,
// and a directory's size (it depends on the file system) with $SIZE.
func scrubFs(v any, base string) any {
	switch x := v.(type) {
	case string:
		s := x
		if base != "" {
			s = strings.ReplaceAll(s, base, "$BASE")
		}
		s = timeLine.ReplaceAllString(s, "$1: $$TIME")
		if strings.Contains(s, "isDirectory: true") {
			s = dirSize.ReplaceAllString(s, "size: $$SIZE")
		}
		return s
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = scrubFs(e, base)
		}
		return out
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[k] = scrubFs(e, base)
		}
		return out
	}
	return v
}

func substFs(v any, base string) any {
	switch x := v.(type) {
	case string:
		return strings.ReplaceAll(x, "$BASE", base)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = substFs(e, base)
		}
		return out
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[k] = substFs(e, base)
		}
		return out
	}
	return v
}

// asJSON is v as the JSON the wire carries, decoded into plain values.
func asJSON(t *testing.T, v any) any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	must(t, json.Unmarshal(data, &out))
	return out
}

// fsServer serves the filesystem toolset on dirs (the first is the main
// workspace) to a Go SDK client.
func fsServer(t *testing.T, dirs []string, copts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	return fsServerWith(t, dirs, mcp.NewClient(&mcp.Implementation{Name: "golden-test", Version: "1"}, copts), nil)
}

// fsServerWith is fsServer with the client and its session options given.
func fsServerWith(t *testing.T, dirs []string, client *mcp.Client, sopts *mcp.ClientSessionOptions) *mcp.ClientSession {
	t.Helper()
	var ws []*engine.Workspace
	for _, d := range dirs {
		w, err := engine.Open(d, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { w.Close() })
		ws = append(ws, w)
	}
	ts, err := tools.Get("filesystem")
	if err != nil {
		t.Fatal(err)
	}
	server := New(ts, ws[0], Options{Version: "test", Roots: ws[1:], Env: tools.Env{Mode: tools.ModeAcceptEdits},
		OpenRoot: func(dir string) (*engine.Workspace, error) {
			w, err := engine.Open(dir, nil)
			if err == nil {
				t.Cleanup(func() { w.Close() })
			}
			return w, err
		}})
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := server.Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := client.Connect(ctx, ct, sopts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func TestFilesystemGoldens(t *testing.T) {
	var sc struct {
		Scenarios []fsScenario `json:"scenarios"`
	}
	readJSON(t, "scenarios.json", &sc)
	var diffs struct {
		Differences map[string]string `json:"differences"`
	}
	readJSON(t, "differences.json", &diffs)
	identical, deliberate, other := 0, 0, 0
	byKind := map[string]int{}
	for _, s := range sc.Scenarios {
		var g fsGolden
		readJSON(t, "golden/"+s.Name+".json", &g)
		if g.Server != tools.FilesystemRelease {
			t.Fatalf("%s was recorded against %s; the toolset follows %s", s.Name, g.Server, tools.FilesystemRelease)
		}
		if len(g.Steps) != len(s.Calls) {
			t.Fatalf("%s: %d recorded steps for %d calls: run record.sh", s.Name, len(g.Steps), len(s.Calls))
		}
		t.Run(s.Name, func(t *testing.T) {
			base, err := filepath.EvalSymlinks(t.TempDir())
			must(t, err)
			makeFsTree(t, base, s.Tree)
			var dirs []string
			for _, d := range s.Dirs {
				dirs = append(dirs, filepath.Join(base, d))
				must(t, os.MkdirAll(dirs[len(dirs)-1], 0o755))
			}
			cs := fsServer(t, dirs, nil)
			for i, c := range s.Calls {
				args, _ := substFs(asJSON(t, c.Args), base).(map[string]any)
				r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.Tool, Arguments: args})
				if err != nil {
					t.Fatalf("call %d %s: %v", i, c.Tool, err)
				}
				got := asJSON(t, r).(map[string]any)
				delete(got, "_meta")      // txedit's error code, for programs
				delete(got, "resultType") // the Go SDK's protocol field
				if got["isError"] == nil {
					got["isError"] = false
				}
				if got["content"] == nil {
					got["content"] = []any{}
				}
				got = scrubFs(got, base).(map[string]any)
				want := scrubFs(asJSON(t, g.Steps[i].Result), "").(map[string]any)
				tree := fsSnapshot(t, base)
				wantTree := asJSON(t, g.Steps[i].Tree).(map[string]any)
				sameTree := reflect.DeepEqual(tree, wantTree)
				same := reflect.DeepEqual(got, want) && sameTree
				switch {
				case same && c.Deliberate != "":
					t.Errorf("call %d %s %v: marked deliberate (%s) but answers as the official server does", i, c.Tool, c.Args, c.Deliberate)
				case same:
					identical++
				case c.Deliberate != "" && diffs.Differences[c.Deliberate] != "":
					deliberate++
					byKind[c.Deliberate]++
					t.Logf("call %d %s: deliberate (%s):\n got  %s\n want %s", i, c.Tool, c.Deliberate, compact(got), compact(want))
				default:
					other++
					msg := fmt.Sprintf("call %d %s %v differs from the official server:\n got  %s\n want %s", i, c.Tool, c.Args, compact(got), compact(want))
					if !sameTree {
						msg += fmt.Sprintf("\n tree %s\n want %s", compact(tree), compact(wantTree))
					}
					t.Error(msg)
				}
			}
		})
	}
	t.Logf("calls against %s: %d identical, %d deliberate %v, %d other", tools.FilesystemRelease, identical, deliberate, byKind, other)
}

func compact(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return strings.TrimSpace(b.String())
}

// TestFilesystemToolList: the toolset lists the official server's tools
// with their titles, schemas and annotations, and their descriptions
// (txedit's note after them where it answers differently on purpose),
// plus history and undo.
func TestFilesystemToolList(t *testing.T) {
	var want struct {
		Server string           `json:"server"`
		Tools  []map[string]any `json:"tools"`
	}
	readJSON(t, "golden/tools.json", &want)
	if want.Server != tools.FilesystemRelease {
		t.Fatalf("golden tools of %s; the toolset follows %s", want.Server, tools.FilesystemRelease)
	}
	cs := fsServer(t, []string{t.TempDir()}, nil)
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]map[string]any{}
	var extra []string
	for _, tl := range list.Tools {
		got[tl.Name] = asJSON(t, tl).(map[string]any)
	}
	official := map[string]bool{}
	notes := 0
	for _, w := range want.Tools {
		name := w["name"].(string)
		official[name] = true
		g := got[name]
		if g == nil {
			t.Errorf("%s is not offered", name)
			continue
		}
		for _, k := range []string{"title", "inputSchema", "outputSchema"} {
			if !reflect.DeepEqual(g[k], w[k]) {
				t.Errorf("%s: %s\n got  %s\n want %s", name, k, compact(g[k]), compact(w[k]))
			}
		}
		if gd, wd := g["description"].(string), w["description"].(string); gd != wd {
			if !strings.HasPrefix(gd, wd+" txedit: ") {
				t.Errorf("%s: description %q, want the official one (%q) and at most a txedit note", name, gd, wd)
			}
			notes++
		}
		if a, b := hints(g["annotations"]), hints(w["annotations"]); a != b {
			t.Errorf("%s: annotations %v, want %v", name, a, b)
		}
	}
	for name := range got {
		if !official[name] {
			extra = append(extra, name)
		}
	}
	sort.Strings(extra)
	if fmt.Sprint(extra) != "[history undo]" || notes != 4 {
		t.Errorf("extra tools %v (want history and undo), %d descriptions with a note (want 4: the write tools)", extra, notes)
	}
}

// hints reads MCP annotations with the protocol's defaults for those
// left out.
func hints(v any) [4]bool {
	m, _ := v.(map[string]any)
	get := func(k string, def bool) bool {
		if b, ok := m[k].(bool); ok {
			return b
		}
		return def
	}
	return [4]bool{get("readOnlyHint", false), get("destructiveHint", true), get("idempotentHint", false), get("openWorldHint", true)}
}
