package journal

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"slices"
	"sort"
	"strings"

	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/internal/par"
)

// State is a transaction's state in the log.
type TxnState string

// The states a listed transaction can be in.
const (
	StateCommitted  TxnState = "committed"
	StateRolledBack TxnState = "rolled_back"
	StatePending    TxnState = "pending" // being committed now, or its owner died
)

// Entry is one transaction of the log.
type Entry struct {
	ID       string
	State    TxnState
	Manifest *Manifest // nil if unreadable
	Err      error     // why Manifest is nil
}

// List returns every transaction in the journal, oldest first, each with
// its manifest read. It takes no lock: it only reads. Callers that need
// only the newest few use [Journal.Recent].
func (j *Journal) List() ([]*Entry, error) {
	recent, err := j.Recent()
	if err != nil {
		return nil, err
	}
	var out []*Entry
	for e := range recent {
		out = append(out, e)
	}
	slices.Reverse(out)
	return out, nil
}

// Recent returns the journal's transactions newest first, as an iterator
// that reads each one's manifest only when it is reached: undo, log and
// show stop after the few they need, so their cost does not grow with
// the number of transactions retained (docs/journal.md, "Cost per commit,
// whatever is retained"). It takes no lock.
func (j *Journal) Recent() (iter.Seq[*Entry], error) {
	ls, err := j.scan()
	if err != nil {
		return nil, err
	}
	return func(yield func(*Entry) bool) {
		for i := len(ls.ids) - 1; i >= 0; i-- {
			id := ls.ids[i]
			s := ls.states[id]
			if !s.dir {
				continue
			}
			e := &Entry{ID: id, State: StatePending}
			switch {
			case s.committed:
				e.State = StateCommitted
			case s.rolledBack:
				e.State = StateRolledBack
			}
			e.Manifest, e.Err = j.readManifest(id)
			if !yield(e) {
				return
			}
		}
	}, nil
}

// ErrUnknownTxn reports a transaction id that matches nothing in the
// journal (perhaps removed by gc).
var ErrUnknownTxn = errors.New("no such transaction")

// ErrAmbiguousTxn reports a transaction id prefix that matches several.
var ErrAmbiguousTxn = errors.New("is ambiguous")

// Resolve expands a unique prefix of a transaction id.
func (j *Journal) Resolve(prefix string) (string, error) {
	ls, err := j.scan()
	if err != nil {
		return "", err
	}
	var found []string
	seen := map[string]bool{}
	for _, id := range ls.ids {
		if strings.HasPrefix(id, prefix) && !seen[id] {
			seen[id] = true
			found = append(found, id)
		}
	}
	switch {
	case prefix == "" || len(found) == 0:
		return "", fmt.Errorf("%w %q", ErrUnknownTxn, prefix)
	case len(found) > 1:
		return "", fmt.Errorf("transaction prefix %q %w: %s", prefix, ErrAmbiguousTxn, strings.Join(found, ", "))
	}
	return found[0], nil
}

// Before returns the verified before-image of op i of a transaction. It
// opens and indexes the pack for this one record: to read many, use
// [Journal.OpenPack].
func (j *Journal) Before(m *Manifest, i int) ([]byte, error) {
	p := j.OpenPack(m)
	defer p.Close()
	return p.Before(i)
}

// EachDiff hands fn the diff recorded for each op of a transaction, in op
// order ("" where none was recorded), one at a time, without holding them
// all (a 50,000-file transaction's diffs). An error from fn stops it and
// is returned; a damaged pack gives the diffs before the damage and an
// error wrapping ErrCorrupt.
func (j *Journal) EachDiff(m *Manifest, fn func(i int, d string) error) error {
	p := j.OpenPack(m)
	defer p.Close()
	p.index()
	if p.f == nil {
		return p.err
	}
	for i := range m.Ops {
		d, err := p.Diff(i)
		if err != nil && !errors.Is(err, ErrCorrupt) {
			return err
		}
		if err := fn(i, d); err != nil {
			return err
		}
	}
	return p.err
}

