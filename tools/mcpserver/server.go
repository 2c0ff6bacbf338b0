// Package mcpserver serves a txedit toolset over the Model Context Protocol,
// with the official Go SDK: every tool of the toolset (only the read tools
// when read-only, execute only when allowed), read tools annotated
// read-only, writes destructive; progress of long operations relayed to a
// client that sent a progress token; a failure as an isError result whose
// text starts with the error code ("[stale_hash] …"); images as image
// content blocks.
//
// Each MCP connection is a session of the workspace (docs/agents.md), named
// after the client's clientInfo.name unless Options.Agent overrides it: it
// remembers what the agent read, refuses a write of a file the agent has
// not read or that changed since, and records the agent with every
// transaction.
package mcpserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"log"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

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
	// Roots are further allowed directories, after w's, for a toolset
	// that serves several (the filesystem toolset): each its own
	// workspace and journal. Other toolsets use w alone.
	Roots []*engine.Workspace
	// OpenRoot opens the workspace of a directory the client offers as
	// an MCP root. When set, a toolset serving several directories
	// follows the client's roots: once it is initialized, and on every
	// notifications/roots/list_changed, the server asks roots/list, and
	// the valid directories among them (existing, on this machine)
	// replace that connection's allowed directories; none valid keeps
	// them. Workspaces are opened once per directory.
	OpenRoot func(dir string) (*engine.Workspace, error)
	// Files and Args, if set, are the budgets the calls are charged to
	// (servers may share them): the file contents they read and their
	// arguments, held until each call's answer is written. Nil: budgets
	// of FileBudget and ArgBudget bytes of this server's own.
	Files, Args *engine.Budget
}

// The server's memory bound (docs/design.md, "The server's limits").
const (
	// FileBudget bounds the file contents the calls being served have
	// read: a call's first file waits until it fits beside what the
	// others hold (one bigger than the budget, until nothing else is
	// held); the files after it do not wait, so calls never wait on each
	// other in a circle. A file over 16 MiB is read alone.
	FileBudget = 32 << 20
	// ArgBudget bounds the arguments of the calls being served, charged
	// when each call begins (one bigger than the budget runs alone).
	ArgBudget = 32 << 20
)

// New returns a server of ts's tools on the workspace w.
func New(ts *tools.Toolset, w *engine.Workspace, o Options) *mcp.Server {
	s := &sessions{w: w, o: o, ts: ts, byConn: map[*mcp.ServerSession]*conn{}, open: map[string]*engine.Workspace{},
		files: o.Files, args: o.Args}
	if s.files == nil {
		s.files = engine.NewBudget(FileBudget)
	}
	if s.args == nil {
		s.args = engine.NewBudget(ArgBudget)
	}
	for _, x := range append([]*engine.Workspace{w}, o.Roots...) {
		s.open[x.RealRoot()] = x
	}
	sopts := &mcp.ServerOptions{Instructions: instructions(ts, o)}
	if ts.Roots && o.OpenRoot != nil {
		// MCP roots are deprecated as of protocol 2026-07-28 (SEP-2577)
		// but still served; the official filesystem server follows
		// them, so its drop-in does too (docs/filesystem.md).
		sopts.InitializedHandler = func(ctx context.Context, req *mcp.InitializedRequest) {
			if offersRoots(req.Session) {
				s.followRoots(req.Session)
			}
		}
		//lint:ignore SA1019 see above
		sopts.RootsListChangedHandler = func(ctx context.Context, req *mcp.RootsListChangedRequest) { s.followRoots(req.Session) }
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "txedit", Title: "txedit (" + ts.Name + " tools)", Version: o.Version}, sopts)
	probe := o.Env
	probe.W = w.NewSession(engine.SessionOptions{})
	for _, t := range ts.Offered(o.ReadOnly, &probe) {
		h := tools.HintsOf(t)
		ann := &mcp.ToolAnnotations{Title: t.Name, ReadOnlyHint: h.ReadOnly, IdempotentHint: h.Idempotent, DestructiveHint: &h.Destructive, OpenWorldHint: &h.OpenWorld}
		if t.Annotations != nil {
			// As the dialect's real server lists them.
			ann = &mcp.ToolAnnotations{}
			if b, err := json.Marshal(t.Annotations); err == nil {
				json.Unmarshal(b, ann)
			}
		}
		mt := &mcp.Tool{Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: t.Schema, Annotations: ann}
		if t.OutputSchema != nil {
			mt.OutputSchema = t.OutputSchema
		}
		server.AddTool(mt,
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				if tok := req.Params.GetProgressToken(); tok != nil && req.Session != nil {
					ctx = engine.WithProgress(ctx, func(phase string, done, total int) {
						req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(done), Total: float64(total), Message: phase})
					})
				}
				env, err := s.env(ctx, req.Session)
				if err != nil {
					return nil, err
				}
				// The server's memory bound (docs/design.md, "The
				// server's limits"): the call's arguments, then the file
				// contents it reads, are charged to budgets shared by all
				// calls, and given back once its answer is written
				// (leaveUntilAnswered).
				release, err := s.args.Acquire(ctx, int64(len(req.Params.Arguments)))
				if err != nil {
					return nil, err
				}
				ctx, done := engine.WithBudget(ctx, s.files)
				mark, _ := req.Params.Meta[markKey].(string)
				defer leaveUntilAnswered(mark, func() { done(); release() })
				r := tools.Call(ctx, env, t, req.Params.Arguments)
				return result(r), nil
			})
	}
	return server
}

