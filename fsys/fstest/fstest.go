// Package fstest is the machinery of txedit's crash tests: a [Disk] (an
// in-memory file system that models power loss, under fault injection) on
// which any code written against [fsys.FS] — the journal's commit, the
// engine's Apply, Undo or pattern_replace — runs and is crashed at any
// call, then powered off with any drop setting, then recovered (and
// crashed again during recovery).
package fstest

import (
	"errors"
	"fmt"
	"math/rand"
	"path"
	"sort"
	"strings"

	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/fsys/faultfs"
	"github.com/txedit/txedit/fsys/memfs"
)

// Disk is an in-memory file system and the fault injector in front of it.
type Disk struct {
	Mem   *memfs.FS
	fault *faultfs.FS
}

// NewDisk returns a disk holding files, all of it durable.
func NewDisk(files map[string]string) *Disk { return &Disk{Mem: memfs.New(files)} }

// Run calls fn on the disk, failing at call n (0: never) as mode says, and
// reports whether a crash or kill happened (the disk is then dead to fn:
// every later call panicked). A crash's panic does not escape Run; any
// other panic does. err is what fn returned, if it returned.
func (d *Disk) Run(n int, mode faultfs.Mode, fn func(fsys.FS) error) (crashed bool, err error) {
	d.fault = &faultfs.FS{Inner: d.Mem, FailAt: n, Mode: mode}
	defer func() {
		if r := recover(); r != nil {
			if !isCrash(r) {
				panic(r)
			}
			crashed = true
		}
		if d.fault.Dead() {
			crashed = true
		}
	}()
	return false, fn(d.fault)
}

func isCrash(r any) bool {
	if _, ok := r.(faultfs.Crash); ok {
		return true
	}
	if err, ok := r.(error); ok {
		var c faultfs.Crash
		return errors.As(err, &c)
	}
	return false
}

// Calls returns the number of file-system calls the last Run made.
func (d *Disk) Calls() int {
	if d.fault == nil {
		return 0
	}
	return d.fault.N()
}

// PowerLoss returns the disk as a power loss now would leave it.
func (d *Disk) PowerLoss(rng *rand.Rand, drop memfs.Drop) *Disk {
	return &Disk{Mem: d.Mem.Crash(rng, drop)}
}

// Files returns the disk's files and directories (see [memfs.FS.Files]),
// leaving out everything below the top-level directories in skip.
func (d *Disk) Files(skip ...string) map[string]string {
	out := d.Mem.Files()
	for k := range out {
		for _, s := range skip {
			if k == s+"/" || strings.HasPrefix(k, s+"/") {
				delete(out, k)
			}
		}
	}
	return out
}

// Key renders a file map as one comparable string.
func Key(files map[string]string) string {
	names := make([]string, 0, len(files))
	for k := range files {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, k := range names {
		fmt.Fprintf(&b, "%s=%q\n", k, files[k])
	}
	return b.String()
}

// Temps lists the files anywhere on the disk whose base name isTemp
// accepts: what a protocol must never leave behind.
func (d *Disk) Temps(isTemp func(base string) bool) []string {
	var out []string
	for k := range d.Mem.Files() {
		if !strings.HasSuffix(k, "/") && isTemp(path.Base(k)) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// Drops lists the drop settings a power-loss exploration covers: dropping
// everything unsynced, keeping everything, and seeds random mixes and torn
// writes each.
func Drops(seeds int) []Setting {
	out := []Setting{{memfs.DropAll, 0}, {memfs.KeepAll, 0}}
	for s := int64(1); s <= int64(seeds); s++ {
		out = append(out, Setting{memfs.RandomMix, s}, Setting{memfs.TornBlocks, s})
	}
	return out
}

// Setting is one drop setting with the seed of its randomness.
type Setting struct {
	Drop memfs.Drop
	Seed int64
}

func (s Setting) String() string {
	return fmt.Sprintf("drop %d seed %d", s.Drop, s.Seed)
}

// Exploration is a power-loss exploration: Run is crashed at each of its
// calls (and once after its last), the disk then loses power under each
// setting, and Recover runs on what is left — for every NestedEvery-th
// crash point also crashed at each of its own calls, powered off again and
// recovered once more. Check judges every recovered disk.
type Exploration struct {
	Initial     map[string]string
	Settings    []Setting
	NestedEvery int // 0: recovery is never crashed
	Run         func(fsys.FS) error
	Recover     func(fsys.FS) error
	// Check returns "" for a good state, else what is wrong. succeeded
	// says Run had returned success before the power went: what it
	// reported must have survived (a change reported done is in effect
	// after recovery).
	Check func(d *Disk, succeeded bool) string
}

// Report is what an exploration found.
type Report struct {
	States, Bad int
	// Examples describes the first few violations.
	Examples []string
	// Errors lists recoveries that failed.
	Errors []string
}

// Explore runs the exploration. It fails only if Run fails without a
// crash.
func (e *Exploration) Explore() (*Report, error) {
	probe := NewDisk(e.Initial)
	if crashed, err := probe.Run(0, faultfs.ModeCrash, e.Run); crashed || err != nil {
		return nil, fmt.Errorf("the run fails without a crash: %w", err)
	}
	total := probe.Calls()
	rep := &Report{}
	judge := func(d *Disk, succeeded bool, where string) {
		if crashed, err := d.Run(0, faultfs.ModeCrash, e.Recover); crashed || err != nil {
			rep.Errors = append(rep.Errors, fmt.Sprintf("%s: recovery: %v", where, err))
		}
		rep.States++
		if v := e.Check(d, succeeded); v != "" {
			rep.Bad++
			if len(rep.Examples) < 3 {
				rep.Examples = append(rep.Examples, where+": "+v)
			}
		}
	}
	for n := 1; n <= total+1; n++ {
		for _, s := range e.Settings {
			d := NewDisk(e.Initial)
			crashed, err := d.Run(n, faultfs.ModeCrash, e.Run)
			succeeded := !crashed && err == nil
			rng := rand.New(rand.NewSource(s.Seed*1000 + int64(n)))
			c := d.PowerLoss(rng, s.Drop)
			if e.NestedEvery > 0 && n%e.NestedEvery == 0 {
				probe := c.PowerLoss(rand.New(rand.NewSource(1)), memfs.KeepAll)
				probe.Run(0, faultfs.ModeCrash, e.Recover)
				for k := 1; k <= probe.Calls(); k++ {
					c2 := c.PowerLoss(rand.New(rand.NewSource(1)), memfs.KeepAll)
					if crashed, _ := c2.Run(k, faultfs.ModeCrash, e.Recover); !crashed {
						continue
					}
					judge(c2.PowerLoss(rng, s.Drop), succeeded, fmt.Sprintf("crash at call %d of %d, recovery crash at %d, %v", n, total, k, s))
				}
			}
			judge(c, succeeded, fmt.Sprintf("crash at call %d of %d, %v", n, total, s))
		}
	}
	return rep, nil
}
