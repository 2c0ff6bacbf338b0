package journal

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/txedit/txedit/fsys"
)

// The retention index, .txedit/index, lets GC decide what to keep without
// opening every retained transaction (a commit's cost must not grow with
// the journal: docs/journal.md, "Cost per commit, whatever is retained"). One line per finished transaction, appended when
// it ends (committed or rolled back) or when GC first meets it:
//
//	ID SIZE UNDOES COUNT BYTES
//
// SIZE is its pack's bytes, UNDOES the transaction it undoes ("-" if
// none), COUNT and BYTES the transactions retained and their packs' bytes
// once it is added (so the last line alone tells GC whether it has work:
// pending.go). Lines of three fields (an older index) are read too. It is a cache, never trusted for anything but retention: a
// transaction it does not list (an older txedit's, a rolled-back one, a
// line a crash lost) is read once and appended; lines of transactions no
// longer in the journal are skipped, and GC rewrites the file when they
// outnumber the live ones. Appends are not synced: a lost line costs one
// manifest read later.
const indexName = Dir + "/index"

type indexEntry struct {
	size   int64
	undoes string
}

// readIndex parses the index; damaged lines are skipped (their
// transactions are read again).
func (j *Journal) readIndex() (map[string]indexEntry, int, error) {
	data, _, err := fsys.ReadFile(j.fs, indexName, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]indexEntry{}, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	out := make(map[string]indexEntry, bytes.Count(data, []byte("\n")))
	lines := 0
	for len(data) > 0 {
		var line []byte
		line, data, _ = bytes.Cut(data, []byte("\n"))
		lines++
		f := strings.Fields(string(line))
		if (len(f) != 3 && len(f) != 5) || !validID(f[0]) || (f[2] != "-" && !validID(f[2])) {
			continue
		}
		size, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil || size < 0 {
			continue
		}
		e := indexEntry{size: size}
		if f[2] != "-" {
			e.undoes = f[2]
		}
		out[f[0]] = e
	}
	return out, lines, nil
}

func indexLine(id string, e indexEntry, count, bytes int64) string {
	u := e.undoes
	if u == "" {
		u = "-"
	}
	return fmt.Sprintf("%s %d %s %d %d\n", id, e.size, u, count, bytes)
}

// appendIndex records finished transactions (best effort: the index is a
// cache).
func (j *Journal) appendIndex(lines string) {
	if lines != "" {
		j.fs.Append(indexName, []byte(lines), 0o600)
	}
}

// ended records, under the lock, that transaction id ended (committed or
// rolled back) with a pack of size bytes: its index line, with the running
// totals, and its pending entry removed.
//
// markDurable says the transaction's end mark is durable: only then may
// its pending entry go (pending.go); otherwise the entry waits for the
// next sync of the transactions directory (Locked.unpendStale).
func (l *Locked) ended(id string, size int64, undoes string, markDurable bool) {
	if l.tail.known {
		if undoes == "" {
			l.tail.count++ // a new chain: an undo joins its transaction's
		}
		l.tail.bytes += size
	}
	l.tail.last = id
	l.j.appendIndex(indexLine(id, indexEntry{size, undoes}, l.tail.count, l.tail.bytes))
	if markDurable {
		l.j.unpend(id)
	} else {
		l.stale = append(l.stale, id)
	}
}

// unpendStale removes the pending entries of ended transactions whose
// marks were not synced when they ended, once a sync of the transactions
// directory has made those marks durable.
func (l *Locked) unpendStale() {
	for _, id := range l.stale {
		l.j.unpend(id)
	}
	l.stale = nil
}

// retained is what GC knows of one finished transaction.
type retained struct {
	id      string
	size    int64
	undoes  string
	pending bool
}

// retainedList returns every transaction of ls, oldest first, with its
// pack size and what it undoes, from the index where it has them and
// from the transaction itself (then appended) where it does not. stale
// counts the index's lines that name no transaction of ls.
func (j *Journal) retainedList(ls *listing) (out []retained, stale int, err error) {
	idx, lines, err := j.readIndex()
	if err != nil {
		return nil, 0, err
	}
	var add strings.Builder
	live := 0
	for _, id := range ls.ids {
		s := ls.states[id]
		if !s.dir {
			continue
		}
		r := retained{id: id, pending: !s.committed && !s.rolledBack}
		if e, ok := idx[id]; ok {
			live++
			r.size, r.undoes = e.size, e.undoes
		} else if !r.pending {
			r.size = j.packBytes(id)
			if m, err := j.readManifest(id); err == nil {
				r.undoes = m.Undoes
			}
			add.WriteString(indexLine(id, indexEntry{r.size, r.undoes}, 0, 0))
		}
		out = append(out, r)
	}
	j.appendIndex(add.String())
	return out, lines - live, nil
}

// rewriteIndex replaces the index with the lines of rs, with their running
// totals (atomically, not synced: it is a cache), and returns its tail.
func (j *Journal) rewriteIndex(rs []retained) (indexTail, error) {
	var b strings.Builder
	t := indexTail{known: true}
	kept := map[string]bool{}
	for _, r := range rs {
		if !r.pending {
			if r.undoes == "" || !kept[r.undoes] {
				t.count++ // the chains GC counts (log.go)
			}
			kept[r.id] = true
			t.bytes += r.size
			t.last = r.id
			b.WriteString(indexLine(r.id, indexEntry{r.size, r.undoes}, t.count, t.bytes))
		}
	}
	return t, fsys.WriteFileAtomic(j.fs, indexName, []byte(b.String()), 0o600, false)
}