// sessions holds one tool environment per MCP connection, and the
// workspaces opened for the allowed directories (by real path), shared by
// the connections.
type sessions struct {
	// files and args are the budgets every call is charged to: the file
	// contents its operations read, its arguments.
	files, args *engine.Budget
	w           *engine.Workspace
	o           Options
	ts          *tools.Toolset
	mu          sync.Mutex
	byConn      map[*mcp.ServerSession]*conn
	open        map[string]*engine.Workspace
}

// conn is one connection's environment, and its pending roots/list.
type conn struct {
	env     *tools.Env
	agent   string
	pending chan struct{} // closed when the roots asked for are in place
	// initial, for a client that offers roots, is closed once its first
	// roots are in place: calls that come before (the client's
	// notifications/initialized may be handled after them) wait for it.
	initial     chan struct{}
	initialDone func()
}

// agentOf names a connection's agent: Options.Agent, else the client's
// clientInfo.name, else "mcp".
func (s *sessions) agentOf(c *mcp.ServerSession) string {
	agent := s.o.Agent
	if agent == "" && c != nil {
		if p := c.InitializeParams(); p != nil && p.ClientInfo != nil {
			agent = p.ClientInfo.Name
		}
	}
	if agent == "" {
		agent = "mcp"
	}
	return agent
}

// connOf returns the connection's state, made on first use.
func (s *sessions) connOf(c *mcp.ServerSession) *conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cn, ok := s.byConn[c]; ok {
		return cn
	}
	agent := s.agentOf(c)
	env := s.o.Env
	env.W = s.w.NewSession(engine.SessionOptions{Agent: agent, NoReadCheck: s.o.NoReadCheck})
	if s.ts.Roots {
		roots := []tools.Root{{Dir: s.w.Root(), S: env.W}}
		for _, x := range s.o.Roots {
			roots = append(roots, tools.Root{Dir: x.Root(), S: x.NewSession(engine.SessionOptions{Agent: agent, NoReadCheck: s.o.NoReadCheck})})
		}
		env.Roots = tools.NewRoots(roots)
	}
	cn := &conn{env: &env, agent: agent, initialDone: func() {}}
	if s.ts.Roots && s.o.OpenRoot != nil && offersRoots(c) {
		cn.initial = make(chan struct{})
		cn.initialDone = sync.OnceFunc(func() { close(cn.initial) })
	}
	s.byConn[c] = cn
	if c != nil {
		go func() {
			c.Wait()
			s.mu.Lock()
			delete(s.byConn, c)
			s.mu.Unlock()
		}()
	}
	return cn
}

