package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/fsys/fstest"
	"github.com/txedit/txedit/internal/testlong"
	"github.com/txedit/txedit/journal"
	"github.com/txedit/txedit/plan"
)

// The power-loss model (fsys/fstest) runs the engine itself, not just the
// journal: Apply of a pattern_replace and Undo are crashed at every call,
// powered off under every drop setting, and recovered (recovery crashed
// too, for every third point; every ninth, with one seed, in the quick
// run: see explorePower). After recovery the workspace is entirely
// before or entirely after the operation, with no temporary file left.

const powerRoot = "/ws" // nominal: the workspace lives in memory

func openOn(f fsys.FS, d Durability) (*Workspace, error) {
	return Open(powerRoot, &Options{FS: f, Durability: d, Workers: 1})
}

// outside returns the disk's files outside the journal.
func outside(d *fstest.Disk) string { return fstest.Key(d.Files(journal.Dir)) }

func powerCheck(before, after string) func(d *fstest.Disk, succeeded bool) string {
	return func(d *fstest.Disk, succeeded bool) string {
		got := outside(d)
		if got != before && got != after {
			return "the tree is neither before nor after:\n" + got
		}
		if succeeded && got != after {
			return "success was reported, but after the power loss the tree is not the new tree:\n" + got
		}
		if t := d.Temps(func(b string) bool { return journal.IsTemp(b) || strings.HasSuffix(b, ".tmp") }); len(t) > 0 {
			return fmt.Sprintf("temporary files left: %v", t)
		}
		return ""
	}
}

func recoverOn(d Durability) func(fsys.FS) error {
	return func(f fsys.FS) error {
		w, err := openOn(f, d) // opening for writing recovers
		if err != nil {
			return err
		}
		return w.Close()
	}
}

func applyOn(req string, d Durability) func(fsys.FS) error {
	return func(f fsys.FS) error {
		w, err := openOn(f, d)
		if err != nil {
			return err
		}
		defer w.Close()
		r, err := plan.Parse([]byte(req))
		if err != nil {
			return err
		}
		_, err = w.Apply(context.Background(), r)
		return err
	}
}

var powerFiles = map[string]string{
	"a/x.go":      "package a\n\nfunc Old() {}\n",
	"a/y.go":      "package a\n\nvar _ = Old\n",
	"b/c/z.go":    "package c // Old\n",
	"b/skip.txt":  "Old but not a Go file\n",
	"d/crlf.go":   "package d\r\n\r\n// Old\r\n",
	"e/untouched": "nothing\n",
}

const powerReplace = `{"command":"pattern_replace","directory":".","file_pattern":"*.go","sed_pattern":"s/Old/New/g"}`

func explorePower(t *testing.T, name string, initial map[string]string, run func(fsys.FS) error, d Durability) {
	t.Helper()
	// The states before and after, from clean runs.
	clean := fstest.NewDisk(initial)
	before := outside(clean)
	if _, err := clean.Run(0, 0, run); err != nil {
		t.Fatalf("%s: clean run: %v", name, err)
	}
	after := outside(clean)
	if after == before {
		t.Fatalf("%s: the clean run changed nothing", name)
	}
	// The quick run: one seed for the random drops, recovery crashed
	// after every 9th crash point; TXEDIT_LONG=1: two seeds (one under
	// the race detector), every 3rd.
	seeds, nested := 2, 3
	if testing.Short() || raceEnabled {
		seeds = 1
	}
	if !testlong.Long() {
		seeds, nested = 1, 9
	}
	e := &fstest.Exploration{Initial: initial, Settings: fstest.Drops(seeds), NestedEvery: nested,
		Run: run, Recover: recoverOn(d), Check: powerCheck(before, after)}
	rep, err := e.Explore()
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range rep.Errors {
		t.Errorf("%s: %s", name, x)
	}
	if rep.Bad > 0 {
		t.Errorf("%s: %d of %d crash states violate the guarantees, e.g. %s", name, rep.Bad, rep.States, strings.Join(rep.Examples, "; "))
	}
	t.Logf("%s: %d crash states, %d violations", name, rep.States, rep.Bad)
}

func TestPowerLossPatternReplace(t *testing.T) {
	for _, d := range []Durability{DurableAuto, DurableFsync, DurableSyncFS} {
		explorePower(t, fmt.Sprintf("pattern_replace/%d", d), powerFiles, applyOn(powerReplace, d), d)
	}
}

func TestPowerLossUndo(t *testing.T) {
	// The initial disk holds a committed transaction (the replace plus a
	// delete and a create in a new directory); the crashed operation is
	// its undo.
	disk := fstest.NewDisk(powerFiles)
	req := `{"fileEdits":[{"path":"e/untouched","edits":[{"command":"delete"}]},{"path":"n/m/new.txt","edits":[{"command":"create","file_text":"new\n"}]}],
		"command":"pattern_replace","directory":".","file_pattern":"*.go","sed_pattern":"s/Old/New/g"}`
	if _, err := disk.Run(0, 0, applyOn(req, DurableFsync)); err != nil {
		t.Fatal(err)
	}
	committed := disk.Files()
	undo := func(f fsys.FS) error {
		w, err := openOn(f, DurableAuto)
		if err != nil {
			return err
		}
		defer w.Close()
		_, err = w.Undo(context.Background(), UndoOptions{})
		return err
	}
	explorePower(t, "undo", committed, undo, DurableAuto)
}
