package tools

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/txedit/txedit/apply"
	"github.com/txedit/txedit/hash"
	"github.com/txedit/txedit/plan"
)

// What an agent is told when its edit met a file changed since its read
// (docs/design.md, "Concurrency"): after the dialect's own words, a note
// of txedit's (docs/toolsets.md lists it as a deliberate addition). A
// success whose edit was rebased says who changed the file and what the
// change was; a stale_hash refusal says the same, and shows the current
// text of the lines concerned, so the agent can retry without reading the
// whole file again.

// deltaOf is the delta of a result's one file, if any.
func deltaOf(res *plan.Result) *plan.Delta {
	if res == nil || len(res.Files) != 1 {
		return nil
	}
	return res.Files[0].Delta
}

// rebasedNote is the note a success adds when its edit was rebased ("" when
// it was not).
func rebasedNote(res *plan.Result) string {
	d := deltaOf(res)
	if d == nil || !d.Rebased {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n\nNote (txedit): your edit was applied on top of changes made since your last read")
	if d.From != "" {
		fmt.Fprintf(&b, " (of %s)", d.From)
	}
	b.WriteString(" by " + byText(d.By) + ":\n")
	b.WriteString(d.Diff)
	if len(d.Reread) > 0 {
		fmt.Fprintf(&b, "%s: lines %s of the file now. Read those lines again before editing near them.", more(d), apply.RangeString(d.Reread))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// more introduces the changes a delta's diff leaves out.
func more(d *plan.Delta) string {
	if d.Diff == "" {
		return "Too large to show"
	}
	return "… and more"
}

// staleNote is the note a stale_hash refusal adds (and a conflict after
// the tries of a commit that outside saves interrupted), its region's lines
// numbered as line(n, text) prints them ("" when the refusal carries no
// delta: the version read is not known, and the file must be read again).
func staleNote(d *plan.Delta, line func(n int, text string) string) string {
	if d == nil || d.Rebased {
		return ""
	}
	var b strings.Builder
	if d.Read == d.Current {
		// A conflict with the file as the session read it (a save that
		// wrote the same bytes): no change to show.
		b.WriteString("\n\nNote (txedit): the file is as you last read it.\n")
	} else {
		b.WriteString("\n\nNote (txedit): it changed since your last read, by " + byText(d.By))
		if d.From != "" {
			fmt.Fprintf(&b, " (you read it as %s)", d.From)
		}
		b.WriteString(":\n")
		b.WriteString(d.Diff)
	}
	if len(d.Reread) > 0 {
		fmt.Fprintf(&b, "%s: lines %s of the file now.\n", more(d), apply.RangeString(d.Reread))
	}
	b.WriteString("Your edit was not applied: " + strings.TrimPrefix(d.Why, "the edit was not applied on top of it: ") + ".")
	if r := d.Region; r != nil {
		fmt.Fprintf(&b, " Lines %d-%d now read:\n", r.Start, r.End)
		for i, l := range r.Lines {
			b.WriteString(line(r.Start+i, l))
			b.WriteByte('\n')
		}
	} else {
		b.WriteByte('\n')
	}
	switch empty := hash.Of(nil).String(); {
	case d.Current == empty && d.Read != empty:
		// Most likely a save in place half done: it does not count as
		// read (docs/design.md, "Concurrency").
		b.WriteString("The file is empty at this moment, which may be another program's save half done: read it again before retrying.")
	case len(d.Reread) == 0 && strings.Contains(d.Why, "whole file"):
		b.WriteString("With this change your view of the file is current (it counts as read): write the file again with the change in it, or edit it instead, without reading it again.")
	case len(d.Reread) == 0:
		b.WriteString("With this change your view of the file is current (it counts as read): retry the edit against the text above, without reading the file again.")
	default:
		b.WriteString("Read the lines named above again (or the whole file), then retry.")
	}
	return b.String()
}

// numbered is Claude Code's Read format of a line: its number, a tab,
// its text.
func numbered(n int, text string) string { return strconv.Itoa(n) + "\t" + text }

// byText names who made a change: the agents (each once, in the order
// they first changed the file; after maxNamed, how many more) and writers
// outside txedit, then the transaction, or how many and the last:
// "bob (transaction T)", "bob, carol and a writer outside txedit (3
// transactions, the last T)".
func byText(by []plan.Changer) string {
	var names []string
	seen := map[string]bool{}
	n, last := 0, ""
	for _, c := range by {
		name := c.Agent
		switch {
		case c.Outside:
			name = "a writer outside txedit"
		case name == "":
			name = "an unnamed agent"
		}
		if !c.Outside {
			n, last = n+1, c.Transaction
		}
		if !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	if len(names) > maxNamed {
		names = append(names[:maxNamed], fmt.Sprintf("%d more", len(names)-maxNamed))
	}
	s := "someone"
	switch k := len(names); {
	case k == 1:
		s = names[0]
	case k > 1:
		s = strings.Join(names[:k-1], ", ") + " and " + names[k-1]
	}
	switch {
	case n == 1:
		s += " (transaction " + last + ")"
	case n > 1:
		s += fmt.Sprintf(" (%d transactions, the last %s)", n, last)
	}
	return s
}

// maxNamed is how many agents a note names.
const maxNamed = 4

// refusalDelta is the delta a refusal of code shows (nil: none): a
// stale_hash refusal's, or a conflict's that the last of the tries of a
// commit interrupted by outside saves gave the change and the region
// (docs/design.md, "Concurrency").
func refusalDelta(res *plan.Result, code plan.Code) *plan.Delta {
	d := resultDelta(res)
	switch {
	case d == nil:
		return nil
	case code == plan.CodeStaleHash:
		return d
	case code == plan.CodeConflict && !d.Rebased && d.Why != "":
		return d
	}
	return nil
}

// resultDelta is the delta of a failed result's file (nil: none).
func resultDelta(res *plan.Result) *plan.Delta {
	if res == nil {
		return nil
	}
	for _, f := range res.Files {
		if f.Delta != nil && !f.Success {
			return f.Delta
		}
	}
	return nil
}
