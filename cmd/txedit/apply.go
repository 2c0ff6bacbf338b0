package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/txedit/txedit/apply/patch"
	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/plan"
	"github.com/txedit/txedit/tools"
)

func applyCmd() *command {
	var dryRun, confirm bool
	var format, encoding string
	return &command{
		name: "apply",
		flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&dryRun, "dry-run", false, "preview only: print the diff, write nothing")
			fs.StringVar(&format, "format", "auto", "the input's format: "+strings.Join(formatNames(), ", "))
			fs.StringVar(&encoding, "position-encoding", "utf-16", "lsp: what a position's character counts: utf-8, utf-16 or utf-32")
			fs.BoolVar(&confirm, "confirm", false, "lsp: confirm the changes whose annotation needs confirmation")
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
			enc, err := plan.ParsePositionEncoding(encoding)
			if err != nil {
				return e.usageErr("%v", err)
			}
			if f == patch.FormatAuto {
				f = patch.Detect(data)
			}
			var w, tree *engine.Workspace
			if f == patch.FormatLSP || !dryRun {
				// A WorkspaceEdit compiles against the tree as it is. A
				// write makes the workspace's journal, if it has none,
				// while its request is parsed (a module release's diff:
				// 5-17 ms; bench/README.md, "round 5 (stage5)").
				if w, err = e.open(nil); err != nil {
					return e.fail(err)
				}
				defer w.Close()
				if !dryRun {
					w.StartJournal()
				}
				if f == patch.FormatLSP {
					tree = w
				}
			}
			req, we, err := compileInput(f, data, tree, patch.LSPOptions{Encoding: enc, Confirm: confirm, DryRun: dryRun})
			if err != nil {
				return e.fail(err)
			}
			if p := applyGCPercent(req); p > 0 && os.Getenv("GOGC") == "" {
				debug.SetGCPercent(p)
			}
			if dryRun {
				req.DryRun = true
			}
			req.ProveRetries = true // say when a request sent again is in effect
			if w == nil {
				if w, err = e.open(nil); err != nil {
					return e.fail(err)
				}
				defer w.Close()
			}
			var groups []plan.ChangeGroup
			if we != nil && req.DryRun {
				groups, _ = tools.GroupsOf(ctx, w, we)
				if !e.json {
					e.printGroups(groups)
				}
			}
			out := e.newResultPrinter(req.DryRun)
			res, _ := w.Apply(out.context(ctx), req)
			if we != nil {
				res.Warnings = append(we.Warnings, res.Warnings...)
				res.Groups = groups
			}
			out.end(res)
			if e.json {
				return exitCode(res.Code)
			}
			e.printChanges(res)
			e.printResult(res)
			return exitCode(res.Code)
		},
	}
}

// applyGCPercent is the collector's setting for a request, once it is
// parsed (0: keep the command's 100). A request of edits and patches
// holds its parsed hunks, pointers all, while it reads, patches and
// stages its files: at 150 a module release's diff of 40-110 files took
// 7-20% less CPU than at 100 (hyperfine, 10 runs each, tmpfs), at 1-3%
// more peak RSS. A request of at most smallRequestFiles files takes 300:
// the 20 real diffs of 25-108 files the benchmark applies then ran 6
// collections in all, not 29 (none in 14 of them; GODEBUG=gctrace=1),
// and one that runs while the transaction has widened the Ps (par.Widen:
// 8 on 2 cores) takes both cores from staging for its mark phase (a
// quarter of 8 Ps), at ±1-2.6 MB of peak RSS. A bigger request keeps 150,
// whose heap it needs (a 1,000-file apply at 300: peak RSS 45 -> 56 MB;
// bench/README.md, "round 4 (rdfix)"). A pattern_replace reads a whole
// tree through buffers that die young, where 100 reuses their pages
// (gcPercent): it stays at 100.
func applyGCPercent(req *plan.Request) int {
	if req.HasPattern() {
		return 0
	}
	if len(req.FileEdits) <= smallRequestFiles {
		return 300
	}
	return 150
}

// smallRequestFiles is the most files a request of edits may name and
// still be collected at applyGCPercent's 300.
const smallRequestFiles = 128

