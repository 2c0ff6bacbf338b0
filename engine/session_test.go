package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/txedit/txedit/plan"
)

func sessRun(t *testing.T, s *Session, js string) *plan.Result {
	t.Helper()
	res, _ := s.Apply(context.Background(), mustParse(t, js))
	return res
}

func sessRead(t *testing.T, s *Session, path string, lines ...int) *plan.ReadResult {
	t.Helper()
	req := &plan.ReadRequest{Mode: "Line", Path: path}
	if len(lines) == 2 {
		req.StartLine, req.EndLine = &lines[0], &lines[1]
	}
	rs, err := s.Read(context.Background(), req)
	if err != nil || !rs[0].Success {
		t.Fatalf("read %s: %v %+v", path, err, rs)
	}
	return rs[0]
}

const editA = `{"path":"a.txt","command":"str_replace","old_str":"two","new_str":"TWO"}`

// TestReadBeforeWrite: the read-before-write rule (docs/toolsets.md), case by case.
func TestReadBeforeWrite(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.txt": "one\ntwo\nthree\n", "b.txt": "b\n"})
	w := openWS(t, dir, nil)
	s := w.NewSession(SessionOptions{Agent: "alice"})

	// Unread: refused, nothing written.
	if res := sessRun(t, s, editA); res.Success || res.Code != plan.CodeNotRead || readTree(t, dir)["a.txt"] != "one\ntwo\nthree\n" {
		t.Fatalf("edit of an unread file: %+v", res)
	}
	// Creating a file needs no read; its own write counts as read.
	if res := sessRun(t, s, `{"path":"new.txt","command":"create","file_text":"x\n"}`); !res.Success {
		t.Fatalf("create: %+v", res)
	}
	if res := sessRun(t, s, `{"path":"new.txt","command":"append","new_str":"y"}`); !res.Success {
		t.Fatalf("edit after own create: %+v", res)
	}
	// Read, then write: allowed; and again after its own write.
	sessRead(t, s, "a.txt")
	if res := sessRun(t, s, editA); !res.Success {
		t.Fatalf("edit after read: %+v", res)
	}
	if res := sessRun(t, s, `{"path":"a.txt","command":"append","new_str":"four"}`); !res.Success {
		t.Fatalf("second edit after own write: %+v", res)
	}
	// A touch and an equal-bytes rewrite are no change (content, not mtime).
	later := time.Now().Add(time.Hour)
	os.Chtimes(filepath.Join(dir, "a.txt"), later, later)
	data, _ := os.ReadFile(filepath.Join(dir, "a.txt"))
	os.WriteFile(filepath.Join(dir, "a.txt"), data, 0o644)
	if res := sessRun(t, s, `{"path":"a.txt","command":"append","new_str":"five"}`); !res.Success {
		t.Fatalf("edit after a touch: %+v", res)
	}
	// Someone else changes the file: stale_hash, nothing written; a read
	// lets the write through.
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("changed\n"), 0o644)
	if res := sessRun(t, s, `{"path":"a.txt","command":"append","new_str":"six"}`); res.Success || res.Code != plan.CodeStaleHash || readTree(t, dir)["a.txt"] != "changed\n" {
		t.Fatalf("edit of a changed file: %+v", res)
	}
	sessRead(t, s, "a.txt")
	if res := sessRun(t, s, `{"path":"a.txt","command":"append","new_str":"six"}`); !res.Success {
		t.Fatalf("edit after re-read: %+v", res)
	}
	// An edit with its own content_hash is checked by it, not by the rule.
	other := w.NewSession(SessionOptions{Agent: "bob"})
	h := sessRead(t, s, "b.txt").ContentHash
	if res := sessRun(t, other, `{"fileEdits":[{"path":"b.txt","content_hash":"`+h+`","edits":[{"command":"append","new_str":"c"}]}]}`); !res.Success {
		t.Fatalf("hash-carrying edit by a session that never read: %+v", res)
	}
	// Delete and move of an unread file are writes too.
	if res := sessRun(t, other, `{"path":"a.txt","command":"delete"}`); res.Code != plan.CodeNotRead {
		t.Errorf("delete of an unread file: %+v", res)
	}
	// The rule can be turned off.
	free := w.NewSession(SessionOptions{Agent: "carol", NoReadCheck: true})
	if res := sessRun(t, free, `{"path":"a.txt","command":"append","new_str":"seven"}`); !res.Success {
		t.Errorf("NoReadCheck: %+v", res)
	}
}

