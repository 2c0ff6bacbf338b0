package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/hash"
	"github.com/txedit/txedit/internal/swapsave"
	"github.com/txedit/txedit/plan"
)

// A file found empty at two tries in a row (an outside save in place that
// takes longer than the first pause to write): the first try's refusal,
// which the agent never sees, must not count the empty file as read, or
// the second try passes the read check on the empty file and fails there
// ("old_string not found") with no change to show. Once the save has
// written, the edit is rebased on it (docs/design.md, "Concurrency").
func TestSessionEmptiedAtTwoTries(t *testing.T) {
	dir := t.TempDir()
	orig := lines(12, "line %d\n")
	writeTree(t, dir, map[string]string{"f.txt": orig})
	w := openWS(t, dir, nil)
	s := w.NewSession(SessionOptions{Agent: "alice"})
	sessRead(t, s, "f.txt")
	p := filepath.Join(dir, "f.txt")
	os.WriteFile(p, nil, 0o644) // the save has truncated the file
	full := strings.Replace(orig, "line 1\n", "line 1 (saved outside)\n", 1)
	tries := 0
	testHookRetry = func(int) {
		if tries++; tries == 2 {
			os.WriteFile(p, []byte(full), 0o644) // and writes, a moment later
		}
	}
	defer func() { testHookRetry = nil }()
	req := strReplace("f.txt", "line 9\n", "line nine\n")
	req.DeltaShown = true
	r := apply1(t, s, req)
	if !r.Success || tries != 2 {
		t.Fatalf("edit of a file found empty at two tries: %+v (tries %d)", r.Files[0], tries)
	}
	if got := readTree(t, dir)["f.txt"]; got != strings.Replace(full, "line 9\n", "line nine\n", 1) {
		t.Fatalf("file %q", got)
	}
}

// savingWS is a workspace of f.txt (orig) whose every commit meets an
// outside save at its swap while the saves are on (swapsave), and a
// session that read f.txt.
func savingWS(t *testing.T, orig string) (string, *Session, *swapsave.Saves) {
	t.Helper()
	return savingWSOver(t, orig, nil)
}

// savingWSOver is savingWS with the saving file system wrapped by wrap
// (nil: as it is).
func savingWSOver(t *testing.T, orig string, wrap func(fsys.FS) fsys.FS) (string, *Session, *swapsave.Saves) {
	t.Helper()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"f.txt": orig})
	inner, err := fsys.NewOS(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inner.Close() })
	var sfs fsys.FS
	sfs, sv := swapsave.New(inner, "f.txt", orig)
	if wrap != nil {
		sfs = wrap(sfs)
	}
	w := openWS(t, dir, &Options{FS: sfs})
	s := w.NewSession(SessionOptions{Agent: "alice"})
	sessRead(t, s, "f.txt")
	return dir, s, sv
}

// regionHas reports whether a delta's region shows line text.
func regionHas(d *plan.Delta, text string) bool {
	if d == nil || d.Region == nil {
		return false
	}
	for _, l := range d.Region.Lines {
		if strings.TrimSuffix(l, "\n") == text {
			return true
		}
	}
	return false
}

