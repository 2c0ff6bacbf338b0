package journal

import (
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/fsys/faultfs"
	"github.com/txedit/txedit/fsys/fstest"
	"github.com/txedit/txedit/fsys/memfs"
	"github.com/txedit/txedit/hash"
	"github.com/txedit/txedit/internal/testlong"
)

// A workload is a change to a tree: new content per path, "" to delete;
// moves are a delete of the source and a create of the destination.
type workload struct {
	name    string
	initial map[string]string
	change  map[string]*string
	// modes are the new modes of some changed files (default 0644):
	// modes the umask takes from a new file, or setuid, are set after
	// creation, and only an fsync makes such a change durable.
	modes map[string]fs.FileMode
	// A change of a name ending in "/" is a directory: "" is made
	// (Manifest.MakeDirs), nil removed if empty (Rmdirs). keepParents
	// keeps the directories deletes empty (Manifest.KeepParents).
	keepParents bool
}

func s(v string) *string { return &v }

var big = strings.Repeat("0123456789abcdef", 600) // 9.6 KB: torn across blocks

var workloads = []workload{
	{"modify-only", map[string]string{"a/x": "old x\n", "b/y": big, "c/z": "old z\n"},
		map[string]*string{"a/x": s("new x\n"), "b/y": s(big + "more"), "c/z": s("new z, longer\n")}, nil, false},
	{"create-in-new-dirs", map[string]string{"keep": "k\n"},
		map[string]*string{"n1/n2/f": s("f\n"), "n1/g": s(big), "p/q/r/s": s("s\n")}, nil, false},
	{"delete", map[string]string{"a/x": "x\n", "b/y": big, "b/keep": "k\n", "c/only": "o\n"},
		map[string]*string{"a/x": nil, "b/y": nil, "c/only": nil}, nil, false},
	{"move-across-dirs", map[string]string{"src/m": big, "src/n": "n\n", "dst/other": "o\n"},
		map[string]*string{"src/m": nil, "dst/deep/m": s(big), "src/n": nil, "dst/n": s("n\n")}, nil, false},
	{"mixed", map[string]string{"a/x": "x\n", "a/y": "y\n", "b/d": "d\n", "c/m": big},
		map[string]*string{"a/x": s("X\n"), "b/d": nil, "new/dir/f": s("f\n"), "c/m": nil, "e/m": s(big), "a/y": s("y\ny\n")}, nil, false},
	// A change of mode alone: recovery cannot tell old from new by
	// content, so its commit mark must be synced (forward.go).
	{"mode-only", map[string]string{"bin/run": "#!/bin/sh\n", "bin/other": "o\n"},
		map[string]*string{"bin/run": s("#!/bin/sh\n"), "bin/other": s("O\n")},
		map[string]fs.FileMode{"bin/run": 0o755}, false},
	{"modes", map[string]string{"bin/run": "#!/bin/sh\n", "shared/notes": "n\n"},
		map[string]*string{"bin/run": s("#!/bin/sh\nexit 0\n"), "bin/new": s("#!/bin/sh\n"), "shared/notes": s("n\nm\n")},
		map[string]fs.FileMode{"bin/run": 0o755 | fs.ModeSetuid, "bin/new": 0o755 | fs.ModeSetgid, "shared/notes": 0o666}, false},
	// Directories as operations (the filesystem toolset's create_directory
	// and move_file of a directory): a transaction that only makes
	// directories, and a directory moved as its files plus its
	// directories, an empty one too, its parent kept.
	{"mkdir-only", map[string]string{"keep": "k\n", "a/": ""},
		map[string]*string{"a/b/c/": s(""), "n/": s("")}, nil, false},
	{"move-directory", map[string]string{"p/src/f": big, "p/src/sub/g": "g\n", "p/src/empty/": "", "dst/other": "o\n"},
		map[string]*string{"p/src/f": nil, "dst/d/f": s(big), "p/src/sub/g": nil, "dst/d/sub/g": s("g\n"), "dst/d/empty/": s(""),
			"p/src/empty/": nil, "p/src/sub/": nil, "p/src/": nil, "p/": s("")}, nil, true},
	// Symbolic links (a git diff's mode 120000): one created, one
	// retargeted, one deleted, a file replaced by a link and a link by a
	// file, beside a file changed.
	{"symlinks", map[string]string{"d/f": "f\n", "l/old": link("../d/f"), "l/gone": link("../d/f"), "t": "regular\n", "u": link("d/f")},
		map[string]*string{"l/new": s(link("../d")), "l/old": s(link("f")), "l/gone": nil, "t": s(link("d/f")), "u": s("now a file\n"), "d/f": s("f2\n")},
		nil, false},
}

