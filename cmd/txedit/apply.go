package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/txedit/txedit/apply/patch"
	"github.com/txedit/txedit/plan"
)

func applyCmd() *command {
	var dryRun bool
	var format string
	return &command{
		name: "apply",
		flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&dryRun, "dry-run", false, "preview only: print the diff, write nothing")
			fs.StringVar(&format, "format", "auto", "the input's format: auto, json, apply_patch, responses, diff or search_replace")
		},
		run: func(ctx context.Context, e *env, args []string) int {
			if len(args) > 1 {
				return e.usageErr("apply takes at most one request file")
			}
			data, err := readInput(e, args)
			if err != nil {
				return e.fail(err)
			}
			f, err := patch.ParseFormat(format)
			if err != nil {
				return e.usageErr("%v", err)
			}
			req, _, err := patch.Compile(f, data)
			if err != nil {
				return e.fail(err)
			}
			if dryRun {
				req.DryRun = true
			}
			w, err := e.open(nil)
			if err != nil {
				return e.fail(err)
			}
			defer w.Close()
			res, _ := w.Apply(ctx, req)
			if e.json {
				e.printJSON(res)
				return exitCode(res.Code)
			}
			e.printChanges(res)
			e.printResult(res)
			return exitCode(res.Code)
		},
	}
}

// printChanges prints what a write did: the diff of a dry run, or a
// diffstat of the transaction it committed (from the result: nothing is
// read back).
func (e *env) printChanges(res *plan.Result) {
	if res.DryRun {
		e.printDiff(res.Diff)
	} else if res.TransactionID != "" {
		e.printStat(res)
	}
}

// printResult prints a human summary of a write result.
func (e *env) printResult(res *plan.Result) {
	defer e.printWarnings(res)
	for _, f := range res.Files {
		if f.Status == "already_applied" {
			fmt.Fprintf(e.stderr, "txedit: %s: already applied; left as it is\n", f.Path)
		}
		for _, h := range f.Hunks {
			if h.Rung != plan.RungExact || h.Offset != 0 {
				fmt.Fprintf(e.stderr, "txedit: %s: hunk %d placed at line %d%s\n", f.Path, h.Hunk+1, h.Line, hunkNote(h))
			}
		}
		for _, fe := range f.FailedEdits {
			fmt.Fprintf(e.stderr, "txedit: %s\n", fe.Error)
		}
		if len(f.FailedEdits) == 0 && f.Error != "" {
			fmt.Fprintf(e.stderr, "txedit: %s\n", f.Error)
		}
	}
	switch {
	case res.DryRun && res.Success:
		fmt.Fprintf(e.stdout, "dry run: %d file(s) would change; nothing was written\n", res.FilesModified)
	case res.DryRun:
		fmt.Fprintf(e.stderr, "txedit: dry run failed: %s\n", res.Error)
	case res.Success && res.TransactionID == "":
		fmt.Fprintln(e.stdout, "nothing to change")
	case res.TransactionID != "":
		fmt.Fprintf(e.stdout, "committed %s: %d file(s) changed (txedit undo %s reverts it)\n", res.TransactionID, res.FilesModified, res.TransactionID)
		if !res.Success {
			fmt.Fprintf(e.stderr, "txedit: %s\n", res.Error)
		}
	default:
		if n := countFailures(res); n > 0 {
			fmt.Fprintf(e.stderr, "txedit: nothing was written: %d edit(s) failed and the request is atomic\n", n)
		} else {
			fmt.Fprintf(e.stderr, "txedit: error: %s\n", strings.TrimPrefix(res.Error, string(res.Code)+": "))
		}
	}
}

// hunkNote says how a hunk was placed when it was not exactly where the
// patch said.
func hunkNote(h plan.HunkReport) string {
	var parts []string
	if h.Rung != plan.RungExact {
		parts = append(parts, "matched "+map[plan.Rung]string{plan.RungTrailingSpace: "ignoring trailing whitespace",
			plan.RungWhitespace: "ignoring leading and trailing whitespace", plan.RungUnicode: "with Unicode punctuation normalised"}[h.Rung])
	}
	if h.Offset != 0 {
		parts = append(parts, fmt.Sprintf("offset %+d lines", h.Offset))
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func countFailures(res *plan.Result) int {
	n := 0
	for _, f := range res.Files {
		n += f.EditsFailed
	}
	return n
}

// printStat prints a git-style diffstat of a committed result.
func (e *env) printStat(res *plan.Result) {
	letter := map[string]string{"created": "A", "modified": "M", "deleted": "D", "moved": "R", "copied": "C"}
	for _, f := range res.Files {
		if f.Status == "" {
			continue
		}
		name := f.Path
		if f.NewPath != "" {
			name = f.NewPath
		}
		fmt.Fprintf(e.stdout, " %s %s", letter[f.Status], name)
		if f.LinesAdded+f.LinesRemoved > 0 {
			fmt.Fprintf(e.stdout, " (+%d -%d)", f.LinesAdded, f.LinesRemoved)
		}
		fmt.Fprintln(e.stdout)
	}
}

// printDiff prints a unified diff, coloured on a terminal.
func (e *env) printDiff(diff string) {
	if !e.color {
		fmt.Fprint(e.stdout, diff)
		return
	}
	const (
		bold  = "\x1b[1m"
		red   = "\x1b[31m"
		green = "\x1b[32m"
		cyan  = "\x1b[36m"
		reset = "\x1b[0m"
	)
	var b strings.Builder
	for _, line := range strings.SplitAfter(diff, "\n") {
		body := strings.TrimSuffix(line, "\n")
		nl := line[len(body):]
		switch {
		case strings.HasPrefix(line, "diff --git"), strings.HasPrefix(line, "--- "), strings.HasPrefix(line, "+++ "),
			strings.HasPrefix(line, "new file"), strings.HasPrefix(line, "deleted file"), strings.HasPrefix(line, "rename "):
			b.WriteString(bold + body + reset + nl)
		case strings.HasPrefix(line, "@@"):
			b.WriteString(cyan + body + reset + nl)
		case strings.HasPrefix(line, "+"):
			b.WriteString(green + body + reset + nl)
		case strings.HasPrefix(line, "-"):
			b.WriteString(red + body + reset + nl)
		default:
			b.WriteString(line)
		}
	}
	fmt.Fprint(e.stdout, b.String())
}
