package journal

import (
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/fsys/memfs"
)

const payload = "#!/bin/sh\necho PWNED\n"

// plantPending writes into mem, by hand, a transaction signed with key and
// interrupted before its commit point (prepared, not committed): it
// deleted .git/hooks/pre-commit and setup.sh (their payload in its
// before-images) and edited a from "old" to "new", which is "old" again
// now, so that a recovery rolls the transaction back and writes the
// payload.
func plantPending(t *testing.T, mem *memfs.FS, key []byte) {
	t.Helper()
	m := &Manifest{Version: manifestVersion, ID: testID, Command: "apply", Summary: "x", Ops: []*Op{
		{Path: ".git/hooks/pre-commit", Kind: Delete, Old: st(payload), staged: stagedName(testID, ".git/hooks/pre-commit", 0)},
		{Path: "setup.sh", Kind: Delete, Old: st(payload), staged: stagedName(testID, "setup.sh", 1)},
		{Path: "a", Kind: Modify, Old: st("old\n"), New: st("new\n"), staged: stagedName(testID, "a", 2)},
	}}
	for _, op := range m.Ops {
		op.Old.Mode = 0o755
		if op.New != nil {
			op.New.Mode = 0o755
		}
	}
	data, err := encodeManifest(m, key)
	if err != nil {
		t.Fatal(err)
	}
	var r recBuf
	r.add(recManifest, 0, data)
	r.add(recBefore, 0, []byte(payload))
	r.add(recBefore, 1, []byte(payload))
	r.add(recBefore, 2, []byte("old\n"))
	mustMkdirAll(t, mem, txnsDir)
	mustWrite(t, mem, txnsDir+"/"+testID, r.b)
	mustWrite(t, mem, txnsDir+"/"+testID+".prepared", nil)
}

func payloadWritten(mem *memfs.FS) []string {
	var out []string
	for _, p := range []string{".git/hooks/pre-commit", "setup.sh"} {
		if _, ok := mem.Files()[p]; ok {
			out = append(out, p)
		}
	}
	return out
}

// TestKeyInsideTheJournalIsNotTrusted (finding 1): a journal whose key
// lies inside it (.txedit/key, as an older txedit kept it, and as a
// repository can ship it) with a signed pending transaction was recovered
// by the first write, which wrote the payload. The key proves nothing when
// it arrives with the journal: such a journal is foreign, never recovered
// or written beside, until the person who made it adopts it.
func TestKeyInsideTheJournalIsNotTrusted(t *testing.T) {
	mem := memfs.New(map[string]string{"a": "old\n", ".git/HEAD": "ref\n"})
	plantPending(t, mem, testKey)
	mustWrite(t, mem, keyName, []byte(hex.EncodeToString(testKey)+"\n"))
	j := New(mem, &Options{Sync: SyncNone})
	if reps, err := j.RecoverIfNeeded(); err != nil || len(reps) != 0 {
		t.Errorf("RecoverIfNeeded: %v %+v", err, reps)
	}
	if _, err := j.Lock(); !errors.Is(err, ErrForeign) || !strings.Contains(err.Error(), "txedit journal adopt") {
		t.Errorf("Lock: %v, want ErrForeign naming txedit journal adopt", err)
	}
	if _, err := j.Recover(); !errors.Is(err, ErrForeign) {
		t.Errorf("Recover: %v, want ErrForeign", err)
	}
	ents, err := j.List()
	if err != nil || len(ents) != 1 || ents[0].Manifest != nil || !errors.Is(ents[0].Err, ErrUntrusted) {
		t.Errorf("List: %v %+v", err, ents)
	}
	if w := payloadWritten(mem); len(w) > 0 || mem.Files()["a"] != "old\n" {
		t.Fatalf("a foreign journal was acted on: %v written, a = %q", w, mem.Files()["a"])
	}
	// The person who made it (an older txedit did) adopts it: its own key
	// vouches for the transaction, which recovery then rolls back; the
	// key leaves the tree. Even so, recovery writes nothing under .git.
	rep, err := j.Adopt()
	if err != nil || len(rep.Trusted) != 1 || len(rep.Unfinished) != 1 || !rep.OlderKey {
		t.Fatalf("Adopt: %v %+v", err, rep)
	}
	if _, ok := mem.Files()[keyName]; ok {
		t.Error("the older key is still inside the journal")
	}
	reps, err := j.Recover()
	if err != nil || len(reps) != 1 || len(reps[0].Conflicts) != 1 || reps[0].Conflicts[0].Path != ".git/hooks/pre-commit" {
		t.Fatalf("Recover after adopt: %v %+v", err, reps)
	}
	if w := payloadWritten(mem); len(w) != 1 || w[0] != "setup.sh" {
		t.Errorf("after adopting and recovering: %v written", w)
	}
}

