package bench

import (
	"regexp"
	"strings"
	"testing"
)

// TestStartBench runs a tiny `bench/run.sh start` (two rounds), so that the
// instrument the process-start goal is measured with cannot rot:
// it builds txedit and a hello world, runs each method, and prints its
// table and the goal line. The ratio less the spawn floor may come out
// below zero on a loaded machine (txedit's median under the floor's).
func TestStartBench(t *testing.T) {
	text := runSh(t, []string{"RUNS=2", "TMPDIR=" + t.TempDir()}, "start")
	for _, row := range []string{"true (the floor", "hello world (Go, same toolchain)", "txedit version", "txedit read (one file's lines)", "txedit tool fs_read"} {
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(row) + `.*\s[0-9.]+ms\s+[0-9.]+ms\s+-\s+[0-9.]+x$`).MatchString(text) {
			t.Errorf("no row for %q", row)
		}
	}
	if !regexp.MustCompile(`process start: txedit version within 1\.5x of a Go hello world \(less the spawn floor\)\s+-?[0-9.]+x\s+(pass|miss)`).MatchString(text) {
		t.Error("no goal line in the summary")
	}
	if strings.Contains(text, "startbench:") {
		t.Error("startbench reported an error")
	}
}
