package fsys

import (
	"math/rand"
	"strings"
	"testing"
)

func TestSameName(t *testing.T) {
	for _, n := range []string{".git", ".GIT", ".Git", ".g\u200cit", "\ufeff.git", ".git.", ".git ", ".git. .", "GIT~1", "git~1"} {
		if !SameName(n, ".git") {
			t.Errorf("%q is not taken for .git", n)
		}
	}
	for _, n := range []string{".txedit", ".TXEDIT", ".txedit\u200f", "TXEDIT~1"} {
		if !SameName(n, ".txedit") {
			t.Errorf("%q is not taken for .txedit", n)
		}
	}
	for _, n := range []string{"git", ".gitignore", ".git2", "x.git", ".gi", "", ".", "..", ".txedi", ".txedit-x.tmp", "GIT~2", ".github"} {
		if SameName(n, ".git") || SameName(n, ".txedit") {
			t.Errorf("%q is taken for a reserved name", n)
		}
	}
}

// TestSameNameOfAnASCIINameAllocatesNothing: every name a walk passes is
// checked against the journal's (skipJournal); a file name with a dot
// (main.go) is compared as it is, not copied rune by rune first.
func TestSameNameOfAnASCIINameAllocatesNothing(t *testing.T) {
	for _, name := range []string{"main.go", "errors_test.go", ".TXEDIT.", "txedi~1", ".gitignore"} {
		if n := testing.AllocsPerRun(100, func() { SameName(name, ".txedit") }); n != 0 {
			t.Errorf("SameName(%q): %.0f allocations", name, n)
		}
	}
}

// TestSameNameOfASCIINamesIsTheFullRule: the quick path for ASCII names
// decides as the full rule (sameNameFull) on every short name made of the
// letters, dots, spaces and tildes that spell the reserved names, in
// both cases, and on real-looking names.
func TestSameNameOfASCIINamesIsTheFullRule(t *testing.T) {
	alphabet := []byte(".~ 1gitGITxedXEDa")
	names := []string{"main.go", "errors_test.go", ".gitignore", ".github", "GIT~1.", "txedit~1 ", ".TxEdIt. ", "git~1~1", "xgit~1", ".git~1"}
	r := rand.New(rand.NewSource(40))
	for i := 0; i < 200000; i++ {
		b := make([]byte, r.Intn(11))
		for k := range b {
			b[k] = alphabet[r.Intn(len(alphabet))]
		}
		names = append(names, string(b))
	}
	// And the reserved names themselves, with dots and spaces after.
	for _, w := range []string{".git", ".txedit", "GIT~1", "TXEDIT~1"} {
		for _, tail := range []string{"", ".", " ", ". .", "..", "x"} {
			names = append(names, w+tail, strings.ToLower(w)+tail)
		}
	}
	taken := 0
	for _, n := range names {
		for _, want := range []string{".git", ".txedit"} {
			got, full := SameName(n, want), sameNameFull(n, want)
			if got != full {
				t.Fatalf("SameName(%q, %q) = %v, the full rule says %v", n, want, got, full)
			}
			if got {
				taken++
			}
		}
	}
	if taken < 30 {
		t.Fatalf("only %d names were taken for a reserved one: the names do not test the rule", taken)
	}
}
