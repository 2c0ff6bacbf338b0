package journal

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/hash"
)

// Keys is one user's store of journal keys, kept outside every workspace
// (docs/design.md, "What makes a journal trusted"). Each journal this user
// made has an entry here: its key, the journal's random id (which the
// journal holds in .txedit/id), the device and inode of the journal's
// directory and the path it was made at. A journal is this user's only if
// an entry names its id and its directory: a journal that arrived with a
// clone, a copy of one, or one another user planted has none, and nothing
// in it is acted on.
//
// Keys is safe for concurrent use. Writers of one entry are serialised by
// the journal's lock (the entry is made and changed only under it).
type Keys struct {
	where string
	// loose: entries are not bound to the journal directory's identity
	// (the memory store's: an in-memory file system's inode numbers say
	// nothing across its copies, and only this process can reach it).
	loose bool
	once  sync.Once
	open  func() (keyStore, error)
	st    keyStore
	err   error
}

// keyStore is where entries are kept: files of a directory (fsStore), or
// a map (memStore).
type keyStore interface {
	read(name string) ([]byte, error) // fs.ErrNotExist when there is none
	write(name string, data []byte) error
	// create makes name, which must not exist, holding data, and returns
	// the syncs that make it durable (none for a store in memory), to
	// run at once with others, and done, which closes it (after them).
	create(name string, data []byte) (syncs []func() error, done func() error, err error)
	remove(name string) error
}

// NewKeys returns a store of keys in the root of fsy, which only this user
// may read or write (the caller sees to that); where names it in messages.
func NewKeys(fsy fsys.FS, where string) *Keys {
	return &Keys{where: where, open: func() (keyStore, error) { return fsStore{fsy}, nil }}
}

var memoryKeys = sync.OnceValue(func() *Keys {
	return &Keys{where: "this process's memory", loose: true, open: func() (keyStore, error) { return &memStore{m: map[string][]byte{}}, nil }}
})

// MemoryKeys returns the store of the process's memory: journals made
// through it are trusted by this process alone, for as long as it runs.
// It is the default of a journal on a file system that is not the
// operating system's (an in-memory workspace, fsys/memfs). Its entries
// name a journal by its id alone, not by its directory's identity: only
// this process can reach its journals, and an in-memory file system's
// copies (a model of a power loss, say) number their inodes afresh.
func MemoryKeys() *Keys { return memoryKeys() }

var userKeys = sync.OnceValue(func() *Keys {
	k := &Keys{}
	dir, err := UserKeysDir()
	k.where = dir
	k.open = func() (keyStore, error) {
		if err != nil {
			return nil, err
		}
		o, err := fsys.OpenPrivate(dir)
		if err != nil {
			return nil, fmt.Errorf("txedit keeps the keys of your journals in %s, which cannot be used: %w", dir, err)
		}
		return fsStore{o}, nil
	}
	if err != nil {
		k.where = "$XDG_STATE_HOME/txedit/journals"
	}
	return k
})

// UserKeys returns the store of the user running txedit, in UserKeysDir.
// It is opened (and made, 0700) on first use: a command that only reads
// never touches it.
func UserKeys() *Keys { return userKeys() }

// UserKeysDir is the directory of the user's store:
// $XDG_STATE_HOME/txedit/journals, where XDG_STATE_HOME defaults to
// ~/.local/state (a relative XDG_STATE_HOME is ignored, as the XDG
// specification says).
func UserKeysDir() (string, error) {
	state := os.Getenv("XDG_STATE_HOME")
	if !filepath.IsAbs(state) {
		home, err := os.UserHomeDir()
		if err != nil || !filepath.IsAbs(home) {
			return "", errors.New("neither XDG_STATE_HOME nor HOME names a directory where txedit can keep the keys of your journals: set XDG_STATE_HOME")
		}
		state = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(state, "txedit", "journals"), nil
}

// Where names the store in messages (a directory, or "this process's
// memory").
func (k *Keys) Where() string { return k.where }

func (k *Keys) store() (keyStore, error) {
	k.once.Do(func() { k.st, k.err = k.open() })
	return k.st, k.err
}

// keyEntry is one journal's entry in the store.
type keyEntry struct {
	id       string // the journal's id, which .txedit/id holds
	dev, ino uint64 // the journal directory's identity
	path     string // the workspace root it was made in (for people)
	key      []byte
	// trusted lists manifests trusted without this key's MAC, by id and
	// checksum: those the journal held when this user adopted it (signed
	// with its older key, or unsigned), see adopt.go.
	trusted map[string]hash.Sum
}

const entryMagic = "txedit journal key 1"

func (e *keyEntry) encode() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\nid %s\ndev %d\nino %d\npath %s\nkey %s\n", entryMagic, e.id, e.dev, e.ino, strconv.Quote(e.path), hex.EncodeToString(e.key))
	ids := make([]string, 0, len(e.trusted))
	for id := range e.trusted {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		fmt.Fprintf(&b, "trust %s %s\n", id, e.trusted[id])
	}
	return b.Bytes()
}

// errBadEntry reports an entry of the store that does not parse.
var errBadEntry = errors.New("damaged entry in the key store")

