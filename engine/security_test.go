package engine

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/txedit/txedit/apply/patch"
	"github.com/txedit/txedit/hash"
	"github.com/txedit/txedit/plan"
)

// The attacks of the second red-team audit (docs/testing.md), each reproduced
// first: a parent root's tools reaching a nested workspace's journal, and
// .git written below the top level or under a name the file system
// folds to .git. docs/design.md, "Threat model", says who may write what.

// nestedWorkspace makes dir/sub a workspace of its own with one committed
// transaction, so dir/sub/.txedit is a real journal, and returns the
// parent workspace.
func nestedWorkspace(t *testing.T, opts *Options) (*Workspace, string) {
	t.Helper()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"sub/f.txt": "one\n", "sub/.git/config": "[core]\n", "top.txt": "top\n"})
	inner := openWS(t, filepath.Join(dir, "sub"), nil)
	if res := run(t, inner, `{"command":"str_replace","path":"f.txt","old_str":"one","new_str":"two"}`); !res.Success {
		t.Fatalf("nested commit: %s", res.Error)
	}
	inner.Close()
	return openWS(t, dir, opts), dir
}

// journalFile returns the path, relative to dir, of a file inside the
// nested journal (a transaction's).
func journalFile(t *testing.T, dir string) string {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(dir, "sub/.txedit/txns"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if !strings.Contains(e.Name(), ".") {
			return "sub/.txedit/txns/" + e.Name() // its file (journal/layout.go)
		}
	}
	t.Fatal("no transaction in the nested journal")
	return ""
}

// journalNames are the names a path component may take on some file
// system and still be a journal (case folded, HFS+'s ignorable code
// points, NTFS's trailing dots and spaces).
var journalNames = []string{".txedit", ".TXEDIT", ".TxEdit", ".txedit\u200c", ".txedit.", ".txedit "}

