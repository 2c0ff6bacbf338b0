package journal

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/hash"
)

// A journal trusts only what it can verify, and it is trusted only if
// this user made it in this place (docs/design.md, "What makes a journal
// trusted"). A checksum shows that a manifest was not torn; it cannot show
// who wrote it. So every manifest since version 3 carries an HMAC-SHA256
// under the journal's key, and the key never lives in the tree: it is in
// the user's own key store (keys.go), in an entry bound to the journal's
// id (.txedit/id) and to the identity of its directory. A journal that
// came with a clone, a copy of one elsewhere, or one another user made has
// no such entry: it is foreign, and nothing in it is recovered, undone,
// redone or shown as trusted; writes beside it are refused until a person
// adopts it (txedit journal adopt) or removes it (txedit journal remove).
//
// An older txedit kept the key inside the journal (.txedit/key), where a
// repository could ship one with a signed transaction. Such a journal is
// foreign here like any other: whether a key inside the tree was made on
// this machine or arrived with it cannot be told, so the person who made
// it says so by adopting it (adopt.go).

const (
	idName = Dir + "/id"
	// keyName and legacyName are an older txedit's key and list of
	// unsigned manifests, inside the journal: never trusted (adopt reads
	// them once, when a person vouches for the journal, and removes them).
	keyName    = Dir + "/key"
	legacyName = Dir + "/legacy"
	keyLen     = 32
)

// ErrUntrusted reports a manifest the journal cannot verify as its own:
// a MAC that does not match, an old-format manifest the journal was not
// adopted with, or any manifest of a journal that is not this user's.
var ErrUntrusted = errors.New("journal record cannot be verified as txedit's own")

// ErrForeign reports a journal that is not this user's, made here: it
// came with a clone or a copy, an older txedit made it, or another user
// did (see [Status]). Writes beside it are refused; nothing in it is
// acted on.
var ErrForeign = errors.New("the journal is not yours")

// Standing says whose a journal is.
type Standing int

const (
	// NoJournal: there is no journal yet; the first write makes one.
	NoJournal Standing = iota
	// Trusted: this user made the journal here (or adopted it).
	Trusted
	// Foreign: the journal came from elsewhere (a clone, a copy, an older
	// txedit whose key is inside it) or its key is lost.
	Foreign
	// NotOwned: the journal's directory belongs to another user.
	NotOwned
	// Wedged: .txedit is not a directory (a symbolic link, a file);
	// txedit recover moves it aside.
	Wedged
)

func (s Standing) String() string {
	return [...]string{"none", "trusted", "foreign", "not-owned", "wedged"}[s]
}

// Status is what a journal is, and why.
type Status struct {
	Standing Standing
	// Reason says why the journal is not trusted, for people.
	Reason string
	// Owner is the uid that owns a NotOwned journal.
	Owner int
	// OlderKey: a foreign journal holds an older txedit's key
	// (.txedit/key): it may be this user's, made before keys moved out of
	// the tree, or it may have been shipped with the repository.
	OlderKey bool
	// Fresh: a journal with no id that holds nothing but what a new
	// journal's first write makes; the next write claims it.
	Fresh bool
	// Damaged: this user's key store has an entry for the journal that
	// does not parse (txedit recover makes it a new key).
	Damaged bool
	// Keys names the store the journal's key is (or would be) in.
	Keys string

	ident fsys.Identity // the journal directory's, when it is one
	idf   fsys.Identity // .txedit/id's, when there is one
	id    string
	entry *keyEntry
}

// Fix is what a person runs to write again beside a journal of this
// standing, for messages.
func (st *Status) Fix() string {
	switch st.Standing {
	case Wedged:
		if st.ident.Mode&fs.ModeSymlink != 0 {
			return "run txedit recover, which removes the link (never what it names)"
		}
		return "run txedit recover, which moves it aside"
	case NotOwned:
		return fmt.Sprintf("only its owner (uid %d) or root can adopt or remove it (txedit journal remove); or pass --root to work elsewhere", st.Owner)
	case Foreign:
		if st.Damaged {
			return "run txedit recover, which gives the journal a new key (what it holds stays unverifiable), or txedit journal remove"
		}
		return "if you made it here, txedit journal adopt trusts it; otherwise txedit journal remove deletes it"
	}
	return ""
}

// Err is the error of a write refused beside a journal of this standing
// (nil for one that refuses none).
func (st *Status) Err() error {
	switch st.Standing {
	case Wedged, NotOwned, Foreign:
		return &StandingError{st}
	}
	return nil
}

// StandingError is a write refused because of whose the journal is:
// errors.Is finds ErrForeign in it (ErrCorrupt for a .txedit that is not a
// directory).
type StandingError struct{ Status *Status }

func (e *StandingError) Error() string {
	if e.Status.Standing == Wedged {
		return fmt.Sprintf("%s %s; %s", Dir, e.Status.Reason, e.Status.Fix())
	}
	return fmt.Sprintf("%s %s; nothing in it is acted on: %s", Dir, e.Status.Reason, e.Status.Fix())
}

