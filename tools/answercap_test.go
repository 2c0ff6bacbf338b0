package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/txedit/txedit/plan"
)

// budgetTree is n small files, each of which a replacement changes.
func budgetTree(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("d%02d/f%04d.go", i%7, i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(fmt.Sprintf("package p\n\n// file %d\nvar e%d = errors.New(\"x%d\")\n", i, i, i)), 0o644)
	}
	return dir
}

// withBudget sets the answer budget for a test.
func withBudget(t *testing.T, n int) {
	old := diffBudget
	diffBudget = n
	t.Cleanup(func() { diffBudget = old })
}

// answerOf is a tool result's value as an agent reads it (its JSON).
func answerOf(t *testing.T, r Result) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(jsonOf(r.Value)), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// entriesSize is the bytes of compact JSON of an answer's file entries.
func entriesSize(m map[string]any) int {
	n := 0
	for _, f := range m["files"].([]any) {
		b, _ := json.Marshal(f)
		n += len(b)
	}
	return n
}

// answerDiffs are the per-file diffs (or previews) of an answer, by path.
func answerDiffs(m map[string]any, field string) (map[string]string, int) {
	d, n := map[string]string{}, 0
	for _, f := range m["files"].([]any) {
		f := f.(map[string]any)
		if s, _ := f[field].(string); s != "" {
			d[f["path"].(string)] = s
			n += len(s)
		}
	}
	return d, n
}

// TestWriteAnswerBudget: a pattern_replace over 300 files answers its
// diffs whole up to the budget, says how many it left out and where to
// read them; history pages through them, each page under the budget, and
// every diff it returns is byte for byte the one the engine's whole
// result carries; one file's by path too.
func TestWriteAnswerBudget(t *testing.T) {
	const n, budget = 300, 3000
	withBudget(t, budget)
	req := `{"command":"pattern_replace","file_pattern":"*.go","sed_pattern":"s/errors.New(/errors.Newf(/g","literal":true}`

	// The reference: the engine's whole result of the same request on
	// the same tree.
	ref, _ := setupAt(t, budgetTree(t, n), nil)
	var preq plan.Request
	json.Unmarshal([]byte(req), &preq)
	whole, err := ref.W.Apply(context.Background(), &preq)
	if err != nil || len(whole.Files) != n {
		t.Fatalf("reference: %v, %d files", err, len(whole.Files))
	}
	want := map[string]string{}
	for _, f := range whole.Files {
		if f.Diff == "" {
			t.Fatalf("reference: %s has no diff", f.Path)
		}
		want[f.Path] = f.Diff
	}

	env, _ := setupAt(t, budgetTree(t, n), nil)
	r := call(t, env, "txedit", "fs_write", req)
	if !r.OK {
		t.Fatalf("fs_write: %s", jsonOf(r.Value))
	}
	m := answerOf(t, r)
	kept, size := answerDiffs(m, "diff")
	if size > budget || len(kept) == 0 {
		t.Fatalf("answer carries %d bytes of diffs in %d files (budget %d)", size, len(kept), budget)
	}
	omitted := int(m["diffs_omitted"].(float64))
	listed := len(m["files"].([]any))
	if omitted != n-len(kept) || listed != len(kept) || listed+int(m["files_omitted"].(float64)) != n || entriesSize(m) > budget {
		t.Fatalf("diffs_omitted %d, kept %d, files %d (omitted %v), entries %d bytes", omitted, len(kept), listed, m["files_omitted"], entriesSize(m))
	}
	for p, d := range kept {
		if d != want[p] {
			t.Errorf("%s: kept diff differs from the whole result's", p)
		}
	}
	// The files listed are the first ones, whole: path, status, counts
	// and hash.
	for i, f := range m["files"].([]any) {
		f := f.(map[string]any)
		if f["path"] != whole.Files[i].Path || f["status"] != "modified" || f["content_hash"] != whole.Files[i].ContentHash || f["lines_added"] != 1.0 || f["success"] != true {
			t.Fatalf("file %d: %v", i, f)
		}
	}
	// The answer says where the rest is: history from an offset.
	id := m["transaction_id"].(string)
	more := m["more_diffs"].(string)
	mo := regexp.MustCompile(`"offset":(\d+)`).FindStringSubmatch(more)
	if !strings.Contains(more, id) || mo == nil {
		t.Fatalf("more_diffs: %s", more)
	}
	offset := 0
	fmt.Sscan(mo[1], &offset)
	got := map[string]string{}
	var order []string
	for pages := 0; ; pages++ {
		if pages > n {
			t.Fatal("history pages do not end")
		}
		h := call(t, env, "txedit", "history", fmt.Sprintf(`{"transaction_id":%q,"offset":%d}`, id, offset))
		hm := answerOf(t, h)
		if !h.OK || hm["diffs_total"] != float64(n) {
			t.Fatalf("history: %s", jsonOf(h.Value))
		}
		page := hm["diffs"].([]any)
		psize := 0
		for _, d := range page {
			d := d.(map[string]any)
			got[d["path"].(string)] = d["diff"].(string)
			order = append(order, d["path"].(string))
			psize += len(d["diff"].(string))
		}
		if psize > budget || len(page) == 0 {
			t.Fatalf("history page at %d: %d diffs, %d bytes", offset, len(page), psize)
		}
		next, ok := hm["next_offset"].(float64)
		if !ok {
			break
		}
		offset = int(next)
	}
	if len(got) != omitted {
		t.Fatalf("history returned %d diffs, %d were left out", len(got), omitted)
	}
	for i, p := range order {
		if _, ok := kept[p]; ok {
			t.Errorf("history from the offset returned the kept %s", p)
		}
		if got[p] != want[p] {
			t.Errorf("%s: history's diff differs from the whole result's:\n%s\n%s", p, got[p], want[p])
		}
		if p != whole.Files[len(kept)+i].Path {
			t.Fatalf("history's order: %s at %d, the answer's %s", p, i, whole.Files[len(kept)+i].Path)
		}
	}
	// One file's diff by its path (the last one).
	last := whole.Files[n-1].Path
	h := answerOf(t, call(t, env, "txedit", "history", fmt.Sprintf(`{"transaction_id":%q,"path":%q}`, id, last)))
	if d := h["diffs"].([]any); len(d) != 1 || d[0].(map[string]any)["diff"] != want[last] {
		t.Errorf("history by path: %v", h)
	}
	if h := call(t, env, "txedit", "history", `{"transaction_id":"nosuch"}`); h.OK {
		t.Errorf("history of no transaction: %s", jsonOf(h.Value))
	}
}