// TestRecoveryNeverWritesUnderGit: even a transaction of this user's own
// journal is never rolled back into .git (a hook, a config: code git
// runs); the file is reported and left as it is.
func TestRecoveryNeverWritesUnderGit(t *testing.T) {
	mem := memfs.New(map[string]string{"a": "old\n", ".git/HEAD": "ref\n"})
	signWith(t, mem, testKey)
	plantPending(t, mem, testKey)
	reps, err := New(mem, &Options{Sync: SyncNone}).Recover()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := mem.Files()[".git/hooks/pre-commit"]; ok {
		t.Fatalf("recovery wrote .git/hooks/pre-commit: %+v", reps)
	}
	if len(reps) != 1 || len(reps[0].Conflicts) != 1 || !strings.Contains(reps[0].Conflicts[0].Reason, ".git") {
		t.Errorf("reports: %+v", reps)
	}
	if mem.Files()["setup.sh"] != payload {
		t.Errorf("the rest of the transaction was not rolled back: %q", mem.Files())
	}
}

// TestCopiedJournalIsForeign: a journal is this user's only where it was
// made: a copy elsewhere (a tree copied with its journal, a journal
// planted from another) is foreign, and adopting it trusts what its own
// key vouches for.
func TestCopiedJournalIsForeign(t *testing.T) {
	keys := NewKeys(memfs.New(nil), "a test's store")
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.MkdirAll(a, 0o755)
	os.WriteFile(filepath.Join(a, "f"), []byte("one\n"), 0o644)
	fa, err := fsys.NewOS(a)
	if err != nil {
		t.Fatal(err)
	}
	defer fa.Close()
	if err := runTx(fa, &Options{Sync: SyncNone, Keys: keys}, workload{initial: map[string]string{"f": "one\n"}, change: map[string]*string{"f": s("two\n")}}); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", "-a", a, b).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	fb, err := fsys.NewOS(b)
	if err != nil {
		t.Fatal(err)
	}
	defer fb.Close()
	jb := New(fb, &Options{Sync: SyncNone, Keys: keys})
	st, err := jb.Status()
	if err != nil || st.Standing != Foreign || !strings.Contains(st.Reason, "copy") {
		t.Fatalf("the copy: %v %+v", err, st)
	}
	if _, err := jb.Lock(); !errors.Is(err, ErrForeign) {
		t.Errorf("Lock of the copy: %v", err)
	}
	if st, err := New(fa, &Options{Sync: SyncNone, Keys: keys}).Status(); err != nil || st.Standing != Trusted {
		t.Errorf("the original: %v %+v", err, st)
	}
	rep, err := jb.Adopt()
	if err != nil || len(rep.Trusted) != 1 {
		t.Fatalf("Adopt: %v %+v", err, rep)
	}
	ents, err := jb.List()
	if err != nil || len(ents) != 1 || ents[0].Manifest == nil {
		t.Errorf("after adopting, the copy's transaction: %v %+v", err, ents)
	}
	if st, err := New(fa, &Options{Sync: SyncNone, Keys: keys}).Status(); err != nil || st.Standing != Trusted {
		t.Errorf("the original after the copy was adopted: %v %+v", err, st)
	}
}

// TestLinkMadeDuringCommitIsNotSplit (finding 5): a file given a second
// hard link between the commit's identity check and the exchange was
// split from its other name (the other name kept the old version): the
// exchange's check of what it displaced ignored the link count. The
// commit now gives the file back and fails with conflict: both names keep
// the same, old, version.
func TestLinkMadeDuringCommitIsNotSplit(t *testing.T) {
	for _, backend := range []string{"memfs", "os"} {
		var inner fsys.FS
		var link func()
		var read func(string) string
		switch backend {
		case "memfs":
			mem := memfs.New(map[string]string{"f.txt": "old\n"})
			inner, link = mem, func() { mem.Link("f.txt", "g.txt") }
			read = func(n string) string { return mem.Files()[n] }
		default:
			dir := t.TempDir()
			os.WriteFile(dir+"/f.txt", []byte("old\n"), 0o644)
			o, err := fsys.NewOS(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer o.Close()
			inner, link = o, func() { os.Link(dir+"/f.txt", dir+"/g.txt") }
			read = func(n string) string { b, _ := os.ReadFile(dir + "/" + n); return string(b) }
		}
		err := runTx(&saveBeforeSwap{FS: inner, save: link}, &Options{Sync: SyncNone}, workload{
			initial: map[string]string{"f.txt": "old\n"}, change: map[string]*string{"f.txt": s("new\n")}})
		f, g := read("f.txt"), read("g.txt")
		if f != g {
			t.Errorf("%s: the two names were split: f.txt %q, g.txt %q (commit: %v)", backend, f, g, err)
		}
		var ce *fsys.ConflictError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), "hard link") {
			t.Errorf("%s: commit = %v, want a conflict naming the hard link", backend, err)
		}
	}
}
