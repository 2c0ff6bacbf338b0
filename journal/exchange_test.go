package journal

import (
	"errors"
	"io/fs"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/fsys/faultfs"
	"github.com/txedit/txedit/fsys/fstest"
	"github.com/txedit/txedit/fsys/memfs"
)

// saveBeforeSwap is an editor that saves f.txt (a temporary file renamed
// over it) at the worst moment: after the commit's identity check, just
// before the staged file is put in place.
type saveBeforeSwap struct {
	fsys.FS
	once sync.Once
	save func()
}

func (s *saveBeforeSwap) hit(a, b string) {
	if strings.HasPrefix(a, ".txedit-") && b == "f.txt" {
		s.once.Do(s.save)
	}
}

func (s *saveBeforeSwap) Exchange(a, b string) error { s.hit(a, b); return s.FS.Exchange(a, b) }
func (s *saveBeforeSwap) Rename(a, b string) error   { s.hit(a, b); return s.FS.Rename(a, b) }
func (s *saveBeforeSwap) View() (fsys.FS, func()) {
	v, release := s.FS.View()
	return &saveBeforeSwap{FS: v, save: func() { s.once.Do(s.save) }}, release
}

// TestOutsideSaveIsNeverReplaced (docs/testing.md, the reliability audit): a writer that knows
// nothing of txedit saves the file between the commit's identity check and
// its rename. A rename replaced that save silently; the exchange sees what
// it displaced, gives the save back and fails with a conflict. With the
// exchange switched off (brokenOrder.noExchange) the save is lost, so the
// test has teeth. On memfs and on the real file system (renameat2).
func TestOutsideSaveIsNeverReplaced(t *testing.T) {
	for _, backend := range []string{"memfs", "os"} {
		for _, broken := range []bool{false, true} {
			var inner fsys.FS
			var save func()
			var read func() string
			switch backend {
			case "memfs":
				mem := memfs.New(map[string]string{"f.txt": "old\n"})
				inner = mem
				save = func() {
					f, _ := mem.Create("editor.tmp", 0o644)
					f.Write([]byte("the editor's save\n"))
					f.Close()
					mem.Rename("editor.tmp", "f.txt")
				}
				read = func() string { return mem.Files()["f.txt"] }
			default:
				dir := t.TempDir()
				os.WriteFile(dir+"/f.txt", []byte("old\n"), 0o644)
				o, err := fsys.NewOS(dir)
				if err != nil {
					t.Fatal(err)
				}
				defer o.Close()
				inner = o
				save = func() {
					os.WriteFile(dir+"/editor.tmp", []byte("the editor's save\n"), 0o644)
					os.Rename(dir+"/editor.tmp", dir+"/f.txt")
				}
				read = func() string { b, _ := os.ReadFile(dir + "/f.txt"); return string(b) }
			}
			brokenOrder.noExchange = broken
			err := runTx(&saveBeforeSwap{FS: inner, save: save}, &Options{Sync: SyncNone}, workload{
				initial: map[string]string{"f.txt": "old\n"}, change: map[string]*string{"f.txt": s("txedit's edit\n")}})
			brokenOrder.noExchange = false
			got := read()
			if broken {
				if got != "txedit's edit\n" {
					t.Errorf("%s without the exchange: f.txt = %q; the test no longer shows the window", backend, got)
				}
				continue
			}
			var ce *fsys.ConflictError
			if !errors.As(err, &ce) || got != "the editor's save\n" {
				t.Errorf("%s: commit = %v, f.txt = %q: the outside save was not kept", backend, err, got)
			}
		}
	}
}

// openDuringSwap is a writer that rewrites f.txt in place (opens it for
// writing, writes at its start) at the worst moment: it opens the file
// after the commit's identity check, just before the exchange, and writes
// once the commit has answered. Where the commit holds a read lease, the
// open waits for it; the hook waits until the lease shows that (polling,
// up to a minute), so the test does not depend on timing.
type openDuringSwap struct {
	fsys.FS
	dir       string
	lease     fsys.Lease
	committed chan struct{} // closed by the test once the commit returned
	done      chan struct{} // closed by the writer
	once      sync.Once
}

func (s *openDuringSwap) Exchange(a, b string) error {
	if b == "f.txt" {
		s.once.Do(func() {
			isOpen := make(chan struct{})
			go func() {
				defer close(s.done)
				f, err := os.OpenFile(s.dir+"/f.txt", os.O_WRONLY, 0)
				close(isOpen)
				if err != nil {
					return
				}
				<-s.committed
				f.Write([]byte("the outside save\n"))
				f.Close()
			}()
			if s.lease == nil {
				<-isOpen
				return
			}
			for deadline := time.Now().Add(time.Minute); !s.lease.Broken() && time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			}
		})
	}
	return s.FS.Exchange(a, b)
}

