package engine

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/txedit/txedit/plan"
)

// TestStreamUndo: undo, its dry run and redo honour StreamResults as Apply
// does: each file's result reaches the stream once, in the order of
// Result.Files, with its preview (dry run) or committed diff, and the
// Result keeps no diff; what they do is what the unstreamed calls do.
func TestStreamUndo(t *testing.T) {
	ctx := context.Background()
	files := streamTree(40)
	refDir, dir := t.TempDir(), t.TempDir()
	writeTree(t, refDir, files)
	writeTree(t, dir, files)
	ref, w := openWS(t, refDir, nil), openWS(t, dir, nil)
	run(t, ref, streamReq+`}`)
	run(t, w, streamReq+`}`)

	var got []*plan.FileResult
	var text []string
	collect := func(r *plan.FileResult) {
		c := *r
		got = append(got, &c)
		text = append(text, r.Preview+r.Diff)
	}
	for _, step := range []struct {
		what string
		uo   UndoOptions
	}{
		{"undo --dry-run", UndoOptions{DryRun: true}},
		{"undo", UndoOptions{}},
		{"redo --dry-run", UndoOptions{DryRun: true, Redo: true}},
		{"redo", UndoOptions{Redo: true}},
	} {
		want, err := ref.Undo(ctx, step.uo)
		if err != nil || !want.Success || len(want.Files) != 40 {
			t.Fatalf("%s, not streamed: %v %+v", step.what, err, want)
		}
		got, text = nil, nil
		res, err := w.Undo(StreamResults(ctx, collect, true), step.uo)
		if err != nil || !res.Success {
			t.Fatalf("%s, streamed: %v %+v", step.what, err, res)
		}
		checkStreamed(t, step.what, got, res, want)
		for i, f := range want.Files {
			if text[i] != f.Preview+f.Diff || text[i] == "" {
				t.Errorf("%s: diff of %s: %q, want %q", step.what, f.Path, text[i], f.Preview+f.Diff)
			}
		}
		if step.uo.DryRun && (strings.Join(text, "") != want.Diff || res.Diff != "") {
			t.Errorf("%s: the streamed previews do not make the unstreamed diff, or Result.Diff was kept (%d bytes)", step.what, len(res.Diff))
		}
		if treeString(readTree(t, dir)) != treeString(readTree(t, refDir)) {
			t.Fatalf("%s: the streamed call left another tree", step.what)
		}
	}
	// A conflict streams every file, the changed one with its code.
	run(t, w, streamReq+`}`)
	writeTree(t, dir, map[string]string{"d0/f000.txt": "changed by hand\n"})
	got = nil
	res, _ := w.Undo(StreamResults(ctx, collect, true), UndoOptions{})
	if res.Success || res.Code != plan.CodeConflict || len(got) != 40 {
		t.Fatalf("conflicting undo: %+v; streamed %d", res, len(got))
	}
}

// TestUndoMemoryBounded: undo and its dry run, streamed, hold a few files'
// bytes at a time, not every before-image of the transaction (a
// 50,000-file undo peaked at 440-860 MiB; docs/testing.md, the reliability
// audit). 48 files of 1 MiB
// are changed by one line each; the live heap, sampled after a collection
// as files are streamed (dry run) and staged (undo), stays under 24 MiB
// (holding the before-images takes 48).
func TestUndoMemoryBounded(t *testing.T) {
	if raceEnabled {
		t.Skip("skipped under -race: the detector's shadow memory is not the engine's")
	}
	ctx := context.Background()
	const n, size = 48, 1 << 20
	files := map[string]string{}
	line := strings.Repeat("x", 63) + "\n"
	for i := 0; i < n; i++ {
		files[fmt.Sprintf("f%02d.txt", i)] = "old\n" + strings.Repeat(line, size/64-1)
	}
	dir := t.TempDir()
	writeTree(t, dir, files)
	var mu sync.Mutex
	peak := uint64(0)
	sample := func() {
		mu.Lock()
		defer mu.Unlock()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapAlloc)
	}
	w := openWS(t, dir, &Options{Workers: 2, Progress: func(phase string, done, total int) {
		if phase == "stage" && done > 0 {
			sample()
		}
	}})
	if res := run(t, w, `{"command":"pattern_replace","directory":".","file_pattern":"*.txt","sed_pattern":"s/^old$/new/"}`); !res.Success || res.FilesModified != n {
		t.Fatalf("replace: %+v", res)
	}
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	for _, uo := range []UndoOptions{{DryRun: true}, {}} {
		peak = 0
		streamed := 0
		res, err := w.Undo(StreamResults(ctx, func(*plan.FileResult) { streamed++; sample() }, false), uo)
		if err != nil || !res.Success || streamed != n {
			t.Fatalf("undo %+v: %v (success %v, %s); %d of %d files streamed", uo, err, res.Success, res.Code, streamed, n)
		}
		grew := int64(peak) - int64(base.HeapAlloc)
		t.Logf("undo (dry run %v): live heap peaked %.1f MiB above the start", uo.DryRun, float64(grew)/(1<<20))
		if grew > 24<<20 {
			t.Errorf("undo (dry run %v) held %.1f MiB at once: the before-images are not streamed", uo.DryRun, float64(grew)/(1<<20))
		}
	}
	if got := readTree(t, dir)["f00.txt"]; !strings.HasPrefix(got, "old\n") {
		t.Errorf("not undone: %q", got[:10])
	}
}