// link is a workload's value for a symbolic link to target.
func link(target string) string { return memfs.SymlinkPrefix + target }

func workloadNamed(t *testing.T, name string) workload {
	for _, w := range workloads {
		if w.name == name {
			return w
		}
	}
	t.Fatalf("no workload %q", name)
	return workload{}
}

func (w workload) final() map[string]string {
	out := map[string]string{}
	for k, v := range w.initial {
		out[k] = v
	}
	for k, v := range w.change {
		if v == nil {
			delete(out, k)
		} else {
			out[k] = *v
		}
	}
	// A directory that holds something is implied by it.
	for k := range out {
		if strings.HasSuffix(k, "/") {
			for o := range out {
				if o != k && strings.HasPrefix(o, k) {
					delete(out, k)
					break
				}
			}
		}
	}
	return out
}

// st is the state of a workload's value (a file's content, or link's).
func st(v string) *State {
	if target, ok := strings.CutPrefix(v, memfs.SymlinkPrefix); ok {
		return &State{Hash: hash.Of([]byte(target)), Size: int64(len(target)), Mode: fs.ModeSymlink | 0o777}
	}
	return &State{Hash: hash.Of([]byte(v)), Size: int64(len(v)), Mode: 0o644}
}

// content is the bytes a workload's value stages: a file's content, a
// link's target.
func content(v string) []byte { return []byte(strings.TrimPrefix(v, memfs.SymlinkPrefix)) }

// runTx commits the workload through the journal API on fsys.
func runTx(fsy fsys.FS, opts *Options, w workload) error {
	return runTxOn(New(fsy, opts), fsy, w)
}

// runTxOn commits the workload through journal j on fsy.
func runTxOn(j *Journal, fsy fsys.FS, w workload) error {
	l, err := j.Lock()
	if err != nil {
		return err
	}
	defer l.Unlock()
	m := &Manifest{Command: "test", KeepParents: w.keepParents}
	paths := make([]string, 0, len(w.change))
	for p, v := range w.change {
		switch d, isDir := strings.CutSuffix(p, "/"); {
		case isDir && v != nil:
			m.MakeDirs = append(m.MakeDirs, d)
		case isDir:
			m.Rmdirs = append(m.Rmdirs, d)
		default:
			paths = append(paths, p)
		}
	}
	sort.Strings(m.MakeDirs)
	sort.Strings(m.Rmdirs)
	sort.Strings(paths)
	// Creates before deletes, as the engine orders a move.
	sort.SliceStable(paths, func(i, k int) bool { return w.change[paths[i]] != nil && w.change[paths[k]] == nil })
	for _, p := range paths {
		op := &Op{Path: p}
		if old, ok := w.initial[p]; ok {
			op.Old = st(old)
		}
		if nv := w.change[p]; nv != nil {
			op.New = st(*nv)
			if m, ok := w.modes[p]; ok {
				op.New.Mode = m
			}
		}
		switch {
		case op.Old == nil:
			op.Kind = Create
		case op.New == nil:
			op.Kind = Delete
		default:
			op.Kind = Modify
		}
		m.Ops = append(m.Ops, op)
	}
	tx, err := l.Begin(m)
	if err != nil {
		return err
	}
	// A crash (fstest's panic) abandons the transaction where a process
	// would die with it, and with it the Ps it widened (par.Widen); here
	// they are given back, so that no later test runs widened.
	defer tx.restoreProcs()
	for i, op := range m.Ops {
		var s Staging
		if op.Old != nil {
			fi, err := fsy.Lstat(op.Path)
			if err != nil {
				tx.Abort()
				return err
			}
			s.Old, s.Ident = content(w.initial[op.Path]), fsys.IdentityOf(fi)
		}
		if op.New != nil {
			s.New = content(*w.change[op.Path])
		}
		if err := tx.Stage(i, s); err != nil {
			tx.Abort()
			return err
		}
	}
	return tx.Commit()
}