func decodeEntry(data []byte) (*keyEntry, error) {
	lines := strings.Split(string(data), "\n")
	if len(lines) < 6 || lines[0] != entryMagic {
		return nil, errBadEntry
	}
	e := &keyEntry{trusted: map[string]hash.Sum{}}
	seen := map[string]bool{}
	for _, line := range lines[1:] {
		if line == "" {
			continue
		}
		k, v, _ := strings.Cut(line, " ")
		var err error
		switch k {
		case "id":
			e.id = v
			if !validJournalID(v) {
				err = errBadEntry
			}
		case "dev":
			e.dev, err = strconv.ParseUint(v, 10, 64)
		case "ino":
			e.ino, err = strconv.ParseUint(v, 10, 64)
		case "path":
			e.path, err = strconv.Unquote(v)
		case "key":
			e.key, err = hex.DecodeString(v)
			if err == nil && len(e.key) != keyLen {
				err = errBadEntry
			}
		case "trust":
			id, sum, _ := strings.Cut(v, " ")
			s, serr := hash.ParseSum(sum)
			if serr != nil || !validID(id) {
				return nil, errBadEntry
			}
			e.trusted[id] = s
			continue
		default:
			err = errBadEntry
		}
		if err != nil || seen[k] {
			return nil, errBadEntry
		}
		seen[k] = true
	}
	if !seen["id"] || !seen["dev"] || !seen["ino"] || !seen["key"] {
		return nil, errBadEntry
	}
	return e, nil
}

// journalIDLen is the length of a journal's id: 16 random bytes in hex.
const journalIDLen = 32

// validJournalID reports whether s can be a journal's id (so a name in
// the store).
func validJournalID(s string) bool {
	if len(s) != journalIDLen {
		return false
	}
	for _, c := range []byte(s) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

func newJournalID() string {
	var b [journalIDLen / 2]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// get returns the entry of journal id (fs.ErrNotExist if there is none;
// errBadEntry if it does not parse).
func (k *Keys) get(id string) (*keyEntry, error) {
	st, err := k.store()
	if err != nil {
		return nil, err
	}
	data, err := st.read(id)
	if err != nil {
		return nil, err
	}
	e, err := decodeEntry(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %s/%s", err, k.where, id)
	}
	if e.id != id {
		return nil, fmt.Errorf("%w: %s/%s names another journal", errBadEntry, k.where, id)
	}
	return e, nil
}

func (k *Keys) put(e *keyEntry) error {
	st, err := k.store()
	if err != nil {
		return err
	}
	return st.write(e.id, e.encode())
}

// create makes e's entry, which must be new (a new journal id names it),
// without a temporary file and a rename: a crash may leave it torn or
// missing, but only while no journal's id names it (claim makes it
// durable before the id). It returns the syncs that make it durable and
// done, which closes it once they ran.
func (k *Keys) create(e *keyEntry) (syncs []func() error, done func() error, err error) {
	st, err := k.store()
	if err != nil {
		return nil, nil, err
	}
	return st.create(e.id, e.encode())
}

func (k *Keys) forget(id string) error {
	st, err := k.store()
	if err != nil {
		return err
	}
	if err := st.remove(id); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// fsStore keeps entries as files (0600) of a directory.
type fsStore struct{ fs fsys.FS }

func (s fsStore) read(name string) ([]byte, error) {
	fi, err := s.fs.Lstat(name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is a %s", errBadEntry, name, kindOf(fi.Mode()))
	}
	data, _, err := fsys.ReadFile(s.fs, name, 1<<20)
	if errors.Is(err, fsys.ErrTooLarge) {
		return nil, fmt.Errorf("%w: %s is too large", errBadEntry, name)
	}
	return data, err
}

func (s fsStore) write(name string, data []byte) error {
	return fsys.WriteFileAtomic(s.fs, name, data, 0o600, true)
}

func (s fsStore) create(name string, data []byte) ([]func() error, func() error, error) {
	f, err := s.fs.Create(name, 0o600)
	if err != nil {
		return nil, nil, err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		s.fs.Remove(name)
		return nil, nil, err
	}
	// The entry's data and size, and its name in the store: independent
	// of each other, so both are in flight at once.
	return []func() error{f.DataSync, func() error { return s.fs.SyncDir(".") }}, f.Close, nil
}

// remove removes the entry name, or, where it cannot (a damaged entry
// that is a directory, say), moves it aside.
func (s fsStore) remove(name string) error {
	err := s.fs.Remove(name)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		if rerr := s.fs.Rename(name, name+".damaged-"+time.Now().UTC().Format("20060102-150405.000000")); rerr == nil {
			return nil
		}
	}
	return err
}

// memStore keeps entries in memory.
type memStore struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (s *memStore) read(name string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	data, ok := s.m[name]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return bytes.Clone(data), nil
}

func (s *memStore) write(name string, data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[name] = bytes.Clone(data)
	return nil
}

func (s *memStore) create(name string, data []byte) ([]func() error, func() error, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[name]; ok {
		return nil, nil, &fs.PathError{Op: "create", Path: name, Err: fs.ErrExist}
	}
	s.m[name] = bytes.Clone(data)
	return nil, func() error { return nil }, nil
}

func (s *memStore) remove(name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[name]; !ok {
		return &fs.PathError{Op: "remove", Path: name, Err: fs.ErrNotExist}
	}
	delete(s.m, name)
	return nil
}