func (s *openDuringSwap) ReadLease(name string) (fsys.Lease, error) {
	l, err := s.FS.ReadLease(name)
	if err == nil && name == "f.txt" {
		s.lease = l
	}
	return l, err
}

func (s *openDuringSwap) View() (fsys.FS, func()) { return s, func() {} }

// requireLease takes and releases a read lease on name in o (rooted at
// dir): a failure on Linux fails the test, elsewhere it is skipped
// (leases are Linux's: docs/journal.md).
func requireLease(t *testing.T, o fsys.FS, dir, name string) {
	t.Helper()
	l, err := o.ReadLease(name)
	if err != nil {
		if runtime.GOOS == "linux" {
			t.Fatalf("no read lease on %s: %v", dir, err)
		}
		t.Skipf("no leases on %s: %v", runtime.GOOS, err)
	}
	l.Release()
}

// TestInPlaceSaveIsNeverLost (docs/testing.md, the reliability audit): a writer that saves in
// place exposes the file truncated for a moment, and writes into the file
// it opened whatever is at the name later. Two moments: (1) the writer
// has the file open, truncated, when the commit comes, and the edit was
// staged against that empty moment: the commit must not replace it (a
// rename would, and the writer's save then went into the displaced file:
// the file wiped); (2) the writer opens the file after the identity check,
// just before the exchange: the commit must see it and give the file back. With the lease switched
// off (brokenOrder.noLease) both saves are lost, so the test has teeth.
// Linux only: elsewhere there are no leases (docs/journal.md).
func TestInPlaceSaveIsNeverLost(t *testing.T) {
	dir := t.TempDir()
	o, err := fsys.NewOS(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	os.WriteFile(dir+"/probe", nil, 0o644)
	requireLease(t, o, dir, "probe")
	read := func() string { b, _ := os.ReadFile(dir + "/f.txt"); return string(b) }
	for _, broken := range []bool{false, true} {
		// (1) Open for writing, truncated, when the commit comes.
		os.WriteFile(dir+"/f.txt", []byte("precious\n"), 0o644)
		f, err := os.OpenFile(dir+"/f.txt", os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			t.Fatal(err)
		}
		brokenOrder.noLease = broken
		err = runTx(o, &Options{Sync: SyncNone}, workload{
			initial: map[string]string{"f.txt": ""}, change: map[string]*string{"f.txt": s("txedit's edit\n")}})
		brokenOrder.noLease = false
		f.Write([]byte("precious, saved again\n"))
		f.Close()
		var ce *fsys.ConflictError
		switch got := read(); {
		case broken && got != "txedit's edit\n":
			t.Errorf("(1) without the lease: f.txt = %q; the test no longer shows the window", got)
		case !broken && (!errors.As(err, &ce) || got != "precious, saved again\n"):
			t.Errorf("(1) commit = %v, f.txt = %q: the save in place was lost", err, got)
		}

		// (2) Opened for writing (not truncated: a rewrite in place)
		// just before the exchange, written after the commit.
		os.WriteFile(dir+"/f.txt", []byte("precious\n"), 0o644)
		w := &openDuringSwap{FS: o, dir: dir, committed: make(chan struct{}), done: make(chan struct{})}
		brokenOrder.noLease = broken
		err = runTx(w, &Options{Sync: SyncNone}, workload{
			initial: map[string]string{"f.txt": "precious\n"}, change: map[string]*string{"f.txt": s("txedit's edit\n")}})
		brokenOrder.noLease = false
		close(w.committed)
		<-w.done
		switch got := read(); {
		case broken && got != "txedit's edit\n":
			t.Errorf("(2) without the lease: f.txt = %q; the test no longer shows the window", got)
		case !broken && (!errors.As(err, &ce) || got != "the outside save\n"):
			t.Errorf("(2) commit = %v, f.txt = %q: the save in place was lost", err, got)
		}
	}
}

// saveAfterLease is an editor that changes f.txt just after the commit
// took its read lease (Tx.leaseTargets), before the identity check, in
// one of three ways, and counts the exchanges the commit makes.
type saveAfterLease struct {
	fsys.FS
	dir       string
	how       string // "rename" (a temporary file renamed over it), "move" (renamed away, a new one made), "write" (in place, after the lease is released)
	once      sync.Once
	exchanges int
}

func (s *saveAfterLease) ReadLease(name string) (fsys.Lease, error) {
	l, err := s.FS.ReadLease(name)
	if err == nil && name == "f.txt" {
		s.once.Do(func() {
			switch s.how {
			case "rename":
				os.WriteFile(s.dir+"/editor.tmp", []byte("the editor's save\n"), 0o644)
				os.Rename(s.dir+"/editor.tmp", s.dir+"/f.txt")
			case "move":
				os.Rename(s.dir+"/f.txt", s.dir+"/f.txt~")
				os.WriteFile(s.dir+"/f.txt", []byte("the editor's save\n"), 0o644)
			}
		})
	}
	return l, err
}

func (s *saveAfterLease) Exchange(a, b string) error { s.exchanges++; return s.FS.Exchange(a, b) }
func (s *saveAfterLease) View() (fsys.FS, func())    { return s, func() {} }

// TestSaveAfterLeaseIsCaughtBeforeTheExchange: the identity check of a
// leased target is an fstat of the lease's descriptor (Tx.checkTargets),
// not a stat of its path. A save that replaces the file at the path after
// the lease was opened (renamed over it, or the file renamed away and a
// new one made) changes the leased file too (its link count and ctime),
// so the check still refuses the commit before any exchange, and the save
// stays. A check that trusted the lease without comparing the version
// would exchange (and then give the save back): the exchange count says.
func TestSaveAfterLeaseIsCaughtBeforeTheExchange(t *testing.T) {
	for _, how := range []string{"rename", "move"} {
		dir := t.TempDir()
		os.WriteFile(dir+"/f.txt", []byte("old\n"), 0o644)
		os.WriteFile(dir+"/g.txt", []byte("g\n"), 0o644)
		o, err := fsys.NewOS(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer o.Close()
		requireLease(t, o, dir, "g.txt")
		w := &saveAfterLease{FS: o, dir: dir, how: how}
		err = runTx(w, &Options{Sync: SyncNone}, workload{
			initial: map[string]string{"f.txt": "old\n", "g.txt": "g\n"},
			change:  map[string]*string{"f.txt": s("txedit's edit\n"), "g.txt": s("G\n")}})
		f, _ := os.ReadFile(dir + "/f.txt")
		g, _ := os.ReadFile(dir + "/g.txt")
		var ce *fsys.ConflictError
		if !errors.As(err, &ce) || string(f) != "the editor's save\n" || string(g) != "g\n" {
			t.Errorf("%s: commit = %v, f.txt = %q, g.txt = %q: want a conflict, the save kept and g.txt old", how, err, f, g)
		}
		if w.exchanges != 0 {
			t.Errorf("%s: %d exchanges: the identity check let a changed file through", how, w.exchanges)
		}
	}
}

// TestRecoveryKeepsAnOutsideSave: a commit dies among its renames, with
// f.txt already its new version and g.txt still old (so it is rolled
// back); while recovery writes and syncs f.txt's before-image, an editor
// saves f.txt. Recovery restored the old version over that save (rename);
// now it exchanges, sees the save, gives it back and reports a conflict.
func TestRecoveryKeepsAnOutsideSave(t *testing.T) {
	w := workload{initial: map[string]string{"f.txt": "old\n", "g.txt": "g\n"}, change: map[string]*string{"f.txt": s("txedit's edit\n"), "g.txt": s("G\n")}}
	opts := &Options{Sync: SyncData, Workers: 1}
	// Crashed at the call after f.txt's exchange.
	d := crashAt(t, w, opts, 1, func(c string) bool { return strings.HasPrefix(c, "exchange ") && strings.HasSuffix(c, " f.txt") })
	if got := d.Mem.Files()["g.txt"]; got != "g\n" {
		t.Fatalf("before recovery g.txt = %q: the crash came too late", got)
	}
	mem := d.Mem
	if got := mem.Files()["f.txt"]; got != "txedit's edit\n" {
		t.Fatalf("before recovery f.txt = %q", got)
	}
	save := func() {
		f, _ := mem.Create("editor.tmp", 0o644)
		f.Write([]byte("the editor's save\n"))
		f.Close()
		mem.Rename("editor.tmp", "f.txt")
	}
	reps, err := New(&saveBeforeSwap{FS: mem, save: save}, opts).Recover()
	if err != nil {
		t.Fatal(err)
	}
	if got := mem.Files()["f.txt"]; got != "the editor's save\n" {
		t.Errorf("after recovery f.txt = %q: the editor's save was lost", got)
	}
	if len(reps) == 0 || len(reps[0].Conflicts) != 1 {
		t.Errorf("recovery reported %+v, want the conflict", reps)
	}
}

// TestRecoveryFinishesForward: a commit killed after its renames, before
// its COMMITTED mark: every file is new, so recovery finishes it (the mark,
// durably; the displaced old versions and the emptied directory removed)
// and says so; a file someone changed since is left as it is, its bytes
// saved aside and reported, and the rest is still finished.
func TestRecoveryFinishesForward(t *testing.T) {
	w := workload{initial: map[string]string{"f.txt": "old\n", "g.txt": "g\n", "d/h": "h\n"},
		change: map[string]*string{"f.txt": s("new\n"), "g.txt": s("G\n"), "d/h": nil, "n/i": s("i\n")}}
	opts := &Options{Sync: SyncData, Workers: 1}
	for _, outside := range []bool{false, true} {
		// Crashed at the mark's creation (a link: marks.go).
		d := crashAt(t, w, opts, 0, func(c string) bool { return strings.HasSuffix(c, ".committed") && !strings.HasPrefix(c, "lstat") })
		want := w.final()
		if outside {
			want["g.txt"] = "someone's\n"
			mustWrite(t, d.Mem, "g.txt", []byte(want["g.txt"]))
		}
		reps, err := New(d.Mem, opts).Recover()
		if err != nil {
			t.Fatal(err)
		}
		if len(reps) != 1 || !reps[0].Finished {
			t.Fatalf("outside=%v: recovery reported %+v, want one transaction finished", outside, reps)
		}
		if got := fstest.Key(d.Files(Dir)); got != treeOf(want) {
			t.Errorf("outside=%v: tree after recovery:\n%s", outside, got)
		}
		if committed, pending := journalState(d); !committed || pending {
			t.Errorf("outside=%v: committed %v, pending %v after recovery", outside, committed, pending)
		}
		if tmp := d.Temps(isTemp); len(tmp) > 0 {
			t.Errorf("outside=%v: temporary files left: %v", outside, tmp)
		}
		if names, _ := fsys.ReadDirNames(d.Mem, pendingDir); len(names) != 0 {
			t.Errorf("outside=%v: pending entries left: %v", outside, names)
		}
		switch c := reps[0].Conflicts; {
		case !outside && len(c) != 0:
			t.Errorf("conflicts %+v, want none", c)
		case outside && (len(c) != 1 || c[0].Path != "g.txt" || d.Files()[c[0].SavedAs] != want["g.txt"]):
			t.Errorf("conflicts %+v, want g.txt saved aside", c)
		}
	}
}

// crashAt commits w once on a recording file system, finds the last call
// pick chooses, and returns a fresh disk on which the same commit crashed
// at that call (skip 0: before it is made) or skip calls after it.
func crashAt(t *testing.T, w workload, opts *Options, skip int, pick func(call string) bool) *fstest.Disk {
	t.Helper()
	rec := &faultfs.FS{Inner: memfs.New(w.initial), Record: true}
	if err := runTx(rec, opts, w); err != nil {
		t.Fatal(err)
	}
	at := 0
	for i, c := range rec.Calls {
		if pick(c) {
			at = i + 1 + skip
		}
	}
	if at == 0 {
		t.Fatalf("no such call in %v", rec.Calls)
	}
	d := fstest.NewDisk(w.initial)
	if crashed, _ := d.Run(at, faultfs.ModeCrash, func(f fsys.FS) error { return runTx(f, opts, w) }); !crashed {
		t.Fatalf("the run did not crash at call %d", at)
	}
	return d
}

// TestRollbackRestoresAModeChange: a commit that has put a change of mode
// alone in place (a.sh made executable) and then fails on another file
// (held open for writing: the lease refuses it) rolls the mode back too.
// Old and new have the same bytes, so only the mode tells them apart;
// recovery took the file for its old version and left the new mode.
// Linux only, as the lease.
func TestRollbackRestoresAModeChange(t *testing.T) {
	dir := t.TempDir()
	o, err := fsys.NewOS(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	os.WriteFile(dir+"/probe", nil, 0o644)
	if l, err := o.ReadLease("probe"); err != nil {
		t.Skipf("no read lease here: %v", err)
	} else {
		l.Release()
	}
	os.WriteFile(dir+"/a.sh", []byte("#!/bin/sh\n"), 0o644)
	os.WriteFile(dir+"/z.txt", []byte("z\n"), 0o644)
	f, err := os.OpenFile(dir+"/z.txt", os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	err = runTx(o, &Options{Sync: SyncNone, Workers: 1}, workload{
		initial: map[string]string{"a.sh": "#!/bin/sh\n", "z.txt": "z\n"},
		change:  map[string]*string{"a.sh": s("#!/bin/sh\n"), "z.txt": s("Z\n")},
		modes:   map[string]fs.FileMode{"a.sh": 0o755}})
	var ce *fsys.ConflictError
	if !errors.As(err, &ce) {
		t.Fatalf("commit = %v, want a conflict (z.txt is open for writing)", err)
	}
	if fi, _ := os.Stat(dir + "/a.sh"); fi.Mode().Perm() != 0o644 {
		t.Errorf("a.sh is %v after the rollback, want its old 0644", fi.Mode())
	}
}
