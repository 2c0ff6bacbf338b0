package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/txedit/txedit/internal/clientconfig"
	"github.com/txedit/txedit/internal/mcpcli"
	"github.com/txedit/txedit/tools"
)

// txedit mcp install and txedit mcp uninstall: the txedit server's entry in
// an MCP client's configuration file (internal/clientconfig does the
// editing).

func mcpInstallCmd() *command   { return clientConfigCmd("mcp install", true) }
func mcpUninstallCmd() *command { return clientConfigCmd("mcp uninstall", false) }

func clientConfigCmd(name string, install bool) *command {
	cc := &clientConfig{name: name, install: install}
	// The server's own flags, taken from txedit mcp so that the two cannot
	// drift: whatever is set here is passed on in the entry's args.
	cc.server = flag.NewFlagSet("mcp", flag.ContinueOnError)
	mcpCmd().flags(cc.server)
	return &command{name: name, flags: cc.flags, run: cc.run}
}

// clientConfig is txedit mcp install or uninstall: its flags, and the
// server's (install).
type clientConfig struct {
	name    string
	install bool
	server  *flag.FlagSet

	client, scope, entryName, cmdPath, file, replace string
	dryRun                                           bool
}

func (cc *clientConfig) flags(fs *flag.FlagSet) {
	fs.StringVar(&cc.client, "client", "", "the MCP client: "+strings.Join(clientconfig.Names(), ", "))
	fs.StringVar(&cc.scope, "scope", "", "user (all projects) or project (a file in the project, the root); default: project where the client has it")
	fs.StringVar(&cc.entryName, "name", clientconfig.DefaultName, "the server's name in the client's configuration")
	fs.StringVar(&cc.file, "file", "", "edit this file instead of the client's documented one")
	fs.BoolVar(&cc.dryRun, "dry-run", false, "print the change as a diff of the file, write nothing")
	if cc.install {
		fs.StringVar(&cc.cmdPath, "command", "", "the command the client starts (default: the absolute path of this txedit)")
		fs.StringVar(&cc.replace, "replace", "", "replace the client's entry NAME of the official filesystem server (@modelcontextprotocol/server-filesystem) with txedit's filesystem toolset, keeping its name and its directories, instead of adding a txedit entry")
		cc.server.VisitAll(func(f *flag.Flag) {
			if f.Name != "root" { // the project's, below
				fs.Var(f.Value, f.Name, f.Usage)
			}
		})
	}
}

// run checks the flags and the root, then installs or uninstalls the
// entry and reports the change.
func (cc *clientConfig) run(ctx context.Context, e *env, args []string) int {
	c, code := cc.lookupClient(e, args)
	if c == nil {
		return code
	}
	root, err := filepath.Abs(e.root)
	if err != nil {
		return e.failConfig(err)
	}
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return e.failConfig(fmt.Errorf("the root %s is not a directory", root))
	}
	o := clientconfig.Options{Client: c, Scope: clientconfig.Scope(cc.scope), Project: root, Name: cc.entryName, File: cc.file, DryRun: cc.dryRun}
	if cc.install {
		return cc.runInstall(e, o)
	}
	ch, err := clientconfig.Uninstall(o)
	if err != nil {
		return e.failConfig(err)
	}
	e.reportConfig(ch, o, cc.dryRun)
	return 0
}

// lookupClient checks the arguments and returns the client named, or nil
// and the exit code of a usage error.
func (cc *clientConfig) lookupClient(e *env, args []string) (*clientconfig.Client, int) {
	name := cc.name
	if len(args) > 0 {
		return nil, e.usageErr("%s takes no arguments (the client is --client NAME)", name)
	}
	if cc.client == "" {
		return nil, e.usageErr("%s: which client? --client %s", name, strings.Join(clientconfig.Names(), "|"))
	}
	c, err := clientconfig.Lookup(cc.client)
	if err != nil {
		return nil, e.usageErr("%s: %v", name, err)
	}
	if cc.scope != "" && !c.Has(clientconfig.Scope(cc.scope)) {
		_, err := c.Path(clientconfig.Scope(cc.scope), "/", clientconfig.Env{})
		return nil, e.usageErr("%s: %v", name, err)
	}
	if cc.entryName == "" {
		return nil, e.usageErr("%s: --name must not be empty", name)
	}
	return c, 0
}

