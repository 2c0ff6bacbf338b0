package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/txedit/txedit/engine"
)

func redoCmd() *command {
	c := undoCmd()
	c.name = "redo"
	run := c.run
	c.run = func(ctx context.Context, e *env, args []string) int {
		if len(args) > 0 {
			return e.usageErr("redo takes no arguments (to redo a given undo, run txedit undo UNDO-TXID)")
		}
		e.redo = true
		return run(ctx, e, args)
	}
	return c
}

func undoCmd() *command {
	var force, dryRun bool
	var agent string
	return &command{
		name: "undo",
		flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&force, "force", false, "undo even files that changed since (their current bytes are journaled)")
			fs.BoolVar(&dryRun, "dry-run", false, "print what would be undone, write nothing")
			fs.StringVar(&agent, "agent", "", "undo this agent's newest transaction in effect (refused if another agent changed its files since, unless --force)")
		},
		run: func(ctx context.Context, e *env, args []string) int {
			if len(args) > 1 {
				return e.usageErr("undo takes at most one transaction id")
			}
			uo := engine.UndoOptions{Force: force, DryRun: dryRun, Redo: e.redo, Agent: agent}
			if agent != "" && e.redo {
				return e.usageErr("redo takes no --agent")
			}
			if len(args) == 1 {
				uo.ID = args[0]
			}
			w, err := e.open(nil)
			if err != nil {
				return e.fail(err)
			}
			defer w.Close()
			// Streamed, as apply's: a 50,000-file undo holds no diffs.
			out := e.newResultPrinter(dryRun)
			res, err := w.Undo(out.context(ctx), uo)
			out.end(res)
			if e.json {
				return exitCode(res.Code)
			}
			if err != nil {
				return e.fail(err)
			}
			if dryRun {
				fmt.Fprintf(e.stdout, "dry run: %d file(s) would be restored; nothing was written\n", res.FilesModified)
				return 0
			}
			if res.TransactionID == "" {
				fmt.Fprintln(e.stdout, "nothing to undo: the files already are as before")
				return 0
			}
			e.printStat(res)
			how := "txedit redo brings it back"
			if e.redo {
				how = "txedit undo reverts it again"
			}
			fmt.Fprintf(e.stdout, "committed %s: %s (%s)\n", res.TransactionID, res.Summary, how)
			e.printWarnings(res)
			return exitCode(res.Code)
		},
	}
}

