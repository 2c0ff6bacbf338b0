package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/hash"
	"github.com/txedit/txedit/journal"
	"github.com/txedit/txedit/plan"
)

func lines(n int, format string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, format, i)
	}
	return b.String()
}

func strReplace(path, old, new string) *plan.Request {
	return &plan.Request{Path: path, Edit: plan.Edit{Command: "str_replace", OldStr: &old, NewStr: &new}}
}

func apply1(t *testing.T, s *Session, req *plan.Request) *plan.Result {
	t.Helper()
	res, _ := s.Apply(context.Background(), req)
	return res
}

// Two agents read one file, then edit lines far apart: the second edit is
// rebased on the first, says who made the change and what it was, and the
// session then counts the file as read in its new state.
func TestRebaseDisjointEdits(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"f.txt": lines(20, "line %d\n")})
	w := openWS(t, dir, nil)
	a, b := w.NewSession(SessionOptions{Agent: "alice"}), w.NewSession(SessionOptions{Agent: "bob"})
	sessRead(t, a, "f.txt")
	sessRead(t, b, "f.txt")
	ra := apply1(t, a, strReplace("f.txt", "line 3\n", "line three\n"))
	if !ra.Success || ra.Files[0].Delta != nil {
		t.Fatalf("first edit: %+v", ra)
	}
	rb := apply1(t, b, strReplace("f.txt", "line 15\n", "line fifteen\n"))
	if !rb.Success {
		t.Fatalf("second edit refused: %+v", rb.Files[0])
	}
	d := rb.Files[0].Delta
	if d == nil || !d.Rebased || len(d.By) != 1 || d.By[0].Agent != "alice" || d.By[0].Transaction != ra.TransactionID ||
		d.Diff != "@@ -3 +3 @@\n-line 3\n+line three\n" {
		t.Fatalf("delta %+v", d)
	}
	want := strings.Replace(strings.Replace(lines(20, "line %d\n"), "line 3\n", "line three\n", 1), "line 15\n", "line fifteen\n", 1)
	if got := readTree(t, dir)["f.txt"]; got != want {
		t.Fatalf("file %q, want %q", got, want)
	}
	// Bob's session counts the merged file as read: the next edit needs
	// no rebase.
	if r := apply1(t, b, strReplace("f.txt", "line 16\n", "line sixteen\n")); !r.Success || r.Files[0].Delta != nil {
		t.Fatalf("edit after the rebase: %+v", r.Files[0])
	}
	// And the journal has both agents' transactions, each undoable.
	if r := apply1(t, a, strReplace("f.txt", "line 5\n", "line five\n")); !r.Success || r.Files[0].Delta == nil || len(r.Files[0].Delta.By) != 2 {
		t.Fatalf("alice's edit after two of bob's: %+v", r.Files[0].Delta)
	}
}

