// Command txedit-mcp is txedit's MCP server on stdio: `txedit mcp` becomes
// it, with the arguments it checked (internal/mcpcli). It is a binary of
// its own so that only it links the MCP SDK, with the HTTP, TLS and OAuth
// packages the SDK brings, and every other txedit command starts as fast
// as a small Go program (README, "Install"). Install both with
// `go install ./cmd/...`.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/internal/buildinfo"
	"github.com/txedit/txedit/internal/mcpcli"
	"github.com/txedit/txedit/internal/profile"
	"github.com/txedit/txedit/tools"
	"github.com/txedit/txedit/tools/mcpserver"
)

// prefix starts every message, as txedit mcp's would.
const prefix = "txedit: mcp: "

func main() {
	// A server's writes are apply's work: the collector at 100 reuses
	// pages a growing heap would fault in (cmd/txedit/main.go, gcPercent),
	// and the same soft limit.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(100)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(128 << 20)
	}
	os.Exit(profile.Run(func() int { return run(os.Args[1:]) }))
}

func run(args []string) int {
	cfg, err := mcpcli.Parse(args)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s%v (txedit-mcp takes txedit mcp's flags; run txedit help mcp)\n", prefix, err)
		return 2
	}
	ts, err := tools.Get(cfg.Toolset)
	if err == nil {
		err = mcpcli.CheckExec(cfg.AllowExecute, cfg.DenyRead, cfg.DenyWrite)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s%v\n", prefix, err)
		return 2
	}
	if len(cfg.Dirs) == 0 {
		cfg.Dirs = []string{"."}
	}
	if len(cfg.Dirs) > 1 && !ts.Roots {
		fmt.Fprintf(os.Stderr, "%s--toolset %s serves one directory (%d given); --toolset filesystem serves several, each with its own journal\n", prefix, ts.Name, len(cfg.Dirs))
		return 2
	}
	open := func(dir string) (*engine.Workspace, error) {
		// BackgroundGC: the server lives across calls, so the journal's
		// retention runs after an answer, not inside it (docs/journal.md,
		// "Retention after the answer"); TXEDIT_GC=inline turns it off.
		o := &engine.Options{DenyRead: cfg.DenyRead, DenyWrite: cfg.DenyWrite, AllowGit: cfg.AllowGit, ReadOnly: cfg.ReadOnly, Agent: cfg.Agent,
			BackgroundGC: os.Getenv("TXEDIT_GC") != "inline"}
		if o.Agent == "" {
			o.Agent = "cli"
		}
		mcpcli.Tune(o, os.Stderr, prefix)
		w, err := engine.Open(dir, o)
		if err != nil {
			return nil, err
		}
		for _, r := range w.Recovered() {
			fmt.Fprintln(os.Stderr, mcpcli.RecoveredMessage(r.ID, r.Finished, len(r.Conflicts), r.Damaged))
		}
		return w, nil
	}
	// As the official filesystem server does, a directory that cannot be
	// opened is skipped with a warning; none at all is an error.
	var ws []*engine.Workspace
	for _, d := range cfg.Dirs {
		w, err := open(d)
		if err != nil {
			if len(cfg.Dirs) == 1 {
				fmt.Fprintf(os.Stderr, "%s%v\n", prefix, err)
				return 1
			}
			fmt.Fprintf(os.Stderr, "%swarning: skipping %s: %v\n", prefix, d, err)
			continue
		}
		defer w.Close()
		ws = append(ws, w)
	}
	if len(ws) == 0 {
		fmt.Fprintf(os.Stderr, "%snone of the directories can be served\n", prefix)
		return 1
	}
	// Roots the client offers are opened as they come, and closed when the
	// server ends.
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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	// The client is the agent's host: writes need no further approval
	// here (it asks its user, as MCP clients do). Each connection is a
	// session named after the client, unless --agent or TXEDIT_AGENT names
	// it.
	server := mcpserver.New(ts, ws[0], mcpserver.Options{ReadOnly: cfg.ReadOnly, Version: buildinfo.Version(), Agent: cfg.Agent,
		NoReadCheck: cfg.NoReadCheck, Env: tools.Env{Mode: mcpcli.ExecMode(tools.ModeAcceptEdits, cfg.AllowExecute), AllowExecute: cfg.AllowExecute, LanguageServer: strings.Fields(cfg.Server)},
		Roots: ws[1:], OpenRoot: openRoot})
	// The SDK's stdio, with every message checked first: one it cannot
	// decode would end the connection (mcpserver.GuardedStdio).
	if err := server.Run(ctx, mcpserver.GuardedStdio()); err != nil && ctx.Err() == nil {
		fmt.Fprintf(os.Stderr, "%s%v\n", prefix, err)
		return 1
	}
	return 0
}
