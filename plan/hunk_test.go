package plan

import (
	"encoding/json"
	"testing"
)

func TestHunkChanges(t *testing.T) {
	for _, tc := range []struct {
		name string
		h    Hunk
		want bool
	}{
		{"context only", Hunk{Old: []string{"a"}, New: []string{"a"}}, false},
		{"replacement", Hunk{Old: []string{"a"}, New: []string{"b"}}, true},
		{"addition", Hunk{New: []string{"b"}}, true},
		{"deletion", Hunk{Old: []string{"a"}}, true},
		{"final newline only", Hunk{Old: []string{"a"}, New: []string{"a"}, OldNoEOL: true}, true},
		{"no newline on both sides", Hunk{Old: []string{"a"}, New: []string{"a"}, OldNoEOL: true, NewNoEOL: true}, false},
	} {
		if got := tc.h.Changes(); got != tc.want {
			t.Errorf("%s: Changes() = %v, want %v", tc.name, got, tc.want)
		}
	}
	if (&Hunk{}).EndsAtEOF() || !(&Hunk{NewNoEOL: true}).EndsAtEOF() || !(&Hunk{AtEOF: true}).EndsAtEOF() {
		t.Error("EndsAtEOF")
	}
}

func TestRungs(t *testing.T) {
	if !RungUnicode.looser(RungWhitespace) || RungExact.looser(RungTrailingSpace) || RungExact.looser(RungExact) {
		t.Error("looser")
	}
	reports := []HunkReport{{Rung: RungTrailingSpace}, {Rung: RungExact}, {Rung: RungWhitespace}, {Rung: RungExact}}
	if got := LoosestRung(reports); got != RungWhitespace {
		t.Errorf("LoosestRung = %q, want whitespace", got)
	}
	if got := LoosestRung(nil); got != "" {
		t.Errorf("LoosestRung(nil) = %q", got)
	}
}

func TestHunkReportJSON(t *testing.T) {
	b, err := json.Marshal([]HunkReport{{Hunk: 1, Line: 12, Rung: RungExact}, {Hunk: 2, Line: 40, Rung: RungUnicode, Offset: -3, AlreadyApplied: true}})
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"hunk":1,"line":12,"match":"exact"},{"hunk":2,"line":40,"match":"unicode","offset":-3,"already_applied":true}]`
	if string(b) != want {
		t.Errorf("got %s\nwant %s", b, want)
	}
}
