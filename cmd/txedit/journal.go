package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/journal"
)

// txedit journal [status|adopt|remove]: whose the workspace's journal is,
// and a person's word on one that is not theirs (docs/cli.md, "Whose
// journal").
func journalCmd() *command {
	return &command{
		name: "journal",
		run: func(ctx context.Context, e *env, args []string) int {
			action := "status"
			if len(args) > 1 {
				return e.usageErr("journal takes one of status, adopt, remove")
			}
			if len(args) == 1 {
				action = args[0]
			}
			switch action {
			case "status", "adopt", "remove":
			default:
				return e.usageErr("journal: unknown action %q (status, adopt, remove)", action)
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
