package engine

import (
	"context"
	"fmt"
	"github.com/txedit/txedit/journal"
	"io/fs"
	"math/rand"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/fsys/faultfs"
	"github.com/txedit/txedit/internal/par"
	"github.com/txedit/txedit/plan"
)

// streamTree is a tree a replacement of "old" changes in many files.
func streamTree(n int) map[string]string {
	files := map[string]string{}
	for i := 0; i < n; i++ {
		files[fmt.Sprintf("d%d/f%03d.txt", i%7, i)] = fmt.Sprintf("line one\nold %d\nline three\nold again\n", i)
	}
	files["skip.txt"] = "nothing here\n"
	return files
}

const streamReq = `{"command":"pattern_replace","directory":".","file_pattern":"*.txt","sed_pattern":"s/old/new/"`

// TestStreamResults: with StreamResults, each file's result reaches the
// stream once, in the order of Result.Files, with its preview (dry run) or
// committed diff; the Result keeps the rest of each file and no diff.
func TestStreamResults(t *testing.T) {
	ctx := context.Background()
	files := streamTree(60)
	// The reference: the same requests, not streamed.
	refDir := t.TempDir()
	writeTree(t, refDir, files)
	ref := openWS(t, refDir, nil)
	refDry := run(t, ref, streamReq+`,"dry_run":true}`)
	refCommit := run(t, ref, streamReq+`}`)
	if !refDry.Success || !refCommit.Success || len(refDry.Files) != 60 || refDry.Diff == "" {
		t.Fatalf("reference: %+v %+v", refDry, refCommit)
	}

	dir := t.TempDir()
	writeTree(t, dir, files)
	w := openWS(t, dir, nil)
	var got []*plan.FileResult
	var text []string
	collect := func(r *plan.FileResult) {
		c := *r
		got = append(got, &c)
		text = append(text, r.Preview+r.Diff)
	}
	res, err := w.Apply(StreamResults(ctx, collect, true), mustParse(t, streamReq+`,"dry_run":true}`))
	if err != nil || !res.Success {
		t.Fatalf("streamed dry run: %v %+v", err, res)
	}
	if strings.Join(text, "") != refDry.Diff || res.Diff != "" {
		t.Errorf("streamed previews do not make the dry run's diff (or Result.Diff was kept: %d bytes)", len(res.Diff))
	}
	checkStreamed(t, "dry run", got, res, refDry)

	got, text = nil, nil
	res, err = w.Apply(StreamResults(ctx, collect, true), mustParse(t, streamReq+`}`))
	if err != nil || !res.Success || res.TransactionID == "" {
		t.Fatalf("streamed commit: %v %+v", err, res)
	}
	for i, f := range refCommit.Files {
		if text[i] != f.Diff || f.Diff == "" {
			t.Errorf("committed diff of %s: %q, want %q", f.Path, text[i], f.Diff)
		}
	}
	checkStreamed(t, "commit", got, res, refCommit)
	if treeString(readTree(t, dir)) != treeString(readTree(t, refDir)) {
		t.Error("the streamed commit wrote another tree")
	}

	// Without diffs the stream gets the counts, not the diffs.
	w.Undo(ctx, UndoOptions{})
	got, text = nil, nil
	res, _ = w.Apply(StreamResults(ctx, collect, false), mustParse(t, streamReq+`}`))
	if !res.Success || len(got) != 60 || strings.Join(text, "") != "" || got[0].LinesAdded != 2 {
		t.Errorf("commit streamed without diffs: %+v, first %+v", res, got[0])
	}

	// With StreamResultsWhile the diffs are read back while the caller
	// wants them: the first three, then none; each left out says so.
	w.Undo(ctx, UndoOptions{})
	got, text = nil, nil
	asked := 0
	want := func() bool { asked++; return asked <= 3 }
	res, _ = w.Apply(StreamResultsWhile(ctx, collect, want), mustParse(t, streamReq+`}`))
	if !res.Success || len(got) != 60 || asked != 60 {
		t.Fatalf("commit streamed while wanted: %+v, %d streamed, want asked %d times", res, len(got), asked)
	}
	for i, r := range got {
		if i < 3 && (text[i] != refCommit.Files[i].Diff || r.DiffLeft) || i >= 3 && (text[i] != "" || !r.DiffLeft) {
			t.Errorf("file %d (%s): diff %q, left %v", i, r.Path, text[i], r.DiffLeft)
		}
	}

	// A failing request streams its files' failures.
	w.Undo(ctx, UndoOptions{})
	got = nil
	res, _ = w.Apply(StreamResults(ctx, collect, true), mustParse(t, `{"fileEdits":[{"path":"skip.txt","edits":[{"command":"str_replace","old_str":"absent","new_str":"x"}]}],
		"directory":".","file_pattern":"*.txt","sed_pattern":"s/old/new/"}`))
	if res.Success || len(got) != 61 || got[0].Code != plan.CodeNotFound {
		t.Errorf("failing request: %+v; streamed %d", res, len(got))
	}
}

