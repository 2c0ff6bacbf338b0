// Package swapsave is a test double the engine's and the toolsets' tests
// share: a file system on which a writer outside txedit saves one file (a
// temporary file renamed over it, as an editor saves) just before a commit
// swaps a staged file in for the first time, while On is set. Every such
// commit then meets a save between its check under the lock and its swap,
// and fails with conflict, nothing written (docs/journal.md, "Writers
// outside txedit"); a session tries again, and answers after the last try
// with the change and the region (docs/design.md, "Concurrency").
package swapsave

import (
	"fmt"
	"path"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/journal"
)

// Saves is the outside saves of an [FS]: each marks the first line of the
// file as it is then with the save's number ("line 1 (save N)"). On
// starts and stops them.
type Saves struct {
	Target string // the file saved (root-relative)
	Orig   string // its content at first (for Version)
	On     atomic.Bool

	n      atomic.Int32
	mu     sync.Mutex
	staged map[string]bool // the staged files whose first swap met a save
}

// FS is inner with the saves of s.
type FS struct {
	fsys.FS
	s *Saves
}

// New returns a file system on inner whose file target, of content orig
// at first, is saved from outside at each commit's swap while the Saves'
// On is set.
func New(inner fsys.FS, target, orig string) (*FS, *Saves) {
	s := &Saves{Target: target, Orig: orig, staged: map[string]bool{}}
	return &FS{inner, s}, s
}

// Version is the file as save n leaves it, when nothing but the saves
// changed it: Orig with its first line marked.
func (s *Saves) Version(n int) string {
	return strings.Replace(s.Orig, "line 1\n", fmt.Sprintf("line 1 (save %d)\n", n), 1)
}

// Made is the number of saves made.
func (s *Saves) Made() int { return int(s.n.Load()) }

// View implements [fsys.FS]: the view saves too.
func (v *FS) View() (fsys.FS, func()) {
	inner, release := v.FS.View()
	return &FS{inner, v.s}, release
}

// save saves the target, if staged is about to be swapped in over it for
// the first time (not again when the commit gives the save back).
func (v *FS) save(staged, to string) {
	s := v.s
	if to != s.Target {
		return
	}
	s.mu.Lock()
	again := s.staged[staged]
	s.staged[staged] = true
	s.mu.Unlock()
	if again || !s.On.Load() {
		return
	}
	cur, _, _ := fsys.ReadFile(v.FS, to, 1<<20)
	_, rest, _ := strings.Cut(string(cur), "\n")
	f, err := v.FS.Create("outside.tmp", 0o644)
	if err != nil {
		return
	}
	f.Write([]byte(fmt.Sprintf("line 1 (save %d)\n", s.n.Add(1)) + rest))
	f.Close()
	v.FS.Rename("outside.tmp", to)
}

// Rename implements [fsys.FS], saving first (see [FS]).
func (v *FS) Rename(from, to string) error {
	if journal.IsTemp(path.Base(from)) {
		v.save(from, to)
	}
	return v.FS.Rename(from, to)
}

// Exchange implements [fsys.FS], saving first (see [FS]).
func (v *FS) Exchange(a, b string) error {
	if journal.IsTemp(path.Base(a)) {
		v.save(a, b)
	}
	return v.FS.Exchange(a, b)
}
