package journal

import (
	"errors"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/fsys/memfs"
)

// savesAtSwaps is two editors saving (a temporary file renamed over) at
// the worst moments of a commit of a.txt then b.txt: just before b.txt's
// swap, one saves a.txt, which then holds the commit's version, and the
// other saves b.txt, which the commit has not replaced yet.
type savesAtSwaps struct {
	fsys.FS
	mem  *memfs.FS
	once *sync.Once
}

func (s *savesAtSwaps) View() (fsys.FS, func()) {
	v, release := s.FS.View()
	return &savesAtSwaps{v, s.mem, s.once}, release
}

func (s *savesAtSwaps) hit(a, b string) {
	if !IsTemp(a) || b != "b.txt" {
		return
	}
	s.once.Do(func() {
		for _, name := range []string{"a.txt", "b.txt"} {
			f, _ := s.mem.Create("editor.tmp", 0o644)
			f.Write([]byte(name + ": the editor's save\n"))
			f.Close()
			s.mem.Rename("editor.tmp", name)
		}
	})
}

func (s *savesAtSwaps) Exchange(a, b string) error { s.hit(a, b); return s.FS.Exchange(a, b) }
func (s *savesAtSwaps) Rename(a, b string) error   { s.hit(a, b); return s.FS.Rename(a, b) }

// The rollback of a failed commit leaves a file that is neither version
// as it is; it saves a copy in txns/ID.conflicts/ only of a file whose
// version the commit displaced (docs/journal.md, "Writers outside
// txedit"): a.txt, saved over the commit's version after its swap, is
// copied; b.txt, saved before the commit replaced it (its save swapped
// back at once), is not: nothing of the user's was displaced there.
func TestRollbackSavesAsideOnlyWhatTheCommitDisplaced(t *testing.T) {
	initial := map[string]string{"a.txt": "a\n", "b.txt": "b\n"}
	mem := memfs.New(initial)
	err := runTx(&savesAtSwaps{mem, mem, &sync.Once{}}, &Options{Sync: SyncNone, Workers: 1}, workload{
		initial: initial, change: map[string]*string{"a.txt": s("a: txedit's edit\n"), "b.txt": s("b: txedit's edit\n")}})
	var ce *fsys.ConflictError
	if !errors.As(err, &ce) || ce.Path != "b.txt" {
		t.Fatalf("commit = %v, want a conflict on b.txt", err)
	}
	files := mem.Files()
	var aside []string
	record := ""
	for name, data := range files {
		_, base, ok := strings.Cut(name, ".conflicts/")
		switch {
		case !ok || base == "":
		case base == "conflicts.json":
			record = data
		default:
			aside = append(aside, base+" = "+data)
		}
	}
	sort.Strings(aside)
	if files["a.txt"] != "a.txt: the editor's save\n" || files["b.txt"] != "b.txt: the editor's save\n" {
		t.Fatalf("after the rollback a.txt = %q, b.txt = %q: a save was not kept", files["a.txt"], files["b.txt"])
	}
	if len(aside) != 1 || aside[0] != "0 = a.txt: the editor's save\n" || !strings.Contains(record, `"a.txt"`) || strings.Contains(record, `"b.txt"`) {
		t.Fatalf("saved aside: %q, recorded %s; want a.txt's save only (op 0)", aside, record)
	}
}