// TestWriteAnswerBudgetDryRun: a dry run's previews are kept under the
// budget (the combined diff repeats them and is the kept ones' own), and
// the rest are counted.
func TestWriteAnswerBudgetDryRun(t *testing.T) {
	const n, budget = 100, 4000
	withBudget(t, budget)
	env, dir := setupAt(t, budgetTree(t, n), nil)
	r := call(t, env, "txedit", "fs_write", `{"command":"pattern_replace","file_pattern":"*.go","sed_pattern":"s/errors.New(/errors.Newf(/g","literal":true,"dry_run":true}`)
	m := answerOf(t, r)
	kept, size := answerDiffs(m, "preview")
	var combined strings.Builder
	for _, f := range m["files"].([]any) {
		p, _ := f.(map[string]any)["preview"].(string)
		combined.WriteString(p)
	}
	if !r.OK || m["diff"] != combined.String() || entriesSize(m)+size > budget || len(kept) == 0 || m["diffs_omitted"] != float64(n-len(kept)) || m["more_diffs"] == nil {
		t.Fatalf("dry run: %d kept, %d bytes, omitted %v", len(kept), size, m["diffs_omitted"])
	}
	if strings.Contains(read(t, dir, "d00/f0000.go"), "Newf") {
		t.Error("the dry run wrote")
	}
}