// Every try's commit meets an outside save at the swap: the answer is a
// conflict (nothing written) that carries the change since the session's
// read and the current text of the edit's lines, from the file as it is
// after the last try, which then counts as read: the edit sent again
// lands as it is (docs/design.md, "Concurrency").
func TestSessionConflictAtEveryTryShowsRegion(t *testing.T) {
	orig := lines(12, "line %d\n")
	dir, s, sv := savingWS(t, orig)
	sv.On.Store(true)
	req := strReplace("f.txt", "line 9\n", "line nine\n")
	req.DeltaShown = true
	r := apply1(t, s, req)
	sv.On.Store(false)
	now := sv.Version(len(conflictRetries) + 1)
	if got := readTree(t, dir)["f.txt"]; got != now {
		t.Fatalf("file %q, want the last save's", got)
	}
	d := r.Files[0].Delta
	if r.Success || r.Code != plan.CodeConflict || d == nil || d.Rebased || !regionHas(d, "line 9") ||
		d.Current != hash.Of([]byte(now)).String() || !strings.Contains(d.Diff, "+line 1 (save 4)") || !strings.Contains(r.Error, "each of the 4 tries") && strings.Contains(d.Why, "at each try") {
		t.Fatalf("conflict at every try: %+v, delta %+v", r, d)
	}
	if !strings.Contains(r.Error, "nothing was written") || r.Files[0].Code != plan.CodeConflict {
		t.Fatalf("conflict at every try: %s / %s", r.Error, r.Files[0].Code)
	}
	r = apply1(t, s, req)
	if !r.Success || r.Files[0].Delta != nil {
		t.Fatalf("the edit sent again after the conflict's region: %+v", r.Files[0])
	}
	if got := readTree(t, dir)["f.txt"]; got != strings.Replace(now, "line 9\n", "line nine\n", 1) {
		t.Fatalf("file %q", got)
	}
	// A request that sends its own content_hash and opts in to the
	// rebase: the change and the region are from that version, not from
	// the session's newer read.
	mine := readTree(t, dir)["f.txt"]
	bob := s.Workspace().NewSession(SessionOptions{Agent: "bob"})
	sessRead(t, bob, "f.txt")
	if r := apply1(t, bob, strReplace("f.txt", "line 3\n", "line three\n")); !r.Success {
		t.Fatalf("bob: %+v", r.Files[0])
	}
	sessRead(t, s, "f.txt")
	sv.On.Store(true)
	js := `{"fileEdits":[{"path":"f.txt","content_hash":"` + hash.Of([]byte(mine)).String() + `","edits":[{"command":"str_replace","old_str":"line 12\n","new_str":"line twelve\n"}]}],"rebase":true}`
	r = apply1(t, s, mustParse(t, js))
	sv.On.Store(false)
	if d := r.Files[0].Delta; r.Code != plan.CodeConflict || d == nil || d.Read != hash.Of([]byte(mine)).String() || !regionHas(d, "line 12") || !strings.Contains(d.Diff, "+line three") {
		t.Fatalf("content_hash with rebase, conflict at every try: %+v, delta %+v", r, d)
	}
}

