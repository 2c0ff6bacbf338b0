package patch

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/txedit/txedit/plan"
)

var update = flag.Bool("update", false, "rewrite the expected sections of testdata/*.txtar")

// TestGolden runs testdata/*.txtar. Each archive's comment says what the
// case pins (and "format: NAME" to skip detection); its sections are the
// patch ("patch"), the files before ("in/PATH"), and what is expected: the
// parse ("parsed": the files as parsed, or the error), the outcome of
// applying them all or nothing ("result") and the files after ("out/PATH";
// the "in" files unchanged when anything failed). A section whose last line
// ends with ^D has no final newline.
func TestGolden(t *testing.T) {
	archives, _ := filepath.Glob("testdata/*.txtar")
	if len(archives) == 0 {
		t.Fatal("no testdata/*.txtar")
	}
	for _, name := range archives {
		t.Run(strings.TrimSuffix(filepath.Base(name), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(name)
			if err != nil {
				t.Fatal(err)
			}
			format := FormatAuto
			for _, l := range strings.Split(string(ar.Comment), "\n") {
				if f, ok := strings.CutPrefix(l, "format: "); ok {
					format = Format(strings.TrimSpace(f))
				}
			}
			var input []byte
			in := map[string][]byte{}
			for _, f := range ar.Files {
				if f.Name == "patch" {
					input = unmarkEOF(f.Data)
				} else if p, ok := strings.CutPrefix(f.Name, "in/"); ok {
					in[p] = unmarkEOF(f.Data)
				}
			}
			want := map[string][]byte{}
			files, err := Parse(format, input)
			want["parsed"] = []byte(dumpFiles(files, err))
			if err == nil {
				result, out := applyTree(files, in)
				want["result"] = []byte(result)
				for p, c := range out {
					want["out/"+p] = markEOF(c)
				}
			}
			check(t, name, ar, want)
		})
	}
}