func logCmd() *command {
	var limit int
	var agentFilter string
	return &command{
		name: "log",
		flags: func(fs *flag.FlagSet) {
			fs.IntVar(&limit, "n", 0, "show at most N transactions")
			fs.StringVar(&agentFilter, "agent", "", "only the transactions of this agent")
		},
		run: func(ctx context.Context, e *env, args []string) int {
			if len(args) > 0 {
				return e.usageErr("log takes no arguments")
			}
			w, err := e.open(&engine.Options{ReadOnly: true})
			if err != nil {
				return e.fail(err)
			}
			defer w.Close()
			log, err := w.Log(ctx, engine.LogOptions{Limit: limit, Agent: agentFilter})
			if err != nil {
				return e.fail(err)
			}
			if st, err := w.JournalStatus(ctx); err == nil && st.Err() != nil {
				fmt.Fprintf(e.stderr, e.pfx()+"%v\n", st.Err())
			}
			if e.json {
				if log == nil {
					log = []*engine.TxnInfo{}
				}
				e.printJSON(log)
				return 0
			}
			if len(log) == 0 {
				fmt.Fprintln(e.stdout, "no transactions yet")
			}
			// Aligned columns, whatever the states and agents are; who
			// undid a transaction goes after its summary.
			tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
			for _, t := range log {
				agent := t.Agent
				if agent == "" {
					agent = "-"
				}
				summary := t.Summary
				if t.UndoneBy != "" {
					summary += " (undone by " + t.UndoneBy + ")"
				}
				when := "-"
				if !t.Time.IsZero() {
					when = t.Time.Local().Format(time.DateTime)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d file(s)\t%s\n", t.ID, when, t.State, agent, len(t.Files), summary)
			}
			tw.Flush()
			return 0
		},
	}
}

func showCmd() *command {
	return &command{
		name: "show",
		run: func(ctx context.Context, e *env, args []string) int {
			if len(args) > 1 {
				return e.usageErr("show takes at most one transaction id (see txedit log); without one it shows the newest")
			}
			id := ""
			if len(args) == 1 {
				id = args[0]
			}
			w, err := e.open(&engine.Options{ReadOnly: true})
			if err != nil {
				return e.fail(err)
			}
			defer w.Close()
			// The diff is printed file by file as the journal hands it
			// over (a 50,000-file transaction's diffs are never held).
			bw := bufio.NewWriterSize(e.stdout, 64<<10)
			defer bw.Flush()
			var info *engine.TxnInfo
			started := false
			var jsonTail []byte
			start := func() {
				if started || info == nil {
					return
				}
				started = true
				if e.json {
					// The object as printJSON prints it, its "diff"
					// (the last field) written piece by piece.
					obj := encodeJSON(struct {
						*engine.TxnInfo
						Diff string `json:"diff"`
					}{info, ""}, "")
					cut := bytes.LastIndex(obj, []byte(`""`)) + 1
					bw.Write(obj[:cut])
					jsonTail = obj[cut:]
					return
				}
				state := info.State
				if info.UndoneBy != "" {
					state += " (by " + info.UndoneBy + ")"
				}
				fmt.Fprintf(bw, "transaction %s\nDate:    %s\nState:   %s\nSummary: %s\n", info.ID, info.Time.Local().Format(time.RFC1123Z), state, info.Summary)
				if info.Undoes != "" {
					fmt.Fprintf(bw, "Undoes:  %s\n", info.Undoes)
				}
				for _, f := range info.Files {
					note := ""
					if f.Note != "" {
						note = " (" + f.Note + ")"
					}
					fmt.Fprintf(bw, "  %-6s %s%s\n", f.Kind, f.Path, note)
				}
				fmt.Fprintln(bw)
			}
			err = w.ShowStream(ctx, id, func(ti *engine.TxnInfo) error { info = ti; return nil }, func(d string) error {
				start()
				if e.json {
					q := encodeJSON(d, "")
					bw.Write(q[1 : len(q)-2]) // without the quotes and newline
				} else {
					writeDiff(bw, d, e.color)
				}
				return nil
			})
			if err == nil || started {
				start()
				bw.Write(jsonTail)
			}
			if err != nil {
				bw.Flush()
				return e.fail(err)
			}
			return 0
		},
	}
}

func recoverCmd() *command {
	return &command{
		name: "recover",
		run: func(ctx context.Context, e *env, args []string) int {
			if len(args) > 0 {
				return e.usageErr("recover takes no arguments")
			}
			// Open recovers what it must; Recover then repairs the
			// journal itself and reports stray names. Report it all.
			e.noteRoot()
			w, err := engine.Open(e.root, nil)
			if err != nil {
				return e.fail(err)
			}
			defer w.Close()
			more, err := w.Recover(ctx)
			if err != nil {
				return e.fail(err)
			}
			reports := append(w.Recovered(), more...)
			if e.json {
				type rep struct {
					ID        string   `json:"id,omitempty"`
					Finished  bool     `json:"finished,omitempty"`
					Conflicts any      `json:"conflicts,omitempty"`
					Damaged   string   `json:"damaged,omitempty"`
					Repaired  string   `json:"repaired,omitempty"`
					Strays    []string `json:"strays,omitempty"`
				}
				out := []rep{}
				for _, r := range reports {
					out = append(out, rep{r.ID, r.Finished, r.Conflicts, r.Damaged, r.Repaired, r.Strays})
				}
				e.printJSON(map[string]any{"success": true, "recovered": out})
				return 0
			}
			if len(reports) == 0 {
				fmt.Fprintln(e.stdout, "nothing to recover")
			}
			for _, r := range reports {
				switch {
				case r.Repaired != "":
					fmt.Fprintf(e.stdout, "repaired: %s\n", r.Repaired)
					continue
				case len(r.Strays) > 0:
					fmt.Fprintf(e.stdout, "ignored %d name(s) in .txedit/txns that are not txedit's: %s (remove them by hand)\n", len(r.Strays), strings.Join(r.Strays, ", "))
					continue
				}
				if r.Finished {
					fmt.Fprintf(e.stdout, "finished %s (interrupted after its files were all in place: committed)\n", r.ID)
				} else {
					fmt.Fprintf(e.stdout, "rolled back %s\n", r.ID)
				}
				for _, c := range r.Conflicts {
					fmt.Fprintf(e.stdout, "  left alone: %s: %s", c.Path, c.Reason)
					if c.SavedAs != "" {
						fmt.Fprintf(e.stdout, " (its bytes were saved as %s)", c.SavedAs)
					}
					fmt.Fprintln(e.stdout)
				}
				if r.Damaged != "" {
					fmt.Fprintf(e.stdout, "  damaged manifest: %s\n", r.Damaged)
				}
			}
			return 0
		},
	}
}

func gcCmd() *command {
	return &command{
		name: "gc",
		run: func(ctx context.Context, e *env, args []string) int {
			if len(args) > 0 {
				return e.usageErr("gc takes no arguments")
			}
			w, err := e.open(nil)
			if err != nil {
				return e.fail(err)
			}
			defer w.Close()
			removed, err := w.GC(ctx)
			if err != nil {
				return e.fail(err)
			}
			strays, err := w.Strays()
			if err != nil {
				return e.fail(err)
			}
			if e.json {
				if removed == nil {
					removed = []string{}
				}
				e.printJSON(map[string]any{"success": true, "removed": removed, "strays": strays})
				return 0
			}
			fmt.Fprintf(e.stdout, "removed %d transaction(s)\n", len(removed))
			if len(strays) > 0 {
				fmt.Fprintf(e.stdout, "ignored %d name(s) in .txedit/txns that are not txedit's: %s (remove them by hand)\n", len(strays), strings.Join(strays, ", "))
			}
			return 0
		},
	}
}
