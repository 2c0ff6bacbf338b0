package engine

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/hash"
	"github.com/txedit/txedit/plan"
)

// TestCommitSystemCalls pins what a commit costs in system calls per
// file it changes (docs/journal.md, "What a commit's calls cost"): on a
// CPU-bound file system (tmpfs) they are most of a commit's time. The
// test runs itself again under strace -f -c, committing one str_replace
// in each of n and of 2n files of a workspace whose journal is in use,
// and bounds the difference per file, so that the process's start and
// the journal's own calls, the same in both, cancel out. Each bound is
// below what the commit made before the calls it names were taken out:
// an fcntl (F_GETFL) and an epoll_ctl (EPERM) for every os.File
// opened, geteuid and getegid for every staged file, four writes into the
// pack (a header and the data of the before-image and of the diff), a
// read to find the end of a file already read whole, a stat for the claim
// of each path the resolution had just stat'ed, the lease's fstat and
// its F_UNLCK before the close ("before": what the same test counted
// before, on this machine's ext4).
func TestCommitSystemCalls(t *testing.T) {
	if dir := os.Getenv("TXEDIT_CALLS_CHILD"); dir != "" {
		callsChild(t, dir)
		return
	}
	strace, err := exec.LookPath("strace")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("strace is not installed; .ci/run installs it")
		}
		t.Skip("skipped: strace(1) is not installed, and it counts the system calls")
	}
	if out, err := exec.Command(strace, "-f", "-c", "-o", os.DevNull, "true").CombinedOutput(); err != nil {
		t.Skipf("skipped: strace cannot trace here (%v: %s)", err, out)
	}
	// The child syncs each file (DurableFsync: the calls counted here
	// are the same with fsync or fdatasync), so that neither count is
	// taken with syncfs barriers, which the default picks for 16 files
	// or more while the system is quiet (docs/journal.md).
	const n = 30
	count := func(files int, entries string) map[string]int {
		dir := t.TempDir()
		req := callsTree(t, dir, files)
		out := filepath.Join(t.TempDir(), "strace")
		cmd := exec.Command(strace, "-f", "-c", "-o", out, os.Args[0], "-test.run=^TestCommitSystemCalls$")
		cmd.Env = append(os.Environ(), "TXEDIT_CALLS_CHILD="+dir, "TXEDIT_CALLS_REQUEST="+req, "TXEDIT_CALLS_STATE="+os.Getenv("XDG_STATE_HOME"), "TXEDIT_CALLS_ENTRIES="+entries)
		if b, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(b), "PASS") {
			t.Fatalf("the child failed: %v\n%s", err, b)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		return parseStraceCounts(string(data))
	}
	one, two := count(n, ""), count(2*n, "")
	perFile := func(names ...string) float64 {
		d := 0
		for _, name := range names {
			d += two[name] - one[name]
		}
		return float64(d) / n
	}
	var all []string
	for name := range two {
		if !runtimeCall[name] {
			all = append(all, name)
		}
	}
	sort.Strings(all)
	var each []string
	for _, name := range all {
		if d := perFile(name); d >= 0.05 {
			each = append(each, fmt.Sprintf("%s %.2f", name, d))
		}
	}
	t.Logf("system calls a file: %.2f in all but the runtime's (%s)", perFile(all...), strings.Join(each, ", "))
	if got := perFile(all...); got > 27.5 {
		t.Errorf("%.2f system calls a file, over 27.5 (before: 42, then 29)", got)
	}
	for _, c := range []struct {
		names []string
		max   float64
		was   string
	}{
		{[]string{"epoll_ctl"}, 0.2, "2.00: each os.File opened O_NONBLOCK"},
		{[]string{"fcntl"}, 2.5, "6.00: F_GETFL for each os.File, and the lease's three (now F_SETLEASE and F_GETLEASE)"},
		// Three: the read's, the staged file's, for its identity (the live rollback
		// tells its own version from a save of the same bytes by it:
		// docs/journal.md, "Writers outside txedit"), and the lease's,
		// which is the identity check of the file before its exchange
		// (Tx.checkTargets), instead of a newfstatat by path and the
		// parent's openat2 and close.
		{[]string{"fstat"}, 3.5, "2.00 besides the read's: the lease's own, then 1.00; now 2.00, the second the check by the lease"},
		{[]string{"openat2"}, 4.5, "5.00: the identity check's parent too"},
		{[]string{"geteuid", "getegid"}, 0.2, "2.00"},
		{[]string{"pwrite64", "pwritev"}, 1.2, "4.00"},
		{[]string{"read"}, 1.5, "2.00"},
		{[]string{"newfstatat"}, 4.5, "6.00, then 5.00"},
	} {
		got := perFile(c.names...)
		t.Logf("%s: %.2f a file (at most %.1f; before, %s)", strings.Join(c.names, "+"), got, c.max, c.was)
		if got > c.max {
			t.Errorf("%s: %.2f calls a file, over %.1f (before, %s)", strings.Join(c.names, "+"), got, c.max, c.was)
		}
	}
	// The same files edited as entries (a symbolic link at the path is
	// the entry, not followed: what a git diff's files are): each read
	// stats the file once, not once to see it is no link and once more.
	one, two = count(n, "1"), count(2*n, "1")
	got := perFile("newfstatat")
	t.Logf("newfstatat, as entries: %.2f a file (at most 7.5; before, 8.00)", got)
	if got > 7.5 {
		t.Errorf("newfstatat, as entries: %.2f calls a file, over 7.5 (before, 8.00)", got)
	}
}

