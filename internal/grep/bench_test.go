package grep

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var (
	corpusOnce sync.Once
	corpus     [][]byte
	corpusSize int64
)

// goSource is the .go files of GOROOT/src, the benchmarks' text.
func goSource(b *testing.B) [][]byte {
	corpusOnce.Do(func() {
		out, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			return
		}
		filepath.WalkDir(filepath.Join(strings.TrimSpace(string(out)), "src"), func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".go") && !strings.Contains(p, "testdata") {
				if data, err := os.ReadFile(p); err == nil {
					corpus = append(corpus, data)
					corpusSize += int64(len(data))
				}
			}
			return nil
		})
	})
	if len(corpus) == 0 {
		b.Skip("no GOROOT/src")
	}
	return corpus
}

func benchSearch(b *testing.B, pattern string, o Options, want Want) {
	files := goSource(b)
	m, err := Compile(pattern, o)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(corpusSize)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		n := 0
		for _, f := range files {
			n += m.search(f, 1, false, func(Block) bool { return want != WantAny })
		}
		if n == 0 {
			b.Fatal("no match")
		}
	}
}

func BenchmarkLiteral(b *testing.B) { benchSearch(b, "func main", Options{}, WantAny) }
func BenchmarkLiteralRare(b *testing.B) {
	benchSearch(b, "errors.New(", Options{Literal: true}, WantCount)
}
func BenchmarkFoldWord(b *testing.B) {
	benchSearch(b, `\bdeprecated\b`, Options{IgnoreCase: true}, WantAny)
}
func BenchmarkAlternation(b *testing.B) {
	benchSearch(b, `fmt\.Errorf|errors\.New|panic\(`, Options{}, WantCount)
}
func BenchmarkRegexPrefilter(b *testing.B) {
	benchSearch(b, `func \w+\(ctx context\.Context`, Options{}, WantCount)
}
