package engine

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/hash"
	"github.com/txedit/txedit/plan"
)

// writingFS is a file system on which another process writes target in
// place while writing is set (a save under way). With leases, its read
// lease is refused, as the kernel refuses it for a file open for
// writing; without (noLease), each look for a lease finds none, and the
// writer writes another chunk (write, at path) meanwhile.
type writingFS struct {
	fsys.FS
	target  string
	writing *atomic.Bool
	noLease bool
	write   func()
}

func (v *writingFS) View() (fsys.FS, func()) {
	inner, release := v.FS.View()
	c := *v
	c.FS = inner
	return &c, release
}

func (v *writingFS) ReadLease(name string) (fsys.Lease, error) {
	switch {
	case name != v.target || !v.writing.Load():
		return v.FS.ReadLease(name)
	case v.noLease:
		v.write()
		return nil, errors.ErrUnsupported
	}
	return nil, fsys.ErrOpenForWriting
}

// A save in place caught half done with content (truncated, then part
// written, the writer still at it) is not the file's current content: a
// refusal neither shows it as "now" nor counts it as the session's read
// (docs/design.md, "Concurrency"); once the save is done the edit is
// rebased from the version the session read.
func TestTornSaveIsNotShownAsNow(t *testing.T) {
	for _, noLease := range []bool{false, true} {
		dir := t.TempDir()
		orig := lines(12, "line %d\n")
		writeTree(t, dir, map[string]string{"f.txt": orig})
		inner, err := fsys.NewOS(dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { inner.Close() })
		p := filepath.Join(dir, "f.txt")
		full := strings.Replace(orig, "line 1\n", "line 1 (saved outside)\n", 1)
		n := len(full) / 3 // truncated, a third written
		var writing atomic.Bool
		wfs := &writingFS{FS: inner, target: "f.txt", writing: &writing, noLease: noLease, write: func() {
			n = min(n+1, len(full)-1) // a byte more, never the whole
			os.WriteFile(p, []byte(full[:n]), 0o644)
		}}
		w := openWS(t, dir, &Options{FS: wfs})
		s := w.NewSession(SessionOptions{Agent: "alice"})
		sessRead(t, s, "f.txt")
		writing.Store(true)
		os.WriteFile(p, []byte(full[:n]), 0o644)
		req := strReplace("f.txt", "line 9\n", "line nine\n")
		req.DeltaShown = true
		r := apply1(t, s, req)
		if r.Success {
			t.Fatalf("no lease %v: edit of a file half written: %+v", noLease, r.Files[0])
		}
		if d := r.Files[0].Delta; d != nil && (d.Current == hash.Of([]byte(full[:n])).String() || d.Region != nil) {
			t.Fatalf("no lease %v: the half written file was shown as the file's current content: %s, delta %+v", noLease, r.Error, d)
		}
		if !strings.Contains(r.Error, "being written") {
			t.Fatalf("no lease %v: the refusal does not say the file is being written: %s (%s)", noLease, r.Error, r.Code)
		}
		writing.Store(false)
		os.WriteFile(p, []byte(full), 0o644)
		r = apply1(t, s, req)
		if !r.Success || r.Files[0].Delta == nil || r.Files[0].Delta.Read != hash.Of([]byte(orig)).String() {
			t.Fatalf("no lease %v: the edit sent again once the save is done: %+v (%s), delta %+v", noLease, r.Files[0], r.Error, r.Files[0].Delta)
		}
		if got := readTree(t, dir)["f.txt"]; got != strings.Replace(full, "line 9\n", "line nine\n", 1) {
			t.Fatalf("no lease %v: file %q", noLease, got)
		}
	}
}

// Every try meets an outside save, and the last finds the file being
// written in place (half done, the writer at it): the conflict shows the
// lines as a try last read the file settled, and says the file is being
// written, never the half written bytes as its content.
func TestTornSaveAtLastTryShowsLastSettled(t *testing.T) {
	orig := lines(12, "line %d\n")
	var writing atomic.Bool
	dir, s, sv := savingWSOver(t, orig, func(sfs fsys.FS) fsys.FS { return &writingFS{FS: sfs, target: "f.txt", writing: &writing} })
	p := filepath.Join(dir, "f.txt")
	var torn string
	sv.On.Store(true)
	testHookRetry = func(try int) {
		if try == len(conflictRetries)-1 {
			sv.On.Store(false)
			cur, _ := os.ReadFile(p)
			torn = string(cur[:len(cur)/2])
			writing.Store(true)
			os.WriteFile(p, []byte(torn), 0o644)
		}
	}
	defer func() { testHookRetry = nil }()
	req := strReplace("f.txt", "line 9\n", "line nine\n")
	req.DeltaShown = true
	r := apply1(t, s, req)
	seen := sv.Version(len(conflictRetries) - 1)
	d := r.Files[0].Delta
	if r.Success || r.Code != plan.CodeConflict || d == nil || !regionHas(d, "line 9") || d.Current != hash.Of([]byte(seen)).String() ||
		!strings.Contains(d.Why, "being written at this moment") || !strings.Contains(r.Error, "being written") {
		t.Fatalf("being written at the last try: %s, delta %+v", r.Error, d)
	}
	if got := readTree(t, dir)["f.txt"]; got != torn {
		t.Fatalf("file %q", got)
	}
}