// runInstall checks the server's flags, decides the entry's command and
// root, and adds the entry (or, with --replace, puts it in the place of
// the official filesystem server's).
func (cc *clientConfig) runInstall(e *env, o clientconfig.Options) int {
	toolset := cc.server.Lookup("toolset").Value.String()
	if cc.replace != "" {
		if toolset != tools.Default && toolset != "filesystem" {
			return e.usageErr("%s --replace: the official filesystem server's place takes --toolset filesystem, not %s", cc.name, toolset)
		}
		toolset = "filesystem"
	}
	if _, err := tools.Get(toolset); err != nil {
		return e.fail(err)
	}
	deny := func(n string) []string { return *cc.server.Lookup(n).Value.(*multiFlag) }
	if err := mcpcli.CheckExec(cc.server.Lookup("allow-execute").Value.String() == "true", deny("deny-read"), deny("deny-write")); err != nil {
		return e.fail(err) // the entry would name a server that refuses to start
	}
	entryRoot, err := cc.entryCommand(e, o.Client, o.Project)
	if err != nil {
		return e.failConfig(err)
	}
	found, ferr := clientconfig.FindFilesystem(o)
	if cc.replace != "" {
		if ferr != nil {
			return e.failConfig(ferr)
		}
		return cc.runReplace(e, o, found, toolset)
	}
	o.Server = clientconfig.Server{Command: cc.cmdPath, Args: serverArgs(cc.server, toolset, entryRoot, nil)}
	ch, err := clientconfig.Install(o)
	if err != nil {
		return e.failConfig(err)
	}
	e.reportConfig(ch, o, cc.dryRun)
	e.offerReplace(found, cc.client, cc.scope, ch)
	return 0
}

// entryCommand decides the command the entry names (cc.cmdPath) and
// returns the root it names. A project's file names the project by the
// client's own variable (it may be committed and shared), and
// the command by its absolute path, never a bare name: a client looks a
// bare name up on the PATH it was started with, and one started through
// npm (npx) has the repository's node_modules/.bin first on it, where the
// repository can put a txedit of its own (docs/agents.md). The txedit
// named is the one first on PATH here, unless that one lies in the
// project; else this one. --command writes exactly what it is given (a
// team that shares the file and trusts its PATH passes --command txedit).
// A user's file names this txedit and the root by their paths.
func (cc *clientConfig) entryCommand(e *env, c *clientconfig.Client, root string) (string, error) {
	project := (cc.scope == "" && c.Scopes[0] == clientconfig.Project || cc.scope == string(clientconfig.Project)) && cc.file == ""
	entryRoot := root
	if project && c.ProjectRoot != "" {
		entryRoot = c.ProjectRoot
	}
	if cc.cmdPath == "" && project {
		if p, err := exec.LookPath("txedit"); err == nil {
			if p, err = filepath.Abs(p); err == nil {
				if inside(root, p) {
					fmt.Fprintf(e.stderr, "%sthe txedit first on PATH (%s) lies in the project: the entry names this txedit instead\n", e.pfx(), p)
				} else {
					cc.cmdPath = p
				}
			}
		}
	}
	if cc.cmdPath == "" {
		var err error
		if cc.cmdPath, err = thisExecutable(); err != nil {
			return "", err
		}
	}
	return entryRoot, nil
}

// runReplace puts txedit's filesystem toolset in the place of the
// client's entry cc.replace of the official filesystem server, keeping
// its name and its directories.
func (cc *clientConfig) runReplace(e *env, o clientconfig.Options, found []clientconfig.FilesystemEntry, toolset string) int {
	fe, ok := filesystemNamed(found, cc.replace)
	if !ok {
		return e.failConfig(&clientconfig.UsageError{Msg: fmt.Sprintf("%s --replace %s: the configuration has no entry %q that runs the official filesystem server (%s)", cc.name, cc.replace, cc.replace, describeEntries(found))})
	}
	o.Server = clientconfig.Server{Command: cc.cmdPath, Args: serverArgs(cc.server, toolset, "", fe.Dirs)}
	ch, err := clientconfig.ReplaceFilesystem(o, fe)
	if err != nil {
		return e.failConfig(err)
	}
	e.reportReplace(ch, o, fe, cc.dryRun)
	return 0
}

