// Package tools defines txedit's agent tool surfaces: five toolsets, each
// a faithful dialect of one of the tool systems txedit speaks, all mapped
// onto the one engine. A tool has a name, an agent-oriented description, a
// JSON Schema for its arguments, annotations, example calls, and a handler
// that shapes its result as its dialect does. The same definitions feed
// `txedit tool`, `txedit schema` and the MCP server.
//
// Every write of every dialect goes through the engine's journal, so
// `txedit undo` reverts it.
//
// # Permissions
//
// [Env] holds the agent policy of seed 002's ToolContext: a permission
// mode and an approval callback (canUseToolCallback). [Call] consults them
// before every tool that writes or runs a command; the engine itself knows
// nothing of them.
//
// Arguments are decoded leniently: fields a tool does not know are
// ignored, since real clients add their own; a field of the wrong type is
// an invalid_request.
package tools

import (
	"context"
	"encoding/json"
	"sync"

	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/plan"
)

// PermissionMode is one of seed 002's ToolContext permission modes.
type PermissionMode string

// The permission modes.
const (
	// ModeDefault consults Env.Approve before every write and command.
	ModeDefault PermissionMode = "default"
	// ModeAcceptEdits allows writes without asking; commands still ask.
	ModeAcceptEdits PermissionMode = "acceptEdits"
	// ModePlan refuses every write and command.
	ModePlan PermissionMode = "plan"
	// ModeBypass asks nothing.
	ModeBypass PermissionMode = "bypassPermissions"
)

// Env is what tool handlers run against.
type Env struct {
	// W is the agent's session on the workspace: its reads count for the
	// read-before-write rule, its writes are recorded as the agent's.
	W *engine.Session
	// Mode is the permission mode (default ModeDefault).
	Mode PermissionMode
	// Approve is asked before writes and commands as Mode says. Without
	// it, writes are allowed but commands are not: an Env's zero value
	// (default mode, no Approve) runs no command; give an Approve that
	// says yes, or set ModeBypass, to run them (fail closed).
	Approve func(ctx context.Context, tool string, args json.RawMessage) (bool, error)
	// Roots, if set, are the allowed directories of a server with
	// several roots (the filesystem toolset; filesystem_roots.go); W is
	// then the first one's session.
	Roots *Roots
	// AllowExecute offers the execute tool (deepagents); off by default.
	AllowExecute bool
	// ExecTimeout bounds a command that gives no timeout (default 120s).
	ExecTimeout time.Duration
	// MaxOutput caps each of a command's stdout and stderr (default 1 MiB).
	MaxOutput int
	// LanguageServer is the command rename_symbol starts (nil: one by the
	// file's language, gopls serve for Go, found on PATH). It is the
	// person's choice: no tool argument names a program.
	LanguageServer []string
}

// Result is a tool's outcome.
type Result struct {
	// Value is the dialect's result, as `txedit tool` prints it.
	Value any
	// Text is what an agent reads (MCP text content); the JSON of Value
	// when empty.
	Text string
	// LazyText, if set and Text is empty, computes Text when it is asked
	// for (TextOf): `txedit tool` prints Value and never needs it.
	LazyText func() string
	// Images are images the tool returns (base64 data and media type),
	// which MCP sends as image content.
	Images []Image
	OK     bool
	// Code is the stable error code of a failure.
	Code plan.Code
	// Media, if set, is the whole content the agent gets (MCP image,
	// audio and embedded-resource blocks, no text block): the
	// filesystem toolset's read_media_file.
	Media []Media
	// Plain sends a failure's text as it is (the text is the real
	// tool's; the code travels in the result's _meta, txedit/code)
	// instead of after "[code] ".
	Plain bool
	// Structured, if set, is MCP's structured content instead of Value
	// (what a program reads beside Text, without what Text already
	// says: txedit's fs_read sends a file's text as text and its hashes
	// here).
	Structured any
}

// Image is an image a tool returns.
type Image struct {
	Data      string // base64
	MediaType string
}

// TextOf returns the text an agent reads.
func (r Result) TextOf() string {
	if r.Text != "" {
		return r.Text
	}
	if r.LazyText != nil {
		return r.LazyText()
	}
	if s, ok := r.Value.(string); ok {
		return s
	}
	b, _ := json.Marshal(r.Value)
	return string(b)
}

// Tool is one tool of a toolset.
type Tool struct {
	Name        string
	Description string
	// Schema is the JSON Schema of the arguments, an object. Calls are
	// checked against the subset tools/schema.go implements (type, enum,
	// properties, required, items, minItems; annotations); any other
	// keyword makes the tool's first call fail rather than go unchecked.
	Schema   map[string]any
	ReadOnly bool // never writes
	Execute  bool // runs commands (offered only when allowed)
	// Examples are argument objects that must satisfy Schema.
	Examples []string
	Run      func(ctx context.Context, env *Env, args json.RawMessage) Result
	// Compact renders the arguments as one short line for people (seed
	// 002's formatCompactParams).
	Compact func(args map[string]any) string
	// Fail shapes a failure the way the dialect answers one (its tools'
	// own results do so themselves); Call uses it for the failures it
	// finds before the tool runs. Default: the toolset's Fail.
	Fail func(err error) Result
	// Title, OutputSchema and Annotations, if set, are what MCP lists
	// for the tool as they are (a dialect that copies a real server's
	// definitions: the filesystem toolset); otherwise the title is the
	// name, there is no output schema, and HintsOf decides the
	// annotations.
	Title        string
	OutputSchema map[string]any
	Annotations  map[string]any

	schemaOnce sync.Once
	compiled   *argSchema
	schemaErr  error
}

