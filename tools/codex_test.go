package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/tools"
)

// The codex toolset against the release it follows: testdata/codex/
// record.go ran every scenario's patch through the real @openai/codex
// 0.169.0 (`codex --codex-run-as-apply-patch PATCH`) and kept its answer
// and the tree after in testdata/codex/golden.json. TestCodexGoldens
// sends each patch to the codex toolset's apply_patch on a copy of the
// same tree, as an agent's call, and the answer (the text the model reads:
// Codex's stdout and stderr; whether it is an error: Codex's exit status)
// and the tree after must be Codex's, or a row of
// testdata/codex/differences.json (docs/toolsets.md lists them with their
// reasons). Anything else fails, and so does a row that explains nothing.

type codexGolden struct {
	Release   string          `json:"release"`
	Scenarios []codexScenario `json:"scenarios"`
}

type codexScenario struct {
	Name   string            `json:"name"`
	Source string            `json:"source"`
	Patch  string            `json:"patch"`
	Tree   map[string]string `json:"tree"`
	Stdout string            `json:"stdout"`
	Stderr string            `json:"stderr"`
	Exit   int               `json:"exit"`
	After  map[string]string `json:"after"`
}

func TestCodexGoldens(t *testing.T) {
	var g codexGolden
	b, err := os.ReadFile(filepath.Join("testdata", "codex", "golden.json"))
	must(t, err)
	must(t, json.Unmarshal(b, &g))
	if g.Release != "@openai/codex 0.169.0" || len(g.Scenarios) == 0 {
		t.Fatalf("golden.json: release %q, %d scenarios: run tools/testdata/codex/record.go", g.Release, len(g.Scenarios))
	}
	rows := loadCodexDifferences(t)
	ts, err := tools.Get("codex")
	must(t, err)
	var c tally
	used := map[string]int{}
	kinds := map[string]int{}
	for _, s := range g.Scenarios {
		t.Run(s.Name, func(t *testing.T) {
			checkCodexSource(t, s)
			ids := replayCodex(t, rows, ts, s)
			switch {
			case t.Failed():
				c.other++
			case len(ids) == 0:
				c.identical++
			default:
				c.deliberate++
				t.Logf("deliberate: %v", ids)
				for _, id := range ids {
					used[id]++
					kinds[id]++
				}
			}
		})
	}
	t.Logf("codex vs @openai/codex 0.169.0: %d scenarios, %d identical, %d deliberate differences, %d other", len(g.Scenarios), c.identical, c.deliberate, c.other)
	var ids []string
	for id, n := range kinds {
		ids = append(ids, fmt.Sprintf("%s %d", id, n))
	}
	sort.Strings(ids)
	t.Logf("deliberate differences by row: %s", strings.Join(ids, ", "))
	for _, d := range rows {
		if used[d.ID] == 0 {
			t.Errorf("testdata/codex/differences.json row %q explains no difference in any scenario: remove it or record the scenario that shows it", d.ID)
		}
	}
}

// A codexRow is a row of testdata/codex/differences.json: a row as
// testdata/peers/differences.json has them (texts, prefix and suffix rows,
// compared by classify), or about the tree after the patch: "tree" (the
// patch failed in both, txedit wrote nothing and Codex wrote part of it)
// or "bytes" (both succeeded and wrote different bytes, in the scenarios
// the row names, each of which must show it).
type codexRow struct {
	difference
	Scenarios []string `json:"scenarios"`
}

func loadCodexDifferences(t *testing.T) []*codexRow {
	b, err := os.ReadFile(filepath.Join("testdata", "codex", "differences.json"))
	must(t, err)
	var rows []*codexRow
	must(t, json.Unmarshal(b, &rows))
	seen := map[string]bool{}
	for _, d := range rows {
		if seen[d.ID] || d.ID == "" || d.What == "" || d.Why == "" || !contains([]string{"texts", "prefix", "suffix", "tree", "bytes"}, d.Kind) ||
			(d.Kind == "bytes") != (len(d.Scenarios) > 0) {
			t.Fatalf("codex differences.json: row %q needs a unique id, what, why, a kind of texts, prefix, suffix, tree or bytes, and scenarios when (only when) it is bytes", d.ID)
		}
		seen[d.ID] = true
		d.Toolsets = []string{"codex"}
		if d.Real != "" {
			d.real = regexp.MustCompile(`\A(?:` + d.Real + `)\z`)
		}
		if d.TxEdit != "" {
			anchor := `\A(?:` + d.TxEdit + `)\z`
			if d.Kind == "prefix" {
				anchor = `\A(?:` + d.TxEdit + `)`
			}
			d.txedit = regexp.MustCompile(anchor)
		}
	}
	return rows
}

// checkCodexSource: the scenario's patch and tree are still those of the
// txtar it was recorded from (a changed scenario needs a new recording).
func checkCodexSource(t *testing.T, s codexScenario) {
	ar, err := txtar.ParseFile(filepath.Join("..", s.Source))
	must(t, err)
	tree := map[string]string{}
	patch := ""
	for _, f := range ar.Files {
		data := string(f.Data)
		if c, ok := strings.CutSuffix(data, "^D\n"); ok {
			data = c
		}
		if f.Name == "patch" {
			patch = data
		} else if p, ok := strings.CutPrefix(f.Name, "in/"); ok {
			tree[p] = data
		}
	}
	if patch != s.Patch || !jsonEqualV(tree, s.Tree) {
		t.Fatalf("%s changed since it was recorded: run tools/testdata/codex/record.go", s.Source)
	}
}