// GC removes the oldest finished transactions beyond the retention limits:
// the newest Keep within KeepBytes of packs. It counts undo chains, not
// transactions: an undo (or redo) is kept with the transaction it undoes
// and does not count, so undo reaches back through the whole window (each
// undo is a transaction of its own, and counting them evicted the oldest
// transactions as undo walked towards them: after 1,000 transactions only
// 100 undos worked). What is kept is a contiguous newest part of history:
// once a chain does not fit, it and everything older go, so undo never
// skips a removed transaction to undo an older one. The newest chain is
// kept whatever its size. Pending transactions are never removed. Each
// goes so that a crash never leaves a half-deleted transaction that looks
// valid (removeRecord); the newest removed id is recorded (see
// [Journal.Horizon]).
func (l *Locked) GC() ([]string, error) {
	j := l.j
	ls, err := j.scan()
	if err != nil {
		return nil, err
	}
	l.listed = ls
	// A never-prepared transaction pending/ lost (recover.go,
	// recoverOrphans) is finished here, so it is not kept as pending.
	if _, err := l.recoverOrphans(ls); err != nil {
		return nil, err
	}
	rs, stale, err := j.retainedList(ls)
	if err != nil {
		return nil, err
	}
	return l.gc(rs, stale)
}

// gc applies retention to rs (see GC), which the index and the listing
// gave without opening any transaction.
func (l *Locked) gc(rs []retained, stale int) ([]string, error) {
	j := l.j
	byID := map[string]*retained{}
	for i := range rs {
		byID[rs[i].id] = &rs[i]
	}
	// root follows undoes to the transaction a chain of undos and redos
	// started from.
	root := func(r *retained) string {
		id := r.id
		for hops := 0; hops <= len(rs); hops++ {
			cur := byID[id]
			if cur == nil || cur.undoes == "" || byID[cur.undoes] == nil {
				return id
			}
			id = cur.undoes
		}
		return id
	}
	type chain struct {
		root  string
		ids   []string
		bytes int64
	}
	chains := map[string]*chain{}
	for i := range rs {
		r := &rs[i]
		if r.pending {
			continue
		}
		rt := root(r)
		c := chains[rt]
		if c == nil {
			c = &chain{root: rt}
			chains[rt] = c
		}
		c.ids = append(c.ids, r.id)
		c.bytes += r.size
	}
	order := make([]*chain, 0, len(chains))
	for _, c := range chains {
		order = append(order, c)
	}
	sort.Slice(order, func(a, b int) bool { return order[a].root > order[b].root })
	var removed []string
	gone := map[string]bool{}
	kept, bytes, full := 0, int64(0), false
	for i, c := range order {
		if !full && (i == 0 || (kept < j.opts.Keep && bytes+c.bytes <= j.opts.KeepBytes)) {
			kept++
			bytes += c.bytes
			continue
		}
		full = true
		removed = append(removed, c.ids...)
	}
	if err := l.retire(removed); err != nil {
		return nil, err
	}
	for _, id := range removed {
		gone[id] = true
		delete(l.listed.states, id)
	}
	if len(removed) > 0 {
		// An empty gc/ left behind means an interrupted GC to the next
		// open, which then recovers under the lock: every later open did.
		if err := removeEmptyDir(j.fs, gcDir); err != nil {
			return removed, err
		}
		l.listed.ids = slices.DeleteFunc(l.listed.ids, func(id string) bool { return gone[id] })
		sort.Sort(sort.Reverse(sort.StringSlice(removed)))
		if err := j.setHorizon(removed[0]); err != nil {
			return removed, err
		}
	}
	// The index again, with the live transactions only and their running
	// totals, which the commits after this one continue (pending.go).
	keep := rs[:0:0]
	for _, r := range rs {
		if !gone[r.id] {
			keep = append(keep, r)
		}
	}
	t, err := j.rewriteIndex(keep)
	if err != nil {
		return removed, err
	}
	l.tail = t
	return removed, nil
}

// A finished transaction leaves the journal in two steps (GC): its record
// goes, and once every retired record's removal is durable (one sync of
// txns/ per batch), its marks. The order matters: a record found without
// its end mark is taken for an interrupted transaction and recovered, and
// a retired transaction recovered by content would be rolled back over
// what came after it. A file system may make the removal of one entry of
// a directory durable before another's (this machine's ext4 runs without
// a journal), so the sync between the two steps is what keeps the marks
// until the record is gone (TestGCPowerLoss). s is what the listing saw of
// the transaction (nil: unknown, everything is tried).