// check compares the archive's expected sections with got, or rewrites
// them under -update.
func check(t *testing.T, name string, ar *txtar.Archive, got map[string][]byte) {
	t.Helper()
	var kept []txtar.File
	have := map[string][]byte{}
	for _, f := range ar.Files {
		if f.Name == "parsed" || f.Name == "result" || strings.HasPrefix(f.Name, "out/") {
			have[f.Name] = f.Data
			continue
		}
		kept = append(kept, f)
	}
	names := make([]string, 0, len(got))
	for n := range got {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int { return strings.Compare(sectionKey(a), sectionKey(b)) })
	differs := len(have) != len(got)
	for _, n := range names {
		if !bytes.Equal(have[n], got[n]) {
			differs = true
			if !*update {
				t.Errorf("%s: section %s:\n%s\nwant:\n%s", name, n, got[n], have[n])
			}
		}
	}
	if differs && !*update {
		for n := range have {
			if _, ok := got[n]; !ok {
				t.Errorf("%s: unexpected section %s", name, n)
			}
		}
	}
	if differs && *update {
		for _, n := range names {
			kept = append(kept, txtar.File{Name: n, Data: got[n]})
		}
		ar.Files = kept
		if err := os.WriteFile(name, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// sectionKey orders expected sections: parsed, result, then the files.
func sectionKey(name string) string {
	switch name {
	case "parsed":
		return "0"
	case "result":
		return "1"
	}
	return "2" + name
}

func unmarkEOF(b []byte) []byte {
	if c, ok := bytes.CutSuffix(b, []byte("^D\n")); ok {
		return c
	}
	return b
}

func markEOF(b []byte) []byte {
	if len(b) > 0 && b[len(b)-1] != '\n' {
		return append(slices.Clone(b), "^D\n"...)
	}
	return b
}

// dumpFiles renders parsed files, or the parse error, as text.
func dumpFiles(files []*File, err error) string {
	var b strings.Builder
	if err != nil {
		var pe *plan.Error
		if !errors.As(err, &pe) {
			return "error (not a *plan.Error): " + err.Error() + "\n"
		}
		fmt.Fprintf(&b, "error %s: %s\n", pe.Code, pe.Msg)
		return b.String()
	}
	for _, f := range files {
		fmt.Fprintf(&b, "%s %s", f.Op, f.Path)
		if f.MoveTo != "" {
			fmt.Fprintf(&b, " -> %s", f.MoveTo)
		}
		for _, flag := range []struct {
			on   bool
			name string
		}{{f.Overwrite, "overwrite"}, {f.Blocks, "blocks"}, {f.CreateIfMissing, "create-if-missing"}} {
			if flag.on {
				b.WriteString(" " + flag.name)
			}
		}
		if f.OldMode != "" || f.NewMode != "" {
			fmt.Fprintf(&b, " mode %s->%s", f.OldMode, f.NewMode)
		}
		fmt.Fprintf(&b, " (line %d)\n", f.Line)
		if f.Op == OpAdd {
			fmt.Fprintf(&b, "  content %q\n", f.Content)
		}
		for i, h := range f.Hunks {
			fmt.Fprintf(&b, "  hunk %d", i)
			if h.Line > 0 {
				fmt.Fprintf(&b, " line %d", h.Line)
			}
			for _, a := range h.Anchors {
				fmt.Fprintf(&b, " @@%q", a)
			}
			for _, flag := range []struct {
				on   bool
				name string
			}{{h.AtEOF, "at-eof"}, {h.OldNoEOL, "old-no-eol"}, {h.NewNoEOL, "new-no-eol"}, {h.Recounted, "recounted"}} {
				if flag.on {
					b.WriteString(" " + flag.name)
				}
			}
			b.WriteString("\n")
			for _, l := range h.Old {
				fmt.Fprintf(&b, "    -%q\n", l)
			}
			for _, l := range h.New {
				fmt.Fprintf(&b, "    +%q\n", l)
			}
		}
	}
	return b.String()
}

// applyTree applies files to a tree of path → content all or nothing, the
// way the engine is meant to (docs/patch-formats.md), and reports what happened.
func applyTree(files []*File, in map[string][]byte) (string, map[string][]byte) {
	tree := map[string][]byte{}
	for p, c := range in {
		tree[p] = c
	}
	var b strings.Builder
	failed := false
	fail := func(format string, args ...any) {
		fmt.Fprintf(&b, format+"\n", args...)
		failed = true
	}
	for _, f := range files {
		cur, exists := tree[f.Path]
		if !exists {
			cur = nil
		}
		switch {
		case f.Op == OpAdd && exists && !f.Overwrite && !bytes.Equal(cur, f.Content):
			fail("%s %s: conflict: the file exists with other content", f.Op, f.Path)
			continue
		case f.Op != OpAdd && !exists && !f.CreateIfMissing:
			fail("%s %s: file_not_found", f.Op, f.Path)
			continue
		}
		o := f.Apply(cur)
		for _, e := range o.Failed {
			fail("%s %s: %s hunk %d: %s", f.Op, f.Path, e.Code, e.Index, e.Msg)
		}
		if !o.OK() {
			continue
		}
		if f.Op == OpDelete && len(o.Content) > 0 {
			fail("%s %s: conflict: the file has lines the diff does not delete", f.Op, f.Path)
			continue
		}
		fmt.Fprintf(&b, "%s %s:", f.Op, f.Path)
		if o.AlreadyApplied {
			b.WriteString(" already_applied")
		}
		for _, r := range o.Reports {
			fmt.Fprintf(&b, " [%d: line %d %s", r.Hunk, r.Line, r.Rung)
			if r.Offset != 0 {
				fmt.Fprintf(&b, " offset %d", r.Offset)
			}
			if r.AlreadyApplied {
				b.WriteString(" already")
			}
			if r.Recounted {
				b.WriteString(" recounted")
			}
			b.WriteString("]")
		}
		b.WriteString("\n")
		switch {
		case f.Op == OpDelete:
			delete(tree, f.Path)
		case f.MoveTo != "":
			delete(tree, f.Path)
			tree[f.MoveTo] = o.Content
		default:
			tree[f.Path] = o.Content
		}
	}
	if failed {
		b.WriteString("nothing written\n")
		return b.String(), in
	}
	return b.String(), tree
}