// overlapRefusedUsefully: alice and bob read f.txt, alice changes line
// 10, and bob's edit of the same line (shaped by shape, with DeltaShown)
// is refused with the region and the change; his retry from the region
// lands. It returns the tree, the workspace and the two sessions.
func overlapRefusedUsefully(t *testing.T, shape func(*plan.Request) *plan.Request) (string, *Workspace, *Session, *Session) {
	t.Helper()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"f.txt": lines(20, "line %d\n")})
	w := openWS(t, dir, nil)
	a, b := w.NewSession(SessionOptions{Agent: "alice"}), w.NewSession(SessionOptions{Agent: "bob"})
	sessRead(t, a, "f.txt")
	sessRead(t, b, "f.txt")
	if r := apply1(t, a, strReplace("f.txt", "line 10\n", "line ten\n")); !r.Success {
		t.Fatalf("alice: %+v", r)
	}
	req := shape(strReplace("f.txt", "line 10\n", "line TEN\n"))
	req.DeltaShown = true
	r := apply1(t, b, req)
	if r.Success || r.Code != plan.CodeStaleHash {
		t.Fatalf("bob over alice's line: %+v", r)
	}
	d := r.Files[0].Delta
	if d == nil || d.Rebased || d.Region == nil || d.Region.Start != 9 || d.Region.End != 11 ||
		strings.Join(d.Region.Lines, "|") != "line 9|line ten|line 11" || d.Diff != "@@ -10 +10 @@\n-line 10\n+line ten\n" || d.Why == "" {
		t.Fatalf("refusal's delta %+v", d)
	}
	if tok, err := hash.ParseToken(d.Region.Token); err != nil || !tok.Check([]byte(readTree(t, dir)["f.txt"])) {
		t.Fatalf("region token %q does not check: %v", d.Region.Token, err)
	}
	if got := readTree(t, dir)["f.txt"]; strings.Contains(got, "TEN") {
		t.Fatalf("the refusal wrote: %q", got)
	}
	if r := apply1(t, b, shape(strReplace("f.txt", "line ten\n", "line TEN\n"))); !r.Success || r.Files[0].Delta != nil {
		t.Fatalf("retry from the region shown: %+v", r.Files[0])
	}
	return dir, w, a, b
}

// The same line: refused, and the refusal carries the region's current
// text and the change; a caller that shows it lets the session count the
// current version as read, so the retry made from the region lands.
func TestRebaseOverlapRefusedUsefully(t *testing.T) {
	_, w, a, b := overlapRefusedUsefully(t, func(r *plan.Request) *plan.Request { return r })
	// Without DeltaShown the session's read stays what it was.
	c := w.NewSession(SessionOptions{Agent: "carol"})
	sessRead(t, c, "f.txt")
	apply1(t, a, &plan.Request{Path: "f.txt", Edit: plan.Edit{Command: "append", NewStr: ptr("tail")}})
	sessRead(t, a, "f.txt")
	apply1(t, b, &plan.Request{Path: "f.txt", Edit: plan.Edit{Command: "append", NewStr: ptr("more")}})
	if r := apply1(t, c, &plan.Request{Path: "f.txt", Edit: plan.Edit{Command: "append", NewStr: ptr("x")}}); r.Code != plan.CodeStaleHash {
		t.Fatalf("append after two appends: %+v", r)
	}
	if r := apply1(t, c, &plan.Request{Path: "f.txt", Edit: plan.Edit{Command: "append", NewStr: ptr("x")}}); r.Code != plan.CodeStaleHash {
		t.Fatalf("retry without reading: %+v", r)
	}
}

func ptr(s string) *string { return &s }

