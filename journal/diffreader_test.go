package journal_test

import (
	"strings"
	"testing"

	"github.com/txedit/txedit/fsys/faultfs"
	"github.com/txedit/txedit/journal"
)

// TestDiffReaderReadsAsFarAsItMust: the reader of a transaction's diffs
// indexes its pack as far as the diff asked for, not all of it at open:
// a write's answer that stops at its budget reads the headers of the
// records before the last diff it gives, and no more. Diffs read in any
// order are the recorded ones; an op without a diff reads "".
func TestDiffReaderReadsAsFarAsItMust(t *testing.T) {
	_, inner := setup(t, threeFiles)
	rec := &faultfs.FS{Inner: inner, Record: true}
	m, err := commit(t, rec, &journal.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	j := journal.New(rec, nil)
	reads := func() int {
		n := 0
		for _, c := range rec.Calls {
			if strings.HasPrefix(c, "readat ") {
				n++
			}
		}
		rec.Calls = nil
		return n
	}
	r, err := j.OpenDiffs(m.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if n := reads(); n != 0 {
		t.Errorf("OpenDiffs read %d times; it reads nothing until a diff is asked for", n)
	}
	// The transaction's file, one worker: the manifest, op 0's
	// before-image and diff, op 1's diff, op 2's before-image.
	if d, err := r.Diff(0); d != "diff x\n" || err != nil {
		t.Fatalf("Diff(0) = %q, %v", d, err)
	}
	if n := reads(); n != 4 {
		t.Errorf("Diff(0) read %d times, want 4 (three headers, the diff)", n)
	}
	if d, err := r.Diff(0); d != "diff x\n" || err != nil {
		t.Fatalf("Diff(0) again = %q, %v", d, err)
	}
	if n := reads(); n != 1 {
		t.Errorf("Diff(0) again read %d times, want 1 (the diff; the index is kept)", n)
	}
	if d, err := r.Diff(2); d != "" || err != nil {
		t.Fatalf("Diff(2) = %q, %v (op 2 recorded no diff)", d, err)
	}
	if d, err := r.Diff(1); d != "diff y\n" || err != nil {
		t.Fatalf("Diff(1) = %q, %v", d, err)
	}
	if n := reads(); n != 3 {
		t.Errorf("Diff(2), then Diff(1) read %d times, want 3 (the two headers left, op 1's diff)", n)
	}
}
