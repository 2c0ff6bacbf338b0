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
// opening every retained transaction (issue #22: a commit's cost must not
// grow with the journal). One line per finished transaction, appended when
// it commits or when GC first meets it:
//
//	ID SIZE UNDOES
//
// SIZE is its pack's bytes, UNDOES the transaction it undoes ("-" if
// none). It is a cache, never trusted for anything but retention: a
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
		if len(f) != 3 || !validID(f[0]) || (f[2] != "-" && !validID(f[2])) {
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

func indexLine(id string, e indexEntry) string {
	u := e.undoes
	if u == "" {
		u = "-"
	}
	return fmt.Sprintf("%s %d %s\n", id, e.size, u)
}

// appendIndex records finished transactions (best effort: the index is a
// cache).
func (j *Journal) appendIndex(lines string) {
	if lines != "" {
		j.fs.Append(indexName, []byte(lines), 0o600)
	}
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
			if fi, err := j.fs.Lstat(txnsDir + "/" + id + "/pack"); err == nil {
				r.size = fi.Size()
			}
			if m, err := j.readManifest(id); err == nil {
				r.undoes = m.Undoes
			}
			add.WriteString(indexLine(id, indexEntry{r.size, r.undoes}))
		}
		out = append(out, r)
	}
	j.appendIndex(add.String())
	return out, lines - live, nil
}

// rewriteIndex replaces the index with the lines of rs (atomically, not
// synced: it is a cache).
func (j *Journal) rewriteIndex(rs []retained) error {
	var b strings.Builder
	for _, r := range rs {
		if !r.pending {
			b.WriteString(indexLine(r.id, indexEntry{r.size, r.undoes}))
		}
	}
	return fsys.WriteFileAtomic(j.fs, indexName, []byte(b.String()), 0o600, false)
}
