package apply

import (
	"fmt"
	"strings"
	"testing"
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