// Toolset is one dialect's tools.
type Toolset struct {
	Name        string
	Description string
	Tools       []*Tool
	// Fail is the dialect's failure shape (default: {success, code,
	// error}).
	Fail func(err error) Result
	// Roots: the toolset serves several allowed directories (Env.Roots),
	// and an MCP server follows the client's roots for it.
	Roots bool
}

// Tool returns the named tool, or nil.
func (ts *Toolset) Tool(name string) *Tool {
	for _, t := range ts.Tools {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// Offered returns the tools a server offers: only read tools when
// readOnly; execute only when env allows it and its workspace is on disk
// (an in-memory backend cannot run commands, as seed 004's StateBackend
// cannot).
func (ts *Toolset) Offered(readOnly bool, env *Env) []*Tool {
	var out []*Tool
	for _, t := range ts.Tools {
		if (readOnly && !t.ReadOnly) || (t.Execute && !env.canExecute()) {
			continue
		}
		out = append(out, t)
	}
	return out
}

// canExecute: execute is allowed, and the workspace (if there is one yet)
// is on disk.
func (env *Env) canExecute() bool { return env.AllowExecute && (env.W == nil || env.W.OnDisk()) }

// toolsets are the constructors of the toolsets, by name (a function,
// not a table filled by init functions: docs/design.md, "Process start").
func toolsets() map[string]func() *Toolset {
	return map[string]func() *Toolset{
		"adk": adkToolset, "amazonq": amazonqToolset, "claude": claudeToolset, "codex": codexToolset,
		"deepagents": deepagentsToolset, "filesystem": filesystemToolset, "txedit": txeditToolset,
	}
}

// Names lists the toolsets.
func Names() []string {
	var n []string
	for k := range toolsets() {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// Default is the toolset used when none is named.
const Default = "txedit"

// Get returns a toolset by name.
func Get(name string) (*Toolset, error) {
	if name == "" {
		name = Default
	}
	mk, ok := toolsets()[name]
	if !ok {
		return nil, plan.Errorf(plan.CodeInvalidRequest, "", "unknown toolset %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	ts := mk()
	for _, t := range ts.Tools {
		if t.Fail == nil {
			t.Fail = ts.Fail
		}
	}
	return ts, nil
}

// Call runs a tool with JSON arguments: it asks the permission mode and
// the approval callback first if the tool writes or runs a command, and
// turns a panic into an io_error result so that a server keeps serving.
func Call(ctx context.Context, env *Env, t *Tool, args json.RawMessage) (res Result) {
	defer func() {
		if r := recover(); r != nil {
			res = failure(plan.Errorf(plan.CodeIOError, "", "internal error in %s: %v", t.Name, r), nil)
		}
	}()
	if len(strings.TrimSpace(string(args))) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	if err := t.validate(args); err != nil {
		return t.fail(err)
	}
	if t.Execute && !env.canExecute() {
		why := "start the server with --allow-execute"
		if env.AllowExecute {
			why = "the workspace is not on disk"
		}
		return t.fail(plan.Errorf(plan.CodeDenied, "", "%s is disabled (%s)", t.Name, why))
	}
	if !t.ReadOnly {
		if err := env.authorize(ctx, t, args); err != nil {
			return t.fail(err)
		}
	}
	return t.Run(ctx, env, args)
}

func (t *Tool) fail(err error) Result {
	if t.Fail != nil {
		return t.Fail(err)
	}
	return failure(err, nil)
}

// validate checks a call's arguments against the tool's own JSON Schema
// before anything runs: a missing required field, a value of the wrong
// type or outside its enum is an invalid_request naming the field, and
// nothing is written. Fields the schema does not know are tolerated (real
// clients add their own).
func (t *Tool) validate(args json.RawMessage) error {
	t.schemaOnce.Do(func() { t.compiled, t.schemaErr = compileSchema(t.Schema) })
	if t.schemaErr != nil {
		return plan.Wrapf(plan.CodeIOError, "", t.schemaErr, "%s: its schema does not compile: %v", t.Name, t.schemaErr)
	}
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		return plan.Wrapf(plan.CodeInvalidRequest, "", err, "bad arguments: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	if err := t.compiled.check(v); err != nil {
		return plan.Wrapf(plan.CodeInvalidRequest, "", err, "%s", schemaMessage(err))
	}
	return nil
}

// schemaMessage turns a validator's message into one that names the
// argument: `validating root: validating /properties/edits: validating
// /properties/edits/items: required: missing properties: ["new_string"]`
// becomes `edits[]: missing required argument "new_string"`.
func schemaMessage(err error) string {
	msg := err.Error()
	where := ""
	for {
		rest, ok := strings.CutPrefix(msg, "validating ")
		if !ok {
			break
		}
		i := strings.Index(rest, ": ")
		if i < 0 {
			break
		}
		if p := rest[:i]; p != "root" {
			where = p
		}
		msg = rest[i+2:]
	}
	var parts []string
	for _, seg := range strings.Split(strings.TrimPrefix(where, "/"), "/") {
		switch seg {
		case "", "properties":
		case "items":
			if len(parts) > 0 {
				parts[len(parts)-1] += "[]"
			}
		default:
			parts = append(parts, seg)
		}
	}
	// Drop the schema's own path: keep what names the argument.
	field := ""
	if len(parts) > 0 {
		field = parts[len(parts)-1]
		if len(parts) > 1 && strings.HasSuffix(parts[len(parts)-2], "[]") && field == strings.TrimSuffix(parts[len(parts)-2], "[]") {
			field = parts[len(parts)-2]
		}
	}
	if rest, ok := strings.CutPrefix(msg, "required: missing properties: "); ok {
		rest = strings.Trim(rest, "[]")
		if field != "" {
			return field + ": missing required argument " + rest
		}
		return "missing required argument " + rest
	}
	for _, p := range []string{"type: ", "enum: "} {
		if rest, ok := strings.CutPrefix(msg, p); ok {
			msg = rest
		}
	}
	if field != "" {
		return "argument " + field + ": " + msg
	}
	return msg
}

// firstError is the message of a failed write's first failing edit (it
// says how to fix the edit), or the result's own.
func firstError(res *plan.Result) string {
	for _, f := range res.Files {
		if len(f.FailedEdits) > 0 {
			return f.FailedEdits[0].Error
		}
		if f.Error != "" {
			return f.Error
		}
	}
	return res.Error
}

// authorize applies the permission mode and the approval callback to a
// call of a tool that writes or runs a command: plan mode refuses both;
// default mode asks Approve before either; acceptEdits asks only before
// commands; bypassPermissions asks nothing.
func (env *Env) authorize(ctx context.Context, t *Tool, args json.RawMessage) error {
	what := "writes"
	if t.Execute {
		what = "commands"
	}
	switch env.Mode {
	case ModePlan:
		return plan.Errorf(plan.CodeDenied, "", "permission mode plan: %s are refused", what)
	case ModeBypass:
		return nil
	case ModeAcceptEdits:
		if !t.Execute {
			return nil
		}
	case ModeDefault, "":
	default:
		return plan.Errorf(plan.CodeInvalidRequest, "", "unknown permission mode %q (want default, acceptEdits, plan or bypassPermissions)", env.Mode)
	}
	if env.Approve == nil {
		if t.Execute {
			// Fail closed: nobody was asked, so no command runs.
			return plan.Errorf(plan.CodeDenied, "", "%s needs approval: give Env an Approve function that allows it, or use permission mode %s", t.Name, ModeBypass)
		}
		return nil
	}
	ok, err := env.Approve(ctx, t.Name, args)
	if err != nil {
		return plan.Wrapf(plan.CodeDenied, "", err, "approval failed: %v", err)
	}
	if !ok {
		return plan.Errorf(plan.CodeDenied, "", "%s was not approved", t.Name)
	}
	return nil
}

// decode reads arguments leniently into v.
func decode(args json.RawMessage, v any) error {
	if err := json.Unmarshal(args, v); err != nil {
		return plan.Wrapf(plan.CodeInvalidRequest, "", err, "bad arguments: %v", strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}

// failure makes a failed Result from an error; value, if not nil, is the
// dialect's failure shape.
func failure(err error, value any) Result {
	code := plan.CodeOf(err)
	if value == nil {
		value = map[string]any{"success": false, "code": code, "error": err.Error()}
	}
	return Result{Value: value, OK: false, Code: code}
}

// Schema builders.

func object(required []string, props map[string]any) map[string]any {
	s := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

func str(desc string) map[string]any  { return map[string]any{"type": "string", "description": desc} }
func num(desc string) map[string]any  { return map[string]any{"type": "integer", "description": desc} }
func flag(desc string) map[string]any { return map[string]any{"type": "boolean", "description": desc} }
func strs(desc string) map[string]any {
	return map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": desc}
}
func enum(desc string, vals ...string) map[string]any {
	return map[string]any{"type": "string", "enum": vals, "description": desc}
}

// compactPath renders a path argument and extras for people.
func compactPath(args map[string]any, key string, extra ...string) string {
	s := fmt.Sprint(args[key])
	if args[key] == nil {
		s = "."
	}
	for _, e := range extra {
		if e != "" {
			s += " " + e
		}
	}
	return s
}
