package main

import (
	"context"
	"flag"
	"strconv"
	"strings"
	"time"

	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/tools"
)

func renameCmd() *command {
	var dryRun, confirm bool
	var server string
	var timeout time.Duration
	return &command{
		name: "rename",
		flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&dryRun, "dry-run", false, "preview only: print the diff, write nothing")
			fs.StringVar(&server, "server", "", "the language server's command (default: by the file's language, gopls serve for Go, found on PATH)")
			fs.BoolVar(&confirm, "confirm", false, "confirm the changes the server marks as needing confirmation")
			fs.DurationVar(&timeout, "timeout", tools.DefaultRenameTimeout, "how long to wait for the language server")
		},
		run: func(ctx context.Context, e *env, args []string) int {
			if len(args) != 2 {
				return e.usageErr("usage: txedit rename [--dry-run] FILE:LINE:COL NEWNAME")
			}
			file, line, col, ok := splitPosition(args[0])
			if !ok {
				return e.usageErr("%q is not FILE:LINE:COL (LINE and COL 1-based, COL in bytes, as gopls rename takes them)", args[0])
			}
			w, err := e.open(nil)
			if err != nil {
				return e.fail(err)
			}
			defer w.Close()
			// The rename's guard is the hashes of what the server was
			// sent, not a read by this process.
			s := w.NewSession(engine.SessionOptions{Agent: e.agentName(), NoReadCheck: true})
			o := tools.RenameOptions{Path: file, Line: line, Column: col, NewName: args[1], DryRun: dryRun, Confirm: confirm, Server: strings.Fields(server), Timeout: timeout}
			out := e.newResultPrinter(dryRun)
			res, _ := tools.Rename(out.context(ctx), s, o)
			out.end(res)
			if e.json {
				return exitCode(res.Code)
			}
			e.printChanges(res)
			e.printGroups(res.Groups)
			e.printResult(res)
			return exitCode(res.Code)
		},
	}
}

// splitPosition splits FILE:LINE:COL (the file may hold colons itself).
func splitPosition(s string) (file string, line, col int, ok bool) {
	i := strings.LastIndexByte(s, ':')
	if i <= 0 {
		return "", 0, 0, false
	}
	j := strings.LastIndexByte(s[:i], ':')
	if j <= 0 {
		return "", 0, 0, false
	}
	l, err1 := strconv.Atoi(s[j+1 : i])
	c, err2 := strconv.Atoi(s[i+1:])
	if err1 != nil || err2 != nil || l < 1 || c < 1 {
		return "", 0, 0, false
	}
	return s[:j], l, c, true
}