// TestFewFilesSyncfsWhenQuiet: the default durability of a commit of 16
// to 63 files on the real file system is two syncfs barriers while
// little is unwritten (Options.QuietFew, quietFewBytes: docs/journal.md,
// "Why 16 files and 4 MiB"), not a sync of each file; below 16 files it
// syncs each file. Skipped where strace is missing, and when the system
// was not quiet while the commit ran (then the commit rightly synced
// each file).
func TestFewFilesSyncfsWhenQuiet(t *testing.T) {
	if dir := os.Getenv("TXEDIT_CALLS_CHILD"); dir != "" {
		callsChild(t, dir)
		return
	}
	strace, err := exec.LookPath("strace")
	if err != nil {
		t.Skip("skipped: strace(1) is not installed")
	}
	if out, err := exec.Command(strace, "-f", "-c", "-o", os.DevNull, "true").CombinedOutput(); err != nil {
		t.Skipf("skipped: strace cannot trace here (%v: %s)", err, out)
	}
	// A commit whose Begin saw more unwritten than the checks before
	// and after it syncs each file, rightly: up to three tries.
	for try := 1; try <= 3 && !fewFilesSyncfsOnce(t, strace, try == 3); try++ {
	}
}

// fewFilesSyncfsOnce is one try of TestFewFilesSyncfsWhenQuiet: false if
// a quiet commit of 20 files synced each file and last is false (then the
// test tries again), having reported an error if last is true.
func fewFilesSyncfsOnce(t *testing.T, strace string, last bool) bool {
	ok := true
	for _, c := range []struct {
		files  int
		syncfs bool
	}{{20, true}, {12, false}} {
		dir := t.TempDir()
		req := callsTree(t, dir, c.files)
		out := filepath.Join(t.TempDir(), "strace")
		quiet := fsys.QuietBelow(quietFewBytes)
		cmd := exec.Command(strace, "-f", "-c", "-o", out, os.Args[0], "-test.run=^TestFewFilesSyncfsWhenQuiet$")
		cmd.Env = append(os.Environ(), "TXEDIT_CALLS_CHILD="+dir, "TXEDIT_CALLS_REQUEST="+req, "TXEDIT_CALLS_STATE="+os.Getenv("XDG_STATE_HOME"), "TXEDIT_CALLS_AUTO=1")
		if b, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(b), "PASS") {
			t.Fatalf("the child failed: %v\n%s", err, b)
		}
		quiet = quiet && fsys.QuietBelow(quietFewBytes)
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		n := parseStraceCounts(string(data))
		switch {
		case c.syncfs && n["syncfs"] == 0 && !quiet:
			t.Logf("%d files: the system was not quiet (over %d bytes unwritten): each file synced (fdatasync %d)", c.files, quietFewBytes, n["fdatasync"])
		case c.syncfs && (n["syncfs"] < 2 || n["fdatasync"] > 2):
			if !last {
				ok = false
				continue
			}
			t.Errorf("%d files, quiet: syncfs %d, fdatasync %d; want two syncfs barriers and no file's own fdatasync but the journal's", c.files, n["syncfs"], n["fdatasync"])
		case !c.syncfs && (n["syncfs"] != 0 || n["fdatasync"] < c.files):
			t.Errorf("%d files: syncfs %d, fdatasync %d; want each file synced", c.files, n["syncfs"], n["fdatasync"])
		}
	}
	return ok
}

// callsTree makes files files in four directories, and the journal (a
// first commit), and returns the request that changes every file.
func callsTree(t *testing.T, dir string, files int) string {
	t.Helper()
	var req strings.Builder
	req.WriteString(`{"fileEdits":[`)
	for i := 0; i < files; i++ {
		name := fmt.Sprintf("d%d/f%03d.go", i%4, i)
		var b strings.Builder
		for l := 0; b.Len() < 4096; l++ {
			fmt.Fprintf(&b, "var v_%d_%d = compute(%d)\n", i, l, l)
		}
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			req.WriteString(",")
		}
		fmt.Fprintf(&req, `{"path":%q,"edits":[{"command":"str_replace","old_str":"= compute(0)","new_str":"= recompute(0)"}]}`, name)
	}
	req.WriteString("]}")
	// Older than the timestamp slack when the child reads them: stable
	// reads (engine/apply.go, stableRead), each file read once.
	time.Sleep(fsys.TimestampSlack(dir) + 10*time.Millisecond)
	w, err := Open(dir, &Options{Durability: DurableAuto})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.MakeDir(context.Background(), ".primed"); err != nil {
		t.Fatal(err)
	}
	return req.String()
}