// TestRangeReadLetsDisjointEditsThrough: a line window read covers line
// edits inside it while the rest of the file changes (docs/toolsets.md, "Read before write").
func TestRangeReadLetsDisjointEditsThrough(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"f.txt": "1\n2\n3\n4\n5\n6\n7\n8\n"})
	w := openWS(t, dir, nil)
	s := w.NewSession(SessionOptions{Agent: "a"})
	sessRead(t, s, "f.txt", 1, 3)
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte("1\n2\n3\n4\n5\n6\n7\nEIGHT\n"), 0o644)
	if res := sessRun(t, s, `{"path":"f.txt","command":"replace_lines","start_line":2,"end_line":2,"new_str":"two"}`); !res.Success {
		t.Fatalf("edit inside the read window: %+v", res)
	}
	if res := sessRun(t, s, `{"path":"f.txt","command":"str_replace","old_str":"7","new_str":"seven"}`); !res.Success {
		t.Fatalf("after its own write the session knows the whole file: %+v", res)
	}
	sessRead(t, s, "f.txt", 1, 2)
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte("1\ntwo\n3\n4\n5\n6\nseven\n8\n"), 0o644)
	// Outside the window, next to the change: refused, with the change.
	if res := sessRun(t, s, `{"path":"f.txt","command":"replace_lines","start_line":7,"end_line":7,"new_str":"SEVEN"}`); res.Code != plan.CodeStaleHash || res.Files[0].Delta == nil {
		t.Errorf("edit outside the read window of a changed file, next to the change: %+v", res)
	}
	// Outside the window and away from the change: the session knows
	// the version it wrote, so the edit is rebased (docs/design.md,
	// "Concurrency").
	res := sessRun(t, s, `{"path":"f.txt","command":"replace_lines","start_line":5,"end_line":5,"new_str":"five"}`)
	if !res.Success || res.Files[0].Delta == nil || !res.Files[0].Delta.Rebased || readTree(t, dir)["f.txt"] != "1\ntwo\n3\n4\nfive\n6\nseven\n8\n" {
		t.Errorf("edit outside the read window of a changed file, away from the change: %+v %q", res, readTree(t, dir)["f.txt"])
	}
}

// TestRacingSessions: two sessions read a file and write it at once,
// again and again: exactly one of each pair wins (the check is under the
// lock), and no write is lost.
func TestRacingSessions(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"c.txt": "start\n"})
	w := openWS(t, dir, nil)
	for round := 0; round < 20; round++ {
		a, b := w.NewSession(SessionOptions{Agent: "a"}), w.NewSession(SessionOptions{Agent: "b"})
		sessRead(t, a, "c.txt")
		sessRead(t, b, "c.txt")
		var wg sync.WaitGroup
		results := make([]*plan.Result, 2)
		for i, s := range []*Session{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i] = sessRun(t, s, `{"path":"c.txt","command":"append","new_str":"`+s.Agent()+`"}`)
			}()
		}
		wg.Wait()
		won := 0
		for _, r := range results {
			if r.Success {
				won++
			} else if r.Code != plan.CodeStaleHash {
				t.Fatalf("round %d: the loser failed with %s, want stale_hash: %+v", round, r.Code, r)
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d writers won, want exactly 1", round, won)
		}
	}
	lines := strings.Count(readTree(t, dir)["c.txt"], "\n")
	if lines != 21 {
		t.Errorf("c.txt has %d lines, want 21 (start + one winner per round)", lines)
	}
}

