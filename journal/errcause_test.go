package journal

import (
	"errors"
	"syscall"
	"testing"

	"github.com/txedit/txedit/fsys/faultfs"
	"github.com/txedit/txedit/fsys/memfs"
)

// TestErrorsKeepTheirCause fails each file-system call of a commit in turn
// with EIO (and, in a second sweep, every write from that call on with
// ENOSPC): whatever error the journal returns for it must still be that
// errno to errors.Is, however many layers wrapped it, so a caller can tell
// a full disk from a broken one.
func TestErrorsKeepTheirCause(t *testing.T) {
	w := workload{
		initial: map[string]string{"a/x": "old x\n", "c/z": "z\n"},
		change:  map[string]*string{"a/x": s("new x\n"), "b/new/y": s("y\n"), "c/z": nil},
	}
	for _, c := range []struct {
		mode faultfs.Mode
		want syscall.Errno
	}{{faultfs.ModeError, syscall.EIO}, {faultfs.ModeFull, syscall.ENOSPC}} {
		// How many calls a clean commit makes bounds the sweep.
		clean := &faultfs.FS{Inner: memfs.New(w.initial)}
		if err := runTx(clean, &Options{Sync: SyncData}, w); err != nil {
			t.Fatal(err)
		}
		failed := 0
		for at := 1; at <= clean.N(); at++ {
			f := &faultfs.FS{Inner: memfs.New(w.initial), FailAt: at, Mode: c.mode}
			err := runTx(f, &Options{Sync: SyncData, Workers: 1, SyncWorkers: 1}, w)
			if err == nil {
				continue // a failure the journal works around (a retry, a cleanup)
			}
			failed++
			if !errors.Is(err, c.want) {
				t.Errorf("%v at call %d: %v, which errors.Is does not find %v in", c.want, at, err, c.want)
			}
		}
		if failed == 0 {
			t.Errorf("%v: no call of %d failed the commit: the sweep tests nothing", c.want, clean.N())
		}
	}
}

// TestRecoveryErrorsKeepTheirCause does the same for the recovery of a
// transaction that crashed half renamed: each call of Recover fails in
// turn with EIO, and what Recover returns must still be EIO to errors.Is.
func TestRecoveryErrorsKeepTheirCause(t *testing.T) {
	d, _, _ := interrupted(t)
	files := d.Files()
	recover := func(at int) (*faultfs.FS, error) {
		f := &faultfs.FS{Inner: memfs.New(files), FailAt: at, Mode: faultfs.ModeError}
		_, err := New(f, &Options{Sync: SyncFile, Workers: 1, SyncWorkers: 1}).Recover()
		return f, err
	}
	clean, err := recover(0)
	if err != nil {
		t.Fatal(err)
	}
	failed := 0
	for at := 1; at <= clean.N(); at++ {
		if _, err := recover(at); err != nil {
			failed++
			if !errors.Is(err, syscall.EIO) {
				t.Errorf("EIO at call %d: %v, which errors.Is does not find EIO in", at, err)
			}
		}
	}
	if failed == 0 {
		t.Errorf("no call of %d failed the recovery: the sweep tests nothing", clean.N())
	}
}