// serverArgs are the arguments of txedit mcp in the entry: the toolset and
// the root (if any), then every other server flag that differs from its
// default, in name order, then dirs (the directories of a filesystem
// server replaced). (The flag values are shared with the command's flag
// set, which parsed them.)
func serverArgs(server *flag.FlagSet, toolset, root string, dirs []string) []string {
	args := []string{"mcp", "--toolset", toolset}
	if root != "" {
		args = append(args, "--root", root)
	}

	var set []*flag.Flag
	server.VisitAll(func(f *flag.Flag) {
		if f.Name == "toolset" || f.Name == "root" {
			return
		}
		switch v := f.Value.(type) {
		case *multiFlag:
			if len(*v) > 0 {
				set = append(set, f)
			}
		default:
			if f.Value.String() != f.DefValue {
				set = append(set, f)
			}
		}
	})
	for _, f := range set {
		switch v := f.Value.(type) {
		case *multiFlag:
			for _, x := range *v {
				args = append(args, "--"+f.Name, x)
			}
		default:
			if isBool(f) {
				args = append(args, "--"+f.Name)
			} else {
				args = append(args, "--"+f.Name, f.Value.String())
			}
		}
	}
	for _, d := range dirs {
		if strings.HasPrefix(d, "-") {
			args = append(args, "--") // a directory, not a flag
			break
		}
	}
	return append(args, dirs...)
}

// inside reports whether path p lies in directory dir (both absolute),
// symbolic links resolved where they resolve.
func inside(dir, p string) bool {
	for _, pair := range [][2]string{{dir, p}, {evalOr(dir), evalOr(p)}} {
		if rel, err := filepath.Rel(pair[0], pair[1]); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return true
		}
	}
	return false
}

func evalOr(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// thisExecutable is the absolute path of the running txedit, which the
// client will start. A binary that go run or go test built in a temporary
// directory would be gone when the client starts it: refused.
func thisExecutable() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("cannot tell where this txedit is (%w); pass --command PATH", err)
	}
	if exe, err = filepath.Abs(exe); err != nil {
		return "", err
	}
	if strings.Contains(filepath.ToSlash(exe), "/go-build") {
		return "", fmt.Errorf("this txedit is a temporary build (go run) at %s, which the client could not start later; "+
			"install it first (go install github.com/txedit/txedit/cmd/txedit@latest, or go install ./cmd/txedit in the clone) "+
			"and run the installed txedit, or pass --command PATH", exe)
	}
	return exe, nil
}

// failConfig reports an error of mcp install/uninstall: usage errors exit
// 2, everything else 1. In --json, the code is denied (a read-only file or
// directory), invalid_config (a file that does not parse or has another
// shape) or io_error.
func (e *env) failConfig(err error) int {
	var ue *clientconfig.UsageError
	if errors.As(err, &ue) {
		return e.usageErr("%v", err)
	}
	code := "io_error"
	var ro *clientconfig.ReadOnlyError
	var me *clientconfig.MalformedError
	switch {
	case errors.As(err, &ro):
		code = "denied"
	case errors.As(err, &me):
		code = "invalid_config"
	}
	if e.json {
		e.printJSON(map[string]any{"success": false, "code": code, "error": err.Error()})
	} else {
		fmt.Fprintf(e.stderr, e.pfx()+"%v\n", err)
	}
	return 1
}

func (e *env) reportConfig(ch *clientconfig.Change, o clientconfig.Options, dryRun bool) {
	if e.json {
		out := map[string]any{"success": true, "client": ch.Client.Name, "scope": ch.Scope, "name": ch.Name,
			"path": ch.Path, "target": ch.Target, "action": ch.Action, "written": ch.Written, "dry_run": dryRun, "diff": ch.Diff()}
		if o.Server.Command != "" {
			out["command"], out["args"] = o.Server.Command, o.Server.Args
		}
		e.printJSON(out)
		return
	}
	if dryRun {
		e.printDiff(ch.Diff())
	}
	config := fmt.Sprintf("%s's %s configuration", ch.Client.Title, ch.Scope)
	where := "  " + ch.Path
	if ch.Target != ch.Path {
		where += " -> " + ch.Target
	}
	switch {
	case ch.Action == clientconfig.Unchanged:
		fmt.Fprintf(e.stdout, "%s already has this %s server; nothing was written:\n%s\n", config, ch.Name, where)
		return
	case ch.Action == clientconfig.Absent:
		fmt.Fprintf(e.stdout, "%s has no %s server; nothing was written:\n%s\n", config, ch.Name, where)
		return
	}
	what := map[clientconfig.Action]string{
		clientconfig.Added:   "add the " + ch.Name + " server to " + config,
		clientconfig.Updated: "update the " + ch.Name + " server in " + config,
		clientconfig.Removed: "remove the " + ch.Name + " server from " + config,
	}[ch.Action]
	if dryRun {
		fmt.Fprintf(e.stdout, "Dry run, nothing was written; this would %s:\n%s\n", what, where)
		return
	}
	past := map[clientconfig.Action]string{clientconfig.Added: "Added", clientconfig.Updated: "Updated", clientconfig.Removed: "Removed"}[ch.Action]
	fmt.Fprintf(e.stdout, "%s%s:\n%s\n", past, what[strings.IndexByte(what, ' '):], where)
	if ch.Action != clientconfig.Removed {
		fmt.Fprintf(e.stdout, "It runs: %s\n", shellLine(o.Server.Command, o.Server.Args))
		fmt.Fprintln(e.stdout, ch.Client.Next[ch.Scope])
	}
}

