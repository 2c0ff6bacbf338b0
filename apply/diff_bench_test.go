package apply

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/txedit/txedit/plan"
)

// BenchmarkUnifiedSmallEdits renders the diff of a 4 KiB source file with
// 10 scattered one-line edits: the shape of a typical agent commit.
func BenchmarkUnifiedSmallEdits(b *testing.B) {
	var old, new strings.Builder
	for l := 0; old.Len() < 4096; l++ {
		line := fmt.Sprintf("var value_%d = compute(%d) // line %d\n", l, l, l)
		old.WriteString(line)
		if l%7 == 0 && l < 70 {
			line = strings.Replace(line, "compute(", "recompute(cache, ", 1)
		}
		new.WriteString(line)
	}
	c := Change{OldPath: "f.go", NewPath: "f.go", Old: []byte(old.String()), New: []byte(new.String())}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		Unified(c)
	}
}

// sourceFile is a 128 KiB Go-like source file where one line in 40 calls
// errors.New(: a large file of a pattern_replace over a source tree.
func sourceFile() []byte {
	var b strings.Builder
	for l := 0; b.Len() < 128<<10; l++ {
		if l%40 == 0 {
			fmt.Fprintf(&b, "\t\treturn errors.New(\"step %d failed\")\n", l)
		} else {
			fmt.Fprintf(&b, "\tx%d := compute(ctx, x%d) // line %d of the file\n", l, l-1, l)
		}
	}
	return []byte(b.String())
}

// BenchmarkRenderSed renders the diff of a pattern_replace
// (errors.New( -> errors.Newf() of a 128 KiB file.
func BenchmarkRenderSed(b *testing.B) {
	old := sourceFile()
	s, err := ParseSed("s/errors.New(/errors.Newf(/g", true)
	if err != nil {
		b.Fatal(err)
	}
	new, n := s.Apply(old)
	if n == 0 {
		b.Fatal("no match")
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(old)))
	for b.Loop() {
		Render(Change{OldPath: "a", NewPath: "a", Old: old, New: new, OldMode: 0o644, NewMode: 0o644})
	}
}

// BenchmarkSedApply substitutes a literal in a 128 KiB file.
func BenchmarkSedApply(b *testing.B) {
	old := sourceFile()
	s, _ := ParseSed("s/errors.New(/errors.Newf(/g", true)
	b.ReportAllocs()
	b.SetBytes(int64(len(old)))
	for b.Loop() {
		s.Apply(old)
	}
}

// BenchmarkEdit applies a typical agent edit list to a 4 KiB source file:
// two str_replaces, a replace_lines, an insert and an append.
func BenchmarkEdit(b *testing.B) {
	var src strings.Builder
	for l := 0; src.Len() < 4096; l++ {
		fmt.Fprintf(&src, "var value_%d = compute(%d) // line %d\n", l, l, l)
	}
	cur := []byte(src.String())
	var edits []plan.Edit
	if err := json.Unmarshal([]byte(`[{"command":"str_replace","old_str":"compute(7)","new_str":"recompute(7)"},
		{"command":"str_replace","old_str":"compute(20)","new_str":"recompute(20)"},
		{"command":"replace_lines","start_line":30,"end_line":31,"new_str":"a\nb\nc"},
		{"command":"insert","insert_line":50,"new_str":"inserted"},
		{"command":"append","new_str":"tail"}]`), &edits); err != nil {
		b.Fatal(err)
	}
	p, err := plan.Compile(&plan.Request{FileEdits: []plan.FileEdit{{Path: "f", Edits: edits}}})
	if err != nil {
		b.Fatal(err)
	}
	f := p.Files[0]
	b.ReportAllocs()
	for b.Loop() {
		if out := Edit(f, cur, true); !out.OK() {
			b.Fatal(out.Failed[0])
		}
	}
}

// BenchmarkRenderSedAligned is BenchmarkRenderSed with the aligned path
// (alignedSpans) on and off.
func BenchmarkRenderSedAligned(b *testing.B) {
	old := sourceFile()
	s, _ := ParseSed("s/errors.New(/errors.Newf(/g", true)
	new, _ := s.Apply(old)
	for _, off := range []bool{false, true} {
		b.Run(fmt.Sprintf("off=%v", off), func(b *testing.B) {
			noAlignedSpans = off
			defer func() { noAlignedSpans = false }()
			b.ReportAllocs()
			b.SetBytes(int64(len(old)))
			for b.Loop() {
				Render(Change{OldPath: "a", NewPath: "a", Old: old, New: new, OldMode: 0o644, NewMode: 0o644})
			}
		})
	}
}

// BenchmarkRenderSedSpans is BenchmarkRenderSed with the spans the
// substitution gives (AppendApplySpans): what staging renders a
// pattern_replace's diff from.
func BenchmarkRenderSedSpans(b *testing.B) {
	old := sourceFile()
	s, err := ParseSed("s/errors.New(/errors.Newf(/g", true)
	if err != nil {
		b.Fatal(err)
	}
	new, n, spans := s.AppendApplySpans(nil, old, nil)
	if n == 0 {
		b.Fatal("no match")
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(old)))
	for b.Loop() {
		Render(Change{OldPath: "a", NewPath: "a", Old: old, New: new, OldMode: 0o644, NewMode: 0o644, Spans: spans})
	}
}
