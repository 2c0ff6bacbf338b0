//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/txedit/txedit/bench/internal/durable"
	"github.com/txedit/txedit/internal/par"
	"golang.org/x/sys/unix"
)

// minimalJournaled is the least a commit that keeps the journal's promises
// (docs/journal.md)
// can do, written without the engine: no planning, no edits, no diffs,
// no hashes, no lock, no index, new contents precomputed. What it adds
// to the bare durable write is only what an undo journal cannot do
// without: the old contents read and written to one journal file with
// their names, that file durable before any target is replaced, and an
// end mark after the directories are synced. Its stagings:
//
//   - named: a staged file must not appear in the user's directories
//     before a durable journal names it (a power loss would leave a
//     temporary file nobody knows of), so the journal file has a round of
//     its own first: three rounds (journal, staged files, directories),
//     the renames between the last two (txedit's shape for more than 8
//     files);
//   - unnamed (O_TMPFILE): the journal file joins the staged files' round,
//     and each staged file is fsynced again after its link, with the
//     directories (an ext4 without a journal writes the link count only
//     then: docs/journal.md, "An ext4 without a journal"): two rounds, as
//     the bare durable write (txedit's shape for up to 8 files);
//   - pipelined: the journal's round, then each file as the bare durable
//     write does it (written, fdatasynced, renamed at once, 32 in flight),
//     then the directories. A file may go into place as soon as it and
//     the journal (which holds its old content) are durable: a crash
//     after is rolled back from the journal. The least of the three
//     with each file's own syncs; txedit does not commit this way (its
//     renames wait for every staged file: docs/journal.md, "What the
//     protocol itself costs");
//   - syncfs: the journal's round, then the staged files written without
//     a sync each, one syncfs(2), the renames (32 in flight), one syncfs
//     (the directories): txedit's barriers where it picks syncfs (16
//     files or more on a quiet system: docs/journal.md, "Why 16 files and
//     4 MiB"), so that the floor uses them too.
//
// Rename over the target, not exchange: the re-check of an outside
// writer's save (docs/journal.md, "Writers outside txedit") is left out.
// The journal file's fdatasync and its directory's fsync are in flight
// together, and so are the directories' fsyncs at the end (syncDirs), as
// txedit's journal issues a round's syncs. The journal directory exists
// before the clock starts (as "journal in use").
//
// With more than 8 files it widens the Ps as the bare write does (and
// txedit's journal), except on a file system in memory (durable.Widen).
func minimalJournaled(root string, contents map[string][]byte, how staging) error {
	defer durable.Widen(root, len(contents))()
	unnamed := how == unnamedStaging
	withSyncfs := how == syncfsStaging
	names := make([]string, 0, len(contents))
	for n := range contents {
		names = append(names, n)
	}
	sort.Strings(names)
	// each runs f for every file, 32 at a time, as the bare write does.
	each := func(f func(int) error) error { return par.Do(context.Background(), len(names), 32, f) }
	// The old contents, read as any editor must (32 at once).
	olds := make([][]byte, len(names))
	if err := each(func(i int) (err error) {
		olds[i], err = os.ReadFile(filepath.Join(root, names[i]))
		return err
	}); err != nil {
		return err
	}
	var rec []byte
	for i, n := range names {
		rec = fmt.Appendf(rec, "%s %d\n", n, len(olds[i]))
	}
	for _, b := range olds {
		rec = append(rec, b...)
	}
	jdir := filepath.Join(root, minimalJournalDir)
	id := strconv.FormatInt(time.Now().UnixNano(), 10)
	writeJournal := func() error {
		f, err := os.OpenFile(filepath.Join(jdir, id), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return err
		}
		_, err = f.Write(rec)
		if err == nil {
			// The file's data and its name in the journal's directory,
			// in flight together.
			err = durable.WithDir(f, func() error { return dirSync(jdir) })
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}

	staged := make([]*os.File, len(names)) // unnamed: open until linked
	stage := func(i int) error {
		p := filepath.Join(root, names[i])
		var f *os.File
		if unnamed {
			fd, err := unix.Open(filepath.Dir(p), unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, 0o644)
			if err != nil {
				return err
			}
			f = os.NewFile(uintptr(fd), p)
		} else {
			var err error
			if f, err = os.OpenFile(p+".min.tmp", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644); err != nil {
				return err
			}
		}
		_, err := f.Write(contents[names[i]])
		if err == nil && !withSyncfs {
			err = durable.DataSync(f)
		}
		if unnamed && err == nil {
			staged[i] = f
			return nil
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil && how == pipelinedStaging {
			// Its old content and the journal are durable, and so is
			// it: it may go into place at once (a crash from here on
			// is rolled back from the journal).
			err = os.Rename(p+".min.tmp", p)
		}
		return err
	}
	if unnamed {
		// One round: the journal file, its directory, the staged files.
		var jerr error
		var wg sync.WaitGroup
		wg.Go(func() { jerr = writeJournal() })
		err := each(stage)
		wg.Wait()
		if err == nil {
			err = jerr
		}
		if err != nil {
			closeAll(staged)
			return err
		}
	} else {
		if err := writeJournal(); err != nil {
			return err
		}
		if err := each(stage); err != nil {
			return err
		}
	}

	if withSyncfs {
		// The staged files durable at once, renamed 32 at a time, and
		// the renames durable at once.
		if err := syncFS(root); err != nil {
			return err
		}
		if err := each(func(i int) error {
			p := filepath.Join(root, names[i])
			return os.Rename(p+".min.tmp", p)
		}); err != nil {
			return err
		}
		if err := syncFS(root); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(jdir, id+".committed"), nil, 0o600)
	}

	// Into place.
	dirs := map[string]bool{}
	for i, n := range names {
		p := filepath.Join(root, n)
		dirs[filepath.Dir(p)] = true
		tmp := p + ".min.tmp"
		if how == pipelinedStaging {
			continue // renamed as soon as it was durable
		}
		if unnamed {
			src := "/proc/self/fd/" + strconv.Itoa(int(staged[i].Fd()))
			if err := unix.Linkat(unix.AT_FDCWD, src, unix.AT_FDCWD, tmp, unix.AT_SYMLINK_FOLLOW); err != nil {
				closeAll(staged)
				return err
			}
		}
		if err := os.Rename(tmp, p); err != nil {
			closeAll(staged)
			return err
		}
	}

	// The directories (and each unnamed file's link count) durable, then
	// the end mark, not synced (docs/journal.md, "Rolling forward").
	var lerr error
	var wg sync.WaitGroup
	if unnamed {
		wg.Go(func() {
			lerr = each(func(i int) error { return staged[i].Sync() })
		})
	}
	err := syncDirs(dirs)
	wg.Wait()
	closeAll(staged)
	if err == nil {
		err = lerr
	}
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(jdir, id+".committed"), nil, 0o600)
}

