package engine

import (
	"context"

	"github.com/txedit/txedit/journal"
	"github.com/txedit/txedit/plan"
)

// Whose the workspace's journal is decides what txedit does with it
// (docs/design.md, "What makes a journal trusted"): only a journal this
// user made here is recovered, undone and redone, and written beside; one
// that came with a clone or a copy, an older txedit's, or another user's
// is foreign until a person adopts it (AdoptJournal) or removes it
// (RemoveJournal). Reads never need the journal.

// JournalStatus says whose the workspace's journal is, and why.
func (w *Workspace) JournalStatus(ctx context.Context) (*journal.Status, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	st, err := w.j.Status()
	if err != nil {
		return nil, wrapJournalErr(err)
	}
	return st, nil
}

// AdoptJournal makes a foreign journal this user's, trusting what the
// txedit that wrote it trusted (journal.Journal.Adopt says exactly what).
// It is a person's decision: nothing calls it on its own.
func (w *Workspace) AdoptJournal(ctx context.Context) (*journal.AdoptReport, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := w.readOnly("adopting the journal"); err != nil {
		return nil, err
	}
	rep, err := w.j.Adopt()
	if err != nil {
		return nil, wrapJournalErr(err)
	}
	return rep, nil
}

// RemoveJournal removes the workspace's journal and everything in it (the
// undo history of one of this user's goes with it).
func (w *Workspace) RemoveJournal(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := w.readOnly("removing the journal"); err != nil {
		return err
	}
	if err := w.j.Remove(); err != nil {
		return wrapJournalErr(err)
	}
	return nil
}

// trustedJournal refuses, with untrusted_journal, an operation that acts
// on the journal's transactions (undo, redo) in a journal that is not this
// user's: its transactions are never acted on, and the message says what
// to run.
func (w *Workspace) trustedJournal() error {
	st, err := w.j.Status()
	if err != nil {
		return wrapJournalErr(err)
	}
	if err := st.Err(); err != nil {
		return plan.Wrapf(plan.CodeUntrustedJournal, "", err, "%v", err)
	}
	return nil
}
