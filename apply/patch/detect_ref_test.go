package patch

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// detectRef is Detect as it was before it walked the input in place: the
// whole input split into lines, then three passes over them. Detect must
// answer as it does for every input.
func detectRef(input []byte) Format {
	s := bytes.TrimSpace(bytes.TrimPrefix(input, []byte("\ufeff")))
	if len(s) == 0 {
		return ""
	}
	if s[0] == '{' || s[0] == '[' {
		if s[0] == '{' && isWorkspaceEdit(s) {
			return FormatLSP
		}
		if isResponses(s) {
			return FormatResponses
		}
		return FormatJSON
	}
	ls := lines(s)
	for i, l := range ls {
		ls[i] = strings.TrimSuffix(l, "\r")
	}
	seen := 0
	for _, l := range ls {
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		if t == beginPatch {
			return FormatApplyPatch
		}
		if seen++; seen == 3 {
			break
		}
	}
	for _, l := range ls {
		if isSearch(strings.TrimSpace(l)) {
			return FormatSearchReplace
		}
	}
	d := &diffReader{lines: ls}
	for i, l := range ls {
		if strings.HasPrefix(l, "diff --git ") || d.fileHeader(i) || isHunkHead(l) {
			return FormatDiff
		}
	}
	return ""
}

var detectTricky = []string{
	"\ufeff\ufeff*** Begin Patch",
	"\ufeff \ufeff\n*** Begin Patch\n",
	"a\r\n\r\nb\r\n*** Begin Patch\r\n",
	"a\n \n\t\nb\nc\n*** Begin Patch",
	"a\nb\n*** Begin Patch \r\r\n",
	"x SEARCH\n",
	"<<<< SEARCH\n",
	"<<<<<<<<<< SEARCH\n",
	"  <<<<<<< SEARCH>  \r\n",
	"--- SEARCH",
	"-- SEARCH",
	"--- a\r\n+++ b\r\n",
	"--- a\r\r\n+++ b\r\r\n",
	"---\n+++ b\n",
	"--- a\n\n+++ b\n",
	"x\n--- a",
	"@@ -1 +1 @@\r",
	"@@ -1,2 +3,4 @@ func f() {\r\n",
	"@@ -1 +1",
	"@@ -x +1 @@",
	"text\n\n@@ -0,0 +1 @@",
	"diff --git\n",
	"diff --git a b\r\n",
	"\rdiff --git a b",
	"@@ -1 +1 @@\rdiff",
}

func TestDetectMatchesReference(t *testing.T) {
	ins := append([]string(nil), detectTricky...)
	files, _ := filepath.Glob(filepath.Join("testdata", "*"))
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil {
			ins = append(ins, string(b))
		}
	}
	if len(files) == 0 {
		t.Fatal("no testdata inputs")
	}
	for _, in := range ins {
		if got, want := Detect([]byte(in)), detectRef([]byte(in)); got != want {
			t.Errorf("Detect(%.80q) = %q, the reference %q", in, got, want)
		}
	}
}

// $ go test -fuzz=FuzzDetect ./apply/patch
func FuzzDetect(f *testing.F) {
	for _, in := range detectTricky {
		f.Add(in)
	}
	seed(f, "ap_")
	seed(f, "rs_")
	f.Fuzz(func(t *testing.T, in string) {
		if got, want := Detect([]byte(in)), detectRef([]byte(in)); got != want {
			t.Fatalf("Detect(%q) = %q, the reference %q", in, got, want)
		}
	})
}

// A diff is told by its first lines, without copying or splitting the
// rest of it: a megabyte diff costs Detect no allocation.
func TestDetectDoesNotCopyTheInput(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,100000 +1,100000 @@\n")
	for i := 0; i < 100000; i++ {
		b.WriteString(" a context line of the diff\n")
	}
	in := b.Bytes()
	if Detect(in) != FormatDiff {
		t.Fatal("not a diff")
	}
	if n := testing.AllocsPerRun(10, func() { Detect(in) }); n != 0 {
		t.Errorf("Detect allocated %v times on a %d-byte diff", n, len(in))
	}
}
