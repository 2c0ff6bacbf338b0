package journal

import (
	"io/fs"
	"path"
	"regexp"
	"strings"
	"testing"

	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/fsys/faultfs"
	"github.com/txedit/txedit/fsys/fstest"
	"github.com/txedit/txedit/internal/testlong"
)

// storeDir is where the tests below keep this user's key store: in the
// workspace's own file system, so that a power loss takes what of the
// store is unsynced together with what of the journal is (the memory
// store the other tests use survives every crash).
const storeDir = ".keys"

// storeFS is the key store's view of a workspace's file system: its names
// are those of storeDir.
type storeFS struct{ fsys.FS }

func (s storeFS) name(n string) string { return path.Join(storeDir, n) }

func (s storeFS) Open(name string) (fsys.File, error) { return s.FS.Open(s.name(name)) }
func (s storeFS) Create(name string, perm fs.FileMode) (fsys.File, error) {
	return s.FS.Create(s.name(name), perm)
}
func (s storeFS) Lstat(name string) (fs.FileInfo, error)     { return s.FS.Lstat(s.name(name)) }
func (s storeFS) ReadDir(name string) ([]fs.DirEntry, error) { return s.FS.ReadDir(s.name(name)) }
func (s storeFS) Remove(name string) error                   { return s.FS.Remove(s.name(name)) }
func (s storeFS) Rename(a, b string) error                   { return s.FS.Rename(s.name(a), s.name(b)) }
func (s storeFS) SyncDir(name string) error                  { return s.FS.SyncDir(s.name(name)) }

// storeOpts is opts with a key store in storeDir of fsy.
func storeOpts(fsy fsys.FS, opts Options) *Options {
	opts.Keys = NewKeys(storeFS{fsy}, "the test's store")
	return &opts
}

// TestFirstCommitRounds pins what a new journal costs before its first
// transaction begins (docs/journal.md, "A workspace's first commit"):
// the key store's entry made at its own name, its two syncs in the same
// wait as the .gitignore's and the id's temporary files and the root's
// entry for .txedit; then the renames, and one sync of .txedit. Two waits
// for the device, six syncs, where there were five waits (the
// directories, the entry's data, its rename's directory, the temporary
// files, .txedit) and eight syncs. A sync counts as one wait with the
// syncs next to it (the trace runs one worker; a commit runs them at
// once).
func TestFirstCommitRounds(t *testing.T) {
	w := workloads[0]
	initial := map[string]string{storeDir + "/": ""}
	for k, v := range w.initial {
		initial[k] = v
	}
	mem := fstest.NewDisk(initial).Mem
	rec := &faultfs.FS{Inner: mem, Record: true}
	if err := runTx(rec, storeOpts(rec, Options{Sync: SyncData, Workers: 1}), w); err != nil {
		t.Fatal(err)
	}
	id := regexp.MustCompile(`\d{8}-\d{6}-\d{6}-[0-9a-f]{4}`)
	entry := regexp.MustCompile(`^` + regexp.QuoteMeta(storeDir) + `/[0-9a-f]{32}$`)
	var got []string
	for _, c := range rec.Calls {
		op, name, _ := strings.Cut(c, " ")
		switch op {
		case "lstat", "readdir", "opendir", "closedir", "open", "read", "readat", "close":
			continue // reads do not order durability
		}
		c = op + " " + entry.ReplaceAllString(id.ReplaceAllString(name, "ID"), storeDir+"/ENTRY")
		if c == "link .txedit/mark .txedit/pending/ID" {
			break // the first transaction's begin
		}
		got = append(got, c)
	}
	waits, syncs, inSync := 0, 0, false
	for _, c := range got {
		op, _, _ := strings.Cut(c, " ")
		isSync := op == "fdatasync" || op == "fsync" || op == "syncdir"
		if isSync {
			syncs++
			if !inSync {
				waits++
			}
		}
		inSync = isSync
	}
	want := strings.Split(strings.TrimSpace(`
mkdir .txedit
mkdir .txedit/txns
mkdir .txedit/pending
create .txedit/mark
lock .txedit/LOCK
create .keys/ENTRY
write .keys/ENTRY
remove .txedit/.gitignore.tmp
create .txedit/.gitignore.tmp
write .txedit/.gitignore.tmp
remove .txedit/id.tmp
create .txedit/id.tmp
write .txedit/id.tmp
fdatasync .txedit/.gitignore.tmp
fdatasync .txedit/id.tmp
fdatasync .keys/ENTRY
syncdir .keys
syncdir .
rename .txedit/.gitignore.tmp .txedit/.gitignore
rename .txedit/id.tmp .txedit/id
syncdir .txedit`), "\n")
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("a new journal's calls before its first begin:\n%s\n\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if waits != 2 || syncs != 6 {
		t.Errorf("a new journal waits %d times for the device (%d syncs) before its first begin; want 2 (6)", waits, syncs)
	}
}

