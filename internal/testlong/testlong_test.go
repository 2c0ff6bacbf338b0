package testlong

import (
	"reflect"
	"testing"
)

func TestSample(t *testing.T) {
	for _, tc := range []struct {
		n, want int
		always  []int
		out     []int
	}{
		{0, 5, nil, nil},
		{1, 5, nil, []int{1}},
		{4, 5, nil, []int{1, 2, 3, 4}},
		{10, 4, nil, []int{1, 4, 7, 10}},
		{11, 3, nil, []int{1, 6, 11}},
		{12, 3, nil, []int{1, 7, 12}},
		{100, 10, []int{50, 0, 101}, []int{1, 12, 23, 34, 45, 50, 56, 67, 78, 89, 100}},
		{5, 1, nil, []int{1, 5}},
	} {
		got := Sample(tc.n, tc.want, tc.always...)
		if !reflect.DeepEqual(got, tc.out) {
			t.Errorf("Sample(%d, %d, %v) = %v, want %v", tc.n, tc.want, tc.always, got, tc.out)
		}
		if len(got) > max(tc.want, 2)+len(tc.always) {
			t.Errorf("Sample(%d, %d) took %d points", tc.n, tc.want, len(got))
		}
	}
}

func TestSwitch(t *testing.T) {
	t.Setenv(Env, "1")
	if !Long() || Pick(1, 2) != 2 || len(Points(50, 3)) != 50 {
		t.Errorf("TXEDIT_LONG=1: Long %v, Pick %d, %d points", Long(), Pick(1, 2), len(Points(50, 3)))
	}
	for _, v := range []string{"", "0", "yes"} {
		t.Setenv(Env, v)
		if Long() || Pick(1, 2) != 1 || len(Points(50, 3)) != 3 {
			t.Errorf("TXEDIT_LONG=%q: Long %v, Pick %d, %d points", v, Long(), Pick(1, 2), len(Points(50, 3)))
		}
	}
}

func TestRandReplays(t *testing.T) {
	t.Setenv(SeedEnv, "42")
	a, b := Rand(t).Int63(), Rand(t).Int63()
	if a != b {
		t.Errorf("TXEDIT_SEED=42 gave %d then %d", a, b)
	}
}

func TestSweepFindsTheTurn(t *testing.T) {
	t.Setenv(Env, "")
	for _, turn := range []int{1, 2, 97, 500, 998, 1000, 1001} {
		visits := map[int]int{}
		points, trues := Sweep(1000, 20, func(p int) bool {
			visits[p]++
			return p >= turn
		})
		in := map[int]bool{}
		for _, p := range points {
			in[p] = true
			if visits[p] != 1 {
				t.Errorf("turn %d: point %d visited %d times", turn, p, visits[p])
			}
		}
		if len(visits) != len(points) || len(points) > 20+12+5 {
			t.Errorf("turn %d: %d points, %d visited", turn, len(points), len(visits))
		}
		for p := max(1, turn-2); p <= min(1000, turn+2); p++ {
			if turn > 1 && turn <= 1000 && !in[p] {
				t.Errorf("turn %d: point %d not visited: %v", turn, p, points)
			}
		}
		want := 0
		for _, p := range points {
			if p >= turn {
				want++
			}
		}
		if trues != want || !in[1] || !in[1000] {
			t.Errorf("turn %d: %d true of %v", turn, trues, points)
		}
	}
	t.Setenv(Env, "1")
	points, trues := Sweep(50, 3, func(p int) bool { return p > 40 })
	if len(points) != 50 || trues != 10 {
		t.Errorf("long: %d points, %d true", len(points), trues)
	}
}

func TestLinear(t *testing.T) {
	work := func(n int) {
		x := 0
		for i := range n {
			for j := range n {
				x += i ^ j
			}
		}
		sink = x
	}
	// Linear work passes.
	Linear(t, "linear", 1<<20, func(n int) {
		x := 0
		for i := range n * 4 {
			x += i * i
		}
		sink = x
	})
	// Quadratic work fails: checked through a recorder.
	rec := &recorder{TB: t}
	Linear(rec, "quadratic", 6400, work)
	if !rec.failed {
		t.Errorf("quadratic work passed Linear")
	}
}

var sink int

type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Errorf(format string, args ...any) {
	r.failed = true
	r.TB.Logf("(expected) "+format, args...)
}
