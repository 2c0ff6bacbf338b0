package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/txedit/txedit/internal/mcpcli"
	"io"
	"os"
	"os/signal"
	"strings"

	"golang.org/x/term"

	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/internal/jsonenc"
	"github.com/txedit/txedit/plan"
)

const usage = `txedit: transactional file edits for agents and people

Usage: txedit COMMAND [flags] [args]

Change files (one transaction each, undoable):
  apply   [--dry-run] [--format F] [FILE|-]   a write request: fs_write JSON,
                          apply_patch, a diff, SEARCH/REPLACE or an LSP
                          WorkspaceEdit (stdin: -)
  rename  [--dry-run] [--server CMD] FILE:LINE:COL NEWNAME
                          rename a symbol through its language server
                          (gopls for Go)
  replace [--dry-run] [--glob G] 's/RE/REP/FLAGS' [DIR]
                          sed s/// across a tree
  undo    [TXID] [--force] [--dry-run]        revert the newest transaction
  redo    [--force] [--dry-run]               re-apply what undo reverted

Read and search:
  read    [FILE|-]        a read request (fs_read JSON)
  grep    [rg flags] PATTERN [PATH]           search like rg
  glob    PATTERN [PATH]  list files like fd

The journal:
  log     [-n N]          transactions, newest first
  show    [TXID]          a transaction and its diff (default: the newest)
  recover                 roll back what a crash interrupted; repair
  gc                      apply retention (newest 200, or 1 GiB)
  journal [status|adopt|remove]  whose the journal is; trust one you made
                          here, or remove one that is not yours

Agents:
  tool    NAME [--toolset T]   run one tool: JSON in, the result JSON out
  schema  [--toolset T] [--format mcp|openai|anthropic]
  mcp     [--toolset T] [--read-only] [DIR...]  serve the tools over MCP
  mcp install --client NAME    add txedit to an MCP client's configuration
  mcp uninstall --client NAME  take it out again

Other: version, completion bash|zsh|fish, help [COMMAND]

Toolsets: txedit (default), claude, codex, amazonq, deepagents, adk,
filesystem (txedit schema --toolset T lists their tools).

Every command takes --root DIR (default: the nearest directory above with
.txedit/ or .git that is yours, else the current one) and --json; flags may
stand before or after arguments. Exit status: 0 success, 1 the operation
failed (nothing written in atomic mode; grep and glob: no match), 2 bad
usage, 3 committed but its durability is unknown (do not retry).
Run 'txedit help COMMAND' for a command's flags and examples.
`

// commandTable is the one list of commands: run dispatches through it, and
// help and the shell completions are generated from it.
func commandTable() map[string]func() *command {
	return map[string]func() *command{
		"apply": applyCmd, "rename": renameCmd, "undo": undoCmd, "redo": redoCmd, "read": readCmd, "grep": grepCmd, "glob": globCmd, "replace": replaceCmd, "tool": toolCmd, "schema": schemaCmd, "mcp": mcpCmd, "log": logCmd, "show": showCmd, "recover": recoverCmd, "gc": gcCmd, "journal": journalCmd,
		"version": versionCmd, "mcp install": mcpInstallCmd, "mcp uninstall": mcpUninstallCmd, "help": helpCmd, "completion": completionCmd,
	}
}

// env is what a command runs against: the streams and common flags.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	root           string
	json           bool
	color          bool
	redo           bool
	// agent is who the command works for (--agent, else $TXEDIT_AGENT,
	// else "" here and "cli" in the transactions it records).
	agent string
	// dir is the current directory relative to a root found above it,
	// found what was found there (workspace.go); noted, whether the
	// command has said so.
	dir, found string
	// ignored names a .txedit or .git above that another user owns,
	// which discovery did not take for the workspace (workspace.go).
	ignored string
	noted   bool
	cmd     string // the command's name, for messages
}

// commonFlags registers the flags every command takes, after its own: a
// command that gives --agent another meaning (log and undo filter by it)
// keeps its own.
func (e *env) commonFlags(fs *flag.FlagSet) {
	if fs.Lookup("root") == nil { // mcp takes several
		fs.StringVar(&e.root, "root", ".", "workspace root directory")
	}
	fs.BoolVar(&e.json, "json", false, "machine-readable JSON output")
	if fs.Lookup("agent") == nil {
		fs.StringVar(&e.agent, "agent", "", "agent name recorded with the transactions (default $TXEDIT_AGENT, else cli; for mcp the client's name)")
	}
}

// pfx is the one prefix of everything a command says on stderr:
// "txedit: CMD: ".
func (e *env) pfx() string { return "txedit: " + e.cmd + ": " }

// agentName is the agent recorded for the command's transactions.
func (e *env) agentName() string {
	if e.agent != "" {
		return e.agent
	}
	return "cli"
}

