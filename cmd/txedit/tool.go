package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/internal/buildinfo"
	"github.com/txedit/txedit/plan"
	"github.com/txedit/txedit/tools"
	"github.com/txedit/txedit/tools/mcpserver"
)

func toolCmd() *command {
	var toolset string
	var allowExec bool
	return &command{
		name: "tool",
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&toolset, "toolset", tools.Default, "toolset: "+strings.Join(tools.Names(), ", "))
			fs.BoolVar(&allowExec, "allow-execute", false, "allow the execute tool")
		},
		run: func(ctx context.Context, e *env, args []string) int {
			if len(args) != 1 {
				return e.usageErr("usage: txedit tool NAME [--toolset T] < args.json")
			}
			ts, err := tools.Get(toolset)
			if err != nil {
				return e.fail(err)
			}
			w, err := e.open(nil)
			if err != nil {
				return e.fail(err)
			}
			defer w.Close()
			// One call, one session: the read-before-write rule needs a
			// session that lives across calls (MCP, the Go library).
			// --allow-execute is the person's approval of commands: the
			// library's default asks an Approve function, and without one
			// runs none (tools.Env).
			env := &tools.Env{W: w.NewSession(engine.SessionOptions{Agent: e.agentName(), NoReadCheck: true}), AllowExecute: allowExec, Mode: execMode(tools.ModeDefault, allowExec)}
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
	var toolset string
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
			if err := execWithDeny(allowExec, denyRead, denyWrite); err != nil {
				return e.fail(err)
			}
			opts := engine.Options{DenyRead: denyRead, DenyWrite: denyWrite, AllowGit: allowGit, ReadOnly: readOnly}
			open := func(dir string) (*engine.Workspace, error) {
				o := opts
				return e.openAt(dir, &o)
			}
			// As the official filesystem server does, a directory that
			// cannot be opened is skipped with a warning; none at all is
			// an error.
			var ws []*engine.Workspace
			var firstErr error
			for _, d := range dirs {
				w, err := open(d)
				if err != nil {
					if len(dirs) == 1 {
						return e.fail(err)
					}
					fmt.Fprintf(e.stderr, e.pfx()+"warning: skipping %s: %v\n", d, err)
					firstErr = err
					continue
				}
				defer w.Close()
				ws = append(ws, w)
			}
			if len(ws) == 0 {
				fmt.Fprintln(e.stderr, e.pfx()+"none of the directories can be served")
				return e.fail(firstErr)
			}
			w := ws[0]
			// Roots the client offers are opened as they come, and closed
			// when the server ends.
			var mu sync.Mutex
			var opened []*engine.Workspace
			defer func() {
				mu.Lock()
				defer mu.Unlock()
				for _, x := range opened {
					x.Close()
				}
			}()
			openRoot := func(dir string) (*engine.Workspace, error) {
				x, err := open(dir)
				if err == nil {
					mu.Lock()
					opened = append(opened, x)
					mu.Unlock()
				}
				return x, err
			}
			// The client is the agent's host: writes need no further
			// approval here (it asks its user, as MCP clients do). Each
			// connection is a session named after the client, unless
			// --agent or TXEDIT_AGENT names it.
			server := mcpserver.New(ts, w, mcpserver.Options{ReadOnly: readOnly, Version: buildinfo.Version(), Agent: e.agent,
				NoReadCheck: noReadCheck, Env: tools.Env{Mode: execMode(tools.ModeAcceptEdits, allowExec), AllowExecute: allowExec},
				Roots: ws[1:], OpenRoot: openRoot})
			if err := server.Run(ctx, &mcp.StdioTransport{}); err != nil && ctx.Err() == nil {
				fmt.Fprintf(e.stderr, e.pfx()+"%v\n", err)
				return 1
			}
			return 0
		},
	}
}

// execMode is the permission mode of a command line that offers commands
// when allowExec: --allow-execute is the person's approval of them, so
// nothing is asked (ModeBypass); otherwise mode.
func execMode(mode tools.PermissionMode, allowExec bool) tools.PermissionMode {
	if allowExec {
		return tools.ModeBypass
	}
	return mode
}

// execWithDeny refuses --allow-execute beside deny flags: a shell command
// reads and writes any file, so the flags would promise what the server
// cannot keep (README, "Security").
func execWithDeny(allowExec bool, denyRead, denyWrite []string) error {
	if allowExec && len(denyRead)+len(denyWrite) > 0 {
		return plan.Errorf(plan.CodeInvalidRequest, "", "--allow-execute cannot be combined with --deny-read or --deny-write: a command can read and write any file, so the deny flags could not be kept; drop one or the other")
	}
	return nil
}