// callsChild is the traced process: it commits the request, with the
// key store of the parent, which made the journal.
func callsChild(t *testing.T, dir string) {
	t.Setenv("XDG_STATE_HOME", os.Getenv("TXEDIT_CALLS_STATE"))
	mode := DurableFsync
	if os.Getenv("TXEDIT_CALLS_AUTO") != "" {
		mode = DurableAuto
	}
	w, err := Open(dir, &Options{Durability: mode})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	req, err := plan.Parse([]byte(os.Getenv("TXEDIT_CALLS_REQUEST")))
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("TXEDIT_CALLS_ENTRIES") != "" {
		for i := range req.FileEdits {
			req.FileEdits[i].NoFollow = true
		}
	}
	res, err := w.Apply(context.Background(), req)
	if err != nil || !res.Success || res.FilesModified != len(req.FileEdits) {
		t.Fatalf("apply: %v %+v", err, res)
	}
}

// runtimeCall: the Go runtime's own system calls (its scheduler, timers,
// memory, signals), which the commit's work does not decide.
var runtimeCall = map[string]bool{"futex": true, "nanosleep": true, "epoll_pwait": true, "sched_yield": true, "rt_sigreturn": true,
	"tgkill": true, "getpid": true, "gettid": true, "mmap": true, "munmap": true, "madvise": true, "clone": true, "clone3": true,
	"sigaltstack": true, "rt_sigprocmask": true, "mprotect": true, "rt_sigaction": true, "rseq": true, "set_robust_list": true}

// parseStraceCounts reads strace -c's table: calls by system call.
func parseStraceCounts(s string) map[string]int {
	counts := map[string]int{}
	for _, line := range strings.Split(s, "\n") {
		f := strings.Fields(line)
		if len(f) < 5 || strings.HasPrefix(f[0], "%") || strings.HasPrefix(f[0], "-") || f[len(f)-1] == "total" {
			continue
		}
		if calls, err := strconv.Atoi(f[3]); err == nil {
			counts[f[len(f)-1]] = calls
		}
	}
	return counts
}

// TestCommitClosesEveryFile: a file of fsys is a bare descriptor on
// Linux, with no finalizer to close one its owner forgot, so every commit
// must close all it opened: one that succeeds (staged named, and unnamed:
// up to 8 files), one refused at the stale hash of a file, one refused at
// the lease of a file a writer holds open.
func TestCommitClosesEveryFile(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for i := 0; i < 12; i++ {
		files[fmt.Sprintf("d%d/f%d.txt", i%3, i)] = "one\ntwo\n"
	}
	writeTree(t, dir, files)
	w := openWS(t, dir, &Options{Durability: DurableAuto})
	edits := func(n int, old, new string) string {
		var b strings.Builder
		b.WriteString(`{"fileEdits":[`)
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"path":"d%d/f%d.txt","edits":[{"command":"str_replace","old_str":%q,"new_str":%q}]}`, i%3, i, old, new)
		}
		b.WriteString("]}")
		return b.String()
	}
	run(t, w, `{"fileEdits":[{"path":"new.txt","edits":[{"command":"create","file_text":"x\n"}]}]}`) // the journal made
	before := countFDs(t)
	check := func(what string) {
		t.Helper()
		if after := countFDs(t); after != before {
			t.Errorf("%s: %d descriptors open before, %d after", what, before, after)
		}
	}
	if res := run(t, w, edits(12, "one", "ONE")); !res.Success {
		t.Fatalf("12 files: %+v", res)
	}
	check("a commit of 12 files (named staging)")
	if res := run(t, w, edits(4, "ONE", "one")); !res.Success {
		t.Fatalf("4 files: %+v", res)
	}
	check("a commit of 4 files (unnamed staging)")
	stale := `{"fileEdits":[{"path":"d0/f0.txt","content_hash":"` + hash.Of([]byte("two\n")).String() + `","edits":[{"command":"str_replace","old_str":"one","new_str":"1"}]}]}`
	if res := run(t, w, stale); res.Success {
		t.Fatalf("a stale hash committed: %+v", res)
	}
	check("a request refused at a stale hash")
	f, err := os.OpenFile(filepath.Join(dir, "d1/f1.txt"), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	res := run(t, w, edits(2, "two", "TWO"))
	f.Close()
	if res.Success {
		t.Logf("the lease was not refused (no leases here?): %+v", res.Summary)
	}
	check("a commit refused at a file open for writing")
}
