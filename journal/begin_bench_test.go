package journal

import (
	"fmt"
	"testing"

	"github.com/txedit/txedit/fsys/memfs"
)

// BenchmarkBegin begins and aborts a 100-op transaction on the in-memory
// file system without syncs: the journal's own work of Begin (ids, staging
// names, the directories creates need and deletes empty, the manifest),
// not the device's.
func BenchmarkBegin(b *testing.B) {
	files := map[string]string{}
	var ops []*Op
	for i := range 100 {
		if i%2 == 0 {
			ops = append(ops, &Op{Path: fmt.Sprintf("new/d%02d/f%03d", i%10, i), Kind: Create, New: st("x\n")})
			continue
		}
		name := fmt.Sprintf("old/d%02d/f%03d", i%10, i)
		files[name] = "x\n"
		ops = append(ops, &Op{Path: name, Kind: Delete, Old: st("x\n")})
	}
	j := New(memfs.New(files), &Options{Sync: SyncNone})
	l, err := j.Lock()
	if err != nil {
		b.Fatal(err)
	}
	defer l.Unlock()
	b.ReportAllocs()
	for b.Loop() {
		m := &Manifest{Command: "apply", Ops: make([]*Op, len(ops))}
		for i, op := range ops {
			c := *op
			m.Ops[i] = &c
		}
		tx, err := l.Begin(m)
		if err != nil {
			b.Fatal(err)
		}
		if err := tx.Abort(); err != nil {
			b.Fatal(err)
		}
	}
}
