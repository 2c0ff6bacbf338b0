package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TXEDIT_TIMINGS lines, with and without the command's name, summed by
// phase; other stderr lines are not timings.
func TestParseTimings(t *testing.T) {
	got := parseTimings(`txedit: apply: lock    23.5ms
txedit: apply: plan    100µs
txedit: lock    1.5ms
txedit: commit  4.3ms
txedit: rolled back transaction 20261125-203630-110000-abcd, interrupted before its commit point
txedit: error: f: old_str not found (the closest text is at line 3)
`)
	want := map[string]time.Duration{"lock": 25 * time.Millisecond, "plan": 100 * time.Microsecond, "commit": 4300 * time.Microsecond}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for p, d := range want {
		if got[p] != d {
			t.Errorf("%s: got %v, want %v", p, got[p], d)
		}
	}
}

// strace -c's summary, with and without an errors column, and the total
// left out.
func TestParseStrace(t *testing.T) {
	f := filepath.Join(t.TempDir(), "c")
	if err := os.WriteFile(f, []byte(`% time     seconds  usecs/call     calls    errors syscall
------ ----------- ----------- --------- --------- ----------------
 41.10    0.000516          11        46         2 openat
 20.00    0.000251           5        50           close
  0.01    0.000001           1         1           fsync
------ ----------- ----------- --------- --------- ----------------
100.00    0.001255           8        97         2 total
`), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := parseStrace(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got["openat"] != 46 || got["close"] != 50 || got["fsync"] != 1 {
		t.Errorf("got %v", got)
	}
	if total(map[string]float64{"openat": 46, "futex": 10}, true) != 46 {
		t.Errorf("futex counted as a file-system call")
	}
}