type command struct {
	name  string
	flags func(fs *flag.FlagSet)
	run   func(ctx context.Context, e *env, args []string) int
	// plain: the command reads no workspace and ends at once (version,
	// help, completion), so it neither looks for a workspace nor watches
	// for Ctrl-C: a process that only prints starts and ends like a small
	// Go program (docs/design.md, "Process start").
	plain bool
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(stdout, usage)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	if args[0] == "--version" || args[0] == "-version" {
		args = append([]string{"version"}, args[1:]...)
	}
	if args[0] == "mcp" && len(args) > 1 && (args[1] == "install" || args[1] == "uninstall") {
		args = append([]string{"mcp " + args[1]}, args[2:]...)
	}
	mk, ok := commandTable()[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "txedit: unknown command %q%s; run 'txedit help' for the list\n", args[0], didYouMean(args[0]))
		return 2
	}
	c := mk()
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, cmd: c.name}
	fs := flag.NewFlagSet("txedit "+c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // parse errors are said below, in one line
	fs.Usage = func() {}
	if c.flags != nil {
		c.flags(fs)
	}
	e.commonFlags(fs)
	pos, err := parseInterleaved(fs, args[1:])
	if e.agent == "" {
		e.agent = os.Getenv("TXEDIT_AGENT")
	}
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			writeHelp(stdout, c.name)
			return 0
		}
		fmt.Fprintf(stderr, "%s%v; run 'txedit help %s' for its flags and examples\n", e.pfx(), err, c.name)
		return 2
	}
	if c.plain {
		return c.run(context.Background(), e, pos)
	}
	e.discoverRoot(fs, c.name)
	e.color = !e.json && isTerminal(stdout) && os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if testOnlyDone != nil {
		defer testOnlyDone()
	}
	return c.run(ctx, e, pos)
}

// parseInterleaved parses flags that may stand before or after positional
// arguments (the standard flag package stops at the first positional).
// "--" ends the flags.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	args = expandShort(fs, args)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if len(args) > 0 && len(rest) < len(args) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// expandShort turns grep-style short flags into what package flag parses:
// "-C3" into "-C" "3" and "-in" into "-i" "-n", when the letters are flags
// of fs and "-C3" is not itself a flag. Everything after "--" is left.
func expandShort(fs *flag.FlagSet, args []string) []string {
	var out []string
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		if len(a) < 3 || a[0] != '-' || a[1] == '-' || strings.Contains(a, "=") || fs.Lookup(a[1:]) != nil {
			out = append(out, a)
			continue
		}
		first := fs.Lookup(a[1:2])
		if first != nil && !isBool(first) {
			out = append(out, a[:2], a[2:])
			continue
		}
		split := true
		for _, c := range a[1:] {
			if f := fs.Lookup(string(c)); f == nil || !isBool(f) {
				split = false
				break
			}
		}
		if !split {
			out = append(out, a)
			continue
		}
		for _, c := range a[1:] {
			out = append(out, "-"+string(c))
		}
	}
	return out
}

func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Test-only knobs, set by testhooks.go in binaries built with the
// txedit_testhooks tag (never in a release): testOnlyOptions adjusts the
// options of every workspace opened, testOnlyDone runs when a command ends.
var (
	testOnlyOptions func(root string, o *engine.Options)
	testOnlyDone    func()
)

func (e *env) open(opts *engine.Options) (*engine.Workspace, error) {
	return e.openAt(e.root, opts)
}

// openAt opens the workspace at root (open's, for a command that serves
// several).
func (e *env) openAt(root string, opts *engine.Options) (*engine.Workspace, error) {
	if opts == nil {
		opts = &engine.Options{}
	}
	if opts.Agent == "" {
		opts.Agent = e.agentName()
	}
	if opts.Dir == "" && root == e.root {
		opts.Dir = e.dir
	}
	e.noteRoot()
	if testOnlyOptions != nil {
		testOnlyOptions(root, opts)
	}
	mcpcli.Tune(opts, e.stderr, e.pfx())
	w, err := engine.Open(root, opts)
	if err != nil {
		return nil, err
	}
	for _, r := range w.Recovered() {
		fmt.Fprintln(e.stderr, mcpcli.RecoveredMessage(r.ID, r.Finished, len(r.Conflicts), r.Damaged))
	}
	return w, nil
}

// fail prints an error and returns its exit status.
func (e *env) fail(err error) int {
	code := plan.CodeOf(err)
	if e.json {
		e.printJSON(map[string]any{"success": false, "code": code, "error": err.Error()})
	} else {
		fmt.Fprintf(e.stderr, e.pfx()+"%s\n", strings.TrimPrefix(err.Error(), string(code)+": "))
	}
	return exitCode(code)
}

// exitCode is the one place codes become exit statuses: 0 success, 1 the
// operation failed (in atomic mode nothing was written), 2 bad usage or an
// unparseable request, 3 committed but its durability is unknown (the
// change took effect: do not retry it).
func exitCode(code plan.Code) int {
	switch code {
	case "":
		return 0
	case plan.CodeInvalidRequest:
		return 2
	case plan.CodeCommitUnknown:
		return 3
	default:
		return 1
	}
}

// printWarnings prints a write result's warnings (a commit whose
// durability is unknown, a retention that failed) to stderr.
func (e *env) printWarnings(res *plan.Result) {
	for _, w := range res.Warnings {
		fmt.Fprintf(e.stderr, e.pfx()+"warning: %s\n", w)
	}
}

// printJSON prints v indented (two spaces, no HTML escaping, as
// encoding/json would). It is encoded compactly — by the result's own
// encoder when it has one — and indented as it is written, big strings
// straight from the compact bytes: a tool's text is neither scanned by
// encoding/json's indenter nor copied twice (a claude Grep of a source
// tree prints megabytes).
func (e *env) printJSON(v any) {
	b, ok := compactJSON(v)
	if !ok {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if enc.Encode(v) != nil {
			return
		}
		b = bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	}
	if jsonenc.WriteIndent(e.stdout, b, "  ") == nil {
		e.stdout.Write([]byte{'\n'})
	}
}

func (e *env) usageErr(format string, args ...any) int {
	fmt.Fprintf(e.stderr, e.pfx()+""+format+"\n", args...)
	return 2
}

// didYouMean names the command nearest to an unknown one, if one is near.
func didYouMean(name string) string {
	best, dist := "", 3
	for c := range commandTable() {
		if d := editDistance(name, c); d < dist || d == dist && c < best {
			best, dist = c, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// editDistance is Levenshtein's distance between two short words.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
