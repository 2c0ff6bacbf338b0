package journal

import (
	"errors"
	"io/fs"
	"sort"
	"strconv"
	"strings"

	"github.com/txedit/txedit/fsys"
)

// A commit must not visit every retained transaction (docs/journal.md,
// "Cost per commit, whatever is retained"): taking
// the lock listed the whole transactions directory to find the ones a
// dead owner left, and every commit parsed the whole retention index.
// Two small records replace them (docs/journal.md, "Cost per commit"):
//
//   - pending/ holds an empty file per transaction between its Begin and
//     its end (the COMMITTED or ROLLED_BACK mark). Begin creates it before
//     the transaction's file, and makes it durable in the same round
//     as the manifest, before any user file is touched; the end removes
//     it, unsynced, once the end mark is durable: a ROLLED_BACK mark is
//     synced, a COMMITTED one is not (forward.go), and its entry goes
//     after the next sync of txns/ (a stale entry names a finished
//     transaction, which recovery sees and removes). So recovery lists
//     pending/, usually empty or one stale entry, not txns/.
//   - each line of the index carries the count and the pack bytes of the
//     transactions retained after it, so the last line, read from the end
//     of the file, says whether GC has work and which id is the newest.
//
// A journal without pending/ (written by an older txedit) is listed whole
// once, under the lock, recovered as before, and then given pending/.

const pendingDir = Dir + "/pending"

// pendingListing lists the transactions named in pending/ with their
// states, read from their marks (three lstats each, for the few there
// are). ok is false when the journal has no pending/ yet.
func (j *Journal) pendingListing() (ls *listing, ok bool, err error) {
	names, err := fsys.ReadDirNames(j.fs, pendingDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	ls = &listing{states: map[string]*txnStates{}}
	for _, id := range names {
		if !validID(id) {
			ls.strays = append(ls.strays, "pending/"+id)
			continue
		}
		s := &txnStates{}
		exists := func(name string) bool { _, err := j.fs.Lstat(txnsDir + "/" + name); return err == nil }
		s.dir = exists(id)
		s.prepared = exists(id + ".prepared")
		s.committed = exists(id + ".committed")
		s.rolledBack = exists(id + ".rolledback")
		ls.states[id] = s
		ls.ids = append(ls.ids, id)
	}
	sort.Strings(ls.ids)
	return ls, true, nil
}

// makePending gives an older journal its pending/ (durably, so that a
// transaction begun afterwards is found), once it was listed and
// recovered whole under the lock.
func (j *Journal) makePending() error {
	if err := j.fs.Mkdir(pendingDir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	if j.opts.Sync != SyncNone {
		return j.fs.SyncDir(Dir)
	}
	return nil
}

// unpend removes transaction id's pending entry, once it has ended.
func (j *Journal) unpend(id string) {
	if err := j.fs.Remove(pendingDir + "/" + id); err != nil && !fsys.Gone(err) {
		_ = err // a stale entry only makes the next recovery look at it
	}
}

// indexTail is what the index's last line says.
type indexTail struct {
	known bool   // the last line carries the running totals
	last  string // the newest id it lists
	// count is the undo chains retained (a transaction and the undos and
	// redos of it count once, as GC counts them), bytes their packs'.
	count, bytes int64
}

// tailWindow is how much of the index's end is read for its last line.
const tailWindow = 4096

// readIndexTail reads the index's last complete line (a few hundred bytes
// from its end). known is false for an index without running totals (an
// older one), a missing one, or a damaged tail: GC then recounts.
func (j *Journal) readIndexTail() indexTail {
	f, err := j.fs.Open(indexName)
	if err != nil {
		return indexTail{}
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return indexTail{}
	}
	off := max(0, fi.Size()-tailWindow)
	buf := make([]byte, fi.Size()-off)
	if n, err := f.ReadAt(buf, off); n != len(buf) {
		_ = err
		return indexTail{}
	}
	lines := strings.Split(strings.TrimRight(string(buf), "\n"), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if i == 0 && off > 0 {
			break // the window's first line may be cut
		}
		f := strings.Fields(lines[i])
		if len(f) < 3 || !validID(f[0]) {
			continue
		}
		t := indexTail{last: f[0]}
		if len(f) == 5 {
			c, err1 := strconv.ParseInt(f[3], 10, 64)
			b, err2 := strconv.ParseInt(f[4], 10, 64)
			t.known, t.count, t.bytes = err1 == nil && err2 == nil && c >= 0 && b >= 0, c, b
		}
		return t
	}
	return indexTail{}
}

// createPending creates transaction id's pending entry.
func (j *Journal) createPending(id string) error {
	return j.makeEmpty(pendingDir + "/" + id)
}
