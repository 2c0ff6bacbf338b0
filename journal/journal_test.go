package journal_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/fsys/faultfs"
	"github.com/txedit/txedit/hash"
	"github.com/txedit/txedit/journal"
)

func state(data string, mode os.FileMode) *journal.State {
	return &journal.State{Hash: hash.Of([]byte(data)), Size: int64(len(data)), Mode: mode}
}

func setup(t *testing.T, files map[string]string) (string, *fsys.OS) {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(data), 0o644)
	}
	fsy, err := fsys.NewOS(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fsy.Close() })
	return dir, fsy
}

// commit runs a three-op transaction: modify a/x, create b/new/y, delete c/z.
func commit(t *testing.T, fsy fsys.FS, opts *journal.Options) (*journal.Manifest, error) {
	t.Helper()
	j := journal.New(fsy, opts)
	l, err := j.Lock()
	if err != nil {
		return nil, err
	}
	defer l.Unlock()
	m := &journal.Manifest{Command: "test", Summary: "three ops", Ops: []*journal.Op{
		{Path: "a/x", Kind: journal.Modify, Old: state("old x\n", 0o644), New: state("new x\n", 0o644)},
		{Path: "b/new/y", Kind: journal.Create, New: state("y\n", 0o644)},
		{Path: "c/z", Kind: journal.Delete, Old: state("z\n", 0o644)},
	}}
	tx, err := l.Begin(m)
	if err != nil {
		return nil, err
	}
	ident := func(name string) fsys.Identity {
		fi, err := fsy.Lstat(name)
		if err != nil {
			t.Fatal(err)
		}
		return fsys.IdentityOf(fi)
	}
	for i, s := range []journal.Staging{
		{Old: []byte("old x\n"), Ident: ident("a/x"), New: []byte("new x\n"), Diff: "diff x\n"},
		{New: []byte("y\n"), Diff: "diff y\n"},
		{Old: []byte("z\n"), Ident: ident("c/z")},
	} {
		if err := tx.Stage(i, s); err != nil {
			tx.Abort()
			return nil, err
		}
	}
	return m, tx.Commit()
}

var threeFiles = map[string]string{"a/x": "old x\n", "c/z": "z\n", "c/keep": "k\n"}

