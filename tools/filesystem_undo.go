package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/plan"
)

// history and undo beside the official tools: over every allowed
// directory, each with its own journal.

func fsHistoryTool() *Tool {
	return &Tool{
		Name:        "history",
		Title:       "History (txedit)",
		Description: "List the changes made through this server, newest first, in every allowed directory: transaction id, time, state (committed, undone, rolled_back), files and summary. txedit journals every write; undo takes one back.",
		Schema:      object(nil, map[string]any{"limit": num("At most this many (default 20).")}),
		ReadOnly:    true,
		Examples:    []string{`{}`, `{"limit":5}`},
		Run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			var a struct{ Limit int }
			if err := decode(args, &a); err != nil {
				return fsFailErr(err)
			}
			if a.Limit <= 0 {
				a.Limit = 20
			}
			type entry struct {
				Root string `json:"root"`
				*engine.TxnInfo
			}
			all := []entry{}
			for _, r := range rootsOf(env) {
				log, err := r.S.Log(ctx, engine.LogOptions{Limit: a.Limit})
				if err != nil {
					return fsFailErr(err)
				}
				for _, t := range log {
					all = append(all, entry{r.Dir, t})
				}
			}
			sort.SliceStable(all, func(i, j int) bool { return all[i].Time.After(all[j].Time) })
			if len(all) > a.Limit {
				all = all[:a.Limit]
			}
			return Result{OK: true, Value: map[string]any{"success": true, "transactions": all}}
		},
		Compact: func(a map[string]any) string { return "" },
	}
}

func fsUndoTool() *Tool {
	return &Tool{
		Name:        "undo",
		Title:       "Undo (txedit)",
		Description: "Take back a change made through this server (default: the newest one still in effect, in whichever allowed directory it was; repeat to walk back) as a new change of its own: written files get their old content back, created files and directories go, moved files and directories move back. Undoing an undo is redo. If a file changed since, it refuses and names the files; force undoes anyway. dry_run previews.",
		Schema: object(nil, map[string]any{"transaction_id": str("The transaction (or a unique prefix of its id); see history."),
			"path":  str("Undo in the allowed directory holding this path (default: the one with the newest change)."),
			"force": flag("Undo even files that changed since."), "dry_run": flag("Preview only.")}),
		Examples: []string{`{}`, `{"transaction_id":"20261121-0817","dry_run":true}`},
		Run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			var a struct {
				TransactionID string `json:"transaction_id"`
				Path          string `json:"path"`
				Force         bool   `json:"force"`
				DryRun        bool   `json:"dry_run"`
			}
			if err := decode(args, &a); err != nil {
				return fsFailErr(err)
			}
			roots := rootsOf(env)
			var root *Root
			if a.Path != "" {
				p, err := fsResolve(roots, a.Path)
				if err != nil {
					return fsFailErr(err)
				}
				root = p.root
			} else {
				root = newestRoot(ctx, roots, a.TransactionID)
			}
			if root == nil {
				return fsFailErr(plan.Errorf(plan.CodeFileNotFound, "", "nothing to undo: no change is in effect in the allowed directories"))
			}
			res, _ := root.S.Undo(ctx, engine.UndoOptions{ID: a.TransactionID, Force: a.Force, DryRun: a.DryRun})
			if !res.Success {
				return fsFailErr(resultErr(res))
			}
			text := fmt.Sprintf("Undid %s in %s: %s", res.TransactionID, root.Dir, res.Summary)
			if a.DryRun {
				text = "Would undo (dry run):\n" + res.Diff
			}
			return Result{OK: true, Value: res, LazyText: func() string { return text }}
		},
		Compact: func(a map[string]any) string { return compactPath(a, "transaction_id") },
	}
}

// newestRoot is the allowed directory holding transaction id, or (no id)
// the one whose newest change still in effect is the newest.
func newestRoot(ctx context.Context, roots []Root, id string) *Root {
	var best *Root
	var bestID string
	for i := range roots {
		r := &roots[i]
		log, err := r.S.Log(ctx, engine.LogOptions{Limit: 200})
		if err != nil {
			continue
		}
		for _, t := range log {
			if id != "" {
				if len(t.ID) >= len(id) && t.ID[:len(id)] == id {
					return r
				}
				continue
			}
			if t.State == "committed" && t.Undoes == "" && t.UndoneBy == "" {
				if t.ID > bestID {
					best, bestID = r, t.ID
				}
				break
			}
		}
	}
	return best
}