// A change made outside txedit: the base is the session's memory of what
// it read (the journal has no record of the new version).
func TestRebaseOutsideWriter(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"f.txt": lines(12, "line %d\n")})
	w := openWS(t, dir, nil)
	s := w.NewSession(SessionOptions{Agent: "alice"})
	sessRead(t, s, "f.txt")
	changed := strings.Replace(lines(12, "line %d\n"), "line 1\n", "line 1 (formatted)\n", 1)
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte(changed), 0o644)
	r := apply1(t, s, strReplace("f.txt", "line 9\n", "line nine\n"))
	if !r.Success || r.Files[0].Delta == nil || len(r.Files[0].Delta.By) != 1 || !r.Files[0].Delta.By[0].Outside {
		t.Fatalf("rebase over an outside change: %+v", r.Files[0].Delta)
	}
	if got := readTree(t, dir)["f.txt"]; got != strings.Replace(changed, "line 9\n", "line nine\n", 1) {
		t.Fatalf("file %q", got)
	}
	// The session's own write is kept too: a second outside change
	// rebases on it.
	now := readTree(t, dir)["f.txt"]
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte(now+"appended outside\n"), 0o644)
	if r := apply1(t, s, strReplace("f.txt", "line 4\n", "line four\n")); !r.Success || r.Files[0].Delta == nil {
		t.Fatalf("rebase on the session's own write: %+v", r.Files[0])
	}

	// Without the memory (RebaseMemory < 0) only the journal knows old
	// versions: an outside change is refused as before, with no delta.
	dir2 := t.TempDir()
	writeTree(t, dir2, map[string]string{"f.txt": lines(12, "line %d\n")})
	w2 := openWS(t, dir2, &Options{RebaseMemory: -1})
	s2 := w2.NewSession(SessionOptions{Agent: "alice"})
	sessRead(t, s2, "f.txt")
	os.WriteFile(filepath.Join(dir2, "f.txt"), []byte(changed), 0o644)
	if r := apply1(t, s2, strReplace("f.txt", "line 9\n", "line nine\n")); r.Success || r.Code != plan.CodeStaleHash || r.Files[0].Delta != nil {
		t.Fatalf("outside change, base unknown: %+v", r.Files[0])
	}
	// But a change another session made through txedit is in the
	// journal: its before-image is the base.
	b2 := w2.NewSession(SessionOptions{Agent: "bob"})
	sessRead(t, s2, "f.txt")
	sessRead(t, b2, "f.txt")
	if r := apply1(t, b2, strReplace("f.txt", "line 2\n", "line two\n")); !r.Success {
		t.Fatalf("bob: %+v", r)
	}
	if r := apply1(t, s2, strReplace("f.txt", "line 9\n", "line nine\n")); !r.Success || r.Files[0].Delta == nil || r.Files[0].Delta.By[0].Agent != "bob" {
		t.Fatalf("rebase from the journal's before-image: %+v", r.Files[0])
	}
}

// A rename by another agent: the edit of the old name says where the file
// went; an edit of the new name counts the read of the old one, and is
// rebased over changes made since.
func TestRebaseAfterRename(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"old.txt": lines(12, "line %d\n")})
	w := openWS(t, dir, nil)
	a, b := w.NewSession(SessionOptions{Agent: "alice"}), w.NewSession(SessionOptions{Agent: "bob"})
	sessRead(t, a, "old.txt")
	sessRead(t, b, "old.txt")
	mv := apply1(t, b, &plan.Request{Path: "old.txt", Edit: plan.Edit{Command: "move", NewPath: "new.txt"}})
	if !mv.Success {
		t.Fatalf("move: %+v", mv)
	}
	r := apply1(t, a, strReplace("old.txt", "line 9\n", "line nine\n"))
	if r.Success || r.Code != plan.CodeFileNotFound || !strings.Contains(r.Error, "moved to new.txt by bob") {
		t.Fatalf("edit of the old name: %+v", r)
	}
	if r := apply1(t, b, strReplace("new.txt", "line 1\n", "line one\n")); !r.Success {
		t.Fatalf("bob edits the moved file: %+v", r)
	}
	r = apply1(t, a, strReplace("new.txt", "line 9\n", "line nine\n"))
	if !r.Success || r.Files[0].Delta == nil || r.Files[0].Delta.From != "old.txt" || len(r.Files[0].Delta.By) != 2 {
		t.Fatalf("edit of the new name: %+v %+v", r, r.Files[0].Delta)
	}
	want := strings.Replace(strings.Replace(lines(12, "line %d\n"), "line 1\n", "line one\n", 1), "line 9\n", "line nine\n", 1)
	if got := readTree(t, dir); got["new.txt"] != want || got["old.txt"] != "" {
		t.Fatalf("tree %v", got)
	}
	// A file the session never read under any name stays not_read.
	writeTree(t, dir, map[string]string{"other.txt": "x\n"})
	if r := apply1(t, a, strReplace("other.txt", "x", "y")); r.Code != plan.CodeNotRead {
		t.Fatalf("unread file: %+v", r)
	}
}