func (e *StandingError) Is(target error) bool {
	if e.Status.Standing == Wedged {
		return target == ErrCorrupt
	}
	return target == ErrForeign
}

// Status says whose the journal is (see [Standing]). It reads the journal
// directory, its id and this user's key store, and changes nothing.
func (j *Journal) Status() (*Status, error) {
	// A journal found without an id that is not fresh either may have
	// been claimed between the two looks (another writer's first commit
	// renamed its id in): look again, a few times, before calling it
	// foreign.
	for try := 0; ; try++ {
		st, err := j.status()
		if err != nil || try == 3 || st.Standing != Foreign || st.id != "" || st.Fresh {
			return st, err
		}
		if _, err := j.fs.Lstat(idName); err != nil {
			return st, nil
		}
	}
}

func (j *Journal) status() (*Status, error) {
	st := &Status{Keys: j.keys.Where()}
	fi, err := j.fs.Lstat(Dir)
	if errors.Is(err, fs.ErrNotExist) {
		st.Standing = NoJournal
		return st, nil
	}
	if err != nil {
		return nil, err
	}
	id := fsys.IdentityOf(fi)
	st.ident = id
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		target, _ := j.fs.Readlink(Dir)
		st.Standing, st.Reason = Wedged, fmt.Sprintf("is a symbolic link (to %q), not a journal", target)
		return st, nil
	case !fi.IsDir():
		st.Standing, st.Reason = Wedged, fmt.Sprintf("is a %s, not a journal", kindOf(fi.Mode()))
		return st, nil
	case id.Uid != os.Geteuid():
		st.Standing, st.Owner = NotOwned, id.Uid
		st.Reason = fmt.Sprintf("belongs to another user (uid %d)", id.Uid)
		return st, nil
	}
	if _, err := j.fs.Lstat(keyName); err == nil {
		st.OlderKey = true
	}
	idfi, err := j.fs.Lstat(idName)
	if errors.Is(err, fs.ErrNotExist) {
		st.Standing = Foreign
		if st.Fresh, err = j.fresh(); err != nil {
			return nil, err
		}
		st.Reason = "was not made here by you (it has no id in your key store)"
		if st.OlderKey {
			st.Reason = "holds its key inside it (" + keyName + "): an older txedit made it so, and so can a repository that ships one; which, txedit cannot tell"
		}
		return st, nil
	}
	if err != nil {
		return nil, err
	}
	st.Standing = Foreign
	st.Reason = "has an id (" + idName + ") that is not one"
	if !idfi.Mode().IsRegular() {
		return st, nil
	}
	data, idfi, err := fsys.ReadFile(j.fs, idName, 256)
	if errors.Is(err, fsys.ErrTooLarge) {
		return st, nil
	}
	if err != nil {
		return nil, err
	}
	if st.id = strings.TrimSpace(string(data)); !validJournalID(st.id) {
		return st, nil
	}
	st.idf = fsys.IdentityOf(idfi)
	e, err := j.keys.get(st.id)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		st.Reason = "was not made here by you: your key store (" + j.keys.Where() + ") has no key for it (a clone or a copy of a journal, or its key was removed)"
		return st, nil
	case errors.Is(err, errBadEntry):
		st.Damaged = true
		st.Reason = "has a damaged entry in your key store (" + err.Error() + ")"
		return st, nil
	case err != nil:
		return nil, err
	}
	if !j.keys.loose && (e.dev != id.Dev || e.ino != id.Ino) {
		st.Reason = fmt.Sprintf("is a copy of your journal made at %s, or it was moved (the key is bound to the directory it was made as)", e.path)
		return st, nil
	}
	st.Standing, st.entry = Trusted, e
	return st, nil
}

func kindOf(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "regular file"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return m.Type().String()
}

// freshNames are what a new journal's first write makes before it claims
// the journal under the lock (init, then Lock).
var freshNames = map[string]bool{"txns": true, "pending": true, "mark": true, "LOCK": true, ".gitignore": true, ".gitignore.tmp": true, "id.tmp": true}

// fresh reports whether the journal directory holds nothing but what a new
// journal's first write makes: then it holds no transaction, nothing in
// it can act on anything, and the write that made it (or the next one, if
// that one died) claims it. It runs outside the lock too, while another
// writer's first commit renames its temporary files in: a name listed
// that is gone when looked at means the directory changed meanwhile, and
// it is listed again (once its id is in, Status finds the journal this
// user's); the name's lstat error was once the answer
// ("lstat .txedit/.gitignore.tmp: no such file or directory", io_error).
func (j *Journal) fresh() (bool, error) {
	for try := 0; ; try++ {
		ok, err := j.freshOnce()
		if !fsys.Gone(err) || try == 3 {
			return ok, err
		}
	}
}