func TestNestedJournalIsDenied(t *testing.T) {
	w, dir := nestedWorkspace(t, nil)
	manifest := journalFile(t, dir)
	before := readTree(t, filepath.Join(dir, "sub/.txedit"))
	// A symlink leading into it is the same journal.
	if err := os.Symlink("sub/.txedit", filepath.Join(dir, "jlink")); err != nil {
		t.Fatal(err)
	}
	paths := []string{manifest, "sub/.txedit/LOCK", "sub/.txedit/txns/forged/manifest", "jlink/LOCK"}
	for _, n := range journalNames {
		paths = append(paths, "sub/"+n+"/x", n+"/x", "a/b/"+n+"/c/d")
	}
	ctx := context.Background()
	for _, p := range paths {
		// Reads.
		rs, err := w.Read(ctx, &plan.ReadRequest{Mode: "Line", Path: p})
		if err == nil && len(rs) == 1 && rs[0].Success {
			t.Errorf("read %s succeeded", p)
		} else if err == nil && len(rs) == 1 && rs[0].Code != plan.CodeDenied {
			t.Errorf("read %s: code %s (%s), want denied", p, rs[0].Code, rs[0].Error)
		}
		// Writes of every kind, by JSON request.
		for _, js := range []string{
			`{"command":"create","path":%q,"file_text":"forged\n"}`,
			`{"command":"str_replace","path":%q,"old_str":"a","new_str":"b"}`,
			`{"command":"delete","path":%q}`,
			`{"fileEdits":[{"path":"top.txt","edits":[{"command":"copy","new_path":%q}]}]}`,
			`{"fileEdits":[{"path":"top.txt","edits":[{"command":"move","new_path":%q}]}]}`,
			`{"fileEdits":[{"path":%q,"edits":[{"command":"move","new_path":"stolen.txt"}]}]}`,
		} {
			req := strings.ReplaceAll(js, "%q", jsonString(p))
			if res := run(t, w, req); res.Success || res.Code != plan.CodeDenied && !anyFileCode(res, plan.CodeDenied) {
				t.Errorf("%s: success=%v code=%s %s", req, res.Success, res.Code, res.Error)
			}
		}
		// And by every patch format.
		for f, in := range map[patch.Format]string{
			patch.FormatApplyPatch: "*** Begin Patch\n*** Add File: " + p + "\n+forged\n*** End Patch\n",
			patch.FormatDiff:       "--- /dev/null\n+++ b/" + p + "\n@@ -0,0 +1 @@\n+forged\n",
			patch.FormatResponses:  `{"type":"create_file","path":` + jsonString(p) + `,"diff":"+forged\n"}`,
		} {
			req, _, err := patch.Compile(f, []byte(in))
			if err != nil {
				continue // refused by the parser: nothing was written
			}
			if res, _ := w.Apply(ctx, req); res.Success {
				t.Errorf("%s patch writing %s succeeded", f, p)
			}
		}
	}
	// Searches and listings never show it.
	g, err := w.Grep(ctx, &plan.GrepRequest{Pattern: "f.txt|forged|two", Path: ".", OutputMode: "files_with_matches"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range g.Files {
		if strings.Contains(f, ".txedit") {
			t.Errorf("grep found %s", f)
		}
	}
	gl, err := w.Glob(ctx, GlobOptions{Pattern: "**/*", Hidden: true, NoIgnore: true, Dirs: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range gl.Files {
		if strings.Contains(f, ".txedit") {
			t.Errorf("glob listed %s", f)
		}
	}
	ents, err := w.List(ctx, "sub", ListOptions{Depth: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.Contains(e.Path, ".txedit") {
			t.Errorf("list shows %s", e.Path)
		}
	}
	if _, err := w.Diff(ctx, manifest, "top.txt"); plan.CodeOf(err) != plan.CodeDenied {
		t.Errorf("diff of a journal file: %v", err)
	}
	// pattern_replace over the tree leaves the journal alone.
	res := run(t, w, `{"directory":".","file_pattern":"*","sed_pattern":"s/committed/COMMITTED/g","hidden":true,"no_ignore":true}`)
	if !res.Success {
		t.Logf("pattern_replace: %s", res.Error)
	}
	if after := readTree(t, filepath.Join(dir, "sub/.txedit")); treeString(after) != treeString(before) {
		t.Errorf("the nested journal changed:\n%s\nwas\n%s", treeString(after), treeString(before))
	}
}

// TestGitAtAnyDepthIsReadOnly: .git below the top level, and names a file
// system folds to .git, are refused for writes (AllowGit permits them).
func TestGitAtAnyDepthIsReadOnly(t *testing.T) {
	w, dir := nestedWorkspace(t, nil)
	for _, n := range []string{".git", ".GIT", ".Git", ".git\u200d", ".git.", ".git  "} {
		for _, p := range []string{"sub/" + n + "/hooks/pre-commit", n + "/hooks/pre-commit", "a/" + n + "/config"} {
			res := run(t, w, `{"command":"create","path":`+jsonString(p)+`,"file_text":"#!/bin/sh\nevil\n"}`)
			if res.Success || !anyFileCode(res, plan.CodeDenied) && res.Code != plan.CodeDenied {
				t.Errorf("create %s: success=%v %s %s", p, res.Success, res.Code, res.Error)
			}
			if _, err := os.Lstat(filepath.Join(dir, p)); err == nil {
				t.Errorf("%s was written", p)
			}
		}
	}
	// Reads of .git stay allowed (an agent may look at a repository).
	rs, err := w.Read(context.Background(), &plan.ReadRequest{Mode: "Line", Path: "sub/.git/config"})
	if err != nil || !rs[0].Success {
		t.Errorf("reading sub/.git/config: %v %+v", err, rs)
	}
	allowed := openWS(t, dir, &Options{AllowGit: true})
	if res := run(t, allowed, `{"command":"create","path":"sub/.git/hooks/x","file_text":"ok\n"}`); !res.Success {
		t.Errorf("AllowGit: %s", res.Error)
	}
}

// TestUndoHonoursDenyFlags: undo and redo go through the same policy as
// every write: a transaction touching a file the options now deny is not
// undone (nor previewed, for a file that may not be read), and show
// withholds a read-denied file's diff.
func TestUndoHonoursDenyFlags(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"secret.env": "KEY=1\n", "open.txt": "a\n"})
	w := openWS(t, dir, nil)
	if res := run(t, w, `{"fileEdits":[{"path":"secret.env","edits":[{"command":"str_replace","old_str":"KEY=1","new_str":"KEY=2"}]},{"path":"open.txt","edits":[{"command":"append","new_str":"b"}]}]}`); !res.Success {
		t.Fatal(res.Error)
	}
	w.Close()
	ctx := context.Background()
	for _, opts := range []*Options{{DenyWrite: []string{"*.env"}}, {DenyRead: []string{"*.env"}}} {
		d := openWS(t, dir, opts)
		for _, dry := range []bool{true, false} {
			res, _ := d.Undo(ctx, UndoOptions{DryRun: dry})
			if res.Success || res.Code != plan.CodeDenied {
				t.Errorf("%+v dry=%v: undo success=%v code=%s %s", opts, dry, res.Success, res.Code, res.Error)
			}
			if js, _ := json.Marshal(res); strings.Contains(string(js), "KEY=") {
				t.Errorf("%+v dry=%v: the denied file's content leaked: %s", opts, dry, js)
			}
		}
		_, diff, err := d.Show(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(opts.DenyRead) > 0 && strings.Contains(diff, "KEY=") {
			t.Errorf("show printed a read-denied file's diff:\n%s", diff)
		}
	}
	if got := readTree(t, dir)["secret.env"]; got != "KEY=2\n" {
		t.Errorf("secret.env was undone under a deny flag: %q", got)
	}
	// Without the flags the same undo goes through, and redo is checked
	// the same way.
	plain := openWS(t, dir, nil)
	if res, _ := plain.Undo(ctx, UndoOptions{}); !res.Success {
		t.Fatalf("undo: %s", res.Error)
	}
	denied := openWS(t, dir, &Options{DenyWrite: []string{"secret.env"}})
	if res, _ := denied.Undo(ctx, UndoOptions{Redo: true}); res.Success || res.Code != plan.CodeDenied {
		t.Errorf("redo under deny-write: success=%v %s %s", res.Success, res.Code, res.Error)
	}
}

func anyFileCode(res *plan.Result, code plan.Code) bool {
	for _, f := range res.Files {
		if f.Code == code {
			return true
		}
		for _, e := range f.FailedEdits {
			if e.Code == code {
				return true
			}
		}
	}
	return false
}

func jsonString(s string) string { b, _ := json.Marshal(s); return string(b) }

// transplant commits, in a workspace of the attacker's own, a delete of
// each file of evil (mode and content as given), and copies that
// transaction into dir's journal: a committed transaction whose undo
// would create those files. It is signed with the other journal's key.
// With unsigned, it is rewritten as an unsigned version-2 manifest with a
// valid checksum, as an older txedit wrote them.
func transplant(t *testing.T, dir string, evil map[string]os.FileMode, unsigned bool) string {
	t.Helper()
	src := t.TempDir()
	var req strings.Builder
	req.WriteString(`{"fileEdits":[`)
	i := 0
	for name, mode := range evil {
		p := filepath.Join(src, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("#!/bin/sh\necho pwned\n"), 0o644)
		os.Chmod(p, mode)
		if i > 0 {
			req.WriteString(",")
		}
		i++
		req.WriteString(`{"path":` + jsonString(name) + `,"edits":[{"command":"delete"}]}`)
	}
	req.WriteString(`]}`)
	w := openWS(t, src, &Options{AllowGit: true})
	res := run(t, w, req.String())
	if !res.Success {
		t.Fatalf("the attacker's own commit: %s", res.Error)
	}
	id := res.TransactionID
	from, to := filepath.Join(src, ".txedit/txns"), filepath.Join(dir, ".txedit/txns")
	copyFile := func(f string, b []byte) {
		t.Helper()
		if b == nil {
			var err error
			if b, err = os.ReadFile(filepath.Join(from, f)); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(to, f), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	copyFile(id+".prepared", nil)
	copyFile(id+".committed", nil)
	if !unsigned {
		copyFile(id, nil) // the transaction's file: manifest and pack
		return id
	}
	// An older txedit's layout: a directory with the manifest and the
	// pack (the records after the manifest's, journal/layout.go).
	whole, err := os.ReadFile(filepath.Join(from, id))
	if err != nil || len(whole) < 17 || whole[4] != 3 {
		t.Fatalf("transaction file: %v", err)
	}
	end := 17 + int(binary.LittleEndian.Uint64(whole[9:]))
	b := whole[17:end]
	body := string(b[:strings.Index(string(b), "\nmac ")])
	body = strings.Replace(body, `{"v":3,`, `{"v":2,`, 1)
	os.MkdirAll(filepath.Join(to, id), 0o700)
	copyFile(id+"/manifest", []byte(body+"\nsum "+hash.Of([]byte(body)).String()+"\n"))
	copyFile(id+"/pack", whole[end:])
	return id
}

// TestForgedTransactionIsRefused: the audit's forged nested transaction.
// A committed transaction planted in a journal (here copied from another
// journal, so it is well formed, with valid checksums and before-images)
// would have made a person's later txedit undo create a setuid file and
// a git hook. Undo, redo, recovery and show refuse what the journal's own
// commit did not write; nothing is created.
func TestForgedTransactionIsRefused(t *testing.T) {
	evil := map[string]os.FileMode{"evil": 0o755 | os.ModeSetuid, ".git/hooks/pre-commit": 0o755}
	for _, unsigned := range []bool{false, true} {
		dir := t.TempDir()
		writeTree(t, dir, map[string]string{"f.txt": "one\n", ".git/config": "[core]\n"})
		w := openWS(t, dir, nil)
		if res := run(t, w, `{"command":"str_replace","path":"f.txt","old_str":"one","new_str":"two"}`); !res.Success {
			t.Fatal(res.Error) // the journal has its key now
		}
		id := transplant(t, dir, evil, unsigned)
		ctx := context.Background()
		for _, uo := range []UndoOptions{{}, {ID: id}, {ID: id, Force: true}, {DryRun: true}} {
			res, _ := w.Undo(ctx, uo)
			if res.Success || res.Code != plan.CodeDenied || !strings.Contains(res.Error, "refused") {
				t.Errorf("unsigned=%v undo %+v: success=%v %s %s", unsigned, uo, res.Success, res.Code, res.Error)
			}
		}
		for name := range evil {
			if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
				t.Errorf("unsigned=%v: %s was created", unsigned, name)
			}
		}
		// Pending instead of committed: recovery leaves it alone and
		// reports it.
		os.Remove(filepath.Join(dir, ".txedit/txns", id+".committed"))
		reps, err := w.Recover(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(reps) != 1 || reps[0].ID != id || !strings.Contains(reps[0].Damaged, "cannot be verified") {
			t.Errorf("unsigned=%v recovery: %s", unsigned, mustJSON(reps))
		}
		if got := readTree(t, dir)["f.txt"]; got != "two\n" {
			t.Errorf("unsigned=%v: f.txt = %q", unsigned, got)
		}
	}
}

// TestStrayNamesDoNotWedge: names in the transactions directory that are
// not transaction ids made every write spin at 100% CPU holding the lock
// (newID looked for an id that sorts after "zzz"). They are ignored by
// writes and reported by recover.
func TestStrayNamesDoNotWedge(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"f.txt": "0\n"})
	w := openWS(t, dir, nil)
	run(t, w, `{"command":"create","path":"g.txt","file_text":"x\n"}`)
	txns := filepath.Join(dir, ".txedit/txns")
	for _, n := range []string{"notes", "README", "zzz", "zzz.committed", "99999999-999999-999999-ffff.tmp"} {
		os.WriteFile(filepath.Join(txns, n), []byte("x"), 0o644)
	}
	os.Mkdir(filepath.Join(txns, "zzz-dir"), 0o755)
	done := make(chan *plan.Result, 1)
	go func() {
		done <- run(t, w, `{"command":"str_replace","path":"f.txt","old_str":"0","new_str":"1"}`)
	}()
	select {
	case res := <-done:
		if !res.Success {
			t.Fatalf("commit beside stray names: %s", res.Error)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("a commit beside stray names did not finish in a minute (wedged)")
	}
	if res, _ := w.Undo(context.Background(), UndoOptions{}); !res.Success || readTree(t, dir)["f.txt"] != "0\n" {
		t.Fatalf("undo beside stray names: %s", res.Error)
	}
	reps, err := w.Recover(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(reps) != 1 || strings.Join(reps[0].Strays, ",") != "99999999-999999-999999-ffff.tmp,README,notes,zzz,zzz-dir,zzz.committed" {
		t.Errorf("recover's report: %s", mustJSON(reps))
	}
}

// TestDamagedJournalIsRepairedByRecover: a transactions directory that is
// a file, or a lock that is a directory, stops every write with an error
// that says what to do; recover puts it aside and writes go on.
func TestDamagedJournalIsRepairedByRecover(t *testing.T) {
	for _, what := range []string{"txns", "LOCK"} {
		dir := t.TempDir()
		writeTree(t, dir, map[string]string{"f.txt": "0\n"})
		w := openWS(t, dir, nil)
		run(t, w, `{"command":"create","path":"g.txt","file_text":"x\n"}`)
		p := filepath.Join(dir, ".txedit", what)
		os.RemoveAll(p)
		if what == "txns" {
			os.WriteFile(p, []byte("not a directory\n"), 0o644)
		} else {
			os.Mkdir(p, 0o755)
		}
		w2, err := Open(dir, nil)
		if err != nil {
			t.Fatalf("%s: Open: %v", what, err)
		}
		res := run(t, w2, `{"command":"str_replace","path":"f.txt","old_str":"0","new_str":"1"}`)
		if res.Success || !strings.Contains(res.Error, "run txedit recover") {
			t.Errorf("%s: write: success=%v %s", what, res.Success, res.Error)
		}
		reps, err := w2.Recover(context.Background())
		if err != nil || len(reps) == 0 || !strings.Contains(reps[0].Repaired, "moved aside") {
			t.Fatalf("%s: recover: %v %s", what, err, mustJSON(reps))
		}
		if res := run(t, w2, `{"command":"str_replace","path":"f.txt","old_str":"0","new_str":"1"}`); !res.Success {
			t.Errorf("%s: write after recover: %s", what, res.Error)
		}
		w2.Close()
	}
}

// TestUndoNeverAddsSetuid: a deleted setuid file comes back from undo
// without the bit (and the result says so); a setuid file edited keeps
// it, and keeps it through undo.
func TestUndoNeverAddsSetuid(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"suid": "a\n", "kept": "a\n"})
	for _, n := range []string{"suid", "kept"} {
		os.Chmod(filepath.Join(dir, n), 0o755|os.ModeSetuid)
	}
	w := openWS(t, dir, nil)
	if res := run(t, w, `{"fileEdits":[{"path":"suid","edits":[{"command":"delete"}]},{"path":"kept","edits":[{"command":"append","new_str":"b"}]}]}`); !res.Success {
		t.Fatal(res.Error)
	}
	if fi, _ := os.Stat(filepath.Join(dir, "kept")); fi.Mode()&os.ModeSetuid == 0 {
		t.Fatalf("an edit dropped setuid: %v", fi.Mode())
	}
	res, _ := w.Undo(context.Background(), UndoOptions{})
	if !res.Success {
		t.Fatal(res.Error)
	}
	if fi, err := os.Stat(filepath.Join(dir, "suid")); err != nil || fi.Mode() != 0o755 {
		t.Errorf("restored suid: %v %v, want -rwxr-xr-x", fi.Mode(), err)
	}
	if fi, _ := os.Stat(filepath.Join(dir, "kept")); fi.Mode() != 0o755|os.ModeSetuid {
		t.Errorf("kept: %v", fi.Mode())
	}
	if !strings.Contains(strings.Join(res.Warnings, "\n"), "undo never sets setuid") {
		t.Errorf("warnings: %q", res.Warnings)
	}
}

// TestTooLargeAtTheDoor (docs/testing.md, the reliability audit): a file over the size limit was
// created (exit 0) but could never be undone ("changed … too_large", with
// --force too). What a commit can write, undo can revert: the limit
// applies to what is written.
func TestTooLargeAtTheDoor(t *testing.T) {
	dir := t.TempDir()
	w := openWS(t, dir, &Options{MaxFileSize: 1 << 10})
	big := strings.Repeat("x", 2<<10)
	res := run(t, w, `{"command":"create","path":"big.txt","file_text":"`+big+`"}`)
	if res.Success || !anyFileCode(res, plan.CodeTooLarge) && res.Code != plan.CodeTooLarge {
		t.Fatalf("create over the limit: success=%v %s %s", res.Success, res.Code, res.Error)
	}
	if _, err := os.Lstat(filepath.Join(dir, "big.txt")); err == nil {
		t.Fatal("big.txt was written")
	}
	// Under the limit it commits and undoes.
	if res := run(t, w, `{"command":"create","path":"ok.txt","file_text":"`+big[:900]+`"}`); !res.Success {
		t.Fatal(res.Error)
	}
	if res, _ := w.Undo(context.Background(), UndoOptions{}); !res.Success {
		t.Fatalf("undo: %s", res.Error)
	}
}

// TestOptionsDir: with Dir, relative paths start in that directory (the
// command line's working directory below a workspace it found above);
// absolute paths and the root-relative results are as before.
func TestOptionsDir(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"sub/a.txt": "sub a\n", "a.txt": "top a\n"})
	w := openWS(t, dir, &Options{Dir: "sub"})
	if res := run(t, w, `{"command":"str_replace","path":"a.txt","old_str":"a","new_str":"A"}`); !res.Success {
		t.Fatal(res.Error)
	}
	if res := run(t, w, `{"command":"str_replace","path":"../a.txt","old_str":"top","new_str":"TOP"}`); !res.Success {
		t.Fatal(res.Error)
	}
	got := readTree(t, dir)
	if got["sub/a.txt"] != "sub A\n" || got["a.txt"] != "TOP a\n" {
		t.Errorf("tree: %s", treeString(got))
	}
	if res := run(t, w, `{"command":"create","path":"../../x","file_text":"x"}`); res.Success || res.Code != plan.CodeOutsideRoot && !anyFileCode(res, plan.CodeOutsideRoot) {
		t.Errorf("../../x from sub: %+v", res)
	}
	g, err := w.Grep(context.Background(), &plan.GrepRequest{Pattern: "A"})
	if err != nil || strings.Join(g.Files, ",") != "sub/a.txt" {
		t.Errorf("grep from sub: %v %v", err, g.Files)
	}
}
