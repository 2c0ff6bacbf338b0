package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/plan"
)

func replaceCmd() *command {
	var dryRun, literal, hidden, noIgnore, noRecurse, skipUnreadable bool
	var glob string
	var excludes multiFlag
	return &command{
		name: "replace",
		flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&dryRun, "dry-run", false, "print the diff, write nothing")
			fs.StringVar(&glob, "glob", "*", "files to change (without / it matches base names at any depth; ** crosses directories)")
			fs.Var(&excludes, "exclude", "leave out files or directories matching this glob (dir/** prunes a subtree); repeatable")
			fs.BoolVar(&literal, "literal", false, "REGEX and REPLACEMENT are plain strings")
			fs.BoolVar(&hidden, "hidden", false, "include dot-files")
			fs.BoolVar(&noIgnore, "no-ignore", false, "do not honour .gitignore and .ignore")
			fs.BoolVar(&noRecurse, "no-recursive", false, "only the directory itself, not its subdirectories")
			fs.BoolVar(&skipUnreadable, "skip-unreadable", false, "change what can be changed and list the files that cannot (too large, unreadable) instead of failing (atomic: false)")
		},
		run: func(ctx context.Context, e *env, args []string) int {
			if len(args) < 1 || len(args) > 2 {
				return e.usageErr("usage: txedit replace [--dry-run] [--glob G] [--exclude G]... [--literal] [--skip-unreadable] 's/RE/REP/FLAGS' [DIR]")
			}
			rec := !noRecurse
			req := &plan.Request{Edit: plan.Edit{Command: "pattern_replace"}, SedPattern: args[0], FilePattern: glob, ExcludePatterns: excludes,
				Recursive: &rec, Literal: literal, Hidden: hidden, NoIgnore: noIgnore, DryRun: dryRun, Directory: "."}
			if len(args) == 2 {
				req.Directory = args[1]
			}
			if skipUnreadable {
				atomic := false
				req.Atomic = &atomic
			}
			opts := &engine.Options{}
			bar := newProgressBar(e.stderr)
			if bar != nil && !e.json {
				opts.Progress = bar.update
			}
			w, err := e.open(opts)
			if err != nil {
				return e.fail(err)
			}
			defer w.Close()
			out := e.newResultPrinter(dryRun)
			out.before = bar.clear // the scan's progress line goes before the diff does
			res, _ := w.Apply(out.context(ctx), req)
			bar.clear()
			out.end(res)
			if e.json {
				return exitCode(res.Code)
			}
			e.printChanges(res)
			replacements := 0
			for _, f := range res.Files {
				replacements += f.Replacements
			}
			for _, s := range res.Skipped {
				fmt.Fprintf(e.stderr, e.pfx()+"skipped %s (%s): %s\n", s.Path, s.Code, strings.TrimPrefix(s.Reason, string(s.Code)+": "))
			}
			if res.Success {
				fmt.Fprintf(e.stdout, "%d replacement(s) in %d file(s); %d file(s) skipped\n", replacements, res.FilesModified, res.FilesSkipped)
			}
			e.printResult(res)
			return exitCode(res.Code)
		},
	}
}

// progressBar draws progress on a terminal's stderr; on anything else it
// is nil and draws nothing.
type progressBar struct {
	w     io.Writer
	drawn bool
}

func newProgressBar(w io.Writer) *progressBar {
	if !isTerminal(w) || os.Getenv("TERM") == "dumb" {
		return nil
	}
	return &progressBar{w: w}
}

func (b *progressBar) update(phase string, done, total int) {
	if b == nil {
		return
	}
	b.drawn = true
	if total > 0 {
		const width = 30
		n := done * width / total
		fmt.Fprintf(b.w, "\r\x1b[K%-6s [%s%s] %d/%d", phase, repeat('=', n), repeat(' ', width-n), done, total)
		return
	}
	fmt.Fprintf(b.w, "\r\x1b[K%-6s %d files", phase, done)
}

func (b *progressBar) clear() {
	if b != nil && b.drawn {
		fmt.Fprint(b.w, "\r\x1b[K")
		b.drawn = false
	}
}

func repeat(c byte, n int) string {
	if n <= 0 {
		return ""
	}
	out := make([]byte, n)
	for i := range out {
		out[i] = c
	}
	return string(out)
}
