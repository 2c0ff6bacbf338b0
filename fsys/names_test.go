package fsys

import "testing"

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
