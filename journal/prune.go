package journal

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/txedit/txedit/fsys"
)

// PruneMinAge is the age below which PruneKeys never removes an entry: a
// first commit writes its entry before it renames the journal's id in
// (docs/journal.md, "On disk": the claim), so a young entry whose root
// holds no id yet may be a claim in flight, not a journal gone.
const PruneMinAge = 10 * time.Minute

// PruneEntry is one entry of the key store and what PruneKeys made of it.
type PruneEntry struct {
	ID     string `json:"id"`
	Root   string `json:"root"`
	Remove bool   `json:"remove"` // gone: its root holds no journal with its id
	Reason string `json:"reason"`
	Done   bool   `json:"removed"` // removed (only when asked to)
}

// PruneKeys looks at each entry of the user's key store in dir and
// reports the entries whose recorded root no longer holds a journal with
// their id (the root is missing, its .txedit is, or .txedit names another
// id). It removes them only if remove is set. It keeps every entry whose
// journal is at its root, every entry younger than minAge, every damaged
// entry, and every entry whose root it cannot look at for any reason but
// "does not exist" (permission denied, an I/O error, a stale mount): only
// fs.ErrNotExist counts as gone. A journal moved elsewhere is not found at
// its recorded root, so its entry is reported as gone (docs/journal.md,
// "Pruning the key store").
func PruneKeys(dir string, remove bool, minAge time.Duration, now time.Time) ([]PruneEntry, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	keys := NewKeys(nil, dir)
	keys.open = func() (keyStore, error) { return osStore(dir), nil }
	var out []PruneEntry
	for _, de := range ents {
		name := de.Name()
		if !validJournalID(name) {
			continue // not an entry (a damaged one moved aside, say)
		}
		pe := PruneEntry{ID: name}
		fi, err := os.Lstat(filepath.Join(dir, name))
		if err != nil {
			continue // removed meanwhile
		}
		e, err := keys.get(name)
		if err != nil {
			pe.Reason = "kept: entry unreadable or damaged (" + err.Error() + ")"
			out = append(out, pe)
			continue
		}
		pe.Root = e.path
		pe.Remove, pe.Reason = gone(e)
		if pe.Remove && now.Sub(fi.ModTime()) < minAge {
			pe.Remove = false
			pe.Reason = "kept: younger than " + minAge.String() + " (a first commit may be claiming it); " + pe.Reason
		}
		out = append(out, pe)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Root+out[i].ID < out[j].Root+out[j].ID })
	if !remove {
		return out, nil
	}
	for i := range out {
		if !out[i].Remove {
			continue
		}
		// Look again just before removing: the root may have come back.
		e, err := keys.get(out[i].ID)
		if err != nil {
			continue
		}
		if still, _ := gone(e); !still {
			out[i].Remove, out[i].Reason = false, "kept: its journal is at its root again"
			continue
		}
		if err := os.Remove(filepath.Join(dir, out[i].ID)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return out, err
		}
		out[i].Done = true
	}
	return out, nil
}

// gone reports whether e's recorded root no longer holds e's journal, and
// why. Only fs.ErrNotExist is taken for gone.
func gone(e *keyEntry) (bool, string) {
	if e.path == "" || !filepath.IsAbs(e.path) {
		return false, "kept: no absolute root recorded"
	}
	root, err := os.Stat(e.path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if above, fi := existingAbove(e.path); fi != nil && otherFS(e, fi) {
				return false, "kept: its root " + e.path + " does not exist, and " + above + " above it is on another file system than its journal was: a file system that is not mounted now?"
			}
			return true, "its root " + e.path + " does not exist"
		}
		return false, "kept: its root cannot be looked at (" + err.Error() + ")"
	}
	jdir := filepath.Join(e.path, Dir)
	if _, err := os.Lstat(jdir); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if otherFS(e, root) {
				return false, "kept: its root holds no " + Dir + " and is on another file system than its journal was: the empty mount point of a file system that is not mounted now?"
			}
			return true, "its root holds no " + Dir
		}
		return false, "kept: " + jdir + " cannot be looked at (" + err.Error() + ")"
	}
	data, err := os.ReadFile(filepath.Join(jdir, "id"))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return true, "its root's " + Dir + " has no id (another journal, or an unfinished claim)"
		}
		return false, "kept: " + jdir + "/id cannot be read (" + err.Error() + ")"
	}
	if id := strings.TrimSpace(string(data)); id != e.id {
		return true, "its root's " + Dir + " is another journal (id " + id + ")"
	}
	return false, "kept: its journal is at its root"
}

// otherFS reports whether fi (the root, or the nearest directory above
// it that exists) is on another device than e's journal was when its
// entry was written. A workspace on a file system that is not mounted
// looks deleted (its root is missing, or is the empty directory it is
// mounted on), and what is there instead is on the file system below:
// another device. A deleted workspace's parent is on the journal's own.
// An entry that recorded no device (0) says nothing. The rule errs one
// way only: a device number that changed (a disk that came back under
// another minor number) keeps an entry, never removes one.
func otherFS(e *keyEntry, fi fs.FileInfo) bool {
	return e.dev != 0 && fsys.IdentityOf(fi).Dev != e.dev
}

// existingAbove returns the nearest directory above p that can be
// looked at, and what Stat says of it; nil if a look fails for another
// reason than "does not exist".
func existingAbove(p string) (string, fs.FileInfo) {
	for d := filepath.Dir(p); ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err == nil {
			return d, fi
		}
		if !errors.Is(err, fs.ErrNotExist) || d == filepath.Dir(d) {
			return "", nil
		}
	}
}

// osStore reads entries straight from the store's directory.
type osStore string

func (s osStore) read(name string) ([]byte, error) {
	return fsStoreRead(filepath.Join(string(s), name))
}
func (s osStore) write(string, []byte) error { return errors.New("read-only") }
func (s osStore) create(string, []byte) ([]func() error, func() error, error) {
	return nil, nil, errors.New("read-only")
}
func (s osStore) remove(name string) error { return os.Remove(filepath.Join(string(s), name)) }

func fsStoreRead(path string) ([]byte, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > 1<<20 {
		return nil, errBadEntry
	}
	return os.ReadFile(path)
}