// A content_hash the caller sends is a compare-and-swap: a mismatch is
// stale_hash, unless the request opts in to the rebase.
func TestRebaseExplicitHash(t *testing.T) {
	dir := t.TempDir()
	orig := lines(12, "line %d\n")
	writeTree(t, dir, map[string]string{"f.txt": orig})
	w := openWS(t, dir, nil)
	other := w.NewSession(SessionOptions{Agent: "bob"})
	sessRead(t, other, "f.txt")
	if r := apply1(t, other, strReplace("f.txt", "line 2\n", "line two\n")); !r.Success {
		t.Fatalf("bob: %+v", r)
	}
	old := hash.Of([]byte(orig)).String()
	js := `{"fileEdits":[{"path":"f.txt","content_hash":"` + old + `","edits":[{"command":"str_replace","old_str":"line 9","new_str":"line nine"}]}]%s}`
	if r := run(t, w, fmt.Sprintf(js, "")); r.Success || r.Code != plan.CodeStaleHash || r.Files[0].Delta != nil {
		t.Fatalf("stale content_hash without rebase: %+v", r)
	}
	r := run(t, w, fmt.Sprintf(js, `,"rebase":true`))
	if !r.Success || r.Files[0].Delta == nil || !r.Files[0].Delta.Rebased || r.Files[0].Delta.By[0].Agent != "bob" {
		t.Fatalf("stale content_hash with rebase: %+v", r)
	}
	if got := readTree(t, dir)["f.txt"]; got != strings.Replace(strings.Replace(orig, "line 2\n", "line two\n", 1), "line 9\n", "line nine\n", 1) {
		t.Fatalf("file %q", got)
	}
	// rebase with a hash no one knows the version of: stale as before.
	js2 := `{"fileEdits":[{"path":"f.txt","content_hash":"0123456789abcdef","edits":[{"command":"str_replace","old_str":"line 9","new_str":"x"}]}],"rebase":true}`
	if r := run(t, w, js2); r.Code != plan.CodeStaleHash {
		t.Fatalf("unknown version: %+v", r)
	}
	// Over the same line: refused with the change.
	js3 := `{"fileEdits":[{"path":"f.txt","content_hash":"` + old + `","edits":[{"command":"str_replace","old_str":"line 2\n","new_str":"line 2!\n"}]}],"rebase":true}`
	if r := run(t, w, js3); r.Code != plan.CodeStaleHash || r.Files[0].Delta == nil || r.Files[0].Delta.Region == nil {
		t.Fatalf("rebase over the same line: %+v", r)
	}
}

// A whole-file write over a stale read is always refused, with the delta;
// a create computed by its Rewrite is an edit and is rebased.
func TestRebaseWholeFileAndRewrite(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"f.txt": lines(12, "line %d\n")})
	w := openWS(t, dir, nil)
	a, b := w.NewSession(SessionOptions{Agent: "alice"}), w.NewSession(SessionOptions{Agent: "bob"})
	sessRead(t, a, "f.txt")
	sessRead(t, b, "f.txt")
	apply1(t, a, strReplace("f.txt", "line 1\n", "line one\n"))
	text := lines(12, "line %d\n") + "mine\n"
	r := apply1(t, b, &plan.Request{Path: "f.txt", Edit: plan.Edit{Command: "create", FileText: &text}})
	if r.Success || r.Code != plan.CodeStaleHash || r.Files[0].Delta == nil || !strings.Contains(r.Files[0].Delta.Why, "whole file") {
		t.Fatalf("whole-file write over a stale read: %+v", r.Files[0])
	}
	calls := 0
	var mu sync.Mutex
	rw := func(cur []byte) (string, error) {
		mu.Lock()
		calls++
		mu.Unlock()
		s := string(cur)
		if strings.Count(s, "line 10\n") != 1 {
			return "", plan.Errorf(plan.CodeNotFound, "f.txt", "line 10 not found once")
		}
		return strings.Replace(s, "line 10\n", "line ten\n", 1), nil
	}
	r = apply1(t, b, &plan.Request{Path: "f.txt", Edit: plan.Edit{Command: "create", Rewrite: rw}})
	if !r.Success || r.Files[0].Delta == nil || !r.Files[0].Delta.Rebased || calls < 2 {
		t.Fatalf("rewrite over a stale read: %+v (calls %d)", r.Files[0], calls)
	}
	if got := readTree(t, dir)["f.txt"]; got != strings.Replace(strings.Replace(lines(12, "line %d\n"), "line 1\n", "line one\n", 1), "line 10\n", "line ten\n", 1) {
		t.Fatalf("file %q", got)
	}
	// A rewrite that fails fails the edit with its own code.
	bad := func([]byte) (string, error) { return "", plan.Errorf(plan.CodeNotFound, "f.txt", "nope") }
	if r := apply1(t, b, &plan.Request{Path: "f.txt", Edit: plan.Edit{Command: "create", Rewrite: bad}}); r.Success || r.Code != plan.CodeNotFound {
		t.Fatalf("failing rewrite: %+v", r)
	}
	if _, err := plan.Compile(&plan.Request{Path: "f.txt", Edit: plan.Edit{Command: "write", Rewrite: rw}}); err == nil {
		if p, _ := plan.Compile(&plan.Request{Path: "f.txt", Edit: plan.Edit{Command: "write", Rewrite: rw}}); len(p.Files[0].Invalid) == 0 {
			t.Fatal("a rewrite with write compiled")
		}
	}
	var pe *plan.Error
	if errors.As(nil, &pe) {
		t.Fatal()
	}
}

