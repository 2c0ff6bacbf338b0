package engine

import (
	"fmt"
	"sync/atomic"
	"testing"
)

// countReserves replaces reserveDescriptors with a counter for the test.
func countReserves(t *testing.T) *atomic.Int32 {
	var n atomic.Int32
	old := reserveDescriptors
	reserveDescriptors = func() { n.Add(1) }
	t.Cleanup(func() { reserveDescriptors = old })
	return &n
}

// A write of manyFiles files or more reserves the descriptor table ahead
// of its commit (internal/fdtable): a pattern_replace from its walk, a
// request of edits before it reads its files; a dry run, and a smaller
// write, do not (a process waits for the reservation's grace period at
// exit).
func TestManyFilesReserveDescriptors(t *testing.T) {
	tree := func(n int) map[string]string {
		files := map[string]string{}
		for i := 0; i < n; i++ {
			files[fmt.Sprintf("d%d/f%d.txt", i%7, i)] = "old\n"
		}
		return files
	}
	pattern := `{"command":"pattern_replace","directory":".","file_pattern":"*.txt","sed_pattern":"s/old/new/g"`
	edits := func(n int, dry bool) string {
		s := `{"command":"str_replace","fileEdits":[`
		for i := 0; i < n; i++ {
			if i > 0 {
				s += ","
			}
			s += fmt.Sprintf(`{"path":"d%d/f%d.txt","edits":[{"command":"str_replace","old_str":"old","new_str":"new"}]}`, i%7, i)
		}
		return s + fmt.Sprintf(`],"dry_run":%v}`, dry)
	}
	for _, c := range []struct {
		name  string
		files int
		req   string
		want  int32
	}{
		{"pattern, many", manyFiles, pattern + `}`, 1},
		{"pattern, many, dry run", manyFiles, pattern + `,"dry_run":true}`, 0},
		{"pattern, fewer", manyFiles - 1, pattern + `}`, 0},
		{"edits, many", manyFiles, edits(manyFiles, false), 1},
		{"edits, many, dry run", manyFiles, edits(manyFiles, true), 0},
		{"edits, fewer", manyFiles - 1, edits(manyFiles-1, false), 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := countReserves(t)
			dir := t.TempDir()
			writeTree(t, dir, tree(c.files))
			res := run(t, openWS(t, dir, nil), c.req)
			if !res.Success || res.FilesModified != c.files {
				t.Fatalf("%+v", res)
			}
			if got := n.Load(); got != c.want {
				t.Errorf("reserved %d times, want %d", got, c.want)
			}
		})
	}
}
