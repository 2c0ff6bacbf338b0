package ignore

import "testing"

func TestGlob(t *testing.T) {
	cases := []struct {
		glob, path string
		want       bool
	}{
		{"*.go", "a.go", true},
		{"*.go", "x/y/a.go", true}, // no "/": base name at any depth
		{"*.go", "a.gox", false},
		{"x/*.go", "x/a.go", true},
		{"x/*.go", "y/x/a.go", false}, // with "/": anchored
		{"x/*.go", "x/y/a.go", false}, // "*" stays in its segment
		{"**/*.go", "a.go", true},     // "**/" matches zero segments
		{"**/*.go", "p/q/a.go", true},
		{"src/**/*.go", "src/a.go", true},
		{"src/**", "src/a/b", true},
		{"/top.txt", "top.txt", true},
		{"/top.txt", "d/top.txt", false},
		{"./top.txt", "top.txt", true},
		{"*.{go,md}", "d/r.md", true},
		{"*.{go,md}", "d/r.txt", false},
		{"[ab]?.c", "b1.c", true},
		{"*.GO", "a.go", false}, // case-sensitive
		{"*", ".hidden", true},
	}
	for _, tc := range cases {
		g, err := CompileGlob(tc.glob)
		if err != nil {
			t.Fatalf("%q: %v", tc.glob, err)
		}
		if got := g.Match(tc.path); got != tc.want {
			t.Errorf("%q.Match(%q) = %v, want %v", tc.glob, tc.path, got, tc.want)
		}
	}
	for _, bad := range []string{"", "[a", "{a,b"} {
		if _, err := CompileGlob(bad); err == nil {
			t.Errorf("CompileGlob(%q) accepted", bad)
		}
	}
}

func TestOverrides(t *testing.T) {
	o, err := ParseOverrides([]string{"*.go", "!*_test.go", "!vendor/"})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		path           string
		dir            bool
		ignored, known bool
	}{
		{"a.go", false, false, true},
		{"a_test.go", false, true, true}, // the last matching glob decides
		{"README.md", false, true, true}, // includes exist: unmatched files are out
		{"vendor", true, true, true},
		{"src", true, false, false}, // unmatched directories: the ignore files decide
	}
	for _, tc := range cases {
		ig, known := o.Decide(tc.path, tc.dir)
		if ig != tc.ignored || known != tc.known {
			t.Errorf("Decide(%q, %v) = %v, %v; want %v, %v", tc.path, tc.dir, ig, known, tc.ignored, tc.known)
		}
	}
	excl, _ := ParseOverrides([]string{"!*.md"})
	if ig, known := excl.Decide("a.go", false); ig || known {
		t.Errorf("exclude-only overrides decided about an unmatched file: %v %v", ig, known)
	}
}

func TestTypes(t *testing.T) {
	ty, err := ParseTypes("go,make")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{"a.go": true, "Makefile": true, "GNUmakefile": true, "a.py": false} {
		if ty.Keep(name) != want {
			t.Errorf("Keep(%q) = %v, want %v", name, !want, want)
		}
	}
	if _, err := ParseTypes("nosuchtype"); err == nil {
		t.Error("unknown type accepted")
	}
	if all, _ := ParseTypes(""); !all.Keep("anything") {
		t.Error("an empty type list must keep every file")
	}
}
