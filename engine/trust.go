package engine

import (
	"context"
	"errors"

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
		return nil, journalCmdErr(err)
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
		return journalCmdErr(err)
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

// journalCmdErr gives an error of adopting or removing the journal its
// code.
func journalCmdErr(err error) error {
	if errors.Is(err, journal.ErrNoJournal) {
		return plan.Wrapf(plan.CodeFileNotFound, "", err, "%v", err)
	}
	return wrapJournalErr(err)
}

// readableJournal refuses, with untrusted_journal, reading the history of
// a journal that is not a directory (a link, a file): the message says to
// run txedit recover. Another user's or a foreign journal is read as it
// is (its transactions untrusted).
func (w *Workspace) readableJournal() error {
	st, err := w.j.Status()
	if err != nil || st.Standing != journal.Wedged {
		return nil
	}
	return plan.Wrapf(plan.CodeUntrustedJournal, "", st.Err(), "%v", st.Err())
}
