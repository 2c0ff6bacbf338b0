// Package timing runs benchmark methods side by side and reports medians
// and their ratios.
package timing

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
	"time"
)

// Method is one way of doing the benchmarked job.
type Method struct {
	Name string
	// Setup runs before each timed run, untimed (may be nil).
	Setup func() error
	Run   func() error
}

// Interleaved runs every method runs times, one after the other in each
// round, so that drift of the machine hits all alike, and returns each
// method's durations.
func Interleaved(runs int, methods []Method) ([][]time.Duration, error) {
	times := make([][]time.Duration, len(methods))
	for r := 0; r < runs; r++ {
		for i, m := range methods {
			if m.Setup != nil {
				if err := m.Setup(); err != nil {
					return nil, fmt.Errorf("%s setup: %w", m.Name, err)
				}
			}
			start := time.Now()
			if err := m.Run(); err != nil {
				return nil, fmt.Errorf("%s: %w", m.Name, err)
			}
			times[i] = append(times[i], time.Since(start))
		}
	}
	return times, nil
}

// BuildTxedit builds the txedit command into dir and returns its path.
func BuildTxedit(dir string) (string, error) {
	bin := dir + "/txedit"
	out, err := exec.Command("go", "build", "-o", bin, "github.com/txedit/txedit/cmd/txedit").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("build txedit: %v\n%s", err, out)
	}
	return bin, nil
}

// Median returns the median of ds.
func Median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

// Command returns a Run function executing name args in dir with output
// discarded; exit status 1 (no match) counts as success, as for grep.
func Command(dir, name string, args ...string) func() error {
	return func() error {
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Stdout = io.Discard
		cmd.Stderr = os.Stderr
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 {
			return nil
		}
		return err
	}
}

// Report prints the medians of a group of methods and their ratios to the
// group's last method (the reference).
func Report(w io.Writer, title string, names []string, times [][]time.Duration) {
	ref := Median(times[len(times)-1])
	fmt.Fprintf(w, "%s\n", title)
	for i, n := range names {
		m := Median(times[i])
		fmt.Fprintf(w, "  %-44s %10s %8.2fx\n", n, m.Round(100*time.Microsecond), float64(m)/float64(ref))
	}
}

// GoRoot returns the Go distribution's root as `go env GOROOT` says (the
// benchmarks copy its src tree as their corpus).
func GoRoot() string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		panic("go env GOROOT: " + err.Error())
	}
	return strings.TrimSpace(string(out))
}
