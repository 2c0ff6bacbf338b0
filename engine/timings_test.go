package engine

import (
	"slices"
	"testing"
	"time"
)

// TestTimingsLeaveTheReportOut: a phase's duration does not include the
// time Options.Timings took to report the phase before it (txedit mcp
// prints each to stderr; before this, every phase carried the print of
// the one before, and the agent-loop tables' "lock" column read high).
func TestTimingsLeaveTheReportOut(t *testing.T) {
	const report = 200 * time.Millisecond
	var got []string
	var durs []time.Duration
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"f.txt": "a\nb\n"})
	w := openWS(t, dir, &Options{Durability: NotDurable, Timings: func(phase string, d time.Duration) {
		got = append(got, phase)
		durs = append(durs, d)
		time.Sleep(report) // a slow report
	}})
	if res := run(t, w, `{"command":"str_replace","path":"f.txt","old_str":"b","new_str":"c"}`); !res.Success {
		t.Fatalf("edit failed: %s", res.Error)
	}
	if len(got) < 5 {
		t.Fatalf("phases reported: %v; want edit, lock, … commit", got)
	}
	for i, d := range durs {
		if !slices.Contains(TimingPhases(), got[i]) {
			t.Errorf("phase %q is not one of TimingPhases %v", got[i], TimingPhases())
		}
		if d >= report {
			t.Errorf("phase %s took %v: it includes the %v report of the phase before it (phases %v)", got[i], d, report, got)
		}
	}
}
