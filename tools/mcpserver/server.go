// Package mcpserver serves a txedit toolset over the Model Context Protocol,
// with the official Go SDK: every tool of the toolset (only the read tools
// when read-only, execute only when allowed), read tools annotated
// read-only, writes destructive; progress of long operations relayed to a
// client that sent a progress token; a failure as an isError result whose
// text starts with the error code ("[stale_hash] …").
package mcpserver

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/tools"
)

// Options configure a server.
type Options struct {
	// ReadOnly offers only the read tools.
	ReadOnly bool
	// Version is reported in the server's serverInfo.
	Version string
}

const instructions = `txedit edits files transactionally: every write is all-or-nothing, checked
against content hashes, journaled, and undoable (txedit undo). Read before you
edit; send back the content_hash a read returned so that concurrent changes are
never overwritten. Errors carry a stable code in brackets ([not_found],
[ambiguous], [stale_hash], ...): on stale_hash, read again.`

// New returns a server of ts's tools running against env.
func New(ts *tools.Toolset, env *tools.Env, o Options) *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "txedit", Title: "txedit (" + ts.Name + " tools)", Version: o.Version},
		&mcp.ServerOptions{Instructions: instructions})
	for _, t := range ts.Offered(o.ReadOnly, env) {
		h := tools.HintsOf(t)
		ann := &mcp.ToolAnnotations{Title: t.Name, ReadOnlyHint: h.ReadOnly, IdempotentHint: h.Idempotent, DestructiveHint: &h.Destructive, OpenWorldHint: &h.OpenWorld}
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
