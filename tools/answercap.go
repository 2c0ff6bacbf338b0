package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/plan"
)

// The answer budget of the txedit toolset's writes (docs/toolsets.md,
// "The answer budget"): a write's answer carries its files' diffs in full
// until they add up to diffBudget bytes; each file past that keeps its
// path, status, counts, hashes, errors and delta but no diff, and the
// answer says how many diffs it left out and how to read them (history,
// by transaction id). A diff is never cut.

// diffBudget is the bytes of diff text a write's answer carries: under
// Claude Code's 50,000-character threshold past which an MCP tool's
// answer is saved to a file instead of shown, and so under its 25,000-
// token limit (MAX_MCP_OUTPUT_TOKENS), with room for the rest of the
// answer. A variable for tests.
var diffBudget = 32000

// streamFiles is the number of files past which a write's result is
// streamed (engine.StreamResults), so that the engine holds no diff it
// will not answer with: a pattern_replace streams whatever its size.
const streamFiles = 256

// diffCap keeps a write's diffs under the budget.
type diffCap struct {
	dryRun  bool
	left    int
	kept    []keptDiff
	omitted int
	first   string // the first file whose diff was left out
}

type keptDiff struct {
	r             *plan.FileResult
	preview, diff string
}

// take decides on one file's diffs: kept (remembered, for a streamed
// result whose diffs the engine drops after this) or left out. A dry
// run's preview counts twice: the answer's combined diff repeats it.
func (c *diffCap) take(r *plan.FileResult) {
	n := len(r.Diff) + len(r.Preview)
	if c.dryRun {
		n = 2 * len(r.Preview)
	}
	if n == 0 {
		return
	}
	if c.omitted == 0 && n <= c.left {
		c.left -= n
		c.kept = append(c.kept, keptDiff{r, r.Preview, r.Diff})
		return
	}
	if c.omitted == 0 {
		c.first = r.Path
	}
	c.omitted++
	r.Preview, r.Diff = "", ""
}

// applyCapped is env.W.Apply with the answer budget: the result it
// returns holds at most diffBudget bytes of diffs, and the answer's value
// (the result itself when nothing was left out).
func applyCapped(ctx context.Context, env *Env, req *plan.Request) (*plan.Result, any) {
	c := &diffCap{dryRun: req.DryRun, left: diffBudget}
	streamed := req.HasPattern() || len(req.FileEdits) > streamFiles
	sctx := ctx
	if streamed {
		sctx = engine.StreamResults(ctx, c.take, true)
	}
	res, _ := env.W.Apply(sctx, req)
	if !streamed {
		return res, capResult(res)
	}
	return res, c.answer(res, true)
}

// capResult is the answer budget on a result the engine gave whole.
func capResult(res *plan.Result) any {
	c := &diffCap{dryRun: res.DryRun, left: diffBudget}
	for _, r := range res.Files {
		c.take(r)
	}
	return c.answer(res, false)
}

// answer restores the kept diffs (a stream dropped them) and gives the
// answer's value.
func (c *diffCap) answer(res *plan.Result, streamed bool) any {
	for _, k := range c.kept {
		k.r.Preview, k.r.Diff = k.preview, k.diff
	}
	if c.dryRun && (streamed || c.omitted > 0) {
		var b strings.Builder
		for _, k := range c.kept {
			b.WriteString(k.preview)
		}
		res.Diff = b.String()
	}
	if c.omitted == 0 {
		return res
	}
	v := &cappedResult{Result: res, DiffsOmitted: c.omitted, DiffBudget: diffBudget}
	switch {
	case res.DryRun:
		v.MoreDiffs = fmt.Sprintf("A dry run's previews past %d bytes are left out, from %s on: preview fewer files (directory, file_pattern) to see them.", diffBudget, c.first)
	case res.TransactionID != "":
		v.MoreDiffs = fmt.Sprintf(`The diffs past %d bytes are left out, from %s on: history {"transaction_id":%q,"offset":%d} returns them, a page at a time; or {"transaction_id":%q,"path":"..."} one file's.`,
			diffBudget, c.first, res.TransactionID, len(c.kept), res.TransactionID)
	default:
		v.MoreDiffs = fmt.Sprintf("The diffs past %d bytes are left out, from %s on.", diffBudget, c.first)
	}
	return v
}

// cappedResult is a write's answer with diffs left out.
type cappedResult struct {
	*plan.Result
	// DiffsOmitted counts the files whose diff the answer leaves out.
	DiffsOmitted int `json:"diffs_omitted"`
	// DiffBudget is the bytes of diffs the answer carries at most.
	DiffBudget int `json:"diff_budget"`
	// MoreDiffs says how to read them.
	MoreDiffs string `json:"more_diffs"`
}
