package journal

import (
	"strings"
	"testing"
)

// interrupted runs the mixed workload and crashes it right after the
// first rename, so its transaction is PREPARED, not COMMITTED, and some
// files are already new.
func interrupted(t *testing.T) (*memFS, workload, string) {
	t.Helper()
	w := workloads[4]
	opts := &Options{Sync: SyncFile, Workers: 1}
	probe := newMemFS(w.initial)
	probe.calls = 0
	runTx(probe, opts, w)
	// Find the first rename by replaying with a crash at each call.
	for n := 1; n <= probe.calls; n++ {
		m := newMemFS(w.initial)
		m.failAt = n
		crashRun(m, opts, w)
		txns, err := m.lookup(txnsDir)
		if err != nil || !m.dead {
			continue
		}
		for name, id := range txns.entries {
			if _, prepared := txns.entries[name+".prepared"]; prepared && m.inodes[id].dir && m.tree()["a/x"] == "X\n" {
				m.dead, m.failAt = false, 0
				return m, w, name
			}
		}
	}
	t.Fatal("no crash point left the tree half changed")
	return nil, w, ""
}

func TestRecoveryWithDamagedManifest(t *testing.T) {
	for _, damage := range []string{"flipped byte", "truncated", "missing"} {
		t.Run(damage, func(t *testing.T) {
			m, _, id := interrupted(t)
			before := treeKey(m.tree())
			dir, _ := m.lookup(txnsDir + "/" + id)
			man := m.inodes[dir.entries["manifest"]]
			switch damage {
			case "flipped byte":
				man.data[10] ^= 0xff
			case "truncated":
				man.data = man.data[:len(man.data)/2]
			case "missing":
				delete(dir.entries, "manifest")
			}
			reps, err := New(m, &Options{Sync: SyncFile}).Recover()
			if err != nil {
				t.Fatalf("recovery: %v", err)
			}
			if len(reps) != 1 || reps[0].Damaged == "" {
				t.Fatalf("damage not reported: %+v", reps)
			}
			// Without a manifest nothing is known to be safe to change:
			// the files are left exactly as they are.
			if got := treeKey(m.tree()); got != before {
				t.Errorf("recovery changed files it could not account for")
			}
			// The workspace is not wedged: the next transaction works.
			next := workload{initial: map[string]string{}, change: map[string]*string{"fresh/f": s("again\n")}}
			if err := runTx(m, &Options{Sync: SyncFile}, next); err != nil || m.tree()["fresh/f"] != "again\n" {
				t.Errorf("next transaction: %v", err)
			}
		})
	}
}

func TestRecoveryWithLostBeforeImages(t *testing.T) {
	m, w, id := interrupted(t)
	dir, _ := m.lookup(txnsDir + "/" + id)
	delete(dir.entries, "pack") // the before-images are gone
	reps, err := New(m, &Options{Sync: SyncFile}).Recover()
	if err != nil {
		t.Fatalf("recovery: %v", err)
	}
	var lost []string
	for _, c := range reps[0].Conflicts {
		if strings.Contains(c.Reason, "before-image lost") {
			lost = append(lost, c.Path)
		}
	}
	// Files already new could not be restored: they are reported and left
	// new (their content is not lost); the rest is rolled back.
	tree := m.tree()
	fin := w.final()
	for _, p := range lost {
		if tree[p] != fin[p] {
			t.Errorf("%s: reported but not left as it was", p)
		}
	}
	if len(lost) == 0 {
		t.Errorf("no file reported, but some were already new: %+v", reps)
	}
	if v := m.temps(); len(v) > 0 {
		t.Errorf("temporary files left: %v", v)
	}
}

// TestDiskFullDuringStaging fills the disk at every call of the commit:
// the commit fails, rolls back, and every file is old (or new, if the
// disk filled only after the commit point).
func TestDiskFullDuringStaging(t *testing.T) {
	for _, w := range workloads {
		opts := &Options{Sync: SyncFile, Workers: 1}
		probe := newMemFS(w.initial)
		runTx(probe, opts, w)
		failed := 0
		for n := 1; n <= probe.calls; n++ {
			m := newMemFS(w.initial)
			m.failAt, m.full = n, true
			if err := runTx(m, opts, w); err != nil {
				failed++
				if !strings.Contains(err.Error(), "no space") {
					t.Errorf("%s: disk full at %d: error %q does not say so", w.name, n, err)
				}
			}
			m.full, m.failAt = false, 0
			if _, err := recoverRun(m, opts, 0); err != nil {
				t.Errorf("%s: recovery: %v", w.name, err)
			}
			if v := violation(m, w); v != "" {
				t.Errorf("%s: disk full at %d: %s", w.name, n, v)
			}
		}
		if failed == 0 {
			t.Errorf("%s: a full disk never made the commit fail", w.name)
		}
	}
}
