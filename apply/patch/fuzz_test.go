package patch

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/txedit/txedit/apply"
)

// seed adds the patches of testdata/*.txtar whose names start with prefix.
func seed(f *testing.F, prefix string) {
	names, _ := filepath.Glob(filepath.Join("testdata", prefix+"*.txtar"))
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range txtar.Parse(data).Files {
			if file.Name == "patch" {
				f.Add(string(unmarkEOF(file.Data)))
			}
		}
	}
}

// sameFiles compares parsed files, ignoring the input lines they came
// from.
func sameFiles(a, b []*File) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := *a[i], *b[i]
		x.Line, y.Line = 0, 0
		if len(x.Content) == 0 && len(y.Content) == 0 {
			x.Content, y.Content = nil, nil
		}
		if !reflect.DeepEqual(x, y) {
			return false
		}
	}
	return true
}

func hasCR(files []*File) bool {
	for _, f := range files {
		if bytes.Contains(f.Content, []byte("\r")) || strings.ContainsAny(f.Path+f.MoveTo, "\r\n") {
			return true
		}
		for _, h := range f.Hunks {
			for _, l := range append(append(append([]string{}, h.Old...), h.New...), h.Anchors...) {
				if strings.HasSuffix(l, "\r") {
					return true
				}
			}
		}
	}
	return false
}

// formatApplyPatch writes files as an apply_patch envelope.
func formatApplyPatch(files []*File) string {
	var b strings.Builder
	b.WriteString("*** Begin Patch\n")
	for _, f := range files {
		switch f.Op {
		case OpAdd:
			fmt.Fprintf(&b, "*** Add File: %s\n", f.Path)
			for _, l := range strings.SplitAfter(string(f.Content), "\n") {
				if l != "" {
					b.WriteString("+" + strings.TrimSuffix(l, "\n") + "\n")
				}
			}
		case OpDelete:
			fmt.Fprintf(&b, "*** Delete File: %s\n", f.Path)
		case OpUpdate:
			fmt.Fprintf(&b, "*** Update File: %s\n", f.Path)
			if f.MoveTo != "" {
				fmt.Fprintf(&b, "*** Move to: %s\n", f.MoveTo)
			}
			for _, h := range f.Hunks {
				b.WriteString("@@\n")
				for _, a := range h.Anchors {
					b.WriteString("@@ " + a + "\n")
				}
				if h.Line > 0 {
					fmt.Fprintf(&b, "@@ -%d +%d @@\n", h.Line, h.Line)
				}
				// In the markers' order, so the round trip keeps them.
				i, j := 0, 0
				for _, mk := range []byte(h.Marks) {
					switch mk {
					case ' ':
						b.WriteString(" " + h.Old[i] + "\n")
						i, j = i+1, j+1
					case '-':
						b.WriteString("-" + h.Old[i] + "\n")
						i++
					case '+':
						b.WriteString("+" + h.New[j] + "\n")
						j++
					}
				}
				if h.AtEOF {
					b.WriteString("*** End of File\n")
				}
			}
		}
	}
	b.WriteString("*** End Patch\n")
	return b.String()
}

// $ go test -fuzz=FuzzParseApplyPatch ./apply/patch
// Parsing never panics; what parses is written back as an envelope and
// parses to the same files; detection and the other parsers never panic
// on the same input either.
func FuzzParseApplyPatch(f *testing.F) {
	seed(f, "ap_")
	seed(f, "rs_")
	f.Add("*** Begin Patch\n*** Update File: a\n@@ c\n@@ d\n x\n-y\n+z\n\n*** End of File\n*** End Patch")
	f.Fuzz(func(t *testing.T, in string) {
		Detect([]byte(in))
		Parse(FormatAuto, []byte(in))
		Parse(FormatResponses, []byte(in))
		files, err := Parse(FormatApplyPatch, []byte(in))
		if err != nil {
			return
		}
		for _, file := range files {
			if file.Path == "" {
				t.Fatalf("empty path in %q", in)
			}
		}
		if hasCR(files) {
			return
		}
		out := formatApplyPatch(files)
		again, err := Parse(FormatApplyPatch, []byte(out))
		if err != nil {
			t.Fatalf("reparse: %v\n%s", err, out)
		}
		if !sameFiles(files, again) {
			t.Fatalf("round trip:\n%s\n%s\n%s", in, dumpFiles(files, nil), dumpFiles(again, nil))
		}
	})
}