// recoverTx runs recovery on fsy.
func recoverTx(opts *Options) func(fsys.FS) error {
	return func(fsy fsys.FS) error {
		_, err := New(fsy, opts).Recover()
		return err
	}
}

// treeOf is what a tree with the given files looks like, directories
// included.
func treeOf(files map[string]string) string { return fstest.Key(fstest.NewDisk(files).Files()) }

// journalState reports whether the disk's journal holds a committed
// transaction and one that is neither committed nor rolled back.
func journalState(d *fstest.Disk) (committed, pending bool) {
	files := d.Files()
	for k := range files {
		// A transaction's file, or an older txedit's directory.
		id, ok := strings.CutPrefix(k, txnsDir+"/")
		if id = strings.TrimSuffix(id, "/"); !ok || !validID(id) {
			continue
		}
		_, c := files[txnsDir+"/"+id+".committed"]
		_, r := files[txnsDir+"/"+id+".rolledback"]
		committed = committed || c
		pending = pending || (!c && !r)
	}
	return committed, pending
}

func isTemp(base string) bool { return IsTemp(base) || strings.HasSuffix(base, ".tmp") }

// violation checks a recovered file system: every file of the workload
// entirely old or entirely new, new exactly when the commit mark
// survived, every transaction finished, no temporary file anywhere.
func violation(d *fstest.Disk, w workload, succeeded bool) string {
	committed, pending := journalState(d)
	got := fstest.Key(d.Files(Dir, storeDir)) // (the key store of TestFirstCommitPowerLossKeyStore)
	switch {
	case succeeded && !committed:
		return "success was reported, but after the power loss the transaction is not committed"
	case pending:
		return "a transaction is still pending after recovery"
	case committed && got != treeOf(w.final()):
		return "committed, but the tree is not the new tree:\n" + got
	case !committed && got != treeOf(w.initial):
		return "not committed, but the tree is not the old tree:\n" + got
	}
	if t := d.Temps(isTemp); len(t) > 0 {
		return fmt.Sprintf("temporary files left: %v", t)
	}
	for p, want := range w.modes {
		if fi, err := d.Mem.Lstat(p); committed && (err != nil || fi.Mode()&(fs.ModePerm|fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky) != want) {
			return fmt.Sprintf("committed, but %s has mode %v, not %v", p, fi.Mode(), want)
		}
		// Rolled back, a file the workload had keeps its mode (0644, as
		// the initial tree is made), also when only its mode changed.
		if _, had := w.initial[p]; had && !committed {
			if fi, err := d.Mem.Lstat(p); err != nil || fi.Mode().Perm() != 0o644 {
				return fmt.Sprintf("not committed, but %s has mode %v, not its old 0644", p, fi.Mode())
			}
		}
	}
	if g, ok := d.Files()[Dir+"/.gitignore"]; ok && g != gitignore {
		return fmt.Sprintf("the journal's .gitignore holds %q", g)
	}
	return ""
}

var syncModes = map[string]SyncMode{"fdatasync": SyncData, "fsync": SyncFile, "syncfs": SyncFilesystem}