// staging is how minimalJournaled stages the new contents.
type staging int

const (
	namedStaging     staging = iota // journal round, staged files' round, renames, directories
	unnamedStaging                  // journal and staged files in one round, links and renames, directories and links
	pipelinedStaging                // journal round, then each file staged, synced and renamed, as the bare write does; directories
	syncfsStaging                   // journal round, staged files, syncfs, renames, syncfs
)

func (s staging) String() string {
	return [...]string{"named", "unnamed", "pipelined", "syncfs"}[s]
}

// syncFS makes everything on root's file system durable (syncfs(2)).
func syncFS(root string) error {
	f, err := os.Open(root)
	if err != nil {
		return err
	}
	defer f.Close()
	return unix.Syncfs(int(f.Fd()))
}

// minimalJournalDir is minimalJournaled's journal, beside the corpus.
const minimalJournalDir = ".minj"

func closeAll(fs []*os.File) {
	for _, f := range fs {
		if f != nil {
			f.Close()
		}
	}
}

// minimalMethods are the minimal journaled commit's two stagings, for
// the comparison table.
func minimalMethods(root string, contents map[string][]byte, setupWith func(pre func(root string) error) error) []minimalMethod {
	withDir := func() error {
		return setupWith(func(root string) error { return os.Mkdir(filepath.Join(root, minimalJournalDir), 0o700) })
	}
	return []minimalMethod{
		{"minimal journaled commit (named staging: 3 rounds)", withDir, func() error { return minimalJournaled(root, contents, namedStaging) }},
		{"minimal journaled commit (unnamed staging: 2 rounds)", withDir, func() error { return minimalJournaled(root, contents, unnamedStaging) }},
		{"minimal journaled commit (journal round, then each file as the bare write)", withDir, func() error { return minimalJournaled(root, contents, pipelinedStaging) }},
		{"minimal journaled commit (syncfs barriers: journal round, files, syncfs, renames, syncfs)", withDir, func() error { return minimalJournaled(root, contents, syncfsStaging) }},
	}
}
