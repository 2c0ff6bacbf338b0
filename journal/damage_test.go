package journal

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/fsys/faultfs"
	"github.com/txedit/txedit/fsys/fstest"
)

// interrupted runs the mixed workload and crashes it right after the
// first rename, so its transaction is PREPARED, not COMMITTED, and some
// files are already new.
func interrupted(t *testing.T) (*fstest.Disk, workload, string) {
	t.Helper()
	w := workloadNamed(t, "mixed")
	opts := &Options{Sync: SyncFile, Workers: 1}
	run := func(f fsys.FS) error { return runTx(f, opts, w) }
	// Find the first rename by replaying with a crash at each call.
	for n := 1; n <= countCalls(t, w, opts); n++ {
		d := fstest.NewDisk(w.initial)
		if crashed, _ := d.Run(n, faultfs.ModeCrash, run); !crashed {
			continue
		}
		files := d.Files()
		if files["a/x"] != "X\n" {
			continue
		}
		for k := range files {
			if id, ok := strings.CutSuffix(strings.TrimPrefix(k, txnsDir+"/"), ".prepared"); ok {
				return d, w, id
			}
		}
	}
	t.Fatal("no crash point left the tree half changed")
	return nil, w, ""
}

// manifestEnd is where the manifest record of a transaction's file ends.
func manifestEnd(t *testing.T, data []byte) int {
	t.Helper()
	if len(data) < recHeader || data[4] != recManifest {
		t.Fatalf("no manifest record at the start of %q", data)
	}
	return recHeader + int(binary.LittleEndian.Uint64(data[9:]))
}

// rewrite replaces a file's content on the disk (nil removes it).
func rewrite(t *testing.T, d *fstest.Disk, name string, data []byte) {
	t.Helper()
	if err := d.Mem.Remove(name); err != nil {
		t.Fatal(err)
	}
	if data == nil {
		return
	}
	f, err := d.Mem.Create(name, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(data)
	f.Close()
}

func TestRecoveryWithDamagedManifest(t *testing.T) {
	for _, damage := range []string{"flipped byte", "truncated", "missing"} {
		t.Run(damage, func(t *testing.T) {
			d, _, id := interrupted(t)
			before := fstest.Key(d.Files(Dir))
			// The manifest is the first record of the transaction's
			// file (layout.go); "missing" empties the file (without it,
			// the marks are a retirement's leftovers: log.go).
			name := txnPath(id)
			data := []byte(d.Files()[name])
			n := manifestEnd(t, data)
			switch damage {
			case "flipped byte":
				data[recHeader+10] ^= 0xff
			case "truncated":
				data = data[:recHeader+(n-recHeader)/2]
			case "missing":
				data = []byte{}
			}
			rewrite(t, d, name, data)
			reps, err := New(d.Mem, &Options{Sync: SyncFile}).Recover()
			if err != nil {
				t.Fatalf("recovery: %v", err)
			}
			if len(reps) != 1 || reps[0].Damaged == "" {
				t.Fatalf("damage not reported: %+v", reps)
			}
			// Without a manifest nothing is known to be safe to change:
			// the files are left exactly as they are.
			if got := fstest.Key(d.Files(Dir)); got != before {
				t.Errorf("recovery changed files it could not account for")
			}
			// The workspace is not wedged: the next transaction works.
			next := workload{initial: map[string]string{}, change: map[string]*string{"fresh/f": s("again\n")}}
			if err := runTx(d.Mem, &Options{Sync: SyncFile}, next); err != nil || d.Files()["fresh/f"] != "again\n" {
				t.Errorf("next transaction: %v", err)
			}
		})
	}
}

func TestRecoveryWithLostBeforeImages(t *testing.T) {
	d, w, id := interrupted(t)
	// The before-images are gone: the file holds its manifest alone.
	data := []byte(d.Files()[txnPath(id)])
	rewrite(t, d, txnPath(id), data[:manifestEnd(t, data)])
	reps, err := New(d.Mem, &Options{Sync: SyncFile}).Recover()
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
	tree := d.Files()
	fin := w.final()
	for _, p := range lost {
		if tree[p] != fin[p] {
			t.Errorf("%s: reported but not left as it was", p)
		}
	}
	if len(lost) == 0 {
		t.Errorf("no file reported, but some were already new: %+v", reps)
	}
	if v := d.Temps(isTemp); len(v) > 0 {
		t.Errorf("temporary files left: %v", v)
	}
}

// TestDiskFullDuringStaging fills the disk at every call of the commit:
// the commit fails, rolls back, and every file is old (or new, if the
// disk filled only after the commit point).
func TestDiskFullDuringStaging(t *testing.T) {
	for _, w := range workloads {
		opts := &Options{Sync: SyncFile, Workers: 1}
		failed := 0
		for n := 1; n <= countCalls(t, w, opts); n++ {
			d := fstest.NewDisk(w.initial)
			_, err := d.Run(n, faultfs.ModeFull, func(f fsys.FS) error { return runTx(f, opts, w) })
			if err != nil {
				failed++
				if !strings.Contains(err.Error(), "no space") {
					t.Errorf("%s: disk full at %d: error %q does not say so", w.name, n, err)
				}
			}
			if _, err := d.Run(0, faultfs.ModeCrash, recoverTx(opts)); err != nil {
				t.Errorf("%s: recovery: %v", w.name, err)
			}
			if v := violation(d, w, err == nil); v != "" {
				t.Errorf("%s: disk full at %d: %s", w.name, n, v)
			}
			// A failure reported is a failure after recovery too, even
			// when the rollback could not finish on the full disk and
			// every file was new (recovery must not finish it forward).
			if committed, _ := journalState(d); err != nil && !errors.Is(err, ErrCommitUnknown) && committed {
				t.Errorf("%s: disk full at %d: the commit failed (%v), but recovery committed it", w.name, n, err)
			}
		}
		if failed == 0 {
			t.Errorf("%s: a full disk never made the commit fail", w.name)
		}
	}
}