func modeName(m SyncMode) string {
	for n, v := range syncModes {
		if v == m {
			return n
		}
	}
	return fmt.Sprint(m)
}

// exploreNoTmpfile makes explore's runs on a file system without
// O_TMPFILE (unnamed_test.go).
var exploreNoTmpfile bool

// explore enumerates crash point x drop setting x seed for one workload
// and sync mode.
func explore(t *testing.T, w workload, mode SyncMode, seeds, nestedEvery int) *fstest.Report {
	t.Helper()
	opts := &Options{Sync: mode, Workers: 1}
	probe := fstest.NewDisk(w.initial)
	if _, err := probe.Run(0, faultfs.ModeCrash, func(f fsys.FS) error { return runTx(f, opts, w) }); err != nil {
		t.Fatalf("%s: clean run: %v", w.name, err)
	}
	if got := fstest.Key(probe.Files(Dir)); got != treeOf(w.final()) {
		t.Fatalf("%s: clean run gives %s", w.name, got)
	}
	e := &fstest.Exploration{Initial: w.initial, Settings: fstest.Drops(seeds),
		Run: func(f fsys.FS) error {
			if exploreNoTmpfile {
				f = noTmpfile{f}
			}
			return runTx(f, opts, w)
		},
		Recover: recoverTx(opts),
		Check:   func(d *fstest.Disk, succeeded bool) string { return violation(d, w, succeeded) }}
	e.NestedEvery = nestedEvery
	rep, err := e.Explore()
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range rep.Errors {
		t.Errorf("%s: %s", w.name, x)
	}
	return rep
}

// TestPowerLoss: after a power loss at any call of the commit, whatever
// unsynced state is lost (all, none, random subsets, torn blocks), and
// after recovery (crashed itself at every call, for every third point),
// every file is entirely old or entirely new, new exactly when the commit
// mark survived, with no temporary file left. The quick run explores each
// workload in one sync mode (each mode in turn, so every mode runs), with
// one seed, recovery crashed after every 9th crash point;
// TXEDIT_LONG=1 every workload in every mode, four seeds (one under the
// race detector), every 3rd.
func TestPowerLoss(t *testing.T) {
	seeds, nested := 4, 3
	if testing.Short() || raceEnabled {
		seeds = 1 // the full enumeration runs without the race detector
	}
	quick := !testlong.Long()
	if quick {
		seeds, nested = 1, 9
	}
	names := slices.Sorted(maps.Keys(syncModes))
	total, bad := 0, 0
	for i, w := range workloads {
		for k, mname := range names {
			if quick && k != i%len(names) {
				continue
			}
			mode := syncModes[mname]
			n := seeds
			if mode != SyncData {
				n = max(1, seeds/2) // the default barrier gets the most seeds
			}
			// Staged files unnamed (the default: unnamed.go), named
			// with the begin round first, or unnamed refused by the file
			// system (no O_TMPFILE: the begin round runs before the first
			// named file), by turns, so every workload meets each.
			variant := (i + k) % 3 // the long run: each workload in each
			if quick {
				variant = i % 3 // modify-only and modes unnamed, mode-only without O_TMPFILE
			}
			brokenOrder.stageNamed = variant == 1
			exploreNoTmpfile = variant == 2
			rep := explore(t, w, mode, n, nested)
			brokenOrder.stageNamed, exploreNoTmpfile = false, false
			total += rep.States
			bad += rep.Bad
			if rep.Bad > 0 {
				t.Errorf("%s/%s: %d of %d crash states violate the guarantees, e.g. %s", w.name, mname, rep.Bad, rep.States, strings.Join(rep.Examples, "; "))
			}
		}
	}
	t.Logf("%d crash states explored, %d violations", total, bad)
}