// replayCodex sends the scenario's patch to the codex toolset's
// apply_patch on a copy of its tree, after reading every file with the
// toolset's fs_read (txedit's read-before-write rule; a Codex agent reads a
// file before it patches it too), and returns the ids of the rows that
// explain how its answer and tree differ from Codex's.
func replayCodex(t *testing.T, crows []*codexRow, ts *tools.Toolset, s codexScenario) []string {
	dir := t.TempDir()
	root, err := filepath.EvalSymlinks(dir)
	must(t, err)
	for p, text := range s.Tree {
		must(t, os.MkdirAll(filepath.Join(root, filepath.Dir(p)), 0o755))
		must(t, os.WriteFile(filepath.Join(root, p), []byte(text), 0o644))
	}
	w, err := engine.Open(root, &engine.Options{})
	must(t, err)
	defer w.Close()
	ctx := context.Background()
	env := &tools.Env{W: w.NewSession(engine.SessionOptions{Agent: "codex"})}
	for p := range s.Tree {
		a, _ := json.Marshal(map[string]string{"mode": "Line", "path": p})
		if r := tools.Call(ctx, env, ts.Tool("fs_read"), a); !r.OK {
			t.Fatalf("fs_read %s: %v", p, r.Value)
		}
	}
	args, _ := json.Marshal(map[string]string{"input": s.Patch})
	r := tools.Call(ctx, env, ts.Tool("apply_patch"), args)
	text, ok := r.Value.(string)
	if !ok {
		t.Fatalf("apply_patch answered %T, not text", r.Value)
	}
	var rows []*difference
	for _, d := range crows {
		rows = append(rows, &d.difference)
	}
	real := gcall{Tool: "apply_patch", Text: s.Stdout + s.Stderr, IsError: s.Exit != 0}
	ids, err := classify(rows, "codex", "apply_patch", real, text, !r.OK)
	if err != nil {
		t.Errorf("answer %v", err)
	}
	statusDiffers := r.OK != (s.Exit == 0)
	got := codexSnapshot(t, root)
	if jsonEqualV(got, s.After) {
		for _, d := range crows {
			if contains(d.Scenarios, s.Name) {
				t.Errorf("differences.json row %q names this scenario, but its tree is Codex's", d.ID)
			}
		}
		return ids
	}
	switch {
	case statusDiffers && len(ids) > 0:
		// A call one side refuses: the tree is the refusing side's own
		// (txedit's is the tree before, checked below; the one it writes
		// when Codex refuses is apply/patch/testdata's out/ section).
		if !r.OK && !jsonEqualV(got, s.Tree) {
			t.Errorf("txedit refused the patch but wrote: %v", got)
		}
		return ids
	case !r.OK && s.Exit != 0 && jsonEqualV(got, s.Tree):
		for _, d := range crows {
			if d.Kind == "tree" {
				return append(ids, d.ID)
			}
		}
	case r.OK && s.Exit == 0:
		for _, d := range crows {
			if d.Kind == "bytes" && contains(d.Scenarios, s.Name) {
				return append(ids, d.ID)
			}
		}
	}
	var names []string
	for n := range got {
		names = append(names, n)
	}
	for n := range s.After {
		if _, ok := got[n]; !ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		if got[n] != s.After[n] {
			t.Errorf("file %s differs after the patch\n%s", n, firstDifference(s.After[n], got[n]))
		}
	}
	return ids
}

// codexSnapshot is record.go's snapshot: every file's text, an empty
// directory as "PATH/", txedit's journal left out.
func codexSnapshot(t *testing.T, root string) map[string]string {
	out := map[string]string{}
	must(t, filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if rel == ".txedit" {
			return filepath.SkipDir
		}
		if d.IsDir() {
			if ents, _ := os.ReadDir(p); len(ents) == 0 && rel != "." {
				out[rel+"/"] = ""
			}
			return nil
		}
		b, err := os.ReadFile(p)
		out[rel] = string(b)
		return err
	}))
	return out
}

// TestCodexDoc: docs/toolsets.md's codex table is differences.json's rows
// (TXEDIT_UPDATE_DOCS=1 rewrites it).
func TestCodexDoc(t *testing.T) {
	rows := loadCodexDifferences(t)
	docPath := filepath.Join("..", "docs", "toolsets.md")
	b, err := os.ReadFile(docPath)
	must(t, err)
	doc := string(b)
	var tb strings.Builder
	tb.WriteString("| id | what | difference | why |\n|---|---|---|---|\n")
	for _, d := range rows {
		what := map[string]string{"tree": "the files written", "bytes": "the files written"}[d.Kind]
		if what == "" {
			what = "the answer"
		}
		fmt.Fprintf(&tb, "| `%s` | %s | %s | %s |\n", d.ID, what, strings.ReplaceAll(d.What, "|", "\\|"), strings.ReplaceAll(d.Why, "|", "\\|"))
	}
	const start, end = "<!-- codex-differences -->\n", "<!-- /differences -->"
	i := strings.Index(doc, start)
	j := -1
	if i >= 0 {
		j = strings.Index(doc[i:], end)
	}
	if i < 0 || j < 0 {
		t.Fatalf("docs/toolsets.md has no %q ... %q block", strings.TrimSpace(start), end)
	}
	if doc[i+len(start):i+j] == tb.String() {
		return
	}
	if os.Getenv("TXEDIT_UPDATE_DOCS") != "" {
		must(t, os.WriteFile(docPath, []byte(doc[:i+len(start)]+tb.String()+doc[i+j:]), 0o644))
		return
	}
	t.Errorf("docs/toolsets.md's codex table is not testdata/codex/differences.json's rows (TXEDIT_UPDATE_DOCS=1 rewrites it):\n%s", tb.String())
}
