package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/internal/mcpcli"
	"github.com/txedit/txedit/plan"
	"github.com/txedit/txedit/tools"
)

func toolCmd() *command {
	var toolset, server string
	var allowExec bool
	return &command{
		name: "tool",
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&toolset, "toolset", tools.Default, "toolset: "+strings.Join(tools.Names(), ", "))
			fs.BoolVar(&allowExec, "allow-execute", false, "allow the execute tool")
			fs.StringVar(&server, "server", "", "the language server rename_symbol starts (default: by the file's language, gopls serve for Go, found on PATH)")
		},
		run: func(ctx context.Context, e *env, args []string) int {
			if len(args) != 1 {
				return e.usageErr("usage: txedit tool NAME [--toolset T] < args.json")
			}
			ts, err := tools.Get(toolset)
			if err != nil {
				return e.fail(err)
			}
			// A read tool opens the workspace read-only: a read never
			// recovers anything, nor needs the journal (docs/journal.md,
			// "Recovery").
			opts := &engine.Options{}
			for _, x := range ts.Tools {
				if x.Name == args[0] && x.ReadOnly {
					opts.ReadOnly = true
				}
			}
			w, err := e.open(opts)
			if err != nil {
				return e.fail(err)
			}
			defer w.Close()
			// One call, one session: the read-before-write rule needs a
			// session that lives across calls (MCP, the Go library).
			// --allow-execute is the person's approval of commands: the
			// library's default asks an Approve function, and without one
			// runs none (tools.Env).
			env := &tools.Env{W: w.NewSession(engine.SessionOptions{Agent: e.agentName(), NoReadCheck: true}), AllowExecute: allowExec, Mode: mcpcli.ExecMode(tools.ModeDefault, allowExec),
				LanguageServer: strings.Fields(server)}
			var t *tools.Tool
			var names []string
			for _, x := range ts.Offered(false, env) {
				names = append(names, x.Name)
				if x.Name == args[0] {
					t = x
				}
			}
			if t == nil {
				return e.fail(plan.Errorf(plan.CodeInvalidRequest, "", "toolset %s has no tool %q (it has %s)", ts.Name, args[0], strings.Join(names, ", ")))
			}
			if p := toolGCPercent(t); p > 0 && os.Getenv("GOGC") == "" {
				debug.SetGCPercent(p)
			}
			in, err := io.ReadAll(e.stdin)
			if err != nil {
				return e.fail(err)
			}
			if isTerminal(e.stderr) {
				// For people watching: the call in one line, as agent UIs
				// show it; stdout stays the result JSON.
				var a map[string]any
				json.Unmarshal(in, &a)
				fmt.Fprintf(e.stderr, "● %s(%s)\n", t.Name, t.Compact(a))
			}
			r := tools.Call(ctx, env, t, in)
			e.printJSON(r.Value)
			return exitCode(r.Code)
		},
	}
}

func schemaCmd() *command {
	var toolset, format string
	var readOnly, allowExec bool
	return &command{
		name: "schema",
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&toolset, "toolset", tools.Default, "toolset: "+strings.Join(tools.Names(), ", "))
			fs.StringVar(&format, "format", "mcp", "mcp, openai or anthropic")
			fs.BoolVar(&readOnly, "read-only", false, "list only the read tools, as txedit mcp --read-only offers")
			fs.BoolVar(&allowExec, "allow-execute", false, "list the execute tool, as txedit mcp --allow-execute offers")
		},
		run: func(ctx context.Context, e *env, args []string) int {
			if len(args) > 0 {
				return e.usageErr("schema takes no arguments")
			}
			ts, err := tools.Get(toolset)
			if err != nil {
				return e.fail(err)
			}
			// Exactly the tools txedit mcp offers with the same flags.
			defs, err := tools.Export(ts, format, ts.Offered(readOnly, &tools.Env{AllowExecute: allowExec}))
			if err != nil {
				return e.usageErr("%v", err)
			}
			e.printJSON(defs)
			return 0
		},
	}
}

func mcpCmd() *command {
	var toolset, server string
	var readOnly, allowExec, allowGit, noReadCheck bool
	var denyRead, denyWrite, roots multiFlag
	return &command{
		name: "mcp",
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&toolset, "toolset", tools.Default, "toolset: "+strings.Join(tools.Names(), ", "))
			fs.Var(&roots, "root", "the workspace root (default: the current directory); the filesystem toolset serves several: repeat it, or list the directories as arguments as the official filesystem server takes them")
			fs.BoolVar(&readOnly, "read-only", false, "offer only the read tools; every write is refused")
			fs.BoolVar(&allowExec, "allow-execute", false, "offer the execute tool (deepagents)")
			fs.BoolVar(&allowGit, "allow-git", false, "permit writes inside .git/")
			fs.Var(&denyRead, "deny-read", "glob of paths that may not be read (or written); repeatable")
			fs.Var(&denyWrite, "deny-write", "glob of paths that may not be written; repeatable")
			fs.BoolVar(&noReadCheck, "no-read-check", false, "let agents write files they have not read in their session")
			fs.StringVar(&server, "server", "", "the language server rename_symbol starts (default: by the file's language, gopls serve for Go, found on PATH)")
		},
		run: func(ctx context.Context, e *env, args []string) int {
			ts, err := tools.Get(toolset)
			if err != nil {
				return e.fail(err)
			}
			dirs := append(append([]string(nil), roots...), args...)
			if len(dirs) > 1 && !ts.Roots {
				return e.usageErr("mcp --toolset %s serves one directory (%d given); --toolset filesystem serves several, each with its own journal", ts.Name, len(dirs))
			}
			if len(dirs) == 0 {
				dirs = []string{"."}
			}
			if err := mcpcli.CheckExec(allowExec, denyRead, denyWrite); err != nil {
				return e.fail(err)
			}
			// The server is txedit-mcp: only that binary links the MCP
			// SDK (internal/mcpcli).
			return e.execMCP(&mcpcli.Config{Toolset: ts.Name, Dirs: dirs, ReadOnly: readOnly, AllowExecute: allowExec, AllowGit: allowGit,
				NoReadCheck: noReadCheck, DenyRead: denyRead, DenyWrite: denyWrite, Agent: e.agent, Server: server})
		},
	}
}
