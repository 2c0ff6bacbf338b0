package journal

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/hash"
)

// Report describes what recovery did to one transaction.
type Report struct {
	ID string
	// Conflicts lists files that matched neither their old nor their new
	// version: they were left alone and their bytes saved aside.
	Conflicts []Conflict
	// Damaged is set when the transaction's manifest could not be read.
	Damaged string
}

// Conflict is a file recovery would not overwrite.
type Conflict struct {
	Path    string `json:"path"`
	SavedAs string `json:"saved_as,omitempty"` // root-relative copy of its bytes
	Reason  string `json:"reason"`
}

// Recover rolls back every transaction whose owner died before its commit
// point. It takes the workspace lock and is idempotent: a crash inside
// recovery is repaired by the next recovery.
func (j *Journal) Recover() ([]*Report, error) {
	if _, err := j.fs.Lstat(txnsDir); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	l, err := j.Lock()
	if err != nil {
		return nil, err
	}
	defer l.Unlock()
	return l.Recovered, nil
}

type txnStates struct {
	dir, prepared, committed, rolledBack bool
}

func (j *Journal) scan() (map[string]*txnStates, []string, error) {
	ents, err := j.fs.ReadDir(txnsDir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, nil
		}
		return nil, nil, err
	}
	states := map[string]*txnStates{}
	get := func(id string) *txnStates {
		s := states[id]
		if s == nil {
			s = &txnStates{}
			states[id] = s
		}
		return s
	}
	for _, e := range ents {
		name := e.Name()
		id, mark, _ := strings.Cut(name, ".")
		switch mark {
		case "":
			get(id).dir = e.IsDir()
		case "prepared":
			get(id).prepared = true
		case "committed":
			get(id).committed = true
		case "rolledback":
			get(id).rolledBack = true
		}
	}
	ids := make([]string, 0, len(states))
	for id := range states {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return states, ids, nil
}

func (j *Journal) recoverLocked() ([]*Report, string, error) {
	states, ids, err := j.scan()
	if err != nil {
		return nil, "", err
	}
	last := ""
	if len(ids) > 0 {
		last = ids[len(ids)-1]
	}
	var reports []*Report
	for _, id := range ids {
		s := states[id]
		if !s.dir {
			// Marks left by an interrupted GC.
			for _, m := range []string{"prepared", "committed", "rolledback"} {
				j.fs.Remove(txnsDir + "/" + id + "." + m)
			}
			continue
		}
		if s.committed || s.rolledBack {
			continue
		}
		m, err := j.readManifest(id)
		if err != nil {
			if !s.prepared && errors.Is(err, fs.ErrNotExist) {
				// Begin died before the manifest was in place: nothing
				// outside the journal was touched.
				if err := removeAll(j.fs, txnsDir+"/"+id); err != nil {
					return reports, last, err
				}
				continue
			}
			// A manifest that is there but damaged, or missing after the
			// transaction was prepared: nothing tells what is safe to
			// change, so nothing is. It is reported and kept.
			rep := &Report{ID: id, Damaged: err.Error()}
			reports = append(reports, rep)
			if err := createMark(j.fs, id, "rolledback"); err != nil {
				return reports, last, err
			}
			continue
		}
		rep, err := j.rollback(m, s.prepared)
		if err != nil {
			return reports, last, fmt.Errorf("recover %s: %w", id, err)
		}
		reports = append(reports, rep)
	}
	if ents, err := j.fs.ReadDir(gcDir); err == nil {
		for _, e := range ents {
			removeAll(j.fs, gcDir+"/"+e.Name())
		}
	}
	return reports, last, nil
}

func (j *Journal) readManifest(id string) (*Manifest, error) {
	data, _, err := fsys.ReadFile(j.fs, txnsDir+"/"+id+"/manifest", 0)
	if err != nil {
		return nil, err
	}
	m, err := DecodeManifest(data)
	if err == nil && m.ID != id {
		// Acting on it would touch another transaction's marks.
		return nil, fmt.Errorf("%w: manifest of %s names transaction %s", ErrCorrupt, id, m.ID)
	}
	return m, err
}

