package engine

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/fsys/faultfs"
	"github.com/txedit/txedit/internal/testlong"
	"github.com/txedit/txedit/journal"
	"github.com/txedit/txedit/plan"
)

var crashTree = map[string]string{
	"a/one.txt":   "one\ntwo\nthree\n",
	"a/crlf.txt":  "dos\r\nlines\r\n",
	"b/two.txt":   "no final newline",
	"b/del.txt":   "delete me\n",
	"c/mv.txt":    "move me\n",
	"e/keep.txt":  "untouched\n",
	"e/other.txt": "x\n",
}

const crashRequest = `{"fileEdits":[
	{"path":"a/one.txt","edits":[{"command":"replace_lines","start_line":2,"end_line":2,"new_str":"TWO"},{"command":"append","new_str":"four"}]},
	{"path":"a/crlf.txt","edits":[{"command":"str_replace","old_str":"dos\nlines","new_str":"DOS\nLINES\nMORE"}]},
	{"path":"b/two.txt","edits":[{"command":"str_replace","old_str":"final","new_str":"FINAL"}]},
	{"path":"b/del.txt","edits":[{"command":"delete"}]},
	{"path":"c/mv.txt","edits":[{"command":"str_replace","old_str":"move","new_str":"moved"},{"command":"move","new_path":"d/new/moved.txt"}]},
	{"path":"e/other.txt","edits":[{"command":"copy","new_path":"f/g/copy.txt"}]},
	{"path":"f/g/h/new.txt","edits":[{"command":"create","file_text":"created\n"}]}]}`

// crashWorkload returns the tree before and after the request.
func crashWorkload(t *testing.T) (old, new map[string]string) {
	dir := t.TempDir()
	writeTree(t, dir, crashTree)
	old = readTree(t, dir)
	w := openWS(t, dir, &Options{Durability: NotDurable})
	if res := run(t, w, crashRequest); !res.Success {
		t.Fatalf("clean run: %+v", res)
	}
	return old, readTree(t, dir)
}

// checkCrashInvariant asserts the tree is entirely old or entirely new,
// new exactly when a transaction committed, with no temporary file left
// anywhere and no transaction pending.
func checkCrashInvariant(t *testing.T, dir string, old, new map[string]string, label string) (committed bool) {
	t.Helper()
	// Opening the workspace for writing runs recovery.
	w, err := Open(dir, &Options{Durability: NotDurable})
	if err != nil {
		t.Fatalf("%s: reopen: %v", label, err)
	}
	defer w.Close()
	got := treeString(readTree(t, dir))
	isOld, isNew := got == treeString(old), got == treeString(new)
	log, err := w.Log(context.Background(), LogOptions{})
	if err != nil {
		t.Fatalf("%s: log: %v", label, err)
	}
	for _, e := range log {
		switch e.State {
		case "committed":
			committed = true
		case "pending":
			t.Errorf("%s: transaction %s still pending after recovery", label, e.ID)
		}
	}
	switch {
	case committed && !isNew:
		t.Errorf("%s: transaction committed but the tree is not the new tree:\n%s", label, got)
	case !committed && !isOld:
		t.Errorf("%s: no commit but the tree is not the old tree:\n%s", label, got)
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && (journal.IsTemp(d.Name()) || strings.HasSuffix(d.Name(), ".tmp")) {
			t.Errorf("%s: temporary file left: %s", label, p)
		}
		return nil
	})
	return committed
}

// faultApply applies req to the workspace at dir through ffs (its Inner
// set here to the OS's file system) and returns the result (nil when the
// workspace did not open) and whether ffs crashed the process: a
// faultfs.Crash panic, which leaves the file system as a SIGKILL would,
// or a crash in a call made in the background.
func faultApply(t *testing.T, dir string, opts Options, ffs *faultfs.FS, req string) (res *plan.Result, crashed bool) {
	inner, err := fsys.NewOS(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer inner.Close()
	ffs.Inner = inner
	opts.FS = ffs
	opts.Keys = journal.UserKeys() // the disk's: the same as a plain Open's
	if opts.TimestampSlack == 0 {
		// The tree is written just before each run: trusted by its
		// identity in the clean run that counts the calls and in the
		// crashed ones alike, however fast the machine is (as the kill
		// tests' hooks do; TestCrashAtEveryCall once found a crash point
		// beyond the calls of its run under load).
		opts.TimestampSlack = -time.Hour
	}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(faultfs.Crash); !ok {
				panic(r)
			}
			crashed = true
		}
	}()
	w, err := Open(dir, &opts)
	if err != nil {
		return nil, ffs.Dead()
	}
	res, _ = w.Apply(context.Background(), mustParse(t, req))
	return res, ffs.Dead()
}

