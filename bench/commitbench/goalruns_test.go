package main

import "testing"

// The quiet goal line of a small commit is measured with at least
// minGoalRuns runs; the others keep what was asked.
func TestGoalRuns(t *testing.T) {
	for _, c := range []struct {
		runs, files, dirty int
		goals              bool
		want               int
	}{
		{5, 60, 0, true, minGoalRuns}, // run.sh's RUNS=5: raised
		{31, 60, 0, true, 31},         // more asked: kept
		{5, 60, 1024, true, 5},        // under dirty data: kept
		{5, 1000, 0, true, 5},         // the 1,000-file lines: kept
		{5, 60, 0, false, 5},          // no goal line written: kept
	} {
		if got := goalRuns(c.runs, c.files, c.dirty, c.goals); got != c.want {
			t.Errorf("goalRuns(%d, %d, %d, %v) = %d, want %d", c.runs, c.files, c.dirty, c.goals, got, c.want)
		}
	}
}