// TestBlindWriteReplans: a write that carries no hash of its own (and no
// session rule) is planned again on the current bytes when someone wrote
// the file between planning and the commit, not refused.
func TestBlindWriteReplans(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"n.txt": "one\ntwo\n"})
	w := openWS(t, dir, nil)
	defer func() { testHookBeforeCommit = nil }()
	testHookBeforeCommit = func() {
		testHookBeforeCommit = nil
		os.WriteFile(filepath.Join(dir, "n.txt"), []byte("zero\none\ntwo\n"), 0o644)
	}
	res := run(t, w, `{"path":"n.txt","command":"str_replace","old_str":"two","new_str":"TWO"}`)
	if !res.Success || readTree(t, dir)["n.txt"] != "zero\none\nTWO\n" {
		t.Fatalf("blind write under contention: %+v, file %q", res, readTree(t, dir)["n.txt"])
	}
	// A write with a whole-file hash is refused instead.
	h := sessRead(t, w.NewSession(SessionOptions{}), "n.txt").ContentHash
	testHookBeforeCommit = func() {
		testHookBeforeCommit = nil
		os.WriteFile(filepath.Join(dir, "n.txt"), []byte("other\n"), 0o644)
	}
	res = run(t, w, `{"fileEdits":[{"path":"n.txt","content_hash":"`+h+`","edits":[{"command":"append","new_str":"x"}]}]}`)
	if res.Success || res.Code != plan.CodeStaleHash || readTree(t, dir)["n.txt"] != "other\n" {
		t.Fatalf("hash-carrying write under contention: %+v", res)
	}
}

// TestAttribution: transactions record their agent and session; the log
// filters by agent; undo by agent reverts that agent's newest transaction
// and refuses when another agent changed its files since.
func TestAttribution(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	w := openWS(t, dir, &Options{Agent: "cli"})
	ctx := context.Background()
	alice := w.NewSession(SessionOptions{Agent: "alice", NoReadCheck: true})
	bob := w.NewSession(SessionOptions{Agent: "bob", NoReadCheck: true})
	sessRun(t, alice, `{"path":"a.txt","command":"append","new_str":"alice1"}`)
	sessRun(t, bob, `{"path":"b.txt","command":"append","new_str":"bob1"}`)
	sessRun(t, alice, `{"path":"b.txt","command":"append","new_str":"alice2"}`)
	run(t, w, `{"path":"a.txt","command":"append","new_str":"cli"}`)

	log, _ := w.Log(ctx, LogOptions{})
	if len(log) != 4 || log[0].Agent != "cli" || log[1].Agent != "alice" || log[1].Session != alice.ID() || log[2].Agent != "bob" {
		t.Fatalf("log: %+v", log)
	}
	if bobs, _ := w.Log(ctx, LogOptions{Agent: "bob"}); len(bobs) != 1 || bobs[0].Agent != "bob" {
		t.Errorf("log --agent bob: %+v", bobs)
	}
	// bob's newest (b.txt) was changed later by alice: refused.
	if res, _ := w.Undo(ctx, UndoOptions{Agent: "bob"}); res.Success || res.Code != plan.CodeConflict || !strings.Contains(res.Error, "alice") {
		t.Fatalf("undo --agent bob: %+v", res)
	}
	// alice's newest (b.txt append) is in effect and nobody changed b.txt
	// after her: undone, and only hers.
	if res, _ := w.Undo(ctx, UndoOptions{Agent: "alice"}); !res.Success {
		t.Fatalf("undo --agent alice: %+v", res)
	}
	if got := readTree(t, dir); got["b.txt"] != "b\nbob1\n" || got["a.txt"] != "a\nalice1\ncli\n" {
		t.Errorf("after undo of alice's newest: %v", got)
	}
	// Now bob's is undoable; force was not needed.
	if res, _ := w.Undo(ctx, UndoOptions{Agent: "bob"}); !res.Success || readTree(t, dir)["b.txt"] != "b\n" {
		t.Errorf("undo --agent bob after alice's was undone: %+v", res)
	}
	if res, _ := w.Undo(ctx, UndoOptions{Agent: "nobody"}); res.Success || res.Code != plan.CodeFileNotFound {
		t.Errorf("undo of an agent with nothing in effect: %+v", res)
	}
}

