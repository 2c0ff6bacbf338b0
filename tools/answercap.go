package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/plan"
)

// The answer budget of the txedit toolset's writes (docs/toolsets.md,
// "The answer budget"): a write's answer carries its files' entries, each
// with its diff in full, until they add up to diffBudget bytes of compact
// JSON; past that a file keeps no diff, and a file that succeeded no
// entry either (a failure, a refusal's delta and a failed edit are always
// listed), and the answer says how many diffs and entries it left out and
// how to read them (history, by transaction id). A diff is never cut.

// diffBudget is the bytes of compact JSON a write's answer gives its
// files' entries and diffs: under Claude Code's 50,000-character threshold
// past which an MCP tool's answer is no longer passed through untouched,
// and so under its 25,000-token limit (MAX_MCP_OUTPUT_TOKENS), with room
// for the rest of the answer. A variable for tests.
var diffBudget = 40000

// streamFiles is the number of files past which a write's result is
// streamed (engine.StreamResults), so that the engine holds no diff it
// will not answer with: a pattern_replace streams whatever its size.
const streamFiles = 256

// diffCap keeps a write's answer under the budget.
type diffCap struct {
	dryRun  bool
	left    int
	kept    []keptDiff
	omitted int                       // files whose diff is left out
	dropped map[*plan.FileResult]bool // files whose entry is left out
	first   string                    // the first file whose diff was left out
	over    bool                      // a file went past the budget
}

type keptDiff struct {
	r             *plan.FileResult
	preview, diff string
}

// take decides on one file: its entry and diffs kept (remembered, for a
// streamed result whose diffs the engine drops after this) or left out,
// by the bytes of its entry's compact JSON. A dry run's preview counts
// twice: the answer's combined diff repeats it. Once one file is past the
// budget every later one is (the answer keeps a prefix of the files, and
// every failure).
func (c *diffCap) take(r *plan.FileResult) {
	if !c.over {
		b, _ := json.Marshal(r)
		n := len(b)
		if c.dryRun {
			n += len(r.Preview)
		}
		if n <= c.left {
			c.left -= n
			if r.Diff != "" || r.Preview != "" {
				c.kept = append(c.kept, keptDiff{r, r.Preview, r.Diff})
			}
			return
		}
		c.over = true
	}
	// A streamed commit's diffs past the budget are not read back from
	// the journal (want): each is counted by its DiffLeft.
	if r.Diff != "" || r.Preview != "" || r.DiffLeft {
		if c.omitted == 0 {
			c.first = r.Path
		}
		c.omitted++
		r.Preview, r.Diff = "", ""
	}
	if r.Success && r.Delta == nil && len(r.FailedEdits) == 0 && r.Error == "" {
		if c.dropped == nil {
			c.dropped = map[*plan.FileResult]bool{}
		}
		c.dropped[r] = true
	}
}

// want reports whether a streamed commit's next diff may still fit: once
// one file went past the budget none does, and none is read back.
func (c *diffCap) want() bool { return !c.over }

// applyCapped is env.W.Apply with the answer budget: the result it
// returns, and the answer's value (the result itself when nothing was
// left out).
func applyCapped(ctx context.Context, env *Env, req *plan.Request) (*plan.Result, any) {
	c := &diffCap{dryRun: req.DryRun, left: diffBudget}
	streamed := req.HasPattern() || len(req.FileEdits) > streamFiles
	sctx := ctx
	if streamed {
		sctx = engine.StreamResultsWhile(ctx, c.take, c.want)
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
	if c.dryRun && (streamed || c.omitted > 0 || len(c.dropped) > 0) {
		var b strings.Builder
		for _, k := range c.kept {
			b.WriteString(k.preview)
		}
		res.Diff = b.String()
	}
	if c.omitted == 0 && len(c.dropped) == 0 {
		return res
	}
	v := &cappedResult{Result: res, DiffsOmitted: c.omitted, FilesOmitted: len(c.dropped), DiffBudget: diffBudget}
	if len(c.dropped) > 0 {
		short := *res
		short.Files = nil
		for _, f := range res.Files {
			if !c.dropped[f] {
				short.Files = append(short.Files, f)
			}
		}
		v.Result = &short
	}
	past := fmt.Sprintf("Past %d bytes of file entries the answer leaves out %d files' diffs, from %s on, and the entries of %d files that succeeded (every failure is listed)", diffBudget, c.omitted, c.first, len(c.dropped))
	switch {
	case res.DryRun:
		v.MoreDiffs = past + ": preview fewer files (directory, file_pattern) to see them."
	case res.TransactionID != "":
		v.MoreDiffs = fmt.Sprintf(`%s: history {"transaction_id":%q,"offset":%d} lists those files with their diffs, a page at a time; or {"transaction_id":%q,"path":"..."} one file's.`,
			past, res.TransactionID, len(c.kept), res.TransactionID)
	default:
		v.MoreDiffs = past + "."
	}
	return v
}

// cappedResult is a write's answer with diffs left out.
type cappedResult struct {
	*plan.Result
	// DiffsOmitted counts the files whose diff the answer leaves out.
	DiffsOmitted int `json:"diffs_omitted"`
	// FilesOmitted counts the files that succeeded whose entries the
	// answer leaves out.
	FilesOmitted int `json:"files_omitted"`
	// DiffBudget is the bytes of diffs the answer carries at most.
	DiffBudget int `json:"diff_budget"`
	// MoreDiffs says how to read them.
	MoreDiffs string `json:"more_diffs"`
}