// rollback undoes whatever part of m reached the user's files, classifying
// each file by its current content: a file that is neither its old nor its
// new version is never overwritten.
func (j *Journal) rollback(m *Manifest, prepared bool) (*Report, error) {
	rep := &Report{ID: m.ID}
	dir := txnsDir + "/" + m.ID
	sync := j.opts.Sync != SyncNone
	if prepared {
		blobs := j.OpenPack(m)
		defer blobs.Close()
		// Directories the transaction removed come back first,
		// shallowest first.
		rm := uniqueDeepestFirst(m.Rmdirs)
		for i := len(rm) - 1; i >= 0; i-- {
			if _, err := j.fs.Lstat(rm[i]); errors.Is(err, fs.ErrNotExist) {
				if err := j.mkdirAs(m, rm[i]); err != nil && !errors.Is(err, fs.ErrExist) {
					return rep, err
				}
			}
		}
		for i := len(m.Ops) - 1; i >= 0; i-- {
			op := m.Ops[i]
			if op.inexact {
				rep.Conflicts = append(rep.Conflicts, Conflict{Path: op.Path, Reason: inexactReason})
				continue
			}
			cur, exists, cerr := readCurrent(j.fs, op.Path)
			if cerr != nil {
				rep.Conflicts = append(rep.Conflicts, Conflict{Path: op.Path, Reason: cerr.Error()})
				continue
			}
			isOld := exists && op.Old != nil && matches(cur, op.Old)
			isNew := (exists && op.New != nil && matches(cur, op.New)) || (!exists && op.New == nil)
			switch {
			case (op.Old == nil && !exists) || isOld:
				// Already the old version.
			case isNew && op.Old == nil:
				if err := j.fs.Remove(op.Path); err != nil {
					return rep, err
				}
			case isNew:
				data, err := blobs.Before(i)
				if err != nil {
					rep.Conflicts = append(rep.Conflicts, Conflict{Path: op.Path, Reason: "before-image lost: " + err.Error()})
					continue
				}
				if err := j.restore(m, op, data, sync); err != nil {
					return rep, err
				}
			default:
				c := Conflict{Path: op.Path, Reason: "matches neither its old nor its new version; left as it is"}
				saved := fmt.Sprintf("%s/conflicts/%d", dir, i)
				if err := j.saveAside(dir, saved, cur); err == nil {
					c.SavedAs = saved
				}
				rep.Conflicts = append(rep.Conflicts, c)
			}
		}
	}
	// Clean-up is best effort across every step: one failure must not
	// leave the rest behind. The first error is returned, and the
	// transaction stays pending so that the next recovery tries again.
	var cleanErr error
	for _, op := range m.Ops {
		if op.inexact || op.Staged == "" {
			continue
		}
		if err := j.fs.Remove(op.Staged); err != nil && !fsys.Gone(err) && cleanErr == nil {
			cleanErr = err
		}
	}
	for i := len(m.Mkdirs) - 1; i >= 0; i-- {
		if err := removeEmptyDir(j.fs, m.Mkdirs[i]); err != nil && cleanErr == nil {
			cleanErr = err
		}
	}
	if cleanErr != nil {
		return rep, cleanErr
	}
	if sync {
		var dirs []string
		for _, op := range m.Ops {
			dirs = append(dirs, path.Dir(op.Path))
		}
		for _, d := range append(append([]string{}, m.Mkdirs...), m.Rmdirs...) {
			dirs = append(dirs, path.Dir(d))
		}
		if err := syncDirs(j.fs, append(dirs, dir)); err != nil {
			return rep, err
		}
	}
	if len(rep.Conflicts) > 0 {
		data, _ := json.MarshalIndent(rep.Conflicts, "", "  ")
		if err := fsys.WriteFileAtomic(j.fs, dir+"/conflicts.json", data, 0o600, sync); err != nil {
			return rep, err
		}
	}
	if err := createMark(j.fs, m.ID, "rolledback"); err != nil {
		return rep, err
	}
	if sync {
		if err := j.fs.SyncDir(txnsDir); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

func matches(data []byte, st *State) bool {
	return int64(len(data)) == st.Size && hash.Of(data) == st.Hash
}

// readCurrent reads a file for classification. A missing file is not an
// error; a symlink, directory or special file is.
func readCurrent(fsy fsys.FS, name string) ([]byte, bool, error) {
	fi, err := fsy.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if !fi.Mode().IsRegular() {
		return nil, true, fmt.Errorf("is now a %v, not a regular file; left as it is", fi.Mode().Type())
	}
	data, _, err := fsys.ReadFile(fsy, name, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	return data, err == nil, err
}

// inexactReason is the conflict of an op whose name may have lost bytes.
const inexactReason = "recorded by an older txedit that wrote names that are not UTF-8 as U+FFFD: which file it is cannot be known; left as it is"

// restore puts a before-image back atomically: staging file, then rename.
func (j *Journal) restore(m *Manifest, op *Op, data []byte, sync bool) error {
	for _, d := range parents(op.Path) {
		if _, err := j.fs.Lstat(d); errors.Is(err, fs.ErrNotExist) {
			if err := j.mkdirAs(m, d); err != nil && !errors.Is(err, fs.ErrExist) {
				return err
			}
		}
	}
	j.fs.Remove(op.Staged)
	if err := j.writeStaged(op.Staged, data, op.Old, sync); err != nil {
		return err
	}
	return j.fs.Rename(op.Staged, op.Path)
}

func (j *Journal) saveAside(dir, name string, data []byte) error {
	if err := j.fs.Mkdir(dir+"/conflicts", 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	j.fs.Remove(name)
	return j.writeStaged(name, data, &State{Mode: 0o600}, j.opts.Sync != SyncNone)
}

func removeAll(fsy fsys.FS, name string) error {
	fi, err := fsy.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.IsDir() {
		ents, err := fsy.ReadDir(name)
		if err != nil {
			return err
		}
		for _, e := range ents {
			if err := removeAll(fsy, name+"/"+e.Name()); err != nil {
				return err
			}
		}
	}
	return fsy.Remove(name)
}

// RecoverIfNeeded runs Recover only when the journal needs it: a
// transaction that is not finished, an interrupted GC, or a missing or
// half-written .gitignore. Opening a healthy workspace takes no lock.
func (j *Journal) RecoverIfNeeded() ([]*Report, error) {
	states, _, err := j.scan()
	if err != nil {
		return nil, err
	}
	for _, s := range states {
		if (s.dir && !s.committed && !s.rolledBack) || !s.dir {
			return j.Recover()
		}
	}
	ents, err := j.fs.ReadDir(Dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	healthy := false
	for _, e := range ents {
		switch e.Name() {
		case "gc", ".gitignore.tmp":
			return j.Recover()
		case ".gitignore":
			healthy = true
		}
	}
	if !healthy && len(states) > 0 {
		return j.Recover()
	}
	return nil, nil
}