// retire takes the transactions ids out of the journal: the records
// first, made durable together, then the marks. Many records at once:
// unlinking a file that holds data waits for its blocks to be freed (and
// discarded, on a file system mounted with discard), which happens
// outside the directory's lock, so the waits overlap: up to
// removeWorkers at once, as a commit's removals (docs/journal.md,
// "Removals in flight").
func (l *Locked) retire(ids []string) error {
	j := l.j
	moved := make([][]string, len(ids))
	err := par.Do(context.Background(), len(ids), j.opts.removals(), func(i int) error {
		m, err := j.removeRecord(ids[i], l.listed.states[ids[i]])
		moved[i] = m
		return err
	})
	if err != nil {
		return err
	}
	if len(ids) > 0 && j.opts.Sync != SyncNone {
		if err := j.fs.SyncDir(txnsDir); err != nil {
			return err
		}
	}
	for i, id := range ids {
		if err := j.removeMarks(id, l.listed.states[id], moved[i]); err != nil {
			return err
		}
	}
	return nil
}

// removeRecord removes transaction id's record: its file (layout.go) is
// unlinked, one call; an older txedit's directory, and what recovery saved
// aside, are renamed into gc/ (their bases returned) and removed from
// there by removeMarks.
func (j *Journal) removeRecord(id string, s *txnStates) (moved []string, err error) {
	if s == nil || s.aside {
		if err := j.toGC(asideDir(id, false), id+".conflicts", &moved); err != nil {
			return moved, err
		}
	}
	if err := j.fs.Remove(txnPath(id)); err != nil && !fsys.Gone(err) {
		if err := j.toGC(txnPath(id), id, &moved); err != nil { // a directory
			return moved, err
		}
	}
	return moved, nil
}

// removeMarks removes transaction id's marks, once its record's removal
// is durable, and what removeRecord moved into gc/.
func (j *Journal) removeMarks(id string, s *txnStates, moved []string) error {
	for _, m := range s.marks() {
		if err := j.fs.Remove(txnsDir + "/" + id + "." + m); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	for _, base := range moved {
		if err := removeAll(j.fs, gcDir+"/"+base); err != nil {
			return err
		}
	}
	return nil
}

// toGC moves name into the gc directory as base, and adds base to moved;
// a name that is gone is not an error.
func (j *Journal) toGC(name, base string, moved *[]string) error {
	if err := j.fs.Mkdir(gcDir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	if err := j.fs.Rename(name, gcDir+"/"+base); err != nil {
		if fsys.Gone(err) {
			return nil
		}
		return err
	}
	*moved = append(*moved, base)
	return nil
}

const horizonName = Dir + "/horizon"

// setHorizon records the newest transaction retention has removed, unless
// a newer one is recorded already.
func (j *Journal) setHorizon(id string) error {
	if h := j.Horizon(); h >= id {
		return nil
	}
	// Not synced: a horizon lost to a power loss only lets undo look for
	// transactions that are gone, and say less about why (not syncing spares
	// two syncs on every commit that retired one).
	return fsys.WriteFileAtomic(j.fs, horizonName, []byte(id+"\n"), 0o600, false)
}

// Horizon returns the id of the newest transaction the journal's retention
// removed ("" if none): undo cannot reach it or anything older.
func (j *Journal) Horizon() string {
	data, _, err := fsys.ReadFile(j.fs, horizonName, 128)
	if err != nil {
		return ""
	}
	id := strings.TrimSpace(string(data))
	if !validID(id) {
		return ""
	}
	return id
}

// GCIfNeeded runs GC when the journal holds more than the retention limits
// allow, by more than a sixteenth: it reads nothing but what the lock
// already knows (the index's last line, kept current by every commit), and
// when it does run it retires a batch, so its cost, which grows with the
// journal, is paid once every Keep/16 commits, not on each (docs/journal.md, "Cost per
// commit, whatever is retained").
// Between two runs up to a sixteenth more than Keep transactions are kept.
func (l *Locked) GCIfNeeded() ([]string, error) {
	if !l.GCDue() {
		return nil, nil
	}
	return l.GC()
}

// GCDue reports whether GCIfNeeded would run GC: the journal holds more
// than its retention limits allow by more than a sixteenth, or its index
// does not say.
func (l *Locked) GCDue() bool {
	j := l.j
	t := l.tail
	return !t.known || t.count > int64(j.opts.Keep+j.opts.Keep/16) || t.bytes > j.opts.KeepBytes
}
