package journal

import (
	"context"
	"io/fs"
	"path"

	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/internal/par"
)

// atomicWrite is one file of writeFilesAtomic.
type atomicWrite struct {
	name string
	data []byte
	perm fs.FileMode
}

// writeFilesAtomic is fsys.WriteFileAtomic for several files whose order
// does not matter: every temporary file is written, their fdatasyncs run
// at once, each is renamed over its name, and then every directory that
// received one, and those in dirs, is fsynced, at once: two waits for the
// device, not two per file. A crash may leave any subset of the files new
// (each whole), so it is only for files none of which needs another to be
// durable first (a new journal's first files: LockWithin). On failure the
// temporary files are removed. with are more syncs for the first wait
// (claim's: the key store's entry, which must be durable before the id
// is renamed in, and a new journal's directories), run whatever the
// journal's sync mode: the caller says which apply.
func (j *Journal) writeFilesAtomic(files []atomicWrite, dirs []string, with ...func() error) error {
	sync := j.opts.Sync != SyncNone
	var made []string
	var opened []fsys.File
	fail := func(err error) error {
		for _, f := range opened {
			f.Close()
		}
		for _, tmp := range made {
			j.fs.Remove(tmp)
		}
		return err
	}
	for _, w := range files {
		tmp := w.name + ".tmp"
		if err := j.fs.Remove(tmp); err != nil && !fsys.Gone(err) {
			return fail(err)
		}
		f, err := j.fs.Create(tmp, w.perm)
		if err != nil {
			return fail(err)
		}
		made, opened = append(made, tmp), append(opened, f)
		if _, err := f.Write(w.data); err != nil {
			return fail(err)
		}
	}
	var first []func() error
	if sync {
		for _, f := range opened {
			first = append(first, f.DataSync)
		}
	}
	first = append(first, with...)
	if err := j.each(len(first), func(i int) error { return first[i]() }); err != nil {
		return fail(err)
	}
	var err error
	for _, f := range opened {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	opened = nil
	if err != nil {
		return fail(err)
	}
	seen := map[string]bool{}
	var syncs []string
	add := func(d string) {
		if !seen[d] {
			seen[d] = true
			syncs = append(syncs, d)
		}
	}
	for _, w := range files {
		if err := j.fs.Rename(w.name+".tmp", w.name); err != nil {
			return fail(err)
		}
		add(path.Dir(w.name))
	}
	for _, d := range dirs {
		add(d)
	}
	if !sync {
		return nil
	}
	return j.each(len(syncs), func(i int) error { return j.fs.SyncDir(syncs[i]) })
}

// each runs fn(0..n-1), all at once (within Options.SyncWorkers).
func (j *Journal) each(n int, fn func(i int) error) error {
	return par.Do(context.Background(), n, min(max(n, 1), j.opts.SyncWorkers), fn)
}
