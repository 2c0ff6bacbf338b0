package tools

import "github.com/txedit/txedit/plan"

// amazonqToolset builds the amazonq toolset (tools.go, toolsets).
func amazonqToolset() *Toolset {
	return &Toolset{Name: "amazonq", Description: "Amazon Q CLI's fs_read and fs_write as the seed's batch-operations RFC (2025-05-11) specifies them",
		Tools: []*Tool{fsReadTool(true), fsWriteTool(true)}}
}

// rfcWriteResult reshapes a result to the RFC's bare forms: one object
// for a single-file request, an array of per-file results for fileEdits,
// the pattern_replace object, or the dry-run object. Failures keep their
// code beside the RFC's error text, and written files their new hash.
//
// With atomic: false the files whose edits all applied were written and
// say so (success true), whatever happened to the others: an agent that
// retried them would apply them twice.
func rfcWriteResult(req *plan.Request, res *plan.Result) Result {
	out := Result{OK: res.Success, Code: res.Code}
	atomic := req.IsAtomic()
	// written: the file's own outcome stands (nothing was rolled back for
	// another file's sake).
	written := func(f *plan.FileResult) bool { return f.Success && (res.Success || !atomic) }
	fileErr := func(f *plan.FileResult, m map[string]any) {
		if !f.Success {
			m["success"] = false
			msg, code := f.Error, f.Code
			if msg == "" && len(f.FailedEdits) > 0 {
				msg, code = f.FailedEdits[0].Error, f.FailedEdits[0].Code
			}
			if msg == "" {
				msg, code = res.Error, res.Code
			}
			m["error"], m["code"] = msg, code
		}
	}
	switch {
	case res.DryRun:
		files := []map[string]any{}
		for _, f := range res.Files {
			m := map[string]any{"path": f.Path, "would_modify": f.WouldModify != nil && *f.WouldModify, "replacements": f.Replacements, "preview": f.Preview}
			fileErr(f, m)
			files = append(files, m)
		}
		v := map[string]any{"success": res.Success, "dry_run": true, "files": files, "diff": res.Diff}
		if !res.Success {
			v["error"], v["code"] = res.Error, res.Code
		}
		out.Value = v
	case req.HasPattern():
		files := []map[string]any{}
		for _, f := range res.Files {
			m := map[string]any{"path": f.Path, "success": written(f), "replacements": f.Replacements}
			if f.ContentHash != "" {
				m["content_hash"] = f.ContentHash
			}
			fileErr(f, m)
			files = append(files, m)
		}
		v := map[string]any{"success": res.Success, "files_modified": res.FilesModified, "files_skipped": res.FilesSkipped, "files": files}
		if !res.Success {
			v["error"], v["code"] = res.Error, res.Code
		}
		out.Value = v
	case len(req.FileEdits) > 0:
		files := []map[string]any{}
		for _, f := range res.Files {
			m := map[string]any{"path": f.Path, "success": written(f), "edits_applied": f.EditsApplied, "edits_failed": f.EditsFailed}
			if !res.Success && atomic {
				m["edits_applied"] = 0 // atomic: nothing was written
			}
			if len(f.FailedEdits) > 0 {
				var fe []map[string]any
				for _, e := range f.FailedEdits {
					fe = append(fe, map[string]any{"command": e.Command, "error": e.Error, "code": e.Code, "index": e.Index})
				}
				m["failed_edits"] = fe
			}
			if f.ContentHash != "" {
				m["content_hash"] = f.ContentHash
			}
			if f.Delta != nil {
				m["delta"] = f.Delta
			}
			fileErr(f, m)
			if f.Success && !res.Success && atomic {
				m["success"], m["error"], m["code"] = false, "not written: another file's edits failed and the request is atomic", res.Code
			}
			files = append(files, m)
		}
		out.Value = files
	default:
		m := map[string]any{"path": req.Path, "success": res.Success}
		if len(res.Files) == 1 && res.Files[0].ContentHash != "" && res.Success {
			m["content_hash"] = res.Files[0].ContentHash
		}
		if !res.Success {
			m["error"], m["code"] = res.Error, res.Code
			if len(res.Files) == 1 && len(res.Files[0].FailedEdits) > 0 {
				m["error"] = res.Files[0].FailedEdits[0].Error
			}
		}
		if len(res.Files) == 1 && res.Files[0].Delta != nil {
			m["delta"] = res.Files[0].Delta
		}
		out.Value = m
	}
	return out
}
