package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/engine/tools"
	"github.com/txedit/txedit/internal/buildinfo"
	"github.com/txedit/txedit/plan"
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
			t := ts.Tool(args[0])
			if t == nil || (t.Execute && !allowExec) {
				var names []string
				for _, x := range ts.Offered(false, allowExec) {
					names = append(names, x.Name)
				}
				return e.fail(plan.Errorf(plan.CodeInvalidRequest, "", "toolset %s has no tool %q (it has %s)", ts.Name, args[0], strings.Join(names, ", ")))
			}
			in, err := io.ReadAll(e.stdin)
			if err != nil {
				return e.fail(err)
			}
			w, err := e.open(nil)
			if err != nil {
				return e.fail(err)
			}
			defer w.Close()
			if isTerminal(e.stderr) {
				// For people watching: the call in one line, as agent UIs
				// show it; stdout stays the result JSON.
				var a map[string]any
				json.Unmarshal(in, &a)
				fmt.Fprintf(e.stderr, "● %s(%s)\n", t.Name, t.Compact(a))
			}
			r := tools.Call(ctx, &tools.Env{W: w, AllowExecute: allowExec}, t, in)
			e.printJSON(r.Value)
			return exitCode(r.Code)
		},
	}
}

func schemaCmd() *command {
	var toolset, format string
	return &command{
		name: "schema",
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&toolset, "toolset", tools.Default, "toolset: "+strings.Join(tools.Names(), ", "))
			fs.StringVar(&format, "format", "mcp", "mcp, openai or anthropic")
		},
		run: func(ctx context.Context, e *env, args []string) int {
			if len(args) > 0 {
				return e.usageErr("schema takes no arguments")
			}
			ts, err := tools.Get(toolset)
			if err != nil {
				return e.fail(err)
			}
			defs, err := tools.Export(ts, format, nil)
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
	var readOnly, allowExec, allowGit bool
	var denyRead, denyWrite multiFlag
	return &command{
		name: "mcp",
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&toolset, "toolset", tools.Default, "toolset: "+strings.Join(tools.Names(), ", "))
			fs.BoolVar(&readOnly, "read-only", false, "offer only the read tools; every write is refused")
			fs.BoolVar(&allowExec, "allow-execute", false, "offer the execute tool (deepagents)")
			fs.BoolVar(&allowGit, "allow-git", false, "permit writes inside .git/")
			fs.Var(&denyRead, "deny-read", "glob of paths that may not be read (or written); repeatable")
			fs.Var(&denyWrite, "deny-write", "glob of paths that may not be written; repeatable")
		},
		run: func(ctx context.Context, e *env, args []string) int {
			if len(args) > 0 {
				return e.usageErr("mcp takes no arguments; it serves MCP on stdin and stdout")
			}
			ts, err := tools.Get(toolset)
			if err != nil {
				return e.fail(err)
			}
			opts := &engine.Options{DenyRead: denyRead, DenyWrite: denyWrite, AllowGit: allowGit, Mode: engine.ModeAcceptEdits}
			if readOnly {
				opts.Mode = engine.ModePlan
			}
			w, err := e.open(opts)
			if err != nil {
				return e.fail(err)
			}
			defer w.Close()
			server := newMCPServer(ts, &tools.Env{W: w, AllowExecute: allowExec}, readOnly)
			if err := server.Run(ctx, &mcp.StdioTransport{}); err != nil && ctx.Err() == nil {
				fmt.Fprintf(e.stderr, "txedit: mcp: %v\n", err)
				return 1
			}
			return 0
		},
	}
}

const mcpInstructions = `txedit edits files transactionally: every write is all-or-nothing, checked
against content hashes, journaled, and undoable (txedit undo). Read before you
edit; send back the content_hash a read returned so that concurrent changes are
never overwritten. Errors carry a stable code in brackets ([not_found],
[ambiguous], [stale_hash], ...): on stale_hash, read again.`

// newMCPServer serves a toolset: read tools are annotated read-only, writes
// destructive; progress of long operations is relayed to the client when
// it sent a progress token; a failure is an isError result whose text
// starts with the error code.
func newMCPServer(ts *tools.Toolset, env *tools.Env, readOnly bool) *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "txedit", Title: "txedit (" + ts.Name + " tools)", Version: buildinfo.Version()},
		&mcp.ServerOptions{Instructions: mcpInstructions})
	for _, t := range ts.Offered(readOnly, env.AllowExecute) {
		destructive, openWorld := !t.ReadOnly, t.Execute
		ann := &mcp.ToolAnnotations{Title: t.Name, ReadOnlyHint: t.ReadOnly, IdempotentHint: t.ReadOnly, DestructiveHint: &destructive, OpenWorldHint: &openWorld}
		server.AddTool(&mcp.Tool{Name: t.Name, Description: t.Description, InputSchema: t.Schema, Annotations: ann},
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				if tok := req.Params.GetProgressToken(); tok != nil && req.Session != nil {
					ctx = engine.WithProgress(ctx, func(phase string, done, total int) {
						req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(done), Total: float64(total), Message: phase})
					})
				}
				r := tools.Call(ctx, env, t, req.Params.Arguments)
				text := r.TextOf()
				if !r.OK && r.Code != "" {
					text = "[" + string(r.Code) + "] " + text
				}
				res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: !r.OK}
				if obj := asObject(r.Value); obj != nil {
					res.StructuredContent = obj
				}
				return res, nil
			})
	}
	return server
}

// asObject returns v as a JSON object, or nil if it is not one (MCP's
// structured content is an object).
func asObject(v any) map[string]any {
	b, err := json.Marshal(v)
	if err != nil || len(b) == 0 || b[0] != '{' {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	return m
}