func (j *Journal) freshOnce() (bool, error) {
	ents, err := j.fs.ReadDir(Dir)
	if err != nil {
		return false, err
	}
	for _, e := range ents {
		if !freshNames[e.Name()] {
			return false, nil
		}
		fi, err := j.fs.Lstat(Dir + "/" + e.Name())
		if err != nil {
			return false, err
		}
		switch e.Name() {
		case "txns", "pending":
			if !fi.IsDir() {
				return false, nil
			}
			sub, err := j.fs.ReadDir(Dir + "/" + e.Name())
			if err != nil || len(sub) > 0 {
				return false, err
			}
		default:
			if !fi.Mode().IsRegular() {
				return false, nil
			}
		}
	}
	return true, nil
}

// trust is what a journal verifies manifests with: this user's key for
// it, or nothing (foreign is set: every manifest is refused).
type trust struct {
	key     []byte
	trusted map[string]hash.Sum // id → checksum of a manifest trusted without this key's MAC
	idf     fsys.Identity       // the .txedit/id file it was found through
	foreign *Status             // not this user's journal: why
}

// loadTrust finds the journal's standing and, for a trusted one, its key.
func (j *Journal) loadTrust() (*trust, error) {
	st, err := j.Status()
	if err != nil {
		return nil, err
	}
	if st.Standing == NoJournal {
		return nil, nil
	}
	if st.Standing != Trusted {
		return &trust{foreign: st}, nil
	}
	return &trust{key: st.entry.key, trusted: st.entry.trusted, idf: st.idf}, nil
}

// claim makes the journal this user's: a new key in the store, bound to
// the journal directory's identity, then the journal's id, which names
// it. It runs under the lock, on a journal that is fresh (see fresh) or
// that a person adopts (with trusted: the manifests they vouched for).
// The entry is written first: an id that names no entry is a foreign
// journal, so a crash between the two leaves the journal as it was. with
// are other files to write in the id's round (a new journal's .gitignore).
// The entry is made at its own name (a new id names it: no temporary
// file) and synced in the same wait as the id's temporary file and
// syncDirs (a new journal's directories, not synced yet: LockWithin);
// only then is the id renamed in, and the journal's directory synced.
// Two waits for the device in all, where the entry took two of its own
// before (docs/journal.md, "A workspace's first commit").
func (j *Journal) claim(trusted map[string]hash.Sum, with []atomicWrite, syncDirs ...string) (*trust, error) {
	fi, err := j.fs.Lstat(Dir)
	if err != nil {
		return nil, err
	}
	ident := fsys.IdentityOf(fi)
	e := &keyEntry{id: newJournalID(), dev: ident.Dev, ino: ident.Ino, path: j.opts.Path, key: make([]byte, keyLen), trusted: trusted}
	if e.trusted == nil {
		e.trusted = map[string]hash.Sum{}
	}
	rand.Read(e.key)
	syncs, done, err := j.keys.create(e)
	if err != nil {
		return nil, err
	}
	if j.opts.Sync != SyncNone {
		for _, d := range syncDirs {
			syncs = append(syncs, func() error { return j.fs.SyncDir(d) })
		}
	}
	// On a failure the entry stays: the id may be in place all the same
	// (a rename that took, a directory sync that did not).
	files := append(with, atomicWrite{name: idName, data: []byte(e.id + "\n"), perm: 0o600})
	if brokenOrder.entryLate {
		err = j.writeFilesAtomic(files, nil)
		for _, s := range syncs {
			if err == nil {
				err = s()
			}
		}
	} else {
		err = j.writeFilesAtomic(files, nil, syncs...)
	}
	if cerr := done(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	t, err := j.loadTrust()
	if err == nil && (t == nil || t.foreign != nil) {
		err = fmt.Errorf("the journal's new key cannot be found again in %s", j.keys.Where())
	}
	return t, err
}

// mac is the manifest body's HMAC under key.
func mac(key, body []byte) []byte {
	h := hmac.New(sha256.New, key)
	h.Write(body)
	return h.Sum(nil)
}

// verify accepts m if the journal can vouch for it (see the top of this
// file). t is nil where there is no journal.
func (t *trust) verify(m *Manifest) error {
	if t == nil {
		return fmt.Errorf("%w: there is no journal", ErrUntrusted)
	}
	if t.foreign != nil {
		return fmt.Errorf("%w: %s %s", ErrUntrusted, Dir, t.foreign.Reason)
	}
	if sum, ok := t.trusted[m.ID]; ok && sum == m.sum {
		return nil
	}
	if m.Version >= 3 {
		if !hmac.Equal(m.mac, mac(t.key, m.body)) {
			return fmt.Errorf("%w: the manifest of %s is not signed with this journal's key", ErrUntrusted, m.ID)
		}
		return nil
	}
	return fmt.Errorf("%w: %s has an unsigned (version %d) manifest that this journal was not adopted with", ErrUntrusted, m.ID, m.Version)
}

// olderKey reads an older txedit's key from inside the journal (nil if
// there is none, or it is not a key).
func (j *Journal) olderKey() []byte {
	data, _, err := fsys.ReadFile(j.fs, keyName, 256)
	if err != nil {
		return nil
	}
	key, err := hex.DecodeString(strings.TrimSpace(string(data)))
	if err != nil || len(key) != keyLen {
		return nil
	}
	return key
}
