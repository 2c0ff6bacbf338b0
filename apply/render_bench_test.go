package apply

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// BenchmarkRenderSed renders the diff of a pattern_replace on a real
// source file (net/http/server.go: errors.New( -> errors.Newf().
func BenchmarkRenderSed(b *testing.B) {
	old, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src/net/http/server.go"))
	if err != nil {
		b.Skip(err)
	}
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

func BenchmarkSedApply(b *testing.B) {
	old, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src/net/http/server.go"))
	if err != nil {
		b.Skip(err)
	}
	s, _ := ParseSed("s/errors.New(/errors.Newf(/g", true)
	b.ReportAllocs()
	b.SetBytes(int64(len(old)))
	for b.Loop() {
		s.Apply(old)
	}
}