// compileInput compiles a request in format f (detected already; ""
// when it could not be); an LSP WorkspaceEdit against w.
func compileInput(f patch.Format, data []byte, w *engine.Workspace, o patch.LSPOptions) (*plan.Request, *patch.WorkspaceEdit, error) {
	if f == "" {
		f = patch.FormatAuto // Compile says what it expected
	}
	if w != nil {
		o.Tree = w.Tree()
	}
	req, _, we, err := patch.CompileWith(f, data, o)
	return req, we, err
}

// printGroups prints a WorkspaceEdit's changes by change annotation,
// before its dry run's diff: every line starts with "# ", so that git
// apply and patch, which skip what stands before a diff, still take the
// output as it is.
func (e *env) printGroups(groups []plan.ChangeGroup) {
	if len(groups) == 0 {
		return
	}
	w := bufio.NewWriter(e.stdout)
	defer w.Flush()
	fmt.Fprintln(w, "# The WorkspaceEdit's changes by label (txedit apply --confirm applies those that need confirmation):")
	for _, g := range groups {
		label := g.Label
		if label == "" {
			label = "(no label)"
		}
		if g.NeedsConfirmation {
			label += " (needs confirmation)"
		}
		if g.Description != "" {
			label += ": " + g.Description
		}
		fmt.Fprintf(w, "# %s\n", label)
		for _, c := range g.Changes {
			switch c.Op {
			case "edit":
				fmt.Fprintf(w, "#   %s:%d\n", c.Path, c.Line)
				groupLines(w, "-", c.Old)
				groupLines(w, "+", c.New)
			case "rename":
				fmt.Fprintf(w, "#   rename %s to %s\n", c.Path, c.NewPath)
			default:
				fmt.Fprintf(w, "#   %s %s\n", c.Op, c.Path)
			}
		}
	}
}

// groupLines prints text's lines, each after "#   " and mark.
func groupLines(w io.Writer, mark, text string) {
	if text == "" {
		return
	}
	for _, l := range strings.SplitAfter(strings.TrimSuffix(text, "\n"), "\n") {
		fmt.Fprintf(w, "#   %s%s\n", mark, strings.TrimRight(l, "\r\n"))
	}
}

// formatNames are the formats --format takes.
func formatNames() []string {
	var names []string
	for _, f := range patch.Formats {
		names = append(names, string(f))
	}
	return names
}

// resultPrinter prints a write's result as the engine hands it over, file
// by file, so that a replacement across 50,000 files never holds all its
// diffs: a dry run's diff is printed file by file; --json writes the files
// array element by element and the rest of the result object after it
// (so "files" comes first, then "success" and the other fields).
type resultPrinter struct {
	e       *env
	w       *bufio.Writer
	dryRun  bool
	started bool   // --json: the files array is open
	before  func() // if set, runs before a file is printed
}

func (e *env) newResultPrinter(dryRun bool) *resultPrinter {
	return &resultPrinter{e: e, w: bufio.NewWriterSize(e.stdout, 64<<10), dryRun: dryRun}
}

// context asks the engine to stream results to the printer. Text output
// prints no committed diff (a diffstat from the result), so the engine
// need not read them back from the journal for it.
func (p *resultPrinter) context(ctx context.Context) context.Context {
	return engine.StreamResults(ctx, p.file, p.e.json)
}

func (p *resultPrinter) file(r *plan.FileResult) {
	if p.before != nil {
		p.before()
	}
	if !p.e.json {
		if p.dryRun {
			writeDiff(p.w, r.Preview, p.e.color)
		}
		return
	}
	if !p.started {
		p.w.WriteString("{\n  \"files\": [\n    ")
		p.started = true
	} else {
		p.w.WriteString(",\n    ")
	}
	p.w.Write(bytes.TrimSuffix(encodeJSON(r, "    "), []byte("\n")))
}

