// Package mcpcli is what `txedit mcp` and the txedit-mcp binary share: the
// server's configuration, the arguments one passes the other, and how a
// served directory is opened. It does not import the MCP SDK: only
// txedit-mcp links that (with net/http, crypto/tls and OAuth), so every
// other command starts as fast as a small Go program (docs/design.md,
// "Process start").
package mcpcli

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/plan"
	"github.com/txedit/txedit/tools"
)

// Config is a server's configuration, as txedit mcp's flags give it.
type Config struct {
	Toolset      string
	Dirs         []string // the directories served (--root repeated, then the arguments)
	ReadOnly     bool
	AllowExecute bool
	AllowGit     bool
	NoReadCheck  bool
	DenyRead     []string
	DenyWrite    []string
	Agent        string // --agent (or TXEDIT_AGENT); "" names sessions after the client
	// Server is the language server rename_symbol starts (--server; ""
	// picks one by the file's language: gopls serve for Go).
	Server string
}

// Args is the configuration as txedit-mcp's arguments (Parse reads them).
func (c *Config) Args() []string {
	args := []string{"--toolset", c.Toolset}
	for _, f := range []struct {
		on   bool
		name string
	}{{c.ReadOnly, "--read-only"}, {c.AllowExecute, "--allow-execute"}, {c.AllowGit, "--allow-git"}, {c.NoReadCheck, "--no-read-check"}} {
		if f.on {
			args = append(args, f.name)
		}
	}
	for _, g := range c.DenyRead {
		args = append(args, "--deny-read", g)
	}
	for _, g := range c.DenyWrite {
		args = append(args, "--deny-write", g)
	}
	if c.Agent != "" {
		args = append(args, "--agent", c.Agent)
	}
	if c.Server != "" {
		args = append(args, "--server", c.Server)
	}
	return append(append(args, "--"), c.Dirs...)
}

// Parse reads txedit-mcp's arguments: txedit mcp's flags (--root may be
// repeated), then the directories.
func Parse(args []string) (*Config, error) {
	c := &Config{}
	fs := flag.NewFlagSet("txedit-mcp", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&c.Toolset, "toolset", "txedit", "")
	fs.BoolVar(&c.ReadOnly, "read-only", false, "")
	fs.BoolVar(&c.AllowExecute, "allow-execute", false, "")
	fs.BoolVar(&c.AllowGit, "allow-git", false, "")
	fs.BoolVar(&c.NoReadCheck, "no-read-check", false, "")
	fs.Func("deny-read", "", func(s string) error { c.DenyRead = append(c.DenyRead, s); return nil })
	fs.Func("deny-write", "", func(s string) error { c.DenyWrite = append(c.DenyWrite, s); return nil })
	fs.Func("root", "", func(s string) error { c.Dirs = append(c.Dirs, s); return nil })
	fs.StringVar(&c.Agent, "agent", "", "")
	fs.StringVar(&c.Server, "server", "", "")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	c.Dirs = append(c.Dirs, fs.Args()...)
	return c, nil
}

// Tune sets what the environment asks of a workspace about to be opened:
// TXEDIT_KEEP, the journal's retention in transactions (default 200), and
// TXEDIT_TIMINGS, each write's phases on w (for benchmarks), prefixed.
func Tune(o *engine.Options, w io.Writer, prefix string) {
	if n, err := strconv.Atoi(os.Getenv("TXEDIT_KEEP")); err == nil && n > 0 && o.Keep == 0 {
		o.Keep = n
	}
	if os.Getenv("TXEDIT_TIMINGS") != "" {
		o.Timings = func(phase string, d time.Duration) {
			fmt.Fprintf(w, "%s%-7s %v\n", prefix, phase, d.Round(100*time.Microsecond))
		}
	}
}

// RecoveredMessage is what a command says of a transaction recovery
// rolled back, or finished (its files were all in place: it is
// committed), when it opened the workspace.
func RecoveredMessage(id string, finished bool, conflicts int, damaged string) string {
	msg := fmt.Sprintf("txedit: rolled back transaction %s, interrupted before its commit point", id)
	if finished {
		msg = fmt.Sprintf("txedit: finished transaction %s, interrupted after its files were all in place: it is committed", id)
	}
	if conflicts > 0 {
		msg += fmt.Sprintf(" (%d file(s) changed by others were left alone: see txedit show %s)", conflicts, id)
	}
	if damaged != "" {
		msg = fmt.Sprintf("txedit: transaction %s has a damaged manifest (%s); its files were not checked", id, damaged)
	}
	return strings.TrimSpace(msg)
}

// ExecMode is the permission mode of a command line that offers commands
// when allowExec: --allow-execute is the person's approval of them, so
// nothing is asked (ModeBypass); otherwise mode.
func ExecMode(mode tools.PermissionMode, allowExec bool) tools.PermissionMode {
	if allowExec {
		return tools.ModeBypass
	}
	return mode
}

// CheckExec refuses --allow-execute beside deny flags: a shell command
// reads and writes any file, so the flags would promise what the server
// cannot keep (docs/design.md, "Threat model").
func CheckExec(allowExec bool, denyRead, denyWrite []string) error {
	if allowExec && len(denyRead)+len(denyWrite) > 0 {
		return plan.Errorf(plan.CodeInvalidRequest, "", "--allow-execute cannot be combined with --deny-read or --deny-write: a command can read and write any file, so the deny flags could not be kept; drop one or the other")
	}
	return nil
}