func checkStreamed(t *testing.T, what string, got []*plan.FileResult, res, ref *plan.Result) {
	t.Helper()
	if len(got) != len(res.Files) || len(got) != len(ref.Files) {
		t.Fatalf("%s: streamed %d results, Result has %d, reference %d", what, len(got), len(res.Files), len(ref.Files))
	}
	for i, r := range res.Files {
		if got[i].Path != r.Path || got[i].Path != ref.Files[i].Path || r.Preview != "" || r.Diff != "" ||
			r.ContentHash != ref.Files[i].ContentHash || r.LinesAdded != ref.Files[i].LinesAdded || r.Replacements != ref.Files[i].Replacements {
			t.Errorf("%s: file %d: streamed %+v, kept %+v, reference %+v", what, i, got[i], r, ref.Files[i])
		}
	}
}

// TestEmitterOrderAndWindow: results leave in index order, each once, and
// no worker runs more than the window ahead of the next to emit.
func TestEmitterOrderAndWindow(t *testing.T) {
	const n, window = 300, 6
	files := make([]*plan.FileResult, n)
	for i := range files {
		files[i] = &plan.FileResult{Path: fmt.Sprint(i), Preview: "p"}
	}
	var order []string
	var mu sync.Mutex
	started, maxAhead := 0, 0
	em := newEmitter(&stream{fn: func(r *plan.FileResult) { order = append(order, r.Path) }}, files, window)
	par.Do(context.Background(), n, 8, func(i int) error {
		em.wait(i)
		defer em.finish(i)
		mu.Lock()
		started++
		em.mu.Lock()
		if ahead := i - em.next; ahead > maxAhead {
			maxAhead = ahead
		}
		em.mu.Unlock()
		mu.Unlock()
		time.Sleep(time.Duration(rand.Intn(300)) * time.Microsecond)
		return nil
	})
	for i, p := range order {
		if p != fmt.Sprint(i) {
			t.Fatalf("emitted out of order at %d: %v", i, order[:i+1])
		}
	}
	if len(order) != n || maxAhead >= window {
		t.Errorf("emitted %d of %d; a worker ran %d ahead (window %d)", len(order), n, maxAhead, window)
	}
	if files[0].Preview != "" {
		t.Error("an emitted result kept its preview")
	}
}

