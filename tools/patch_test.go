package tools

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/txedit/txedit/plan"
)

// TestApplyPatchTools: the codex toolset's apply_patch answers as Codex
// does ("Success. Updated the following files:"), refuses atomically, and
// a retry is already applied; the txedit toolset's apply_patch takes any
// format and returns the ordinary result.
func TestApplyPatchTools(t *testing.T) {
	env, dir := setup(t, map[string]string{"a.go": "package a\n\nfunc F() int {\n\treturn 1\n}\n", "b.txt": "b\n"}, nil)
	p := "*** Begin Patch\n*** Update File: a.go\n@@ func F() int {\n-\treturn 1\n+\treturn 2\n*** Add File: c.txt\n+c\n*** Delete File: b.txt\n*** End Patch\n"
	args, _ := json.Marshal(map[string]string{"input": p})
	r := call(t, env, "codex", "apply_patch", string(args))
	if !r.OK || r.Value != "Success. Updated the following files:\nA c.txt\nM a.go\nD b.txt\n" {
		t.Fatalf("codex apply_patch: %+v", r.Value)
	}
	if read(t, dir, "a.go") != "package a\n\nfunc F() int {\n\treturn 2\n}\n" || read(t, dir, "c.txt") != "c\n" || read(t, dir, "b.txt") != "<missing>" {
		t.Errorf("files after the patch: a.go %q c.txt %q", read(t, dir, "a.go"), read(t, dir, "c.txt"))
	}
	if r := call(t, env, "codex", "apply_patch", string(args)); !r.OK || !strings.HasPrefix(r.Value.(string), "Nothing to change") {
		t.Errorf("retried patch: %+v", r.Value)
	}
	bad, _ := json.Marshal(map[string]string{"input": "*** Begin Patch\n*** Update File: a.go\n@@\n-\treturn 9\n+\treturn 10\n*** End Patch\n"})
	r = call(t, env, "codex", "apply_patch", string(bad))
	if r.OK || r.Code != plan.CodeNotFound || !strings.Contains(r.Value.(string), "Nothing was written") {
		t.Errorf("failing patch: %+v", r.Value)
	}
	// The txedit toolset: a Responses apply_patch_call, dry run first.
	call1 := `{"type":"apply_patch_call","operation":{"type":"update_file","path":"a.go","diff":"@@\n-\treturn 2\n+\treturn 3\n"}}`
	args, _ = json.Marshal(map[string]any{"input": call1, "dry_run": true})
	r = call(t, env, "txedit", "apply_patch", string(args))
	res := r.Value.(*plan.Result)
	if !r.OK || !res.DryRun || !strings.Contains(res.Diff, "+\treturn 3") || strings.Contains(read(t, dir, "a.go"), "return 3") {
		t.Fatalf("dry run: %+v", res)
	}
	args, _ = json.Marshal(map[string]any{"input": call1})
	if r := call(t, env, "txedit", "apply_patch", string(args)); !r.OK || !strings.Contains(read(t, dir, "a.go"), "return 3") {
		t.Errorf("apply_patch_call: %+v", r.Value)
	}
	if r := call(t, env, "txedit", "apply_patch", `{"input":"not a patch"}`); r.OK || r.Code != plan.CodeInvalidRequest {
		t.Errorf("garbage: %+v", r.Value)
	}
}

// TestApplyPatchWorkspaceEdit: the txedit toolset's apply_patch takes an
// LSP WorkspaceEdit (its positions in the encoding asked), refuses a
// change needing confirmation unless confirm, and its dry run lists the
// changes by label.
func TestApplyPatchWorkspaceEdit(t *testing.T) {
	env, dir := setup(t, map[string]string{"a.txt": "é foo\n"}, nil)
	root := env.W.Workspace().RealRoot()
	edit := strings.ReplaceAll(`{"changeAnnotations":{"c":{"label":"Check","needsConfirmation":true}},"changes":{"file://@/a.txt":[{"range":{"start":{"line":0,"character":3},"end":{"line":0,"character":6}},"newText":"bar","annotationId":"c"}]}}`, "@", root)
	args, _ := json.Marshal(map[string]any{"input": edit, "position_encoding": "utf-8"})
	if r := call(t, env, "txedit", "apply_patch", string(args)); r.OK || r.Code != plan.CodeNeedsConfirmation {
		t.Fatalf("unconfirmed: %+v", r.Value)
	}
	args, _ = json.Marshal(map[string]any{"input": edit, "position_encoding": "utf-8", "dry_run": true})
	r := call(t, env, "txedit", "apply_patch", string(args))
	res := r.Value.(*plan.Result)
	if !r.OK || len(res.Groups) != 1 || res.Groups[0].Label != "Check" || res.Groups[0].Changes[0].New != "é bar\n" {
		t.Fatalf("dry run: %+v", res)
	}
	args, _ = json.Marshal(map[string]any{"input": edit, "position_encoding": "utf-8", "confirm": true})
	if r := call(t, env, "txedit", "apply_patch", string(args)); !r.OK || read(t, dir, "a.txt") != "é bar\n" {
		t.Errorf("confirmed: %+v, a.txt %q", r.Value, read(t, dir, "a.txt"))
	}
}
