// Package bench holds txedit's macro benchmarks. The side-by-side
// comparisons with other tools are programs in the subdirectories; see
// README.md.
package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/plan"
)

// corpus writes n files of about 4 KiB and returns a request making 10
// str_replace edits in each.
func corpus(b *testing.B, root string, n int) []byte {
	var req strings.Builder
	req.WriteString(`{"fileEdits":[`)
	for f := 0; f < n; f++ {
		name := fmt.Sprintf("pkg%02d/file%04d.go", f%20, f)
		var c strings.Builder
		for l := 0; c.Len() < 4096; l++ {
			fmt.Fprintf(&c, "var value_%d_%d = compute(%d) // line %d\n", f, l, l, l)
		}
		p := filepath.Join(root, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(c.String()), 0o644); err != nil {
			b.Fatal(err)
		}
		if f > 0 {
			req.WriteString(",")
		}
		fmt.Fprintf(&req, `{"path":%q,"edits":[`, name)
		for e := 0; e < 10; e++ {
			if e > 0 {
				req.WriteString(",")
			}
			fmt.Fprintf(&req, `{"command":"str_replace","old_str":"value_%d_%d = compute(","new_str":"value_%d_%d = recompute(cache, "}`, f, e*7, f, e*7)
		}
		req.WriteString("]}")
	}
	req.WriteString("]}")
	return []byte(req.String())
}

func benchCommit(b *testing.B, mode engine.Durability) {
	const files = 1000
	phases := map[string]time.Duration{}
	defer func() {
		for _, p := range engine.TimingPhases() {
			b.ReportMetric(float64(phases[p].Microseconds())/float64(b.N)/1000, p+"-ms/op")
		}
	}()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		root := b.TempDir()
		reqJSON := corpus(b, root, files)
		w, err := engine.Open(root, &engine.Options{Durability: mode, Timings: func(phase string, d time.Duration) { phases[phase] += d }})
		if err != nil {
			b.Fatal(err)
		}
		req, err := plan.Parse(reqJSON)
		if err != nil {
			b.Fatal(err)
		}
		syscall.Sync() // the corpus's writeback must not bill the commit
		b.StartTimer()
		res, err := w.Apply(context.Background(), req)
		if err != nil || res.FilesModified != files {
			b.Fatalf("apply: %v", err)
		}
		b.StopTimer()
		w.Close()
	}
}

// BenchmarkCommit1000x10 commits 1,000 files × 10 edits durably.
func BenchmarkCommit1000x10(b *testing.B) { benchCommit(b, engine.DurableAuto) }

// BenchmarkCommit1000x10NoSync is the same commit without durability: the
// cost of the pipeline itself.
func BenchmarkCommit1000x10NoSync(b *testing.B) { benchCommit(b, engine.NotDurable) }