// env returns the connection's tool environment, once the roots it asked
// the client for are in place.
func (s *sessions) env(ctx context.Context, c *mcp.ServerSession) (*tools.Env, error) {
	cn := s.connOf(c)
	if cn.initial != nil {
		select {
		case <-cn.initial:
		case <-time.After(initialRootsWait):
			// A client that offers roots but never says it is
			// initialized: serve the directories the server was given.
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	s.mu.Lock()
	pending := cn.pending
	s.mu.Unlock()
	if pending != nil {
		select {
		case <-pending:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return cn.env, nil
}

// followRoots asks the client for its roots and makes the valid ones the
// connection's allowed directories. It returns at once (it runs from the
// connection's notification handlers, which must not wait for the
// client); tool calls wait for it.
func (s *sessions) followRoots(c *mcp.ServerSession) {
	cn := s.connOf(c)
	done := make(chan struct{})
	s.mu.Lock()
	prev := cn.pending
	cn.pending = done
	s.mu.Unlock()
	go func() {
		defer cn.initialDone()
		defer close(done)
		if prev != nil {
			<-prev
		}
		ctx, cancel := context.WithTimeout(context.Background(), rootsTimeout)
		defer cancel()
		res, err := c.ListRoots(ctx, nil) //lint:ignore SA1019 roots are deprecated but followed (New says why)
		if err != nil {
			log.Printf("txedit mcp: roots/list: %v (keeping the allowed directories)", err)
			return
		}
		var roots []tools.Root
		for _, r := range res.Roots {
			dir, ok := rootDir(r.URI)
			if !ok {
				log.Printf("txedit mcp: skipping root %s: not an existing directory", r.URI)
				continue
			}
			w, err := s.workspace(dir)
			if err != nil {
				log.Printf("txedit mcp: skipping root %s: %v", r.URI, err)
				continue
			}
			roots = append(roots, tools.Root{Dir: dir, S: w.NewSession(engine.SessionOptions{Agent: cn.agent, NoReadCheck: s.o.NoReadCheck})})
		}
		if len(roots) == 0 {
			log.Printf("txedit mcp: the client offered no valid root directory; keeping the allowed directories")
			return
		}
		cn.env.Roots.Set(roots)
	}()
}

// rootsTimeout bounds how long the server waits for roots/list;
// initialRootsWait how long a call waits for a client that offers roots to
// say it is initialized.
const (
	rootsTimeout     = 30 * time.Second
	initialRootsWait = 5 * time.Second
)

// offersRoots reports whether the client said it offers roots, on a
// protocol that lets the server ask for them: 2026-07-28 deprecates roots
// and forbids requests from the server (its clients get the directories
// the server was given).
func offersRoots(c *mcp.ServerSession) bool {
	if c == nil {
		return false
	}
	p := c.InitializeParams()
	//lint:ignore SA1019 roots are deprecated but followed (New says why)
	return p != nil && p.ProtocolVersion < "2026-07-28" && p.Capabilities != nil && (p.Capabilities.RootsV2 != nil || p.Capabilities.Roots.ListChanged)
}

// rootDir turns a root's URI (file://… or a plain path; ~ is the home
// directory) into an existing directory's real path.
func rootDir(uri string) (string, bool) {
	p := uri
	if strings.HasPrefix(uri, "file://") {
		u, err := url.Parse(uri)
		if err != nil {
			return "", false
		}
		p = u.Path
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", false
		}
		p = filepath.Join(home, p[1:])
	}
	p, err := filepath.Abs(p)
	if err != nil {
		return "", false
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", false
	}
	fi, err := os.Stat(real)
	if err != nil || !fi.IsDir() {
		return "", false
	}
	return real, true
}

// workspace returns the workspace of directory dir (a real path),
// opening it the first time.
func (s *sessions) workspace(dir string) (*engine.Workspace, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if w, ok := s.open[dir]; ok {
		return w, nil
	}
	w, err := s.o.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	s.open[dir] = w
	return w, nil
}

// result turns a tool's result into MCP's: the text an agent reads, the
// images as image blocks, the dialect's value as structured content.
func result(r tools.Result) *mcp.CallToolResult {
	if len(r.Media) > 0 {
		res := &mcp.CallToolResult{IsError: !r.OK}
		for _, m := range r.Media {
			switch m.Kind {
			case "image":
				res.Content = append(res.Content, &mcp.ImageContent{Data: m.Data, MIMEType: m.MimeType})
			case "audio":
				res.Content = append(res.Content, &mcp.AudioContent{Data: m.Data, MIMEType: m.MimeType})
			default:
				res.Content = append(res.Content, &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: m.URI, MIMEType: m.MimeType, Blob: m.Data}})
			}
		}
		if obj := asObject(r.Value); obj != nil {
			res.StructuredContent = obj
		}
		return res
	}
	text := r.TextOf()
	if !r.OK && r.Plain {
		// The dialect's own words; the code for programs, in _meta.
		res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: true}
		if r.Code != "" {
			res.Meta = mcp.Meta{"txedit/code": string(r.Code)}
		}
		return res
	}
	if !r.OK && r.Code != "" {
		text = "[" + string(r.Code) + "] " + text
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: !r.OK}
	if !r.OK && r.Code != "" {
		res.Meta = mcp.Meta{"txedit/code": string(r.Code)}
	}
	for _, img := range r.Images {
		data, err := base64.StdEncoding.DecodeString(img.Data)
		if err != nil {
			continue
		}
		res.Content = append(res.Content, &mcp.ImageContent{Data: data, MIMEType: img.MediaType})
	}
	// The structured content would carry the images' base64 a second
	// time: a result with images has none.
	v := r.Value
	if r.Structured != nil {
		v = r.Structured
	}
	if obj := asObject(v); obj != nil && len(r.Images) == 0 {
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
	if ts.Roots {
		// The filesystem toolset answers as the official server does:
		// Node's error texts; txedit's own refusals carry a code.
		b.WriteString("The tools and answers are the official MCP filesystem server's; the history and undo tools take any write back. " +
			"txedit's own refusals start with a code in brackets ([not_read], [stale_hash], [ambiguous], [denied]) and say how to fix the call.")
		return b.String()
	}
	b.WriteString("Errors start with a stable code in brackets ([not_found], [ambiguous], [stale_hash], ...) and say how to fix the call.")
	return b.String()
}