// TestPowerLossCatchesBrokenOrderings proves the model has teeth: each
// deliberately wrong ordering of the protocol produces violations (every
// workload, two seeds; the quick run: one seed, workloads until one shows
// violations).
func TestPowerLossCatchesBrokenOrderings(t *testing.T) {
	cases := []struct {
		name  string
		set   func(on bool)
		modes []SyncMode
	}{
		{"staged file not fsynced before rename", func(on bool) { brokenOrder.noFileSync = on }, []SyncMode{SyncFile, SyncData}},
		{"no dir fsync before the commit mark", func(on bool) { brokenOrder.noDirSyncBeforeCommit = on }, []SyncMode{SyncFile, SyncData}},
		{"commit mark written first", func(on bool) { brokenOrder.commitFirst = on }, []SyncMode{SyncFile, SyncData}},
		// fdatasync does not make a chmod durable: a file whose mode was
		// set after creation needs an fsync. Named staging: an unnamed
		// file is fsynced again after its link, which makes its mode
		// durable too (syncLinked).
		{"mode set after creation only fdatasynced", func(on bool) { brokenOrder.dataSyncOnly, brokenOrder.stageNamed = on, on }, []SyncMode{SyncData}},
		// The commit mark is not synced (forward.go): a recovery that
		// never rolls forward loses commits it reported, and one that
		// rolls forward a transaction some files of which are still old
		// commits half of it.
		{"recovery never rolls forward", func(on bool) { brokenOrder.noForward = on }, []SyncMode{SyncFile, SyncData}},
		{"recovery rolls forward a half-renamed transaction", func(on bool) { brokenOrder.forwardMixed = on }, []SyncMode{SyncData}},
		// An unnamed staged file given its name before the deferred
		// begin round: a power loss leaves it where no manifest names it.
		{"staged file named before the manifest is durable", func(on bool) { brokenOrder.linkEarly = on }, []SyncMode{SyncData}},
		// The late PREPARED mark may be lost while renames are durable.
		{"recovery ignores a late PREPARED mark", func(on bool) { brokenOrder.ignoreLate = on }, []SyncMode{SyncData}},
		// The manifest and the pack share the transaction's one file and
		// its one sync (layout.go): without it, before-images (and, with
		// unnamed staging, the manifest) may be lost after the renames.
		{"transaction file not synced before the renames", func(on bool) { brokenOrder.noRecordSync = on }, []SyncMode{SyncData}},
		// An unnamed file is synced before its link, with no link: on an
		// ext4 without a journal the link count reaches the disk only
		// with the file's inode (memfs models it).
		{"linked unnamed file not synced after its link", func(on bool) { brokenOrder.noLinkedSync = on }, []SyncMode{SyncData}},
	}
	for _, tc := range cases {
		for _, mode := range tc.modes {
			t.Run(tc.name+"/"+modeName(mode), func(t *testing.T) {
				tc.set(true)
				defer tc.set(false)
				bad, states := 0, 0
				for _, w := range workloads {
					rep := explore(t, w, mode, testlong.Pick(1, 2), 0)
					states += rep.States
					bad += rep.Bad
					if bad > 0 && !testlong.Long() {
						break // caught: the quick run looks no further
					}
				}
				t.Logf("%d of %d states violate", bad, states)
				if bad == 0 {
					t.Errorf("the broken ordering went unnoticed in %d states", states)
				}
			})
		}
	}
}

// countCalls is the number of file-system calls a clean run makes.
func countCalls(t *testing.T, w workload, opts *Options) int {
	probe := fstest.NewDisk(w.initial)
	if _, err := probe.Run(0, faultfs.ModeCrash, func(f fsys.FS) error { return runTx(f, opts, w) }); err != nil {
		t.Fatalf("%s: clean run: %v", w.name, err)
	}
	return probe.Calls()
}

