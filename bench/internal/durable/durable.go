// Package durable is the durable floor's last step for the benchmarks that
// compare txedit with peers that sync nothing (bench/README.md, "the
// durable floor"): the files a peer changed are fdatasynced, 32 in flight,
// then their directories fsynced, all at once; the way txedit's journal
// issues its own syncs (many in flight, the Ps widened: internal/par), so
// that the floor is the least the same durability costs, not the cost of
// one sync after another (coreutils `sync -d FILE…` waits for each in
// turn).
package durable

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/internal/par"
)

// Widen widens the Ps (par.Widen) for n syncs of files under path as
// txedit's journal widens a transaction's (journal's Tx.widen): for more
// than 8, and not on a file system in memory (fsys.InMemory), where no
// sync waits for a device and the Ps would only spin (docs/journal.md,
// "Syncs in flight, and the Go runtime's Ps"). It returns the restore.
func Widen(path string, n int) (restore func()) {
	if n <= 8 || fsys.InMemory(path) {
		return func() {}
	}
	return par.Widen(par.SyscallProcs)
}

// first is the first of the names, for Widen's look at their file
// system.
func first(files, dirs []string) string {
	if len(files) > 0 {
		return files[0]
	}
	if len(dirs) > 0 {
		return dirs[0]
	}
	return "."
}

// InFlight is how many syncs are issued at once.
const InFlight = 32

// Sync fdatasyncs every file, then fsyncs every directory in dirs, or,
// where dirs is nil, the parent directories of the files.
func Sync(files, dirs []string) error {
	defer Widen(first(files, dirs), len(files)+len(dirs))()
	if dirs == nil {
		seen := map[string]bool{}
		for _, f := range files {
			if d := filepath.Dir(f); !seen[d] {
				seen[d] = true
				dirs = append(dirs, d)
			}
		}
	}
	if err := each(files, DataSync); err != nil {
		return err
	}
	return each(dirs, (*os.File).Sync)
}

// SyncTogether fdatasyncs every file and fsyncs every directory in dirs
// in one round, all in flight together (InFlight at a time): where a
// journal already holds what a power loss in between needs (the least
// journaled apply's before-images), the directories need not wait for
// the files.
func SyncTogether(files, dirs []string) error {
	defer Widen(first(files, dirs), len(files)+len(dirs))()
	return par.Do(context.Background(), len(files)+len(dirs), InFlight, func(i int) error {
		if i < len(files) {
			return syncOne(files[i], DataSync)
		}
		return syncOne(dirs[i-len(files)], (*os.File).Sync)
	})
}

func each(names []string, sync func(*os.File) error) error {
	return par.Do(context.Background(), len(names), InFlight, func(i int) error { return syncOne(names[i], sync) })
}

func syncOne(name string, sync func(*os.File) error) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	err = sync(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// ReadList reads a list of names, NUL-separated if it holds a NUL (find
// -print0, git's -z), else one per line (rg -l); empty names are dropped.
func ReadList(name string) ([]string, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	sep := "\n"
	if bytes.IndexByte(data, 0) >= 0 {
		sep = "\x00"
	}
	var out []string
	for _, n := range strings.Split(string(data), sep) {
		if n != "" {
			out = append(out, n)
		}
	}
	return out, nil
}

// Main is the -sync-files mode of a benchmark program that runs itself as
// the floor's last step: it syncs the files listed in filesList and the
// directories listed in dirsList (empty: the files' parents), and exits.
func Main(filesList, dirsList string) {
	files, err := ReadList(filesList)
	var dirs []string
	if err == nil && dirsList != "" {
		if dirs, err = ReadList(dirsList); err == nil && dirs == nil {
			dirs = []string{}
		}
	}
	if err == nil {
		err = Sync(files, dirs)
	}
	if err != nil {
		os.Stderr.WriteString("sync: " + err.Error() + "\n")
		os.Exit(1)
	}
	os.Exit(0)
}
