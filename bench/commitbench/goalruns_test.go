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

// A 1,000-file goal line's bound is said to be below the least journaled
// commit exactly when the floor's own ratio to the peer exceeds it.
func TestFloorNote(t *testing.T) {
	for _, c := range []struct {
		floor float64
		want  string
	}{
		{1.43, "the least journaled commit here is 1.43x git apply: the goal's 1.0x is below it"},
		{0.97, "the least journaled commit here is 0.97x git apply: the goal's 1.0x is not below it"},
		{1.0, "the least journaled commit here is 1.00x git apply: the goal's 1.0x is not below it"},
	} {
		if got := floorNote("git apply", c.floor, 1); got != c.want {
			t.Errorf("floorNote(%.2f) = %q, want %q", c.floor, got, c.want)
		}
	}
}