// TestDurabilityTrace pins the order of every write and sync of a commit,
// run one call at a time, in each per-file durability mode: the staged
// files and the pack are synced (fdatasync by default, fsync in SyncFile
// mode) before the PREPARED mark, the directories are synced after the
// renames and before the COMMITTED mark, which is not synced (recovery
// finishes a transaction whose files are all new: forward.go), and whose
// pending entry therefore stays (until the next begin round). The
// journal's own small files are
// new files written whole, fdatasynced in both modes. A new journal's
// directories are synced at once, and its .gitignore, legacy list and key
// written in one round (their fdatasyncs, then the renames and one sync
// of the journal's directory), where each took two rounds of its own.
func TestDurabilityTrace(t *testing.T) {
	for mode, sync := range map[journal.SyncMode]string{journal.SyncAuto: "fdatasync", journal.SyncData: "fdatasync", journal.SyncFile: "fsync"} {
		_, inner := setup(t, threeFiles)
		rec := &faultfs.FS{Inner: inner, Record: true}
		if _, err := commit(t, rec, &journal.Options{Sync: mode, Workers: 1}); err != nil {
			t.Fatal(err)
		}
		id := regexp.MustCompile(`\d{8}-\d{6}-\d{6}-[0-9a-f]{4}`)
		var got []string
		for _, c := range rec.Calls {
			op := strings.Fields(c)[0]
			switch op {
			case "lstat", "readdir", "opendir", "closedir", "open", "read", "readat", "close":
				continue // reads do not order durability
			}
			got = append(got, id.ReplaceAllString(c, "ID"))
		}
		want := strings.Split(strings.ReplaceAll(strings.TrimSpace(durabilityTrace), "SYNC", sync), "\n")
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("mode %d: durability trace:\n%s\n\nwant:\n%s", mode, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

const durabilityTrace = `mkdir .txedit
mkdir .txedit/txns
mkdir .txedit/pending
create .txedit/mark
lock .txedit/LOCK
remove .txedit/.gitignore.tmp
create .txedit/.gitignore.tmp
write .txedit/.gitignore.tmp
remove .txedit/id.tmp
create .txedit/id.tmp
write .txedit/id.tmp
fdatasync .txedit/.gitignore.tmp
fdatasync .txedit/id.tmp
syncdir .
rename .txedit/.gitignore.tmp .txedit/.gitignore
rename .txedit/id.tmp .txedit/id
syncdir .txedit
link .txedit/mark .txedit/pending/ID
create .txedit/txns/ID
writeat .txedit/txns/ID
writeat .txedit/txns/ID
fdatasync .txedit/txns/ID
syncdir .txedit/txns
syncdir .txedit/pending
mkdir b
mkdir b/new
writeat .txedit/txns/ID
writeat .txedit/txns/ID
writeat .txedit/txns/ID
writeat .txedit/txns/ID
create a/.txedit-ID-0.tmp
write a/.txedit-ID-0.tmp
SYNC a/.txedit-ID-0.tmp
writeat .txedit/txns/ID
writeat .txedit/txns/ID
create b/new/.txedit-ID-1.tmp
write b/new/.txedit-ID-1.tmp
SYNC b/new/.txedit-ID-1.tmp
writeat .txedit/txns/ID
writeat .txedit/txns/ID
link .txedit/mark .txedit/txns/ID.prepared
SYNC .txedit/txns/ID
syncdir .txedit/txns
syncdir .
syncdir b
revalidate .
exchange a/.txedit-ID-0.tmp a/x
link b/new/.txedit-ID-1.tmp b/new/y
remove b/new/.txedit-ID-1.tmp
remove c/z
remove a/.txedit-ID-0.tmp
remove c
syncdir b/new
syncdir a
syncdir c
syncdir .
link .txedit/mark .txedit/txns/ID.committed
append .txedit/index
`

func TestCommitAndReadBack(t *testing.T) {
	dir, fsy := setup(t, threeFiles)
	m, err := commit(t, fsy, nil)
	if err != nil {
		t.Fatal(err)
	}
	read := func(name string) string { b, _ := os.ReadFile(filepath.Join(dir, name)); return string(b) }
	if read("a/x") != "new x\n" || read("b/new/y") != "y\n" || read("c/keep") != "k\n" {
		t.Errorf("tree after commit: a/x=%q b/new/y=%q", read("a/x"), read("b/new/y"))
	}
	if _, err := os.Stat(filepath.Join(dir, "c/z")); err == nil {
		t.Error("c/z still exists")
	}
	j := journal.New(fsy, nil)
	if before, err := j.Before(m, 0); err != nil || string(before) != "old x\n" {
		t.Errorf("Before(0) = %q, %v", before, err)
	}
	diffs := make([]string, len(m.Ops))
	if err := j.EachDiff(m, func(i int, d string) error { diffs[i] = d; return nil }); err != nil || diffs[0] != "diff x\n" || diffs[1] != "diff y\n" || diffs[2] != "" {
		t.Errorf("EachDiff = %q, %v", diffs, err)
	}
	ents, _ := j.List()
	if len(ents) != 1 || ents[0].State != journal.StateCommitted || ents[0].Manifest.Summary != "three ops" {
		t.Errorf("List = %+v", ents)
	}
	if id, err := j.Resolve(m.ID[:10]); err != nil || id != m.ID {
		t.Errorf("Resolve(prefix) = %q, %v", id, err)
	}
	if _, err := j.Resolve("nope"); !errors.Is(err, journal.ErrUnknownTxn) {
		t.Errorf("Resolve(nope) = %v", err)
	}
}

func TestStaleIdentityAborts(t *testing.T) {
	dir, fsy := setup(t, threeFiles)
	j := journal.New(fsy, nil)
	l, _ := j.Lock()
	defer l.Unlock()
	m := &journal.Manifest{Ops: []*journal.Op{{Path: "a/x", Kind: journal.Modify, Old: state("old x\n", 0o644), New: state("new\n", 0o644)}}}
	tx, _ := l.Begin(m)
	fi, _ := fsy.Lstat("a/x")
	if err := tx.Stage(0, journal.Staging{Old: []byte("old x\n"), Ident: fsys.IdentityOf(fi), New: []byte("new\n")}); err != nil {
		t.Fatal(err)
	}
	// Someone writes the file between staging and the rename.
	time.Sleep(5 * time.Millisecond)
	os.WriteFile(filepath.Join(dir, "a/x"), []byte("theirs\n"), 0o644)
	err := tx.Commit()
	var ce *fsys.ConflictError
	if !errors.As(err, &ce) || ce.Path != "a/x" {
		t.Fatalf("Commit = %v, want a ConflictError for a/x", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a/x")); string(b) != "theirs\n" {
		t.Errorf("their write was lost: %q", b)
	}
	ents, _ := j.List()
	if ents[0].State != journal.StateRolledBack {
		t.Errorf("state = %s", ents[0].State)
	}
}

func TestManifestCorruption(t *testing.T) {
	dir, fsy := setup(t, threeFiles)
	m, err := commit(t, fsy, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The manifest is the first record of the transaction's file.
	p := filepath.Join(dir, ".txedit/txns", m.ID)
	whole, _ := os.ReadFile(p)
	good := journal.ManifestRecord(whole)
	if _, err := journal.DecodeManifest(good); err != nil {
		t.Fatalf("good manifest: %v", err)
	}
	flipped := append([]byte{}, good...)
	flipped[10] ^= 1
	for name, bad := range map[string][]byte{"flipped": flipped, "truncated": good[:len(good)/2], "empty": nil, "no sum": good[:strings.LastIndex(string(good), "\nsum")]} {
		if _, err := journal.DecodeManifest(bad); !errors.Is(err, journal.ErrCorrupt) {
			t.Errorf("%s manifest: %v, want ErrCorrupt", name, err)
		}
	}
	// A damaged before-image is detected, never restored.
	pack := p
	data, _ := os.ReadFile(pack)
	i := strings.Index(string(data), "old x")
	data[i] = 'O'
	os.WriteFile(pack, data, 0o600)
	if _, err := journal.New(fsy, nil).Before(m, 0); !errors.Is(err, journal.ErrCorrupt) {
		t.Errorf("damaged before-image: %v, want ErrCorrupt", err)
	}
}

func TestLockBusy(t *testing.T) {
	_, fsy := setup(t, nil)
	j := journal.New(fsy, &journal.Options{LockTimeout: 50 * time.Millisecond})
	l, err := j.Lock()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := j.Lock(); !errors.Is(err, fsys.ErrBusy) {
		t.Fatalf("second Lock = %v, want ErrBusy", err)
	}
	if d := time.Since(start); d < 40*time.Millisecond {
		t.Errorf("gave up after %v, before the timeout", d)
	}
	l.Unlock()
	l2, err := j.Lock()
	if err != nil {
		t.Fatalf("Lock after Unlock: %v", err)
	}
	l2.Unlock()
}

func TestGCRetention(t *testing.T) {
	_, fsy := setup(t, map[string]string{"f": "0"})
	j := journal.New(fsy, &journal.Options{Keep: 2})
	var ids []string
	for i := 0; i < 4; i++ {
		l, _ := j.Lock()
		old, new := string(rune('0'+i)), string(rune('1'+i))
		m := &journal.Manifest{Ops: []*journal.Op{{Path: "f", Kind: journal.Modify, Old: state(old, 0o644), New: state(new, 0o644)}}}
		tx, _ := l.Begin(m)
		fi, _ := fsy.Lstat("f")
		tx.Stage(0, journal.Staging{Old: []byte(old), Ident: fsys.IdentityOf(fi), New: []byte(new)})
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.ID)
		l.Unlock()
	}
	l, _ := j.Lock()
	removed, err := l.GC()
	l.Unlock()
	if err != nil || len(removed) != 2 || removed[0] != ids[1] || removed[1] != ids[0] {
		t.Fatalf("GC removed %v, %v; want the two oldest %v", removed, err, ids[:2])
	}
	ents, _ := j.List()
	if len(ents) != 2 || ents[0].ID != ids[2] {
		t.Errorf("left: %+v", ents)
	}
}

// TestGitignoreRepaired: a .gitignore left empty (by a crash of a version
// that wrote it without fsync) is repaired by the next lock, so the
// journal never shows up in git status.
func TestGitignoreRepaired(t *testing.T) {
	dir, fsy := setup(t, threeFiles)
	j := journal.New(fsy, &journal.Options{Sync: journal.SyncFile})
	l, err := j.Lock()
	if err != nil {
		t.Fatal(err)
	}
	l.Unlock()
	name := filepath.Join(dir, ".txedit", ".gitignore")
	if data, _ := os.ReadFile(name); string(data) != "*\n" {
		t.Fatalf(".gitignore = %q, want *", data)
	}
	os.WriteFile(name, nil, 0o644)
	os.WriteFile(name+".tmp", []byte("junk"), 0o644)
	if l, err = j.Lock(); err != nil {
		t.Fatal(err)
	}
	l.Unlock()
	if data, _ := os.ReadFile(name); string(data) != "*\n" {
		t.Errorf("empty .gitignore not repaired: %q", data)
	}
	if _, err := os.Stat(name + ".tmp"); err == nil {
		t.Errorf("stale .gitignore.tmp left")
	}
}

// TestGCInBatches (docs/journal.md, "Cost per commit, whatever is retained"): GCIfNeeded lets the journal hold up to a
// sixteenth more than Keep, then retires down to Keep in one batch, so the
// removal, the horizon and the index are paid once every Keep/16 commits;
// and it leaves no gc/ directory behind, whose presence tells every later
// open that a GC was interrupted (each then recovered under the lock).
func TestGCInBatches(t *testing.T) {
	dir, fsy := setup(t, map[string]string{"f": "0"})
	const keep = 32 // slack 2
	j := journal.New(fsy, &journal.Options{Keep: keep})
	cur := "0"
	var runs []int // the commits after which a batch was retired
	for i := 1; i <= 3*keep; i++ {
		l, err := j.Lock()
		if err != nil {
			t.Fatal(err)
		}
		next := fmt.Sprint(i)
		m := &journal.Manifest{Ops: []*journal.Op{{Path: "f", Kind: journal.Modify, Old: state(cur, 0o644), New: state(next, 0o644)}}}
		tx, err := l.Begin(m)
		if err != nil {
			t.Fatal(err)
		}
		fi, _ := fsy.Lstat("f")
		tx.Stage(0, journal.Staging{Old: []byte(cur), Ident: fsys.IdentityOf(fi), New: []byte(next)})
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		cur = next
		removed, err := l.GCIfNeeded()
		l.Unlock()
		if err != nil {
			t.Fatal(err)
		}
		if len(removed) > 0 {
			runs = append(runs, i)
			if len(removed) != keep/16+1 {
				t.Errorf("commit %d retired %d, want a batch of %d", i, len(removed), keep/16+1)
			}
		}
		ents, _ := j.List()
		if len(ents) > keep+keep/16 || (i >= keep && len(ents) < keep) {
			t.Fatalf("after commit %d: %d retained, want %d to %d", i, len(ents), keep, keep+keep/16)
		}
		if _, err := os.Stat(filepath.Join(dir, ".txedit", "gc")); err == nil {
			t.Fatalf("after commit %d: .txedit/gc left behind", i)
		}
	}
	// 96 commits: the first batch at 35 (over 34), then every third.
	if len(runs) < 20 || runs[0] != keep+keep/16+1 || runs[1]-runs[0] != keep/16+1 {
		t.Errorf("batches retired after commits %v", runs)
	}
}

// TestLockListsPendingOnly (docs/journal.md, "Cost per commit, whatever is retained"): taking the lock lists pending/, not
// the transactions directory, whatever is retained; a transaction whose
// pending entry a power loss lost (its directory kept, never prepared) is
// finished by GC's full listing.
func TestLockListsPendingOnly(t *testing.T) {
	dir, fsy := setup(t, map[string]string{"f": "0"})
	j := journal.New(fsy, &journal.Options{Keep: 1000})
	cur := "0"
	for i := 1; i <= 40; i++ {
		l, err := j.Lock()
		if err != nil {
			t.Fatal(err)
		}
		next := fmt.Sprint(i)
		m := &journal.Manifest{Ops: []*journal.Op{{Path: "f", Kind: journal.Modify, Old: state(cur, 0o644), New: state(next, 0o644)}}}
		tx, _ := l.Begin(m)
		fi, _ := fsy.Lstat("f")
		tx.Stage(0, journal.Staging{Old: []byte(cur), Ident: fsys.IdentityOf(fi), New: []byte(next)})
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		l.Unlock()
		cur = next
	}
	rec := &faultfs.FS{Inner: fsy, Record: true}
	rj := journal.New(rec, &journal.Options{Keep: 1000})
	l, err := rj.Lock()
	if err != nil {
		t.Fatal(err)
	}
	l.Unlock()
	for _, c := range rec.Calls {
		if strings.HasSuffix(c, ".txedit/txns") && strings.HasPrefix(c, "readdir") {
			t.Fatalf("the lock listed the transactions directory: %v", rec.Calls)
		}
	}
	// An orphan: a directory with a manifest-less begin, no pending entry.
	orphan := "20200101-000000-000000-abcd"
	os.Mkdir(filepath.Join(dir, ".txedit", "txns", orphan), 0o700)
	l, _ = j.Lock()
	if len(l.Recovered) != 0 {
		t.Errorf("the lock recovered %v without pending entries", l.Recovered)
	}
	if _, err := l.GC(); err != nil {
		t.Fatal(err)
	}
	l.Unlock()
	if _, err := os.Stat(filepath.Join(dir, ".txedit", "txns", orphan)); err == nil {
		t.Error("GC left the never-prepared orphan")
	}
}

// TestDurabilityTraceUnnamed pins the order of a commit whose files all go
// into directories that exist: its staged files are made unnamed and the
// begin round runs inside the prepare round (unnamed.go); the PREPARED
// mark is made after that round and not synced (recovery classifies the
// files without it);
// no staged file is named before the round ends, each is linked at its
// staging name just before its exchange (or, for a create, at its own
// name). Two rounds: prepare (with begin), rename.
func TestDurabilityTraceUnnamed(t *testing.T) {
	_, inner := setup(t, threeFiles)
	rec := &faultfs.FS{Inner: inner, Record: true}
	j := journal.New(rec, &journal.Options{Sync: journal.SyncData, Workers: 1})
	l, err := j.Lock()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	m := &journal.Manifest{Command: "test", Ops: []*journal.Op{
		{Path: "a/x", Kind: journal.Modify, Old: state("old x\n", 0o644), New: state("new x\n", 0o644)},
		{Path: "a/y", Kind: journal.Create, New: state("y\n", 0o644)},
		{Path: "c/z", Kind: journal.Delete, Old: state("z\n", 0o644)},
	}}
	tx, err := l.Begin(m)
	if err != nil {
		t.Fatal(err)
	}
	ident := func(name string) fsys.Identity {
		fi, err := inner.Lstat(name)
		if err != nil {
			t.Fatal(err)
		}
		return fsys.IdentityOf(fi)
	}
	for i, s := range []journal.Staging{{Old: []byte("old x\n"), Ident: ident("a/x"), New: []byte("new x\n")}, {New: []byte("y\n")}, {Old: []byte("z\n"), Ident: ident("c/z")}} {
		if err := tx.Stage(i, s); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	id := regexp.MustCompile(`\d{8}-\d{6}-\d{6}-[0-9a-f]{4}`)
	var got []string
	for _, c := range rec.Calls {
		c = id.ReplaceAllString(c, "ID")
		if c == "link .txedit/mark .txedit/pending/ID" {
			got = got[:0] // the transaction's own calls begin here
		}
		switch strings.Fields(c)[0] {
		case "lstat", "readdir", "opendir", "closedir", "open", "read", "readat", "close":
			continue // reads do not order durability
		}
		got = append(got, c)
	}
	want := strings.TrimSpace(`
link .txedit/mark .txedit/pending/ID
create .txedit/txns/ID
writeat .txedit/txns/ID
writeat .txedit/txns/ID
writeat .txedit/txns/ID
writeat .txedit/txns/ID
create a/(unnamed)
write a/(unnamed)
fdatasync a/(unnamed)
create a/(unnamed)
write a/(unnamed)
fdatasync a/(unnamed)
writeat .txedit/txns/ID
writeat .txedit/txns/ID
syncdir .txedit/txns
syncdir .txedit/pending
fdatasync .txedit/txns/ID
link .txedit/mark .txedit/txns/ID.prepared
revalidate .
link a/(unnamed) a/.txedit-ID-0.tmp
fsync a/(unnamed)
exchange a/.txedit-ID-0.tmp a/x
link a/(unnamed) a/y
fsync a/(unnamed)
remove c/z
remove a/.txedit-ID-0.tmp
remove c
syncdir a
syncdir c
syncdir .
link .txedit/mark .txedit/txns/ID.committed
append .txedit/index`)
	if g := strings.Join(got, "\n"); g != want {
		t.Errorf("durability trace:\n%s\n\nwant:\n%s", g, want)
	}
}

// TestStageChecksHashes: Stage refuses a before-image or new content that
// does not hash to the manifest's state, unless the caller says it
// checked them (Staging.Checked: the engine has, under the lock, and the
// journal does not hash the bytes a second time).
func TestStageChecksHashes(t *testing.T) {
	_, fsy := setup(t, map[string]string{"a": "old\n"})
	j := journal.New(fsy, &journal.Options{Sync: journal.SyncNone})
	l, err := j.Lock()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	m := &journal.Manifest{Command: "test", Ops: []*journal.Op{{Path: "a", Kind: journal.Modify, Old: state("old\n", 0o644), New: state("new\n", 0o644)}}}
	tx, err := l.Begin(m)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Abort()
	fi, err := fsy.Lstat("a")
	if err != nil {
		t.Fatal(err)
	}
	id := fsys.IdentityOf(fi)
	if err := tx.Stage(0, journal.Staging{Old: []byte("other\n"), Ident: id, New: []byte("new\n")}); err == nil || !strings.Contains(err.Error(), "before-image does not match") {
		t.Errorf("a before-image of other bytes: %v, want refused", err)
	}
	if err := tx.Stage(0, journal.Staging{Old: []byte("old\n"), Ident: id, New: []byte("newer\n")}); err == nil || !strings.Contains(err.Error(), "new content does not match") {
		t.Errorf("new content of other bytes: %v, want refused", err)
	}
	if err := tx.Stage(0, journal.Staging{Old: []byte("old\n"), Ident: id, New: []byte("new\n"), Checked: true}); err != nil {
		t.Errorf("checked staging: %v", err)
	}
}