// Sessions editing one file at once, each its own lines, never re-reading:
// every edit lands (rebased on the others'), none is lost, and the file
// ends with every session's last edit. Run with -race.
func TestRebaseConcurrentSessions(t *testing.T) {
	const agents, edits = 6, 12
	dir := t.TempDir()
	var orig strings.Builder
	for a := 0; a < agents; a++ {
		fmt.Fprintf(&orig, "func f%d() {\n\tv := 0\n}\n\n", a)
	}
	writeTree(t, dir, map[string]string{"f.go": orig.String()})
	w := openWS(t, dir, nil)
	var wg sync.WaitGroup
	errs := make(chan error, agents*edits)
	for a := 0; a < agents; a++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := w.NewSession(SessionOptions{Agent: fmt.Sprintf("agent%d", a)})
			sessRead(t, s, "f.go")
			for i := 0; i < edits; i++ {
				old := fmt.Sprintf("func f%d() {\n\tv := %d\n", a, i)
				new := fmt.Sprintf("func f%d() {\n\tv := %d\n", a, i+1)
				res := apply1(t, s, strReplace("f.go", old, new))
				if !res.Success {
					errs <- fmt.Errorf("agent %d edit %d: %s: %s", a, i, res.Code, res.Error)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	got := readTree(t, dir)["f.go"]
	for a := 0; a < agents; a++ {
		if !strings.Contains(got, fmt.Sprintf("func f%d() {\n\tv := %d\n}", a, edits)) {
			t.Errorf("agent %d's last edit is missing:\n%s", a, got)
		}
	}
}

// Sessions all editing one line at once: each edit lands or is refused
// with the line's current text; a retry made from it lands. No update is
// lost: the line ends with as many marks as edits landed.
func TestRebaseConcurrentSameLine(t *testing.T) {
	const agents, edits = 4, 8
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"f.txt": "head\n\nshared:\n\ntail\n"})
	w := openWS(t, dir, nil)
	var wg sync.WaitGroup
	var mu sync.Mutex
	landed, refusals := 0, 0
	for a := 0; a < agents; a++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := w.NewSession(SessionOptions{Agent: fmt.Sprintf("agent%d", a)})
			line := ""
			for _, l := range strings.Split(sessRead(t, s, "f.txt").Content, "\n") {
				if strings.HasPrefix(l, "shared:") {
					line = l
				}
			}
			for i := 0; i < edits; {
				mark := fmt.Sprintf(" a%di%d", a, i)
				req := strReplace("f.txt", line+"\n", line+mark+"\n")
				req.DeltaShown = true
				res := apply1(t, s, req)
				if res.Success {
					line += mark
					i++
					mu.Lock()
					landed++
					mu.Unlock()
					continue
				}
				d := res.Files[0].Delta
				if res.Code != plan.CodeStaleHash || d == nil || d.Region == nil {
					t.Errorf("agent %d: refusal without the region: %s %+v", a, res.Code, res.Files[0])
					return
				}
				mu.Lock()
				refusals++
				mu.Unlock()
				line = ""
				for _, l := range d.Region.Lines {
					if strings.HasPrefix(l, "shared:") {
						line = l
					}
				}
				if line == "" {
					t.Errorf("agent %d: the region %+v does not show the line", a, d.Region)
					return
				}
			}
		}()
	}
	wg.Wait()
	got := readTree(t, dir)["f.txt"]
	if n := strings.Count(got, " a"); landed != agents*edits || n != landed {
		t.Fatalf("%d landed, %d marks in the file (%d refusals):\n%s", landed, n, refusals, got)
	}
}

