package hash

import (
	"errors"
	"testing"
)

func TestSumReferenceValues(t *testing.T) {
	// Reference values of XXH64 with seed 0.
	if got := Of([]byte("abc")).String(); got != "44bc2cf5ad770999" {
		t.Errorf(`Of("abc") = %s, want 44bc2cf5ad770999`, got)
	}
	if got := Of(nil).String(); got != "ef46db3751d8e999" {
		t.Errorf("Of(nil) = %s, want ef46db3751d8e999", got)
	}
	if got := Sum(0xab).String(); got != "00000000000000ab" {
		t.Errorf("zero padding: got %s", got)
	}
}

func TestParseToken(t *testing.T) {
	tests := []struct {
		in      string
		want    Token
		wantErr bool
	}{
		{in: "44bc2cf5ad770999", want: Token{Sum: 0x44bc2cf5ad770999}},
		{in: "44BC2CF5AD770999", want: Token{Sum: 0x44bc2cf5ad770999}},
		{in: "44bc2cf5ad770999@3-7", want: Token{Sum: 0x44bc2cf5ad770999, Start: 3, End: 7}},
		{in: "44bc2cf5ad770999@1-1", want: Token{Sum: 0x44bc2cf5ad770999, Start: 1, End: 1}},
		{in: "", wantErr: true},
		{in: "44bc2cf5ad77099", wantErr: true},
		{in: "44bc2cf5ad7709990", wantErr: true},
		{in: "xxbc2cf5ad770999", wantErr: true},
		{in: "+4bc2cf5ad770999", wantErr: true},
		{in: "44bc2cf5ad770999@", wantErr: true},
		{in: "44bc2cf5ad770999@0-3", wantErr: true},
		{in: "44bc2cf5ad770999@5-3", wantErr: true},
		{in: "44bc2cf5ad770999@3", wantErr: true},
		{in: "44bc2cf5ad770999@a-b", wantErr: true},
		{in: "44bc2cf5ad770999@-1-3", wantErr: true},
	}
	for _, tc := range tests {
		got, err := ParseToken(tc.in)
		if tc.wantErr {
			if !errors.Is(err, ErrSyntax) {
				t.Errorf("ParseToken(%q): err = %v, want ErrSyntax", tc.in, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseToken(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
		if err == nil {
			again, err := ParseToken(got.String())
			if err != nil || again != got {
				t.Errorf("round trip of %v: %v, %v", got, again, err)
			}
		}
	}
}

func TestLines(t *testing.T) {
	data := []byte("one\r\ntwo\nthree")
	tests := []struct {
		start, end int
		want       string
		ok         bool
	}{
		{1, 1, "one\r\n", true},
		{2, 2, "two\n", true},
		{3, 3, "three", true},
		{1, 3, "one\r\ntwo\nthree", true},
		{2, 3, "two\nthree", true},
		{3, 4, "", false},
		{4, 4, "", false},
		{0, 1, "", false},
		{2, 1, "", false},
	}
	for _, tc := range tests {
		got, ok := Lines(data, tc.start, tc.end)
		if ok != tc.ok {
			t.Errorf("Lines(%d,%d) ok = %v, want %v", tc.start, tc.end, ok, tc.ok)
			continue
		}
		if ok && got.Sum != Of([]byte(tc.want)) {
			t.Errorf("Lines(%d,%d) hashed the wrong bytes, want %q", tc.start, tc.end, tc.want)
		}
	}
	// A file ending in a newline has no empty line after it.
	if _, ok := Lines([]byte("a\nb\n"), 3, 3); ok {
		t.Error("Lines past a final newline: ok, want false")
	}
	if _, ok := Lines(nil, 1, 1); ok {
		t.Error("Lines of empty file: ok, want false")
	}
}

func TestTokenCheckAndCurrent(t *testing.T) {
	old := []byte("a\nb\nc\nd\n")
	tok, _ := Lines(old, 2, 3)
	if !tok.Check(old) {
		t.Fatal("range token does not check against its own data")
	}
	// An edit outside the range keeps the token valid.
	if !tok.Check([]byte("A\nb\nc\nD\n")) {
		t.Error("edit outside the range invalidated the token")
	}
	changed := []byte("a\nB\nc\nd\n")
	if tok.Check(changed) {
		t.Error("edit inside the range did not invalidate the token")
	}
	cur := tok.Current(changed)
	if cur.Start != 2 || cur.End != 3 || !cur.Check(changed) {
		t.Errorf("Current = %v, want a valid 2-3 token", cur)
	}
	whole := Token{Sum: Of(old)}
	if !whole.Check(old) || whole.Check(changed) {
		t.Error("whole-file token check wrong")
	}
	if got := tok.Current([]byte("x\n")); got.IsRange() {
		t.Errorf("Current of a vanished range = %v, want whole-file token", got)
	}
}