// TestWriteAnswerBudgetKeepsErrors: past the budget a failing file keeps
// its error and code (a request of more than streamFiles files, not
// atomic, is streamed).
func TestWriteAnswerBudgetKeepsErrors(t *testing.T) {
	const n = streamFiles + 20
	withBudget(t, 1000)
	dir := budgetTree(t, n)
	env, _ := setupAt(t, dir, nil)
	var fe []map[string]any
	for i := range n {
		old := "errors.New("
		if i == n-1 {
			old = "errors.Absent("
		}
		fe = append(fe, map[string]any{"path": fmt.Sprintf("d%02d/f%04d.go", i%7, i), "edits": []map[string]any{{"command": "str_replace", "old_str": old, "new_str": "errors.Newf("}}})
	}
	args, _ := json.Marshal(map[string]any{"fileEdits": fe, "atomic": false})
	r := call(t, env, "txedit", "fs_write", string(args))
	m := answerOf(t, r)
	files := m["files"].([]any)
	lastF := files[len(files)-1].(map[string]any)
	if m["diffs_omitted"] == nil || len(files) >= n || len(files)+int(m["files_omitted"].(float64)) != n || lastF["success"] != false || lastF["path"] != fe[n-1]["path"] {
		t.Fatalf("answer: omitted %v, %d files (omitted %v), last %v", m["diffs_omitted"], len(files), m["files_omitted"], lastF)
	}
	fes, _ := lastF["failed_edits"].([]any)
	if len(fes) != 1 || fes[0].(map[string]any)["code"] != string(plan.CodeNotFound) || fes[0].(map[string]any)["error"] == "" {
		t.Errorf("the failing file's entry: %v", lastF)
	}
	if _, size := answerDiffs(m, "diff"); size > 1000 {
		t.Errorf("%d bytes of diffs", size)
	}
}

// TestWriteAnswerSmallUnchanged: under the budget the answer is the
// engine's whole result, every diff in it.
func TestWriteAnswerSmallUnchanged(t *testing.T) {
	env, _ := setupAt(t, budgetTree(t, 5), nil)
	r := call(t, env, "txedit", "fs_write", `{"command":"pattern_replace","file_pattern":"*.go","sed_pattern":"s/errors.New(/errors.Newf(/g","literal":true}`)
	res, ok := r.Value.(*plan.Result)
	if !ok || !r.OK || len(res.Files) != 5 {
		t.Fatalf("answer: %s", jsonOf(r.Value))
	}
	for _, f := range res.Files {
		if !strings.Contains(f.Diff, "+var") {
			t.Errorf("%s: diff %q", f.Path, f.Diff)
		}
	}
	if strings.Contains(jsonOf(r.Value), "diffs_omitted") {
		t.Error("a small answer names omitted diffs")
	}
}

// TestApplyPatchAnswerBudget: apply_patch's answer keeps to the budget
// too, and history returns what it left out.
func TestApplyPatchAnswerBudget(t *testing.T) {
	const n = 40
	withBudget(t, 1000)
	env, _ := setupAt(t, budgetTree(t, n), nil)
	var p strings.Builder
	for i := range n {
		name := fmt.Sprintf("d%02d/f%04d.go", i%7, i)
		fmt.Fprintf(&p, "--- a/%s\n+++ b/%s\n@@ -4 +4 @@\n-var e%d = errors.New(\"x%d\")\n+var e%d = errors.Newf(\"x%d\")\n", name, name, i, i, i, i)
	}
	args, _ := json.Marshal(map[string]any{"input": p.String()})
	r := call(t, env, "txedit", "apply_patch", string(args))
	m := answerOf(t, r)
	kept, size := answerDiffs(m, "diff")
	if !r.OK || size > 1000 || len(kept) == 0 || m["diffs_omitted"] != float64(n-len(kept)) {
		t.Fatalf("apply_patch: %d kept (%d bytes), omitted %v", len(kept), size, m["diffs_omitted"])
	}
	h := answerOf(t, call(t, env, "txedit", "history", fmt.Sprintf(`{"transaction_id":%q,"offset":%d,"limit":3}`, m["transaction_id"], len(kept))))
	if d := h["diffs"].([]any); len(d) != 3 || h["next_offset"] != float64(len(kept)+3) || !strings.Contains(d[0].(map[string]any)["diff"].(string), "+var") {
		t.Errorf("history page of 3: %v", h)
	}
}
