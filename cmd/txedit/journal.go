package main

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/journal"
)

// txedit journal [status|adopt|remove]: whose the workspace's journal is,
// and a person's word on one that is not theirs (docs/cli.md, "Whose
// journal").
func journalCmd() *command {
	var pruneRemove bool
	return &command{
		name: "journal",
		flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&pruneRemove, "remove", false, "journal prune: remove the entries it lists (without it, prune only lists them)")
		},
		run: func(ctx context.Context, e *env, args []string) int {
			action := "status"
			if len(args) > 1 {
				return e.usageErr("journal takes one of status, adopt, remove, prune")
			}
			if len(args) == 1 {
				action = args[0]
			}
			switch action {
			case "status", "adopt", "remove":
				if pruneRemove {
					return e.usageErr("journal: --remove is for journal prune")
				}
			case "prune":
				return e.pruneKeys(pruneRemove)
			default:
				return e.usageErr("journal: unknown action %q (status, adopt, remove, prune)", action)
			}
			w, err := e.open(&engine.Options{ReadOnly: action == "status"})
			if err != nil {
				return e.fail(err)
			}
			defer w.Close()
			switch action {
			case "adopt":
				return e.adoptJournal(ctx, w)
			case "remove":
				if err := w.RemoveJournal(ctx); err != nil {
					return e.fail(err)
				}
				if e.json {
					e.printJSON(map[string]any{"success": true, "removed": journal.Dir})
					return 0
				}
				fmt.Fprintf(e.stdout, "removed %s (the next write makes a journal of yours)\n", journal.Dir)
				return 0
			}
			st, err := w.JournalStatus(ctx)
			if err != nil {
				return e.fail(err)
			}
			if e.json {
				out := map[string]any{"success": true, "standing": st.Standing.String(), "keys": st.Keys}
				if st.Reason != "" {
					out["reason"], out["fix"] = st.Reason, st.Fix()
				}
				e.printJSON(out)
				return 0
			}
			switch st.Standing {
			case journal.NoJournal:
				fmt.Fprintf(e.stdout, "no journal yet: the first write makes one, yours (its key goes in %s)\n", st.Keys)
			case journal.Trusted:
				fmt.Fprintf(e.stdout, "%s is yours: made here by you (its key is in %s)\n", journal.Dir, st.Keys)
			default:
				fmt.Fprintf(e.stdout, "%s is not trusted: it %s.\nNothing in it is recovered, undone or redone, and writes here are refused: %s.\n", journal.Dir, st.Reason, st.Fix())
			}
			return 0
		},
	}
}

// adoptJournal runs txedit journal adopt and says what it trusted.
func (e *env) adoptJournal(ctx context.Context, w *engine.Workspace) int {
	rep, err := w.AdoptJournal(ctx)
	if err != nil {
		return e.fail(err)
	}
	if e.json {
		e.printJSON(map[string]any{"success": true, "trusted": nonNil(rep.Trusted), "untrusted": nonNil(rep.Untrusted), "unfinished": nonNil(rep.Unfinished), "older_key": rep.OlderKey})
		return 0
	}
	fmt.Fprintf(e.stdout, "adopted %s: it is yours now (its key is in your key store", journal.Dir)
	if rep.OlderKey {
		fmt.Fprintf(e.stdout, "; the older key inside it was removed")
	}
	fmt.Fprintln(e.stdout, ")")
	fmt.Fprintf(e.stdout, "trusted %d transaction(s) its own keys vouch for", len(rep.Trusted))
	if len(rep.Untrusted) > 0 {
		fmt.Fprintf(e.stdout, "; %d stay refused (nothing vouches for them): %s", len(rep.Untrusted), strings.Join(rep.Untrusted, ", "))
	}
	fmt.Fprintln(e.stdout)
	if len(rep.Unfinished) > 0 {
		fmt.Fprintf(e.stdout, "%d were interrupted by a crash: the next write, or txedit recover, rolls them back (txedit show ID says what each changed): %s\n", len(rep.Unfinished), strings.Join(rep.Unfinished, ", "))
	}
	return 0
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// pruneKeys runs txedit journal prune: it lists the key store's entries
// whose recorded root no longer holds their journal, and removes them only
// with --remove (docs/journal.md, "Pruning the key store").
func (e *env) pruneKeys(remove bool) int {
	dir, err := journal.UserKeysDir()
	if err != nil {
		return e.fail(err)
	}
	ents, err := journal.PruneKeys(dir, remove, journal.PruneMinAge, time.Now())
	if err != nil {
		return e.fail(err)
	}
	var gone, kept, removed int
	for _, pe := range ents {
		switch {
		case pe.Done:
			removed++
		case pe.Remove:
			gone++
		default:
			kept++
		}
	}
	if e.json {
		e.printJSON(map[string]any{"success": true, "keys": dir, "dry_run": !remove, "entries": nonNilEntries(ents), "removed": removed, "would_remove": gone, "kept": kept})
		return 0
	}
	for _, pe := range ents {
		switch {
		case pe.Done:
			fmt.Fprintf(e.stdout, "removed %s (%s): %s\n", pe.ID, pe.Root, pe.Reason)
		case pe.Remove:
			fmt.Fprintf(e.stdout, "would remove %s (%s): %s\n", pe.ID, pe.Root, pe.Reason)
		}
	}
	if remove {
		fmt.Fprintf(e.stdout, "removed %d entr(ies) of %s; kept %d\n", removed, dir, kept)
	} else {
		fmt.Fprintf(e.stdout, "%d entr(ies) of %s would be removed, %d kept; run txedit journal prune --remove to remove them\n", gone, dir, kept)
	}
	return 0
}

func nonNilEntries(s []journal.PruneEntry) []journal.PruneEntry {
	if s == nil {
		return []journal.PruneEntry{}
	}
	return s
}
