package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txedit/txedit/plan"
)

// The engine's own benchmarks: the hot paths of a search, a
// pattern_replace, a batch read and a small commit, on a synthetic tree
// of 2,000 files of ~4 KiB. They guard refactors of the engine against
// regressions in time and allocations (go test -run XXX -bench . -benchmem
// ./engine/); bench/ compares txedit with its peers.

const benchFiles = 2000

// benchTree writes the tree once per benchmark: 40 directories of 50
// files; every tenth file holds "needle".
func benchTree(b *testing.B) string {
	b.Helper()
	dir := b.TempDir()
	line := strings.Repeat("the quick brown fox jumps over the lazy dog ", 2) + "\n"
	body := strings.Repeat(line, 45)
	for i := range benchFiles {
		p := filepath.Join(dir, fmt.Sprintf("d%02d/f%04d.txt", i%40, i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		content := body
		if i%10 == 0 {
			content += "a needle in the haystack\n"
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

func benchWS(b *testing.B, dir string) *Workspace {
	b.Helper()
	w, err := Open(dir, &Options{Durability: NotDurable})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { w.Close() })
	return w
}

func BenchmarkGrepFiles(b *testing.B) {
	w := benchWS(b, benchTree(b))
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		res, err := w.Grep(ctx, &plan.GrepRequest{Pattern: "needle", Literal: true})
		if err != nil || len(res.Files) != benchFiles/10 {
			b.Fatalf("%v: %d files", err, len(res.Files))
		}
	}
}

func BenchmarkGrepContent(b *testing.B) {
	w := benchWS(b, benchTree(b))
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		res, err := w.Grep(ctx, &plan.GrepRequest{Pattern: "ne+dle", OutputMode: plan.OutputContent, Context: 1})
		if err != nil || len(res.Matches) != benchFiles/10 {
			b.Fatalf("%v: %d matches", err, len(res.Matches))
		}
	}
}

func BenchmarkPatternReplacePreview(b *testing.B) {
	w := benchWS(b, benchTree(b))
	ctx := context.Background()
	req := &plan.Request{Edit: plan.Edit{Command: "pattern_replace"}, Directory: ".", FilePattern: "*.txt", SedPattern: "s/needle/pin/g", DryRun: true}
	b.ResetTimer()
	for b.Loop() {
		res, err := w.Apply(ctx, req)
		if err != nil || res.FilesModified != benchFiles/10 {
			b.Fatalf("%v: %d files", err, res.FilesModified)
		}
	}
}

func BenchmarkReadBatch(b *testing.B) {
	dir := benchTree(b)
	w := benchWS(b, dir)
	var paths []string
	for i := range benchFiles {
		paths = append(paths, fmt.Sprintf("d%02d/f%04d.txt", i%40, i))
	}
	ctx := context.Background()
	req := &plan.ReadRequest{Mode: "Line", Paths: paths}
	b.ResetTimer()
	for b.Loop() {
		n := 0
		err := w.ReadEach(ctx, req, func(r *plan.ReadResult) error {
			if r.Success {
				n++
			}
			return nil
		})
		if err != nil || n != benchFiles {
			b.Fatalf("%v: %d read", err, n)
		}
	}
}

// BenchmarkCommit20 commits a str_replace in each of 20 files (not
// durable: the engine's work, not the disk's), back and forth.
func BenchmarkCommit20(b *testing.B) {
	w := benchWS(b, benchTree(b))
	ctx := context.Background()
	reqs := [2]*plan.Request{{}, {}}
	needle, pin := "needle", "pin"
	for i := range 20 {
		p := fmt.Sprintf("d%02d/f%04d.txt", (i*10)%40, i*10)
		reqs[0].FileEdits = append(reqs[0].FileEdits, plan.FileEdit{Path: p, Edits: []plan.Edit{{Command: "str_replace", OldStr: &needle, NewStr: &pin}}})
		reqs[1].FileEdits = append(reqs[1].FileEdits, plan.FileEdit{Path: p, Edits: []plan.Edit{{Command: "str_replace", OldStr: &pin, NewStr: &needle}}})
	}
	b.ResetTimer()
	i := 0
	for b.Loop() {
		res, err := w.Apply(ctx, reqs[i%2])
		if err != nil || res.FilesModified != 20 {
			b.Fatalf("%v: %d files", err, res.FilesModified)
		}
		i++
	}
}