// TestBinaryReadCountsAsRead: a read refused because the file is binary
// still shows the session the file (its hash comes with the refusal), so
// the session may then delete or replace it; a change after that read is
// still caught.
func TestBinaryReadCountsAsRead(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.bin": "a\x00b", "b.bin": "b\x00c", "c.bin": "c\x00d"})
	w := openWS(t, dir, nil)
	s := w.NewSession(SessionOptions{Agent: "t"})
	ctx := context.Background()
	read := func(p string) {
		rs, err := s.Read(ctx, &plan.ReadRequest{Mode: "Line", Path: p})
		if err != nil || rs[0].Code != plan.CodeBinaryFile || rs[0].FileHash == "" {
			t.Fatalf("read %s: %v %+v", p, err, rs)
		}
	}
	if res := sessRun(t, s, `{"path":"a.bin","command":"delete"}`); res.Success || res.Code != plan.CodeNotRead {
		t.Fatalf("delete unread: %+v", res)
	}
	read("a.bin")
	if res := sessRun(t, s, `{"path":"a.bin","command":"delete"}`); !res.Success {
		t.Errorf("delete after a binary read: %+v", res)
	}
	read("b.bin")
	if res := sessRun(t, s, `{"path":"b.bin","command":"write","file_text":"text\n"}`); !res.Success {
		t.Errorf("replace after a binary read: %+v", res)
	}
	read("c.bin")
	os.WriteFile(filepath.Join(dir, "c.bin"), []byte("changed\x00"), 0o644)
	if res := sessRun(t, s, `{"path":"c.bin","command":"delete"}`); res.Success || res.Code != plan.CodeStaleHash {
		t.Errorf("delete after a change: %+v", res)
	}
}

// TestSessionCloseKeepsTheWorkspace: Session embeds its
// Workspace, so its Close was the workspace's and shut every other
// session's workspace with it. Now it ends the session only: what it read
// is forgotten (a write through it needs a read again), and the other
// sessions go on.
func TestSessionCloseKeepsTheWorkspace(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.txt": "a\n"})
	w := openWS(t, dir, nil)
	one, two := w.NewSession(SessionOptions{Agent: "one"}), w.NewSession(SessionOptions{Agent: "two"})
	ctx := context.Background()
	for _, s := range []*Session{one, two} {
		if rs, _ := s.Read(ctx, &plan.ReadRequest{Mode: "Line", Path: "a.txt"}); len(rs) != 1 || !rs[0].Success {
			t.Fatalf("read: %+v", rs)
		}
	}
	if err := one.Close(); err != nil {
		t.Fatal(err)
	}
	req := func(old, new string) *plan.Request {
		return &plan.Request{Edit: plan.Edit{Command: "str_replace", OldStr: &old, NewStr: &new}, Path: "a.txt"}
	}
	if res, _ := two.Apply(ctx, req("a", "b")); !res.Success {
		t.Fatalf("the other session after one closed: %+v", res)
	}
	if res, _ := one.Apply(ctx, req("b", "c")); res.Success || res.Code != plan.CodeNotRead {
		t.Fatalf("the closed session wrote without a read: %+v", res)
	}
	if got := readTree(t, dir)["a.txt"]; got != "b\n" {
		t.Fatalf("a.txt = %q", got)
	}
}
