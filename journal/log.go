package journal

import (
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
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
	PackSize int64
}

// List returns every transaction in the journal, oldest first. It takes no
// lock: it only reads.
func (j *Journal) List() ([]*Entry, error) {
	states, ids, err := j.scan()
	if err != nil {
		return nil, err
	}
	var out []*Entry
	for _, id := range ids {
		s := states[id]
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
		if fi, err := j.fs.Lstat(txnsDir + "/" + id + "/pack"); err == nil {
			e.PackSize = fi.Size()
		}
		out = append(out, e)
	}
	return out, nil
}

// ErrUnknownTxn reports a transaction id that matches nothing in the
// journal (perhaps removed by gc).
var ErrUnknownTxn = errors.New("no such transaction")

// Resolve expands a unique prefix of a transaction id.
func (j *Journal) Resolve(prefix string) (string, error) {
	_, ids, err := j.scan()
	if err != nil {
		return "", err
	}
	var found []string
	seen := map[string]bool{}
	for _, id := range ids {
		if strings.HasPrefix(id, prefix) && !seen[id] {
			seen[id] = true
			found = append(found, id)
		}
	}
	switch {
	case prefix == "" || len(found) == 0:
		return "", fmt.Errorf("%w %q", ErrUnknownTxn, prefix)
	case len(found) > 1:
		return "", fmt.Errorf("transaction prefix %q is ambiguous: %s", prefix, strings.Join(found, ", "))
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

// Diffs returns the unified diff recorded for each op of a transaction, in
// op order ("" where none was recorded). A damaged pack gives the diffs
// before the damage and an error wrapping ErrCorrupt.
func (j *Journal) Diffs(m *Manifest) ([]string, error) {
	p := j.OpenPack(m)
	defer p.Close()
	p.index()
	if p.f == nil {
		return nil, p.err
	}
	out := make([]string, len(m.Ops))
	for i := range m.Ops {
		d, err := p.Diff(i)
		if err != nil && !errors.Is(err, ErrCorrupt) {
			return out, err
		}
		out[i] = d
	}
	return out, p.err
}

// GC removes the oldest finished transactions beyond the retention limits:
// the newest Keep within KeepBytes of packs. Pending transactions are never
// removed. Each is first renamed into the gc directory, so a crash never
// leaves a half-deleted transaction that looks valid.
func (l *Locked) GC() ([]string, error) {
	j := l.j
	ents, err := j.List()
	if err != nil {
		return nil, err
	}
	sort.Slice(ents, func(a, b int) bool { return ents[a].ID > ents[b].ID })
	var removed []string
	kept, bytes := 0, int64(0)
	for _, e := range ents {
		if e.State == StatePending {
			continue
		}
		if kept < j.opts.Keep && bytes+e.PackSize <= j.opts.KeepBytes {
			kept++
			bytes += e.PackSize
			continue
		}
		if err := j.fs.Mkdir(gcDir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return removed, err
		}
		if err := j.fs.Rename(txnsDir+"/"+e.ID, gcDir+"/"+e.ID); err != nil {
			return removed, err
		}
		for _, m := range []string{"prepared", "committed", "rolledback"} {
			if err := j.fs.Remove(txnsDir + "/" + e.ID + "." + m); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return removed, err
			}
		}
		if err := removeAll(j.fs, gcDir+"/"+e.ID); err != nil {
			return removed, err
		}
		removed = append(removed, e.ID)
	}
	return removed, nil
}

// GCIfNeeded runs GC when the journal holds more than the retention limits
// allow. It costs a directory listing and a stat per transaction.
func (l *Locked) GCIfNeeded() ([]string, error) {
	states, ids, err := l.j.scan()
	if err != nil {
		return nil, err
	}
	count, total := 0, int64(0)
	for _, id := range ids {
		if !states[id].dir {
			continue
		}
		count++
		if fi, err := l.j.fs.Lstat(txnsDir + "/" + id + "/pack"); err == nil {
			total += fi.Size()
		}
	}
	if count <= l.j.opts.Keep && total <= l.j.opts.KeepBytes {
		return nil, nil
	}
	return l.GC()
}