// The memory of what sessions read is bounded per session and in all,
// the least recently used going first.
func TestBaseCacheBounds(t *testing.T) {
	c := newBaseCache(400) // 100 per session, files up to 100
	put := func(s, rel string, n int) { c.put(s, rel, hash.Sum(n), make([]byte, n)) }
	put("a", "x", 60)
	put("a", "y", 30)
	if tot, a := c.size("a"); tot != 90 || a != 90 {
		t.Fatalf("sizes %d %d", tot, a)
	}
	put("a", "z", 40) // a is over its 100: its oldest (x) goes
	if _, ok := c.get("a", "x", hash.Sum(60)); ok {
		t.Fatal("x kept past the session's bound")
	}
	if _, ok := c.get("a", "y", hash.Sum(30)); !ok {
		t.Fatal("y evicted")
	}
	put("a", "big", 101) // over the file bound: not kept
	if _, ok := c.get("a", "big", hash.Sum(101)); ok {
		t.Fatal("a file over the bound was kept")
	}
	for _, s := range []string{"b", "c", "d", "e"} {
		put(s, "x", 90)
	}
	if tot, _ := c.size(""); tot > 400 {
		t.Fatalf("total %d over the bound", tot)
	}
	// y was used after z was put: z is the least recently used.
	if _, ok := c.get("a", "z", hash.Sum(40)); ok {
		t.Fatal("the least recently used entry survived the workspace bound")
	}
	if _, ok := c.get("a", "y", hash.Sum(30)); !ok {
		t.Fatal("a recently used entry was evicted")
	}
	c.forget("e", "")
	if _, e := c.size("e"); e != 0 {
		t.Fatalf("forgotten session keeps %d", e)
	}
	if _, ok := c.get("d", "x", hash.Sum(1)); ok {
		t.Fatal("another version's bytes returned")
	}
}

