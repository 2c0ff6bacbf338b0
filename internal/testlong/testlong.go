// Package testlong is the one switch between txedit's quick test run and
// its long one.
//
// The README's test command (go test ./...) is the quick run: every sweep
// (a crash at every file-system call, a kill at every step, power loss
// under every drop setting, the peers over big corpora) runs on a
// deterministic sample of its points, so that the whole tree passes in a
// few minutes on a two-core machine. With TXEDIT_LONG=1 (CI sets it) the
// sweeps run in full: every point, every seed, every workload, the big
// corpora. A test that can only run long skips in the quick run with a
// message naming TXEDIT_LONG=1; none skips silently.
//
// Linear checks that an operation's cost grows linearly, from a ratio of
// CPU times, where a test would otherwise hold it to a wall-clock limit
// that a loaded or slow machine breaks.
//
// go test caches a package's result together with the environment
// variables its tests read, so switching TXEDIT_LONG reruns the tests
// that consult it.
package testlong

import (
	"math/rand"
	"os"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"
)

// Env is the variable that turns the long sweeps on: TXEDIT_LONG=1.
const Env = "TXEDIT_LONG"

// Long reports whether the long sweeps run (TXEDIT_LONG=1).
func Long() bool { return os.Getenv(Env) == "1" }

// Pick returns long in the long run and quick otherwise.
func Pick[T any](quick, long T) T {
	if Long() {
		return long
	}
	return quick
}

// Skip skips t in the quick run, saying what it does and how to run it.
func Skip(t testing.TB, what string) {
	t.Helper()
	if !Long() {
		t.Skip(what + ": runs with " + Env + "=1")
	}
}

// Points returns the points 1..n a sweep visits, ascending: all of them
// in the long run; in the quick run about want of them, spread evenly
// (the first, the last and every k-th between, k = ceil((n-1)/(want-1)))
// plus the points in always that lie in 1..n. The sample is the same on
// every run: a failure in the quick run is repeated by the next one.
func Points(n, want int, always ...int) []int {
	if Long() {
		return Range(1, n, 1)
	}
	return Sample(n, want, always...)
}

// Sample is Points' quick sample, whatever the switch says.
func Sample(n, want int, always ...int) []int {
	if n <= 0 {
		return nil
	}
	want = max(want, 2)
	if want >= n {
		return Range(1, n, 1)
	}
	k := (n - 1 + want - 2) / (want - 1)
	in := make(map[int]bool)
	for p := 1; p < n; p += k {
		in[p] = true
	}
	in[n] = true
	for _, p := range always {
		if p >= 1 && p <= n {
			in[p] = true
		}
	}
	out := make([]int, 0, len(in))
	for p := 1; p <= n; p++ {
		if in[p] {
			out = append(out, p)
		}
	}
	return out
}

// Range returns from, from+step, … up to and including to.
func Range(from, to, step int) []int {
	var out []int
	for p := from; p <= to; p += step {
		out = append(out, p)
	}
	return out
}

// SeedEnv names the variable that replays a randomised test: a test that
// logged "seed 1234" runs the same choices again with TXEDIT_SEED=1234.
const SeedEnv = "TXEDIT_SEED"

// Rand returns the source of a test's random choices, seeded from
// TXEDIT_SEED when it is set and from the clock otherwise, and logs the
// seed so that a failure can be replayed.
func Rand(t testing.TB) *rand.Rand {
	t.Helper()
	seed := time.Now().UnixNano()
	if s, err := strconv.ParseInt(os.Getenv(SeedEnv), 10, 64); err == nil {
		seed = s
	}
	t.Logf("random choices from seed %d (%s=%d repeats them)", seed, SeedEnv, seed)
	return rand.New(rand.NewSource(seed))
}

// Sweep visits the points 1..n of a sweep whose outcome turns once, from
// false to true or from true to false (a crash before a transaction's
// commit point rolls it back, one after it leaves it committed), and
// returns the points it visited, ascending, and how many came out true.
// In the long run it visits every point. In the quick run it visits
// about want of them plus a few: the first and the last, evenly spread
// ones (Sample), and, found by bisection from the two ends, the point
// where the outcome turns and its neighbours within 2, where a commit
// protocol's mistakes show, plus the points in always. Every point is
// visited at most once, and visit checks each one like any other.
func Sweep(n, want int, visit func(p int) bool, always ...int) (points []int, trues int) {
	if n <= 0 {
		return nil, 0
	}
	seen := map[int]bool{}
	at := func(p int) bool {
		if v, ok := seen[p]; ok {
			return v
		}
		v := visit(p)
		seen[p] = v
		return v
	}
	if Long() {
		for p := 1; p <= n; p++ {
			at(p)
		}
	} else {
		first, last := at(1), at(n)
		if first != last {
			lo, hi := 1, n
			for hi-lo > 1 {
				mid := lo + (hi-lo)/2
				if at(mid) == last {
					hi = mid
				} else {
					lo = mid
				}
			}
			for p := hi - 2; p <= hi+2; p++ {
				if p >= 1 && p <= n {
					at(p)
				}
			}
		}
		for _, p := range Sample(n, want, always...) {
			at(p)
		}
	}
	for p, v := range seen {
		points = append(points, p)
		if v {
			trues++
		}
	}
	slices.Sort(points)
	return points, trues
}

// Linear fails t unless run's cost grows about linearly with its size: it
// takes the CPU time of run(n/16) and of run(n), each repeated as often
// as makes run(n/16) last 10 ms (so that the clock's grain and the
// garbage collector's steps do not blur it), and fails if the larger took
// more than 64 times the smaller: linear growth takes about 16 times
// (caches make a big run somewhat slower per item: up to 2 or 3 times
// more), quadratic 256. Each measure follows a garbage collection; a
// ratio within a factor of 2 of the limit is measured twice more, and the
// least of each counts. CPU time, not wall time: a loaded machine makes a
// run wait, not work more. A ratio, not a limit: a slow machine makes
// both runs slower alike. run must not start goroutines that outlive it,
// and no parallel test may run beside it (the CPU time is the process's).
func Linear(t testing.TB, what string, n int, run func(n int)) {
	t.Helper()
	measure := func(size, reps int) time.Duration {
		runtime.GC()
		start := CPU()
		for range reps {
			run(size)
		}
		return CPU() - start
	}
	const least, limit = 10 * time.Millisecond, 64.0
	reps := 1
	small := min(measure(n/16, 1), measure(n/16, 1))
	for small < least && reps < 1<<20 {
		reps = max(reps*2, int(int64(reps)*int64(least)/max(int64(small), 1))+1)
		small = measure(n/16, reps)
	}
	big := measure(n, reps)
	ratio := float64(big) / float64(max(small, 1))
	for round := 0; round < 2 && ratio > limit/2 && ratio < 2*limit; round++ {
		small = min(small, measure(n/16, reps))
		big = min(big, measure(n, reps))
		ratio = float64(big) / float64(max(small, 1))
	}
	t.Logf("%s: %v CPU at size %d, %v at %d, %d times each (x%.1f)", what, small, n/16, big, n, reps, ratio)
	if ratio > limit {
		t.Errorf("%s: sixteen times the size took %.0f times the CPU time (%v, %v): worse than linear", what, ratio, small, big)
	}
}