// TestPatternReadsAtMostTwice: a committed pattern_replace reads a file
// it does not change once (the walk's read), and a file it changes once
// too when the walk could keep its bytes: read from a descriptor whose
// status it took (fsys.StatReader), changed well before the read, within
// the memory budget (planFile: the current bytes, not the new ones too).
// Otherwise twice: the walk's read, and
// staging's, checked against the hashes the walk planned from: a budget
// too small to keep anything; a directory that cannot say which file it
// read (the identity looked up by name after the read may be another
// file's); a file changed so recently that the identity taken after the
// walk's read does not prove what was read, read again the careful way in
// pass 1, under the lock, and staged from that read. A file written
// between the walk and staging is read again and planned again on the
// writer's bytes, whether the walk kept its bytes or not; and the
// journal's before-images are the files' bytes (undo restores the tree).
func TestPatternReadsAtMostTwice(t *testing.T) {
	files := streamTree(12)
	for _, c := range []struct {
		name     string
		racy     bool
		budget   int64
		nameOnly bool // the directories cannot take a descriptor's status
		write    bool // another writer changes d0/f000.txt before the commit
		reads    int
	}{
		{name: "kept", reads: 1},
		// 9 x 60 bytes hold the 12 files' current bytes (434) but not
		// those and the new ones too: the walk keeps the current bytes
		// only, and staging substitutes again (unit.fill).
		{name: "budget for the current bytes only", budget: 60, reads: 1},
		{name: "racy", racy: true, reads: 2},
		{name: "small budget", budget: 1, reads: 2},
		{name: "identity by name only", nameOnly: true, reads: 2},
		// The write makes the commit plan every file again (replan),
		// which reads them all: only the contents are checked.
		{name: "kept, written meanwhile", write: true},
		{name: "small budget, written meanwhile", budget: 1, write: true},
	} {
		dir := t.TempDir()
		writeTree(t, dir, files)
		osfs, err := fsys.NewOS(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer osfs.Close()
		var inner fsys.FS = osfs
		if c.nameOnly {
			inner = nameOnlyFS{osfs}
		}
		rec := &faultfs.FS{Inner: inner, Record: true}
		racyWindow = time.Hour // every file counts as just written
		if !c.racy {
			racyWindow = -time.Hour // every file counts as long unchanged
		}
		const written = "d0/f000.txt"
		if c.write {
			testHookBeforeCommit = func() {
				testHookBeforeCommit = nil
				// Renamed over the name, as an editor saves: same size.
				tmp := filepath.Join(dir, "d0", "save.tmp")
				if err := os.WriteFile(tmp, []byte("line uno\nold 0\nline three\nold again\n"), 0o644); err != nil {
					t.Error(err)
				}
				if err := os.Rename(tmp, filepath.Join(dir, written)); err != nil {
					t.Error(err)
				}
			}
		}
		w := openWS(t, dir, &Options{FS: rec, Keys: journal.UserKeys(), MemoryBudget: c.budget})
		res := run(t, w, streamReq+`}`)
		racyWindow, testHookBeforeCommit = 0, nil
		if !res.Success || res.FilesModified != 12 {
			t.Fatalf("%s: %+v", c.name, res)
		}
		reads := map[string]int{}
		rec.Disarm()
		for _, call := range rec.Calls {
			f := strings.Fields(call)
			if len(f) == 2 && (f[0] == "readfile" || f[0] == "open") && strings.HasSuffix(f[1], ".txt") {
				reads[f[1]]++
			}
		}
		for name := range files {
			want := c.reads
			switch {
			case name == "skip.txt":
				want = 1 // not changed
			case c.write:
				want = 0 // read again, and planned again: checked below
			}
			if want > 0 && reads[name] != want {
				t.Errorf("%s: %s read %d times, want %d", c.name, name, reads[name], want)
			}
		}
		got := readTree(t, dir)
		if c.write && (got[written] != "line uno\nnew 0\nline three\nnew again\n" || reads[written] < 2) {
			t.Errorf("%s: %s is %q after %d reads, want the writer's bytes planned again", c.name, written, got[written], reads[written])
		}
		if g := got["d1/f001.txt"]; g != "line one\nnew 1\nline three\nnew again\n" {
			t.Errorf("%s: content %q", c.name, g)
		}
		if _, err := w.Undo(context.Background(), UndoOptions{}); err != nil {
			t.Fatalf("%s: undo: %v", c.name, err)
		}
		want := streamTreeDirs(files)
		if c.write {
			want[written] = "line uno\nold 0\nline three\nold again\n"
		}
		if treeString(readTree(t, dir)) != treeString(want) {
			t.Errorf("%s: undo left %q", c.name, readTree(t, dir))
		}
	}
}

// nameOnlyFS is an OS file system whose directories cannot take the
// status of a file they read (no fsys.StatReader), as on other systems.
type nameOnlyFS struct{ fsys.FS }

func (f nameOnlyFS) View() (fsys.FS, func()) {
	v, release := f.FS.View()
	return nameOnlyFS{v}, release
}

func (f nameOnlyFS) OpenDir(name string) (fsys.Dir, error) {
	d, err := f.FS.OpenDir(name)
	if err != nil {
		return nil, err
	}
	return nameOnlyDir{d}, nil
}

type nameOnlyDir struct{ fsys.Dir }

func (d nameOnlyDir) OpenDir(name string) (fsys.Dir, error) {
	c, err := d.Dir.OpenDir(name)
	if err != nil {
		return nil, err
	}
	return nameOnlyDir{c}, nil
}

// streamTreeDirs is files with their directories, as readTree lists them.
func streamTreeDirs(files map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range files {
		out[k] = v
		if d := path.Dir(k); d != "." {
			out[d+"/"] = ""
		}
	}
	return out
}

// TestPatternSmallBudget: with a memory budget too small to keep any file,
// every file is read again when needed, and the result is the same.
func TestPatternSmallBudget(t *testing.T) {
	files := streamTree(30)
	want := map[bool]string{}
	for _, budget := range []int64{1, 0} {
		dir := t.TempDir()
		writeTree(t, dir, files)
		w := openWS(t, dir, &Options{MemoryBudget: budget})
		dry := run(t, w, streamReq+`,"dry_run":true}`)
		res := run(t, w, streamReq+`}`)
		if !dry.Success || !res.Success || res.FilesModified != 30 {
			t.Fatalf("budget %d: %+v %+v", budget, dry, res)
		}
		want[budget == 1] = dry.Diff + treeString(readTree(t, dir))
		if _, err := w.Undo(context.Background(), UndoOptions{}); err != nil || treeString(readTree(t, dir)) != treeString(streamTreeDirs(files)) {
			t.Fatalf("budget %d: undo: %v", budget, err)
		}
	}
	if want[true] != want[false] {
		t.Error("a small memory budget changed the result")
	}
}

// denyFS refuses to read the named files and list the named directories
// (EACCES), as a file system does for a user who may not read them (the
// tests run as root, whom permissions do not stop).
type denyFS struct {
	fsys.FS
	deny map[string]bool
}

func denied(name string) error { return &fs.PathError{Op: "open", Path: name, Err: syscall.EACCES} }

func (d *denyFS) View() (fsys.FS, func()) {
	v, release := d.FS.View()
	return &denyFS{v, d.deny}, release
}

func (d *denyFS) Open(name string) (fsys.File, error) {
	if d.deny[name] {
		return nil, denied(name)
	}
	return d.FS.Open(name)
}

func (d *denyFS) OpenDir(name string) (fsys.Dir, error) {
	if d.deny[name] {
		return nil, denied(name)
	}
	dir, err := d.FS.OpenDir(name)
	if err != nil {
		return nil, err
	}
	return &denyDir{dir, d, name}, nil
}

// HoldDir denies as OpenDir does: the directory is opened by path, one
// component at a time, through OpenDir.
func (d *denyFS) HoldDir(name string) (fsys.Dir, func(), error) {
	dir, err := fsys.OpenDirBeneath(d, name)
	if err != nil {
		return nil, nil, err
	}
	return dir, func() { dir.Close() }, nil
}

type denyDir struct {
	fsys.Dir
	fs   *denyFS
	name string
}

func (d *denyDir) join(name string) string {
	if d.name == "." || d.name == "" {
		return name
	}
	return path.Join(d.name, name)
}

func (d *denyDir) ReadFile(name string, buf []byte, max int64) ([]byte, error) {
	if d.fs.deny[d.join(name)] {
		return nil, denied(d.join(name))
	}
	return d.Dir.ReadFile(name, buf, max)
}

func (d *denyDir) Open(name string) (fsys.File, error) {
	if d.fs.deny[d.join(name)] {
		return nil, denied(d.join(name))
	}
	return d.Dir.Open(name)
}

func (d *denyDir) OpenDir(name string) (fsys.Dir, error) {
	return d.fs.OpenDir(d.join(name))
}

// TestPatternUnreadable (docs/testing.md, the first red-team audit): a file pattern_replace cannot read, or
// that matches but is too large to change, fails an atomic request — every
// such file listed with its code, nothing written; a request that is not
// atomic changes the rest and lists each skipped file and why. Binary
// files are skipped either way, and listed.
func TestPatternUnreadable(t *testing.T) {
	big := strings.Repeat("x", 100) + "\nfoo\n"
	files := map[string]string{
		"a.txt":          "foo\n",
		"big.txt":        big,                      // matches, over the limit
		"bignot.txt":     strings.Repeat("y", 200), // over the limit, no match: irrelevant
		"secret.txt":     "foo\n",                  // unreadable
		"locked/x.txt":   "foo\n",                  // in an unreadable directory
		"bin.txt":        "foo\x00\n",              // binary
		"ok/nested.txt":  "foo foo\n",
		"ok/nomatch.txt": "bar\n",
	}
	req := `{"command":"pattern_replace","directory":".","file_pattern":"*.txt","sed_pattern":"s/foo/FOO/g"`
	for _, dry := range []bool{true, false} {
		dir := t.TempDir()
		writeTree(t, dir, files)
		osfs, err := fsys.NewOS(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer osfs.Close()
		w := openWS(t, dir, &Options{FS: &denyFS{osfs, map[string]bool{"secret.txt": true, "locked": true}}, Keys: journal.UserKeys(), MaxFileSize: 64})
		r := req + `}`
		if dry {
			r = req + `,"dry_run":true}`
		}
		res := run(t, w, r)
		codes := map[string]plan.Code{}
		for _, f := range res.Files {
			if !f.Success {
				codes[f.Path] = f.Code
			}
		}
		if res.Success || res.Code == "" || len(codes) != 3 || codes["big.txt"] != plan.CodeTooLarge || codes["secret.txt"] != plan.CodeDenied || codes["locked"] != plan.CodeDenied {
			t.Errorf("dry=%v: atomic request with unreadable files: %+v, failures %v", dry, res, codes)
		}
		if got := readTree(t, dir); got["a.txt"] != "foo\n" || got["ok/nested.txt"] != "foo foo\n" {
			t.Errorf("dry=%v: the atomic failure wrote", dry)
		}
		if res.FilesSkipped != 1 || res.Skipped[0].Path != "bin.txt" || res.Skipped[0].Code != plan.CodeBinaryFile {
			t.Errorf("dry=%v: binary file not listed: %+v", dry, res.Skipped)
		}
	}
	// atomic: false is the request to skip them: listed, the rest done.
	dir := t.TempDir()
	writeTree(t, dir, files)
	osfs, _ := fsys.NewOS(dir)
	defer osfs.Close()
	w := openWS(t, dir, &Options{FS: &denyFS{osfs, map[string]bool{"secret.txt": true, "locked": true}}, Keys: journal.UserKeys(), MaxFileSize: 64})
	res := run(t, w, req+`,"atomic":false}`)
	var skipped []string
	for _, s := range res.Skipped {
		skipped = append(skipped, s.Path+":"+string(s.Code))
		if s.Reason == "" {
			t.Errorf("%s skipped without a reason", s.Path)
		}
	}
	if !res.Success || res.FilesModified != 2 || res.FilesSkipped != 4 ||
		strings.Join(skipped, " ") != "big.txt:too_large bin.txt:binary_file locked:denied secret.txt:denied" {
		t.Errorf("atomic: false: %+v, skipped %v", res, skipped)
	}
	if got := readTree(t, dir); got["a.txt"] != "FOO\n" || got["ok/nested.txt"] != "FOO FOO\n" || got["big.txt"] != big {
		t.Errorf("atomic: false wrote:\n%s", treeString(got))
	}
}

// TestApplyReadsStableFilesOnce: a request's file read before the lock
// and unchanged since (its change time well before the read, its
// identity the same under the lock) is staged from that read, not read
// again; a file changed so recently that its identity does not prove what
// was read is read again at staging; and a file written between planning
// and the commit is read again and planned again, whichever it was.
func TestApplyReadsStableFilesOnce(t *testing.T) {
	req := `{"fileEdits":[{"path":"a.txt","edits":[{"command":"str_replace","old_str":"two","new_str":"TWO"}]},` +
		`{"path":"b.txt","edits":[{"command":"str_replace","old_str":"two","new_str":"TWO"}]}]}`
	for _, c := range []struct {
		name   string
		window time.Duration
		write  bool // another writer changes b.txt before the commit
		reads  int
	}{
		{"stable", -time.Hour, false, 1},
		{"racy", time.Hour, false, 2},
		// b.txt's change makes the commit plan again, which reads every
		// file (replan) and stages from those reads: a.txt's read before
		// the lock, replan's, and staging's again (it was 4).
		{"stable, written meanwhile", -time.Hour, true, 3},
	} {
		dir := t.TempDir()
		writeTree(t, dir, map[string]string{"a.txt": "one\ntwo\n", "b.txt": "one\ntwo\n"})
		osfs, err := fsys.NewOS(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer osfs.Close()
		rec := &faultfs.FS{Inner: osfs, Record: true}
		racyWindow = c.window
		if c.write {
			testHookBeforeCommit = func() {
				testHookBeforeCommit = nil
				if err := os.WriteFile(filepath.Join(dir, "b.txt"), []byte("uno\ntwo\n"), 0o644); err != nil {
					t.Error(err)
				}
			}
		}
		w := openWS(t, dir, &Options{FS: rec})
		res := run(t, w, req)
		racyWindow, testHookBeforeCommit = 0, nil
		if !res.Success || res.FilesModified != 2 {
			t.Fatalf("%s: %+v", c.name, res)
		}
		rec.Disarm()
		reads := map[string]int{}
		for _, call := range rec.Calls {
			if f := strings.Fields(call); len(f) == 2 && f[0] == "open" && strings.HasSuffix(f[1], ".txt") {
				reads[f[1]]++
			}
		}
		if reads["a.txt"] != c.reads {
			t.Errorf("%s: a.txt read %d times, want %d", c.name, reads["a.txt"], c.reads)
		}
		want := map[string]string{"a.txt": "one\nTWO\n", "b.txt": "one\nTWO\n"}
		if c.write {
			want["b.txt"] = "uno\nTWO\n" // planned again on the writer's bytes
			if reads["b.txt"] < 2 {
				t.Errorf("%s: b.txt read %d times, want it read again after the write", c.name, reads["b.txt"])
			}
		}
		if got := readTree(t, dir); got["a.txt"] != want["a.txt"] || got["b.txt"] != want["b.txt"] {
			t.Errorf("%s: tree %q, want %q", c.name, got, want)
		}
	}
}