// A change too large to show whole: the refusal shows the lines the edit
// concerns and names the rest to read again; the session counts only the
// region shown, so a retry made from it lands, and an edit elsewhere made
// from the old read is still refused.
func TestRebaseCappedDelta(t *testing.T) {
	dir := t.TempDir()
	orig := lines(400, "line %d of the file, long enough to make the change large\n")
	writeTree(t, dir, map[string]string{"f.txt": orig})
	w := openWS(t, dir, nil)
	s := w.NewSession(SessionOptions{Agent: "alice"})
	sessRead(t, s, "f.txt")
	// Someone outside reformats every line.
	changed := strings.ReplaceAll(orig, "of the file", "OF THE FILE")
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte(changed), 0o644)
	req := strReplace("f.txt", "line 200 of the file", "line 200 edited")
	req.DeltaShown = true
	r := apply1(t, s, req)
	d := r.Files[0].Delta
	if r.Code != plan.CodeStaleHash || d == nil || len(d.Reread) == 0 || d.Region == nil || len(d.Diff) > refusalDiffMax {
		t.Fatalf("refusal over a large change: %+v %+v", r, d)
	}
	if d.Region.Start > 200 || d.Region.End < 200 || !strings.Contains(strings.Join(d.Region.Lines, "\n"), "line 200 OF THE FILE") {
		t.Fatalf("region %+v does not show line 200", d.Region)
	}
	// Elsewhere, from the old read: still refused.
	if r := apply1(t, s, strReplace("f.txt", "line 20 of the file", "x")); r.Code != plan.CodeStaleHash {
		t.Fatalf("edit outside the region shown: %+v", r.Files[0])
	}
	// The line changes again before the retry: the retry, made from the
	// region shown, is refused with the region as it is now (computed
	// from the version shown: the edit is not in the version read).
	again := strings.Replace(changed, "line 200 OF THE FILE", "line 200 OF THE FILE (again)", 1)
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte(again), 0o644)
	retry := strReplace("f.txt", "line 200 OF THE FILE, long", "line 200 edited, long")
	retry.DeltaShown = true
	r = apply1(t, s, retry)
	if d := r.Files[0].Delta; r.Code != plan.CodeStaleHash || d == nil || d.Region == nil || !strings.Contains(strings.Join(d.Region.Lines, "\n"), "(again)") || len(d.Reread) > 0 {
		t.Fatalf("retry over a second change: %+v %+v", r.Files[0], d)
	}
	// From the region shown last: lands.
	if r := apply1(t, s, strReplace("f.txt", "line 200 OF THE FILE (again)", "line 200 edited")); !r.Success {
		t.Fatalf("retry from the region shown: %+v", r.Files[0])
	}
	if got := readTree(t, dir)["f.txt"]; got != strings.Replace(again, "line 200 OF THE FILE (again)", "line 200 edited", 1) {
		t.Fatal("file differs")
	}
	// The session's view outside the region is still the old read: an
	// edit elsewhere made from it is refused, not applied.
	if r := apply1(t, s, strReplace("f.txt", "line 30 of the file", "x")); r.Success {
		t.Fatalf("edit from the old read after the region's retries: %+v", r.Files[0])
	}
}

// saveAtSwapFS makes one outside save (write a temporary file, rename it
// over) of target just before the commit swaps its staged file in: the
// save lands between the check under the lock and the swap, and the
// commit sees it (conflict, nothing written).
type saveAtSwapFS struct {
	fsys.FS
	target string
	data   []byte
	done   *atomic.Bool
}

func (v *saveAtSwapFS) View() (fsys.FS, func()) {
	inner, release := v.FS.View()
	return &saveAtSwapFS{inner, v.target, v.data, v.done}, release
}

func (v *saveAtSwapFS) save(to string) {
	if to == v.target && v.done.CompareAndSwap(false, true) {
		f, _ := v.FS.Create("outside.tmp", 0o644)
		f.Write(v.data)
		f.Close()
		v.FS.Rename("outside.tmp", v.target)
	}
}

func (v *saveAtSwapFS) Rename(from, to string) error {
	if journal.IsTemp(path.Base(from)) {
		v.save(to)
	}
	return v.FS.Rename(from, to)
}

func (v *saveAtSwapFS) Exchange(a, b string) error {
	if journal.IsTemp(path.Base(a)) {
		v.save(b)
	}
	return v.FS.Exchange(a, b)
}

