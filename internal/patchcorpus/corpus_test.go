package patchcorpus

import (
	"bytes"
	"strings"
	"testing"
)

const src = `package p

// A does a.
func A(x int) int {
	y := x + 1
	if y > 2 {
		return y
	}
	return 0
}

// B does b.
func B() string {
	s := "b"
	return s
}

// C does c.
func C() {
	println("c")
	println("d")
}
`

func TestClassify(t *testing.T) {
	before, want := []byte("a\n"), []byte("b\n")
	for _, tc := range []struct {
		intent Intent
		runs   []Run
		v      Verdict
		ws     bool
	}{
		{Apply, []Run{{true, want}}, Correct, false},
		{Apply, []Run{{true, []byte(" b\n")}}, Wrong, true},
		{Apply, []Run{{true, []byte("c\n")}}, Wrong, false},
		{Apply, []Run{{false, before}}, Refused, false},
		{Apply, []Run{{false, want}}, RefusedChanged, false},
		{Either, []Run{{false, before}}, Correct, false},
		{Refuse, []Run{{false, before}}, Correct, false},
		{Refuse, []Run{{true, before}}, Wrong, false}, // a false "already applied"
		{Refuse, []Run{{false, want}}, RefusedChanged, false},
		{Retry, []Run{{true, want}, {true, want}}, Correct, false},
		{Retry, []Run{{true, want}, {false, want}}, Refused, false},
		{Retry, []Run{{true, want}, {true, []byte("b\nb\n")}}, Wrong, false},
		{Retry, []Run{{false, before}, {false, before}}, Refused, false},
	} {
		c := &Case{Before: before, Want: want, Intent: tc.intent}
		if tc.intent == Refuse {
			c.Want = nil
		}
		if v, ws := Classify(c, tc.runs...); v != tc.v || ws != tc.ws {
			t.Errorf("%s %v: %s %v, want %s %v", tc.intent, tc.runs, v, ws, tc.v, tc.ws)
		}
	}
}

// The corpus is the same on every run, and each case's intended file is
// its file with the edit: the patch's old lines are in Before.
func TestGenerate(t *testing.T) {
	a := Generate([]Source{{Name: "p.go", Data: []byte(src)}})
	b := Generate([]Source{{Name: "p.go", Data: []byte(src)}})
	if len(a) < 10 || len(a) != len(b) {
		t.Fatalf("%d and %d cases", len(a), len(b))
	}
	classes := map[string]bool{}
	for i, c := range a {
		classes[c.Class] = true
		if c.Name != b[i].Name || c.Patches[ApplyPatch] != b[i].Patches[ApplyPatch] {
			t.Errorf("case %d differs between runs: %s, %s", i, c.Name, b[i].Name)
		}
		if c.Intent == Refuse && c.Want != nil || c.Intent != Refuse && bytes.Equal(c.Want, c.Before) {
			t.Errorf("%s: intent %s, want %q", c.Name, c.Intent, c.Want)
		}
		if len(c.Patches) == 0 || !strings.Contains(c.Patches[Diff]+c.Patches[ApplyPatch], "@@") {
			t.Errorf("%s: patches %v", c.Name, c.Patches)
		}
	}
	for _, cl := range []string{"clean", "retry", "tabs-to-spaces", "stale-removed", "delete-func", "stale-delete-func", "delete-last-func", "stale-delete-last-func-no-eof", "blank-twin"} {
		if !classes[cl] {
			t.Errorf("no %s case", cl)
		}
	}
}
