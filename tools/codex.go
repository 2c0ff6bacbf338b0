package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/txedit/txedit/apply/patch"
	"github.com/txedit/txedit/plan"
)

// codexToolset builds the codex toolset (tools.go, toolsets).
func codexToolset() *Toolset {
	return &Toolset{Name: "codex", Description: "OpenAI Codex's apply_patch as @openai/codex 0.169.0 has it (its envelope, its answers; but all or nothing, and ambiguous context is refused), plus txedit's read tools",
		Fail:  codexFail,
		Tools: []*Tool{codexApplyPatch(), fsReadTool(false), globTool(), grepTool()}}
}

// The apply_patch description, in Codex's words where the format is
// concerned, and txedit's where txedit behaves otherwise (nothing is
// written when anything fails; ambiguous context is refused).
const applyPatchDescription = `Use the apply_patch tool to edit files. The patch language is a stripped-down, file-oriented diff format:

*** Begin Patch
[ one or more file sections ]
*** End Patch

Each file section starts with one of three headers:
*** Add File: <path> - create a new file (or replace one). Every following line is a + line (the initial contents).
*** Delete File: <path> - remove an existing file. Nothing follows.
*** Update File: <path> - patch an existing file in place (optionally followed by *** Move to: <new path> to rename it).
An Update is a series of hunks, each introduced by @@ (optionally followed by a line of code, such as a function or class
header, that the hunk comes after; several @@ lines narrow it down). In a hunk, a line starting with a space is context,
- is removed, + is added. Give 3 lines of context above and below each change. *** End of File marks a hunk that ends the file.

The whole patch is applied all or nothing: if any hunk does not fit, nothing is written and the error says which hunk and
where the closest text is. Context that matches in more than one place is refused as ambiguous (add an @@ line or more
context). Whitespace and Unicode punctuation differences are tolerated and reported. A patch sent twice is reported as
already applied, not applied twice. Every change is undoable with txedit undo.`

func codexApplyPatch() *Tool {
	return &Tool{
		Name:        "apply_patch",
		Description: applyPatchDescription,
		Schema:      object([]string{"input"}, map[string]any{"input": str("The entire contents of the apply_patch command")}),
		Examples:    []string{`{"input":"*** Begin Patch\n*** Update File: a.go\n@@ func main() {\n-\told()\n+\tnew()\n*** End Patch\n"}`},
		Run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			var a struct{ Input string }
			if err := decode(args, &a); err != nil {
				return codexFail(err)
			}
			req, _, err := patch.Compile(patch.FormatApplyPatch, []byte(a.Input))
			if err != nil {
				return codexFail(err)
			}
			req.DeltaShown = true
			res, err := env.W.Apply(ctx, req)
			if err != nil {
				// Each failure's text already starts with its code.
				return Result{Value: patchFailure(res), OK: false, Code: plan.CodeOf(err)}
			}
			// An Add File is "A" even where it replaced a file, as Codex
			// lists it.
			added := map[string]bool{}
			for _, fe := range req.FileEdits {
				if len(fe.Edits) > 0 && (fe.Edits[0].Command == "create" || fe.Edits[0].Command == "write") {
					added[fe.Path] = true
				}
			}
			return Result{Value: codexSummary(res, added), OK: true}
		},
		Compact: func(a map[string]any) string {
			in, _ := a["input"].(string)
			var files []string
			for _, l := range strings.Split(in, "\n") {
				for _, h := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: "} {
					if p, ok := strings.CutPrefix(strings.TrimSpace(l), strings.TrimSpace(h)); ok {
						files = append(files, strings.TrimSpace(p))
					}
				}
			}
			return strings.Join(files, ", ")
		},
	}
}

// codexFail is Codex's failure: text the model reads (with txedit's code
// in front of it over MCP).
func codexFail(err error) Result {
	return Result{Value: err.Error(), OK: false, Code: plan.CodeOf(err)}
}

// codexSummary is Codex's success text: "Success. Updated the following
// files:" and a line per file (A added, M modified, D deleted; the added
// files first, then the modified, then the deleted, each in the patch's
// order, as Codex 0.169.0 lists them), and
// txedit's notes on files already applied and on hunks placed by a looser
// rung of the matching ladder.
func codexSummary(res *plan.Result, added map[string]bool) string {
	var b strings.Builder
	var notes []string
	letter := map[plan.Status]string{plan.StatusCreated: "A", plan.StatusModified: "M", plan.StatusDeleted: "D", plan.StatusMoved: "M", plan.StatusCopied: "A"}
	var lines [3][]string // A, M, D: Codex lists them in this order, each in the patch's order
	kind := map[string]int{"A": 0, "M": 1, "D": 2}
	for _, f := range res.Files {
		switch {
		case f.Status == plan.StatusAlreadyApplied:
			notes = append(notes, f.Path+": already applied; left as it is")
		case letter[f.Status] != "":
			p := f.Path
			if f.NewPath != "" {
				p = f.NewPath
			}
			l := letter[f.Status]
			if added[f.Path] {
				l = "A"
			}
			lines[kind[l]] = append(lines[kind[l]], l+" "+p)
		}
		if f.Delta != nil && f.Delta.Rebased {
			notes = append(notes, f.Path+": "+strings.TrimPrefix(rebasedNote(&plan.Result{Files: []*plan.FileResult{f}}), "\n\nNote (txedit): "))
		}
		for _, h := range f.Hunks {
			if h.Rung != plan.RungExact {
				notes = append(notes, fmt.Sprintf("%s: hunk %d matched at line %d (%s)", f.Path, h.Hunk+1, h.Line, h.Rung))
			}
		}
	}
	if len(lines[0])+len(lines[1])+len(lines[2]) == 0 {
		b.WriteString("Nothing to change: the patch is already applied.\n")
	} else {
		b.WriteString("Success. Updated the following files:\n")
		for _, ls := range lines {
			for _, l := range ls {
				b.WriteString(l + "\n")
			}
		}
	}
	for _, n := range notes {
		b.WriteString(n + "\n")
	}
	return b.String()
}

// patchFailure is what went wrong with a patch, hunk by hunk.
func patchFailure(res *plan.Result) string {
	var parts []string
	for _, f := range res.Files {
		for _, fe := range f.FailedEdits {
			parts = append(parts, fe.Error)
		}
		if len(f.FailedEdits) == 0 && f.Error != "" {
			parts = append(parts, f.Error)
		}
		if f.Delta != nil && !f.Delta.Rebased {
			parts = append(parts, strings.TrimPrefix(staleNote(f.Delta, numbered), "\n\n"))
		}
	}
	if len(parts) == 0 {
		parts = append(parts, res.Error)
	}
	return strings.Join(parts, "\n") + "\nNothing was written."
}