// end prints what is left of the result (--json: the object's other
// fields) and flushes.
func (p *resultPrinter) end(res *plan.Result) {
	defer p.w.Flush()
	if !p.e.json {
		return
	}
	rest := *res
	rest.Files = []*plan.FileResult{}
	obj := bytes.Replace(encodeJSON(&rest, ""), []byte("\n  \"files\": [],"), nil, 1)
	if p.started {
		p.w.WriteString("\n  ],")
	} else {
		p.w.WriteString("{\n  \"files\": [],")
	}
	p.w.Write(obj[1:]) // after its "{"
}

// encodeJSON is printJSON's encoding, every line after the first indented
// by prefix.
func encodeJSON(v any, prefix string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent(prefix, "  ")
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return b.Bytes()
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
		switch {
		case f.Status == plan.StatusAlreadyApplied && f.AppliedBy != "":
			fmt.Fprintf(e.stderr, e.pfx()+"%s: already in effect: transaction %s made this change (txedit show %s); nothing to do\n", f.Path, f.AppliedBy, f.AppliedBy)
		case f.Status == plan.StatusAlreadyApplied:
			fmt.Fprintf(e.stderr, e.pfx()+"%s: already applied; left as it is\n", f.Path)
		}
		for _, h := range f.Hunks {
			if h.Rung != plan.RungExact || h.Offset != 0 || h.Recounted {
				fmt.Fprintf(e.stderr, e.pfx()+"%s: hunk %d placed at line %d%s\n", f.Path, h.Hunk+1, h.Line, hunkNote(h))
			}
		}
		for _, fe := range f.FailedEdits {
			fmt.Fprintf(e.stderr, e.pfx()+"%s\n", fe.Error)
		}
		if len(f.FailedEdits) == 0 && f.Error != "" {
			fmt.Fprintf(e.stderr, e.pfx()+"%s\n", f.Error)
		}
	}
	switch {
	case res.DryRun && res.Success:
		fmt.Fprintf(e.stdout, "dry run: %d file(s) would change; nothing was written\n", res.FilesModified)
	case res.DryRun:
		fmt.Fprintf(e.stderr, e.pfx()+"dry run failed: %s\n", res.Error)
	case res.Success && res.TransactionID == "":
		fmt.Fprintln(e.stdout, "nothing to change")
	case res.TransactionID != "":
		how := fmt.Sprintf("txedit undo %s reverts it", res.TransactionID)
		if strings.HasPrefix(res.Summary, "undo ") {
			how = "txedit redo brings it back"
		}
		fmt.Fprintf(e.stdout, "committed %s: %d file(s) changed (%s)\n", res.TransactionID, res.FilesModified, how)
		if !res.Success {
			fmt.Fprintf(e.stderr, e.pfx()+"%s\n", res.Error)
		}
	default:
		if n := countFailures(res); n > 0 {
			fmt.Fprintf(e.stderr, e.pfx()+"nothing was written: %d edit(s) failed and the request is atomic\n", n)
		} else {
			fmt.Fprintf(e.stderr, e.pfx()+"%s\n", strings.TrimPrefix(res.Error, string(res.Code)+": "))
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
	if h.Recounted {
		parts = append(parts, "counts recounted: its header's line counts did not match its lines")
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
	letter := map[plan.Status]string{plan.StatusCreated: "A", plan.StatusModified: "M", plan.StatusDeleted: "D", plan.StatusMoved: "R", plan.StatusCopied: "C"}
	w := bufio.NewWriter(e.stdout)
	defer w.Flush()
	for _, f := range res.Files {
		if f.Status == "" {
			continue
		}
		name := f.Path
		if f.NewPath != "" {
			name = f.NewPath
		}
		fmt.Fprintf(w, " %s %s", letter[f.Status], name)
		if f.LinesAdded+f.LinesRemoved > 0 {
			fmt.Fprintf(w, " (+%d -%d)", f.LinesAdded, f.LinesRemoved)
		}
		fmt.Fprintln(w)
	}
}

// printDiff prints a unified diff, coloured on a terminal.
func (e *env) printDiff(diff string) { writeDiff(e.stdout, diff, e.color) }

func writeDiff(w io.Writer, diff string, color bool) {
	if !color {
		io.WriteString(w, diff)
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
	io.WriteString(w, b.String())
}