// The last try meets the file emptied by a save in place: the conflict
// shows the lines as a try last read the file with content, never the
// empty file as its content; a file empty at every look is told as empty.
func TestSessionEmptiedAtLastTryShowsLastContent(t *testing.T) {
	orig := lines(12, "line %d\n")
	dir, s, sv := savingWS(t, orig)
	p := filepath.Join(dir, "f.txt")
	sv.On.Store(true)
	testHookRetry = func(try int) {
		if try == len(conflictRetries)-1 {
			sv.On.Store(false)
			os.WriteFile(p, nil, 0o644)
		}
	}
	defer func() { testHookRetry = nil }()
	req := strReplace("f.txt", "line 9\n", "line nine\n")
	req.DeltaShown = true
	r := apply1(t, s, req)
	// The last try that read content read the file as the save before
	// its own swap left it.
	seen := sv.Version(len(conflictRetries) - 1)
	d := r.Files[0].Delta
	if r.Success || r.Code != plan.CodeConflict || d == nil || !regionHas(d, "line 9") || d.Current != hash.Of([]byte(seen)).String() ||
		!strings.Contains(d.Why, "empty at this moment") {
		t.Fatalf("emptied at the last try: %+v, delta %+v", r, d)
	}
	if got := readTree(t, dir)["f.txt"]; got != "" {
		t.Fatalf("file %q", got)
	}
	// That version counts as read: once the save has written, the edit
	// is rebased from it.
	full := seen + "appended by the save\n"
	os.WriteFile(p, []byte(full), 0o644)
	r = apply1(t, s, req)
	if !r.Success || r.Files[0].Delta == nil || !r.Files[0].Delta.Rebased || r.Files[0].Delta.Read != hash.Of([]byte(seen)).String() {
		t.Fatalf("the edit sent again: %+v, delta %+v", r.Files[0], r.Files[0].Delta)
	}
	if got := readTree(t, dir)["f.txt"]; got != strings.Replace(full, "line 9\n", "line nine\n", 1) {
		t.Fatalf("file %q", got)
	}
	// Empty at every look: that is what the file is, and the refusal
	// says so.
	sessRead(t, s, "f.txt")
	os.WriteFile(p, nil, 0o644)
	testHookRetry = nil
	req = strReplace("f.txt", "line 5\n", "line five\n")
	req.DeltaShown = true
	r = apply1(t, s, req)
	if d := r.Files[0].Delta; r.Success || r.Code != plan.CodeStaleHash || d == nil || d.Current != hash.Of(nil).String() || d.Region != nil {
		t.Fatalf("empty at every look: %+v, delta %+v", r, d)
	}
	// The empty file does not count as read: once the save has written,
	// the edit is rebased from the version the session read.
	os.WriteFile(p, []byte(full+"and more\n"), 0o644)
	r = apply1(t, s, req)
	if !r.Success || r.Files[0].Delta == nil || r.Files[0].Delta.Read != hash.Of([]byte(strings.Replace(full, "line 9\n", "line nine\n", 1))).String() {
		t.Fatalf("the edit sent again once the save wrote: %+v, delta %+v", r.Files[0], r.Files[0].Delta)
	}
}

// A streamed commit (StreamResults: the toolsets' big writes and every
// pattern_replace) that an outside save interrupts is tried again like any
// other, and its stream sees each file once, from the answer given: the
// try that met the save hands over nothing.
func TestSessionStreamedCommitTriedAgain(t *testing.T) {
	orig := lines(12, "line %d\n")
	dir, s, sv := savingWS(t, orig)
	sv.On.Store(true)
	testHookRetry = func(int) { sv.On.Store(false) }
	defer func() { testHookRetry = nil }()
	var seen []string
	ctx := StreamResults(context.Background(), func(r *plan.FileResult) {
		seen = append(seen, fmt.Sprintf("%s %v %d", r.Path, r.Success, len(r.Diff)))
	}, true)
	req := strReplace("f.txt", "line 9\n", "line nine\n")
	req.DeltaShown = true
	r, err := s.Apply(ctx, req)
	if err != nil || !r.Success || r.TransactionID == "" || sv.Made() != 1 {
		t.Fatalf("streamed commit after one outside save: %v %+v (saves %d)", err, r, sv.Made())
	}
	if got := readTree(t, dir)["f.txt"]; got != strings.Replace(sv.Version(1), "line 9\n", "line nine\n", 1) {
		t.Fatalf("file %q: want the save with the edit on it", got)
	}
	if len(seen) != 1 || !strings.HasPrefix(seen[0], "f.txt true ") || strings.HasSuffix(seen[0], " 0") {
		t.Fatalf("the stream saw %q, want f.txt once, committed, with its diff", seen)
	}
	// Saves at every try: the stream sees the refusal once, after the
	// last try (the last look's, with its delta).
	seen = nil
	sv.On.Store(true)
	testHookRetry = nil
	req = strReplace("f.txt", "line 3\n", "line three\n")
	req.DeltaShown = true
	r, _ = s.Apply(ctx, req)
	sv.On.Store(false)
	if r.Success || r.Code != plan.CodeConflict || len(seen) != 1 || !strings.HasPrefix(seen[0], "f.txt false ") || r.Files[0].Delta == nil {
		t.Fatalf("conflict at every try, streamed: %+v; the stream saw %q", r, seen)
	}
}
