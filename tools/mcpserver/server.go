// Package mcpserver serves a txedit toolset over the Model Context Protocol,
// with the official Go SDK: every tool of the toolset (only the read tools
// when read-only, execute only when allowed), read tools annotated
// read-only, writes destructive; progress of long operations relayed to a
// client that sent a progress token; a failure as an isError result whose
// text starts with the error code ("[stale_hash] …"); images as image
// content blocks.
//
// Each MCP connection is a session of the workspace (SPEC §12), named
// after the client's clientInfo.name unless Options.Agent overrides it: it
// remembers what the agent read, refuses a write of a file the agent has
// not read or that changed since, and records the agent with every
// transaction.
package mcpserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"sync"

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
	// Agent names every connection's agent; empty takes the client's
	// clientInfo.name.
	Agent string
	// NoReadCheck turns the read-before-write rule off.
	NoReadCheck bool
	// Env is the template of every connection's tool environment
	// (permission mode, approval, execute); its W is set per connection.
	Env tools.Env
}

// New returns a server of ts's tools on the workspace w.
func New(ts *tools.Toolset, w *engine.Workspace, o Options) *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "txedit", Title: "txedit (" + ts.Name + " tools)", Version: o.Version},
		&mcp.ServerOptions{Instructions: instructions(ts, o)})
	s := &sessions{w: w, o: o, byConn: map[*mcp.ServerSession]*tools.Env{}}
	probe := o.Env
	probe.W = w.NewSession(engine.SessionOptions{})
	for _, t := range ts.Offered(o.ReadOnly, &probe) {
		h := tools.HintsOf(t)
		ann := &mcp.ToolAnnotations{Title: t.Name, ReadOnlyHint: h.ReadOnly, IdempotentHint: h.Idempotent, DestructiveHint: &h.Destructive, OpenWorldHint: &h.OpenWorld}
		server.AddTool(&mcp.Tool{Name: t.Name, Description: t.Description, InputSchema: t.Schema, Annotations: ann},
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				if tok := req.Params.GetProgressToken(); tok != nil && req.Session != nil {
					ctx = engine.WithProgress(ctx, func(phase string, done, total int) {
						req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(done), Total: float64(total), Message: phase})
					})
				}
				r := tools.Call(ctx, s.env(req.Session), t, req.Params.Arguments)
				return result(r), nil
			})
	}
	return server
}

// sessions holds one engine session per MCP connection.
type sessions struct {
	w      *engine.Workspace
	o      Options
	mu     sync.Mutex
	byConn map[*mcp.ServerSession]*tools.Env
}

func (s *sessions) env(conn *mcp.ServerSession) *tools.Env {
	s.mu.Lock()
	defer s.mu.Unlock()
	if env, ok := s.byConn[conn]; ok {
		return env
	}
	agent := s.o.Agent
	if agent == "" && conn != nil {
		if p := conn.InitializeParams(); p != nil && p.ClientInfo != nil {
			agent = p.ClientInfo.Name
		}
	}
	if agent == "" {
		agent = "mcp"
	}
	env := s.o.Env
	env.W = s.w.NewSession(engine.SessionOptions{Agent: agent, NoReadCheck: s.o.NoReadCheck})
	s.byConn[conn] = &env
	if conn != nil {
		go func() {
			conn.Wait()
			s.mu.Lock()
			delete(s.byConn, conn)
			s.mu.Unlock()
		}()
	}
	return &env
}

// result turns a tool's result into MCP's: the text an agent reads, the
// images as image blocks, the dialect's value as structured content.
func result(r tools.Result) *mcp.CallToolResult {
	text := r.TextOf()
	if !r.OK && r.Code != "" {
		text = "[" + string(r.Code) + "] " + text
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: !r.OK}
	for _, img := range r.Images {
		data, err := base64.StdEncoding.DecodeString(img.Data)
		if err != nil {
			continue
		}
		res.Content = append(res.Content, &mcp.ImageContent{Data: data, MIMEType: img.MediaType})
	}
	// The structured content would carry the images' base64 a second
	// time: a result with images has none.
	if obj := asObject(r.Value); obj != nil && len(r.Images) == 0 {
		res.StructuredContent = obj
	}
	return res
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

// instructions tell the agent what this server's toolset really offers.
func instructions(ts *tools.Toolset, o Options) string {
	var b strings.Builder
	b.WriteString("txedit edits files transactionally: every write is all-or-nothing, journaled and undoable (txedit undo).\n")
	if o.ReadOnly {
		b.WriteString("This server is read-only: it offers only the read tools.\n")
	}
	hashes := ts.Name == "txedit" || ts.Name == "amazonq"
	if hashes {
		b.WriteString("Reads return a content_hash: send it back with an edit (content_hash on the file or the edit) and a change made meanwhile is refused instead of overwritten.\n")
	}
	if !o.NoReadCheck {
		b.WriteString("Read a file before you change it: this server remembers what you read, and a write to an existing file you have not read, or that changed since you read it, is refused ([not_read], [stale_hash]: read it again). Creating a new file needs no read.")
		if hashes {
			b.WriteString(" An edit that carries its own content_hash is checked by that instead.")
		}
		b.WriteString("\n")
	}
	b.WriteString("Errors start with a stable code in brackets ([not_found], [ambiguous], [stale_hash], ...) and say how to fix the call.")
	return b.String()
}