// TestFirstCommitPowerLossKeyStore: a power loss at any call of a new
// workspace's first commit, with the key store on the same disk (what of
// it is unsynced is lost with the rest), and recovery after it, leave the
// files entirely old or entirely new as TestPowerLoss checks, and a
// journal that is never foreign to its own user: this user's (its id
// names an entry that survived), or none, or one the next write claims
// (fresh). The entry made without a temporary file may be lost or torn
// only while no id names it.
func TestFirstCommitPowerLossKeyStore(t *testing.T) {
	seeds := 1
	if testlong.Long() {
		seeds = 4
	}
	rep := exploreWithStore(t, workloads[0], SyncData, seeds)
	if rep.Bad > 0 {
		t.Errorf("%d of %d crash states violate the guarantees, e.g. %s", rep.Bad, rep.States, strings.Join(rep.Examples, "; "))
	}
	t.Logf("%d crash states explored", rep.States)
	// The model has teeth: with the id renamed in before the entry is
	// durable, a power loss can keep the id and lose the entry.
	brokenOrder.entryLate = true
	defer func() { brokenOrder.entryLate = false }()
	if rep := exploreWithStore(t, workloads[0], SyncData, 1); rep.Bad == 0 {
		t.Errorf("the id renamed in before the key store's entry is durable: no violation in %d crash states", rep.States)
	}
}

// exploreWithStore is explore with the key store in storeDir of each disk.
func exploreWithStore(t *testing.T, w workload, mode SyncMode, seeds int) *fstest.Report {
	t.Helper()
	base := Options{Sync: mode, Workers: 1}
	initial := map[string]string{storeDir + "/": ""}
	for k, v := range w.initial {
		initial[k] = v
	}
	e := &fstest.Exploration{Initial: initial, Settings: fstest.Drops(seeds),
		Run: func(f fsys.FS) error { return runTx(f, storeOpts(f, base), w) },
		Recover: func(f fsys.FS) error {
			_, err := New(f, storeOpts(f, base)).Recover()
			return err
		},
		Check: func(d *fstest.Disk, succeeded bool) string {
			if v := violation(d, w, succeeded); v != "" {
				return v
			}
			st, err := New(d.Mem, storeOpts(d.Mem, base)).Status()
			switch {
			case err != nil:
				return "the journal's standing: " + err.Error()
			case st.Standing == Foreign && st.Fresh, st.Standing == Trusted, st.Standing == NoJournal:
				return ""
			}
			return "the journal looks foreign to its own user: " + st.Reason
		}}
	e.NestedEvery = 9 // recovery crashed after every 9th crash point; TXEDIT_LONG=1 every 3rd
	if testlong.Long() {
		e.NestedEvery = 3
	}
	rep, err := e.Explore()
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range rep.Errors {
		if !brokenOrder.entryLate {
			t.Errorf("%s: %s", w.name, x)
		}
	}
	return rep
}
