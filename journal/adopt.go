package journal

import (
	"crypto/hmac"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/hash"
)

// A journal that is not this user's (trust.go) is acted on only once a
// person says what it is: txedit journal adopt (Adopt) for one they made
// here — an older txedit's, whose key is inside it, or their own journal
// copied or moved here — and txedit journal remove (Remove) for any
// other. Neither is ever done on a command's own account.

// ErrNoJournal reports that there is no journal to adopt or remove.
var ErrNoJournal = errors.New("there is no journal (" + Dir + ") here")

// AdoptReport says what Adopt trusted.
type AdoptReport struct {
	// Trusted lists the transactions the journal's own keys vouch for,
	// which undo, redo and recovery now act on.
	Trusted []string
	// Untrusted lists those nothing vouches for: they stay refused.
	Untrusted []string
	// Unfinished lists the trusted transactions a crash interrupted:
	// the next write (or txedit recover) rolls them back or finishes them.
	Unfinished []string
	// OlderKey: the journal held an older txedit's key, now removed from
	// it (its trust moved to this user's key store).
	OlderKey bool
}

// Adopt makes a foreign journal this user's, trusting what the txedit that
// wrote it trusted: manifests signed with the key an older txedit kept
// inside the journal (.txedit/key) or listed in its .txedit/legacy; every
// unsigned manifest of a journal from before txedit signed; and, for a
// copy or a move of one of this user's journals, what its key in the
// store vouches for. Everything else stays refused. It gives the journal
// a new key, bound to where it is now, and removes the older key from the
// tree: a transaction that arrives later (with a pull, say) signed with
// that key is not trusted.
//
// Adopting a journal that came with a clone trusts its transactions as
// much as the person's own: recovery may then restore files from it. That
// is why txedit never does it on its own.
func (j *Journal) Adopt() (*AdoptReport, error) {
	st, err := j.Status()
	if err != nil {
		return nil, err
	}
	switch st.Standing {
	case NoJournal:
		return nil, ErrNoJournal
	case Trusted:
		return nil, fmt.Errorf("%s is already yours: there is nothing to adopt", Dir)
	case Wedged, NotOwned:
		return nil, st.Err()
	}
	if _, err := j.repair(); err != nil {
		return nil, err
	}
	unlock, err := j.fs.Lock(lockName, j.opts.LockTimeout)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if st, err = j.Status(); err != nil {
		return nil, err
	}
	if st.Standing != Foreign {
		return nil, fmt.Errorf("%s changed while it was adopted (it is %s now); nothing was done", Dir, st.Standing)
	}
	ls, err := j.scan()
	if err != nil {
		return nil, err
	}
	older := j.olderKey()
	rep := &AdoptReport{OlderKey: older != nil}
	legacy, hasLegacy := j.olderLegacy()
	var prev *keyEntry
	if validJournalID(st.id) {
		prev, _ = j.keys.get(st.id)
	}
	trusted := map[string]hash.Sum{}
	for _, id := range ls.ids {
		s := ls.states[id]
		if !s.dir {
			continue
		}
		data, err := j.readManifestData(id)
		var m *Manifest
		if err == nil {
			m, err = decodeManifest(data)
		}
		if err != nil || m.ID != id || !vouched(m, older, legacy, hasLegacy, prev) {
			rep.Untrusted = append(rep.Untrusted, id)
			continue
		}
		trusted[id] = m.sum
		rep.Trusted = append(rep.Trusted, id)
		if !s.committed && !s.rolledBack {
			rep.Unfinished = append(rep.Unfinished, id)
		}
	}
	if _, err := j.claim(trusted, nil); err != nil {
		return nil, err
	}
	if prev != nil && prev.dev == st.ident.Dev && prev.ino == st.ident.Ino {
		j.keys.forget(prev.id) // no journal is bound to it any more
	}
	for _, name := range []string{keyName, legacyName} {
		if err := j.fs.Remove(name); err != nil && !fsys.Gone(err) {
			return rep, err
		}
	}
	return rep, nil
}

// vouched reports whether the txedit that wrote m's journal trusted it
// (see Adopt).
func vouched(m *Manifest, older []byte, legacy map[string]hash.Sum, hasLegacy bool, prev *keyEntry) bool {
	if prev != nil {
		if sum, ok := prev.trusted[m.ID]; ok && sum == m.sum {
			return true
		}
		if m.Version >= 3 && hmac.Equal(m.mac, mac(prev.key, m.body)) {
			return true
		}
	}
	if m.Version >= 3 {
		return older != nil && hmac.Equal(m.mac, mac(older, m.body))
	}
	if sum, ok := legacy[m.ID]; ok {
		return sum == m.sum
	}
	// An unsigned manifest is trusted where the journal never had a key:
	// a txedit from before signing wrote it.
	return older == nil && !hasLegacy
}

// olderLegacy reads an older txedit's list of the unsigned manifests its
// journal held when it made its key; ok reports that there is one.
func (j *Journal) olderLegacy() (map[string]hash.Sum, bool) {
	out := map[string]hash.Sum{}
	data, _, err := fsys.ReadFile(j.fs, legacyName, 1<<20)
	if err != nil {
		_, lerr := j.fs.Lstat(legacyName)
		return out, lerr == nil
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		id, sum, ok := strings.Cut(line, " ")
		if s, err := hash.ParseSum(sum); ok && err == nil && validID(id) {
			out[id] = s
		}
	}
	return out, true
}

// Remove removes the journal, whoever's it is, with everything in it:
// the undo history of a journal of this user's goes with it (and its key
// leaves the store). The journal's own lock is held meanwhile, so that no
// commit of this user's is under way. A .txedit that is not a directory
// is not a journal and is left to txedit recover; one of another user's
// can be removed only by that user or root.
func (j *Journal) Remove() error {
	st, err := j.Status()
	if err != nil {
		return err
	}
	switch st.Standing {
	case NoJournal:
		return ErrNoJournal
	case Wedged:
		return st.Err()
	case NotOwned:
		if os.Geteuid() != 0 {
			return st.Err()
		}
	}
	if fi, err := j.fs.Lstat(lockName); err == nil && fi.Mode().IsRegular() {
		unlock, err := j.fs.Lock(lockName, j.opts.LockTimeout)
		if err != nil {
			return err
		}
		defer unlock()
	}
	if err := removeAll(j.fs, Dir); err != nil {
		return err
	}
	if st.entry != nil {
		return j.keys.forget(st.entry.id)
	}
	return nil
}