// TestIOErrorEverywhere injects EIO at every call (no crash): the commit
// fails and rolls itself back, or — after the commit point — reports the
// doubt; either way the tree is old or new, and recovery finishes it.
func TestIOErrorEverywhere(t *testing.T) {
	for _, w := range workloads {
		opts := &Options{Sync: SyncFile, Workers: 1}
		for n := 1; n <= countCalls(t, w, opts); n++ {
			d := fstest.NewDisk(w.initial)
			_, err := d.Run(n, faultfs.ModeError, func(f fsys.FS) error { return runTx(f, opts, w) })
			got := fstest.Key(d.Files(Dir))
			if got != treeOf(w.initial) && got != treeOf(w.final()) {
				t.Errorf("%s: EIO at %d: tree neither old nor new before recovery", w.name, n)
			}
			if err == nil && got != treeOf(w.final()) {
				t.Errorf("%s: EIO at %d: success reported but the tree is not new", w.name, n)
			}
			if _, err := d.Run(0, faultfs.ModeCrash, recoverTx(opts)); err != nil {
				t.Errorf("%s: recovery after EIO at %d: %v", w.name, n, err)
			}
			if v := violation(d, w, err == nil); v != "" {
				t.Errorf("%s: EIO at %d: %s", w.name, n, v)
			}
		}
	}
}

// TestPowerLossTwoCommits: two transactions, one after the other, the
// second changing a file the first changed. The first's COMMITTED mark is
// not synced when it returns (forward.go): the second's begin round makes
// it durable before the second touches any file, and only then may its
// pending entry go. After a power loss anywhere, and recovery, the tree is
// the one before, between or after, and each transaction reported done is
// committed.
func TestPowerLossTwoCommits(t *testing.T) {
	w1 := workload{name: "first", initial: map[string]string{"a/x": "x\n", "b/y": "y\n"},
		change: map[string]*string{"a/x": s("x1\n"), "b/y": s("y1\n")}}
	w2 := workload{name: "second", initial: w1.final(), change: map[string]*string{"a/x": s("x2\n"), "c/z": s("z\n")}}
	opts := &Options{Sync: SyncData, Workers: 1}
	firstDone := false
	run := func(f fsys.FS) error {
		firstDone = false
		if err := runTx(f, opts, w1); err != nil {
			return err
		}
		firstDone = true
		return runTx(f, opts, w2)
	}
	check := func(d *fstest.Disk, succeeded bool) string {
		got := fstest.Key(d.Files(Dir))
		var marks []string
		for k := range d.Files() {
			if strings.HasSuffix(k, ".committed") {
				marks = append(marks, k)
			}
		}
		switch {
		case got != treeOf(w1.initial) && got != treeOf(w1.final()) && got != treeOf(w2.final()):
			return "the tree is none of before, between and after:\n" + got
		case succeeded && (got != treeOf(w2.final()) || len(marks) != 2):
			return fmt.Sprintf("both reported done, but the tree is %s with %d commit marks", got, len(marks))
		case firstDone && len(marks) == 0:
			return "the first reported done, but no transaction is committed"
		case got == treeOf(w2.final()) && len(marks) != 2:
			return fmt.Sprintf("the tree is the last one, with %d commit marks", len(marks))
		}
		if committed, pending := journalState(d); pending || (got != treeOf(w1.initial) && !committed) {
			return "a transaction is still pending, or the tree changed with nothing committed"
		}
		if t := d.Temps(isTemp); len(t) > 0 {
			return fmt.Sprintf("temporary files left: %v", t)
		}
		return ""
	}
	e := &fstest.Exploration{Initial: w1.initial, Settings: fstest.Drops(testlong.Pick(1, 3)), NestedEvery: testlong.Pick(9, 3),
		Run: run, Recover: recoverTx(opts), Check: check}
	rep, err := e.Explore()
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range rep.Errors {
		t.Error(x)
	}
	if rep.Bad > 0 {
		t.Errorf("%d of %d crash states violate the guarantees, e.g. %s", rep.Bad, rep.States, strings.Join(rep.Examples, "; "))
	}
	t.Logf("%d crash states, %d violations", rep.States, rep.Bad)
}