// TestCrashAtEveryCall kills the commit (a panic that leaves the file
// system as a SIGKILL would) at every file-system call, recovers, and
// checks that each file is entirely old or entirely new. The quick run
// crashes at a sample of the calls (testlong.Sweep: the ends, evenly
// between, and around the commit point); TXEDIT_LONG=1 at every one.
func TestCrashAtEveryCall(t *testing.T) {
	old, new := crashWorkload(t)
	modes := map[string]Durability{"fdatasync": DurableAuto, "fsync": DurableFsync, "syncfs": DurableSyncFS}
	for name, mode := range modes {
		t.Run(name, func(t *testing.T) {
			// Count the calls of a clean run.
			dir := t.TempDir()
			writeTree(t, dir, crashTree)
			probe := &faultfs.FS{}
			faultApply(t, dir, Options{Durability: mode}, probe, crashRequest)
			total := probe.N()
			if got := treeString(readTree(t, dir)); got != treeString(new) {
				t.Fatalf("clean run through faultfs did not produce the new tree")
			}
			crashes := 0
			points, commits := testlong.Sweep(total+1, 24, func(n int) bool {
				dir := t.TempDir()
				writeTree(t, dir, crashTree)
				ffs := &faultfs.FS{FailAt: n, Mode: faultfs.ModeCrash}
				faultApply(t, dir, Options{Durability: mode}, ffs, crashRequest)
				if ffs.Tripped {
					crashes++
				}
				return checkCrashInvariant(t, dir, old, new, name+" crash at call "+itoa(n))
			})
			t.Logf("%s: %d calls, %d crash points of %d tried, %d ended committed, %d rolled back", name, total, crashes, len(points), commits, len(points)-commits)
			// The point after the last call crashes nothing.
			if crashes != len(points)-1 || commits == 0 || commits == len(points) {
				t.Errorf("crash coverage: %d crashes at %d points of %d calls, %d commits", crashes, len(points), total, commits)
			}
		})
	}
}

// TestIOErrorAtEveryCall fails each call with EIO once (and, separately,
// from that call on): Apply must report the failure and leave the tree
// old — or new if the error came after the commit point — without any
// recovery run. The quick run fails a sample of the calls
// (testlong.Sweep); TXEDIT_LONG=1 every one.
func TestIOErrorAtEveryCall(t *testing.T) {
	old, new := crashWorkload(t)
	for _, durability := range []Durability{DurableAuto, DurableFsync} {
		ioErrorAtEveryCall(t, old, new, durability)
	}
}

// ioErrorAtEveryCall is TestIOErrorAtEveryCall in one durability mode. The
// workspace's workers are many, so the failing call may be an fsync run
// in the background: the barrier must still see it.
func ioErrorAtEveryCall(t *testing.T, old, new map[string]string, durability Durability) {
	dir := t.TempDir()
	writeTree(t, dir, crashTree)
	probe := &faultfs.FS{}
	faultApply(t, dir, Options{Durability: durability}, probe, crashRequest)
	total := probe.N()
	for _, mode := range []faultfs.Mode{faultfs.ModeError, faultfs.ModeErrorPersistent} {
		testlong.Sweep(total, 10, func(n int) bool {
			dir := t.TempDir()
			writeTree(t, dir, crashTree)
			ffs := &faultfs.FS{FailAt: n, Mode: mode}
			faultApply(t, dir, Options{Durability: durability}, ffs, crashRequest)
			label := fmt.Sprintf("durability %d: EIO at call %d", durability, n)
			if mode == faultfs.ModeErrorPersistent {
				label += " and after"
			}
			// A single failure is rolled back in-process. Under
			// persistent failure the rollback fails too, and the
			// invariant holds once recovery runs.
			if got := treeString(readTree(t, dir)); mode == faultfs.ModeError && got != treeString(old) && got != treeString(new) {
				t.Errorf("%s: tree is neither old nor new before recovery:\n%s", label, got)
			}
			return checkCrashInvariant(t, dir, old, new, label)
		})
	}
}

// TestCrashDuringRecovery crashes the commit, then crashes the recovery at
// every one of its calls, then recovers again.
func TestCrashDuringRecovery(t *testing.T) {
	old, new := crashWorkload(t)
	dir := t.TempDir()
	writeTree(t, dir, crashTree)
	probe := &faultfs.FS{}
	faultApply(t, dir, Options{Durability: DurableFsync}, probe, crashRequest)
	total := probe.N()
	explored := 0
	// Every 7th call from the 5th (the quick run: a sample of those, the
	// last, after the commit point, among them), and recovery crashed
	// at each of its calls (the quick run: a sample of them).
	crashes := testlong.Range(5, total, 7)
	if !testlong.Long() {
		var some []int
		for _, i := range testlong.Sample(len(crashes), 8) {
			some = append(some, crashes[i-1])
		}
		crashes = some
	}
	for _, n := range crashes {
		// How many calls does recovery after a crash at n make?
		base := t.TempDir()
		writeTree(t, base, crashTree)
		faultApply(t, base, Options{Durability: DurableFsync}, &faultfs.FS{FailAt: n, Mode: faultfs.ModeCrash}, crashRequest)
		rprobe := &faultfs.FS{}
		recoverWith(t, base, rprobe)
		for _, m := range testlong.Points(rprobe.N(), 16) {
			dir := t.TempDir()
			writeTree(t, dir, crashTree)
			faultApply(t, dir, Options{Durability: DurableFsync}, &faultfs.FS{FailAt: n, Mode: faultfs.ModeCrash}, crashRequest)
			recoverWith(t, dir, &faultfs.FS{FailAt: m, Mode: faultfs.ModeCrash})
			checkCrashInvariant(t, dir, old, new, "crash at "+itoa(n)+", recovery crash at "+itoa(m))
			explored++
		}
	}
	t.Logf("%d nested crash states explored", explored)
}

func recoverWith(t *testing.T, dir string, ffs *faultfs.FS) {
	inner, err := fsys.NewOS(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer inner.Close()
	ffs.Inner = inner
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(faultfs.Crash); !ok {
				panic(r)
			}
		}
	}()
	w, err := Open(dir, &Options{FS: ffs, Keys: journal.UserKeys(), Durability: DurableFsync})
	if err == nil {
		w.Close()
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
