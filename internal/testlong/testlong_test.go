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
