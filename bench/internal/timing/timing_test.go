package timing

import (
	"reflect"
	"testing"
	"time"
)

// Alternating runs the methods forward in even rounds and backward in odd
// ones, and files each sample under its own method.
func TestAlternatingOrder(t *testing.T) {
	var order []string
	method := func(name string) Method {
		return Method{Name: name, Run: func() error { order = append(order, name); return nil }}
	}
	samples, err := Alternating(3, []Method{method("a"), method("b"), method("c")})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a", "b", "c", "c", "b", "a", "a", "b", "c"}; !reflect.DeepEqual(order, want) {
		t.Errorf("order %v, want %v", order, want)
	}
	for i, s := range samples {
		if len(s) != 3 {
			t.Errorf("method %d: %d samples, want 3", i, len(s))
		}
	}
}

// PairedRatio is the median of the rounds' own ratios, not the ratio of
// the medians: a round where both are slow (the machine busy) counts as
// one ratio like any other.
func TestPairedRatio(t *testing.T) {
	ms := func(ds ...int) []Sample {
		var ss []Sample
		for _, d := range ds {
			ss = append(ss, Sample{Wall: time.Duration(d) * time.Millisecond})
		}
		return ss
	}
	// a is 1.1x b in every round but one, where b alone was fast (the
	// machine quiet for it): the medians (33 and 20) say 1.65x.
	a, b := ms(11, 22, 33, 44, 55), ms(10, 20, 30, 10, 50)
	if r := Ratio(a, b); r < 1.6 {
		t.Fatalf("the example is not one where the medians mislead: Ratio %.2f", r)
	}
	if r := PairedRatio(a, b); r < 1.0999 || r > 1.1001 {
		t.Errorf("PairedRatio %.4f, want 1.1", r)
	}
	if r := PairedRatio(ms(2, 4), ms(1, 1)); r != 3 {
		t.Errorf("PairedRatio of an even count %.2f, want 3 (the mean of the middle two)", r)
	}
	if r := PairedRatio(nil, ms(1)); r != 0 {
		t.Errorf("PairedRatio with no rounds %.2f, want 0", r)
	}
}