// A session's commit that an outside save interrupts at the swap is tried
// again, rebased on the save: both land. A file found empty that the
// session read with content (a save in place between its truncation and
// its write) is tried again too.
func TestSessionRetriesAfterOutsideSave(t *testing.T) {
	dir := t.TempDir()
	orig := lines(12, "line %d\n")
	writeTree(t, dir, map[string]string{"f.txt": orig})
	inner, err := fsys.NewOS(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer inner.Close()
	saved := strings.Replace(orig, "line 1\n", "line 1 (saved outside)\n", 1)
	var done atomic.Bool
	w := openWS(t, dir, &Options{FS: &saveAtSwapFS{inner, "f.txt", []byte(saved), &done}})
	s := w.NewSession(SessionOptions{Agent: "alice"})
	sessRead(t, s, "f.txt")
	tries := 0
	testHookRetry = func(int) { tries++ }
	defer func() { testHookRetry = nil }()
	r := apply1(t, s, strReplace("f.txt", "line 9\n", "line nine\n"))
	if !r.Success || !done.Load() || tries != 1 || r.Files[0].Delta == nil || !r.Files[0].Delta.By[0].Outside {
		t.Fatalf("edit across an outside save at the swap: %+v (saved %v, tries %d)", r, done.Load(), tries)
	}
	if got := readTree(t, dir)["f.txt"]; got != strings.Replace(saved, "line 9\n", "line nine\n", 1) {
		t.Fatalf("file %q", got)
	}
	// Emptied meanwhile: tried again once the save has written.
	now := readTree(t, dir)["f.txt"]
	os.WriteFile(filepath.Join(dir, "f.txt"), nil, 0o644)
	full := now + "appended by the save\n"
	tries = 0
	testHookRetry = func(int) {
		if tries++; tries == 1 {
			os.WriteFile(filepath.Join(dir, "f.txt"), []byte(full), 0o644)
		}
	}
	r = apply1(t, s, strReplace("f.txt", "line 5\n", "line five\n"))
	if !r.Success || tries != 1 {
		t.Fatalf("edit of a file emptied by a save in place: %+v (tries %d)", r.Files[0], tries)
	}
	if got := readTree(t, dir)["f.txt"]; got != strings.Replace(full, "line 5\n", "line five\n", 1) {
		t.Fatalf("file %q", got)
	}
}

// Who changed the file, as far as the journal accounts for it: an agent's
// transaction after an outside change is named; one before an outside
// change is not (it may predate the version read), and "outside" stands
// for both.
func TestRebaseNamesWhoTheJournalProves(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"f.txt": lines(20, "line %d\n")})
	w := openWS(t, dir, nil)
	a, b := w.NewSession(SessionOptions{Agent: "alice"}), w.NewSession(SessionOptions{Agent: "bob"})
	sessRead(t, a, "f.txt")
	// Outside, then bob.
	outside := func(old, new string) {
		p := filepath.Join(dir, "f.txt")
		data, _ := os.ReadFile(p)
		os.WriteFile(p, []byte(strings.Replace(string(data), old, new, 1)), 0o644)
	}
	outside("line 1\n", "line one\n")
	sessRead(t, b, "f.txt")
	rb := apply1(t, b, strReplace("f.txt", "line 5\n", "line five\n"))
	r := apply1(t, a, strReplace("f.txt", "line 15\n", "line fifteen\n"))
	if d := r.Files[0].Delta; !r.Success || d == nil || len(d.By) != 2 || !d.By[0].Outside || d.By[1].Agent != "bob" || d.By[1].Transaction != rb.TransactionID {
		t.Fatalf("outside then bob: %+v", r.Files[0].Delta)
	}
	// Bob, then outside: only the outside change is proven after alice's
	// version (her own write).
	sessRead(t, b, "f.txt")
	apply1(t, b, strReplace("f.txt", "line 8\n", "line eight\n"))
	outside("line 2\n", "line two\n")
	r = apply1(t, a, strReplace("f.txt", "line 18\n", "line eighteen\n"))
	if d := r.Files[0].Delta; !r.Success || d == nil || len(d.By) != 1 || !d.By[0].Outside || !strings.Contains(d.Diff, "+line eight") || !strings.Contains(d.Diff, "+line two") {
		t.Fatalf("bob then outside: %+v", r.Files[0].Delta)
	}
}
