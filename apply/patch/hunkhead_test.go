package patch

import (
	"fmt"
	"math/rand"
	"regexp"
	"testing"
)

// TestHunkHeadAsTheRegexp: the hunk header reader says what the regular
// expression it replaced said (the oracle, kept here), on real headers,
// near misses and random strings made of a header's characters.
func TestHunkHeadAsTheRegexp(t *testing.T) {
	re := regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$`)
	cases := []string{
		"@@ -1,3 +1,4 @@", "@@ -1 +1 @@", "@@ -0,0 +1,12 @@ func main() {", "@@ -12,7 +12,9 @@\tx",
		"@@ -1, +1 @@", "@@ -1,2,3 +4 @@", "@@ -a +1 @@", "@@ -1 +1 @", "@@ -1 +1@@", "@@ -1  +1 @@",
		"@@ -1 +1 @@\n", "@@ -1 +1 @@ a\nb", "@@ -1 +1 @@\r", "@@", "@@ @@", "@@ -1 -1 @@", "@@ -99999999999999999999 +1 @@",
		" @@ -1 +1 @@", "@@ -1 +1 @@@@", "@@ -١ +1 @@",
	}
	r := rand.New(rand.NewSource(9))
	alphabet := "@ -+,0123456789\nx\r"
	side := func() string {
		s := fmt.Sprint(r.Intn(300))
		if r.Intn(2) == 0 {
			s += "," + fmt.Sprint(r.Intn(300))
		}
		return s
	}
	for i := 0; i < 20000; i++ {
		tail := []string{"", " f() {", "\t", "@@", " x\ny", "\r"}[r.Intn(6)]
		cases = append(cases, "@@ -"+side()+" +"+side()+" @@"+tail)
	}
	for i := 0; i < 50000; i++ {
		b := []byte("@@ -")
		if r.Intn(8) == 0 {
			b = b[:r.Intn(4)]
		}
		for n := r.Intn(16); n > 0; n-- {
			b = append(b, alphabet[r.Intn(len(alphabet))])
		}
		cases = append(cases, string(b))
	}
	valid := 0
	for _, l := range cases {
		want := re.FindStringSubmatch(l)
		if want != nil {
			valid++
		}
		got, ok := hunkHead(l)
		if ok != (want != nil) {
			t.Fatalf("%q: read %v, the regexp %v", l, ok, want != nil)
		}
		if ok {
			for k := range want {
				if got[k] != want[k] {
					t.Fatalf("%q: group %d is %q, the regexp's %q", l, k, got[k], want[k])
				}
			}
		}
	}
}