// uniform reports whether s's line breaks are all LF or all CRLF (crlf),
// with no other "\r".
func uniform(s string) (crlf, ok bool) {
	n, cr := strings.Count(s, "\n"), strings.Count(s, "\r\n")
	return cr > 0, strings.Count(s, "\r") == cr && (cr == 0 || cr == n)
}

// $ go test -fuzz=FuzzParseUnified ./apply/patch
// Parsing never panics, and a real change rendered as a diff (by
// apply.Unified) parses and applies back to exactly the new text.
func FuzzParseUnified(f *testing.F) {
	seed(f, "df_")
	f.Fuzz(func(t *testing.T, in string) {
		Parse(FormatDiff, []byte(in))
		a, b, ok := strings.Cut(in, "\x00")
		if !ok {
			a, b = in, strings.ToUpper(in)
		}
		ca, oka := uniform(a)
		cb, okb := uniform(b)
		if !oka || !okb || a == b || apply.IsBinary([]byte(a)) || apply.IsBinary([]byte(b)) ||
			strings.Contains(a, "\n") && strings.Contains(b, "\n") && ca != cb || !strings.Contains(a, "\n") && cb {
			return // mixed line endings: added lines take the file's
		}
		d := apply.Unified(apply.Change{OldPath: "f", NewPath: "f", Old: []byte(a), New: []byte(b)})
		files, err := Parse(FormatDiff, []byte(d))
		if err != nil {
			t.Fatalf("parse: %v\n%s", err, d)
		}
		if len(files) != 1 || files[0].Path != "f" {
			t.Fatalf("files:\n%s", dumpFiles(files, nil))
		}
		o := files[0].Apply([]byte(a))
		if !o.OK() {
			t.Fatalf("apply %q: %v\n%s", a, o.Failed, d)
		}
		if !o.AlreadyApplied && string(o.Content) != b {
			t.Fatalf("apply %q = %q, want %q\n%s", a, o.Content, b, d)
		}
	})
}

// formatBlocks writes files as SEARCH/REPLACE blocks.
func formatBlocks(files []*File) string {
	var b strings.Builder
	for _, f := range files {
		for _, h := range f.Hunks {
			fmt.Fprintf(&b, "`%s`\n<<<<<<< SEARCH\n", f.Path)
			for _, l := range h.Old {
				b.WriteString(l + "\n")
			}
			b.WriteString("=======\n")
			for _, l := range h.New {
				b.WriteString(l + "\n")
			}
			b.WriteString(">>>>>>> REPLACE\n")
		}
	}
	return b.String()
}

// $ go test -fuzz=FuzzParseSearchReplace ./apply/patch
// Parsing never panics; what parses is written back as blocks and parses
// to the same files; applying the blocks never panics and leaves the
// content alone on failure.
func FuzzParseSearchReplace(f *testing.F) {
	seed(f, "sr_")
	f.Fuzz(func(t *testing.T, in string) {
		files, err := Parse(FormatSearchReplace, []byte(in))
		if err != nil {
			return
		}
		for _, file := range files {
			if file.Path == "" || !file.Blocks || len(file.Hunks) == 0 {
				t.Fatalf("file %+v", file)
			}
			content := []byte(in)
			if o := file.Apply(content); !o.OK() && !bytes.Equal(o.Content, content) {
				t.Fatal("content changed on failure")
			}
		}
		if hasCR(files) {
			return
		}
		out := formatBlocks(files)
		again, err := Parse(FormatSearchReplace, []byte(out))
		if err != nil {
			t.Fatalf("reparse: %v\n%s", err, out)
		}
		for _, f := range files {
			f.Path = cleanPath("`" + f.Path + "`") // as written back
		}
		if !sameFiles(files, again) {
			t.Fatalf("round trip:\n%q\n%s\n%s", in, dumpFiles(files, nil), dumpFiles(again, nil))
		}
	})
}