// shellLine renders a command line, quoting words a shell would split.
func shellLine(cmd string, args []string) string {
	words := append([]string{cmd}, args...)
	for i, w := range words {
		if w == "" || strings.ContainsAny(w, " \t\n'\"\\$`*?[]{}();&|<>~#") {
			words[i] = strconv.Quote(w)
		}
	}
	return strings.Join(words, " ")
}

// filesystemNamed returns the entry called name.
func filesystemNamed(found []clientconfig.FilesystemEntry, name string) (clientconfig.FilesystemEntry, bool) {
	for _, f := range found {
		if f.Name == name {
			return f, true
		}
	}
	return clientconfig.FilesystemEntry{}, false
}

func describeEntries(found []clientconfig.FilesystemEntry) string {
	if len(found) == 0 {
		return "it has none"
	}
	var names []string
	for _, f := range found {
		names = append(names, strconv.Quote(f.Name))
	}
	return "it has " + strings.Join(names, ", ")
}

// offerReplace says, after an install, that the configuration also runs
// the official filesystem server, and how txedit takes its place.
func (e *env) offerReplace(found []clientconfig.FilesystemEntry, client, scope string, ch *clientconfig.Change) {
	if e.json || len(found) == 0 {
		return
	}
	for _, f := range found {
		line := shellLine(f.Command, f.Args)
		if !f.Replaceable {
			fmt.Fprintf(e.stdout, "Note: this configuration also runs the official filesystem server as %q (%s); %s.\n", f.Name, line, f.Why)
			continue
		}
		again := "txedit mcp install --client " + client
		if scope != "" {
			again += " --scope " + scope
		}
		again += " --replace " + shellLine(f.Name, nil)
		fmt.Fprintf(e.stdout, "Note: this configuration also runs the official filesystem server as %q (%s).\n"+
			"txedit can serve its directories in its place, with the same tools and every write undoable: %s\n", f.Name, line, again)
	}
}

// reportReplace says what --replace did.
func (e *env) reportReplace(ch *clientconfig.Change, o clientconfig.Options, fe clientconfig.FilesystemEntry, dryRun bool) {
	if e.json {
		e.printJSON(map[string]any{"success": true, "client": ch.Client.Name, "scope": ch.Scope, "name": ch.Name,
			"path": ch.Path, "target": ch.Target, "action": "replaced", "written": ch.Written, "dry_run": dryRun, "diff": ch.Diff(),
			"replaced": map[string]any{"command": fe.Command, "args": fe.Args, "dirs": fe.Dirs},
			"command":  o.Server.Command, "args": o.Server.Args})
		return
	}
	if dryRun {
		e.printDiff(ch.Diff())
	}
	config := fmt.Sprintf("%s's %s configuration", ch.Client.Title, ch.Scope)
	dirs := "the client's roots (the entry names no directory)"
	if len(fe.Dirs) > 0 {
		dirs = strings.Join(fe.Dirs, ", ")
	}
	verb := "Replaced"
	if dryRun {
		verb = "Dry run, nothing was written; this would replace"
	} else if ch.Action == clientconfig.Unchanged {
		fmt.Fprintf(e.stdout, "%s's %s server already runs txedit; nothing was written:\n  %s\n", config, ch.Name, ch.Path)
		return
	}
	fmt.Fprintf(e.stdout, "%s the official filesystem server %q (%s) in %s with txedit's filesystem toolset.\n"+
		"It keeps its name and serves the same directories: %s; the same tools, every write undoable (txedit undo, or the undo tool).\n  %s\n",
		verb, ch.Name, shellLine(fe.Command, fe.Args), config, dirs, ch.Path)
	if !dryRun {
		fmt.Fprintf(e.stdout, "It runs: %s\n", shellLine(o.Server.Command, o.Server.Args))
		fmt.Fprintln(e.stdout, ch.Client.Next[ch.Scope])
	}
}
