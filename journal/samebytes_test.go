package journal

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/fsys/memfs"
)

// savesWithNewBytes is an editor that saves (a temporary file renamed
// over) the files in saves, just before the commit's first swap of the
// file at, with the bytes given: bytes equal to txedit's new version make
// the save indistinguishable from txedit's own by content.
type savesWithNewBytes struct {
	fsys.FS
	mem   *memfs.FS
	at    string
	saves [][2]string
	once  *sync.Once
	inos  map[string]uint64 // the inode of each save
}

func (s *savesWithNewBytes) View() (fsys.FS, func()) {
	v, release := s.FS.View()
	c := *s
	c.FS = v
	return &c, release
}

func (s *savesWithNewBytes) hit(a, b string) {
	if !IsTemp(a) || b != s.at {
		return
	}
	s.once.Do(func() {
		for _, sv := range s.saves {
			f, _ := s.mem.Create("editor.tmp", 0o644)
			f.Write([]byte(sv[1]))
			fi, _ := f.Stat()
			f.Close()
			s.mem.Rename("editor.tmp", sv[0])
			s.inos[sv[0]] = fsys.IdentityOf(fi).Ino
		}
	})
}

func (s *savesWithNewBytes) Exchange(a, b string) error { s.hit(a, b); return s.FS.Exchange(a, b) }
func (s *savesWithNewBytes) Rename(a, b string) error   { s.hit(a, b); return s.FS.Rename(a, b) }

// keptSave fails t unless name is still the editor's save (its inode, its
// bytes) after the rollback.
func keptSave(t *testing.T, mem *memfs.FS, fake *savesWithNewBytes, name, want string) {
	t.Helper()
	fi, err := mem.Lstat(name)
	if err != nil {
		t.Fatal(err)
	}
	if got := mem.Files()[name]; got != want || fsys.IdentityOf(fi).Ino != fake.inos[name] {
		t.Fatalf("after the rollback %s = %q (inode %d), want the editor's save %q (inode %d): the save was lost",
			name, got, fsys.IdentityOf(fi).Ino, want, fake.inos[name])
	}
}

// A save over the commit's version of a.txt, made with exactly the bytes
// txedit wrote, while a later file (b.txt, saved too) refuses the commit:
// the live rollback tells the save from txedit's version by identity, not
// by content, so it leaves the save as it is and saves a copy aside, as it
// does a save of other bytes (docs/journal.md, "Writers outside txedit").
func TestRollbackKeepsASaveOfTheNewBytes(t *testing.T) {
	for _, c := range []struct {
		named bool
		sync  SyncMode
	}{{false, SyncData}, {true, SyncData}, {false, SyncNone}} {
		named := c.named
		initial := map[string]string{"a.txt": "a\n", "b.txt": "b\n"}
		mem := memfs.New(initial)
		var fsy fsys.FS = mem
		if named {
			fsy = noTmpfile{mem}
		}
		fake := &savesWithNewBytes{FS: fsy, mem: mem, at: "b.txt", once: &sync.Once{}, inos: map[string]uint64{},
			saves: [][2]string{{"a.txt", "a: txedit's edit\n"}, {"b.txt", "b: the editor's save\n"}}}
		err := runTx(fake, &Options{Sync: c.sync, Workers: 1}, workload{
			initial: initial, change: map[string]*string{"a.txt": s("a: txedit's edit\n"), "b.txt": s("b: txedit's edit\n")}})
		var ce *fsys.ConflictError
		if !errors.As(err, &ce) || ce.Path != "b.txt" {
			t.Fatalf("named %v: commit = %v, want a conflict on b.txt", named, err)
		}
		keptSave(t, mem, fake, "a.txt", "a: txedit's edit\n")
		keptSave(t, mem, fake, "b.txt", "b: the editor's save\n")
		aside := 0
		for name, data := range mem.Files() {
			if _, base, ok := strings.Cut(name, ".conflicts/"); ok && base == "0" {
				aside++
				if data != "a: txedit's edit\n" {
					t.Fatalf("named %v: saved aside %q", named, data)
				}
			}
		}
		if aside != 1 {
			t.Fatalf("named %v: a.txt's save was not saved aside (%d copies)", named, aside)
		}
	}
}

// A save of exactly txedit's new bytes that lands between the identity
// check and the exchange is caught by the exchange's check and swapped
// back; the rollback must then not take it for txedit's version and put
// the old one back over it.
func TestRollbackKeepsACaughtSaveOfTheNewBytes(t *testing.T) {
	initial := map[string]string{"a.txt": "a\n"}
	mem := memfs.New(initial)
	fake := &savesWithNewBytes{FS: mem, mem: mem, at: "a.txt", once: &sync.Once{}, inos: map[string]uint64{},
		saves: [][2]string{{"a.txt", "a: txedit's edit\n"}}}
	err := runTx(fake, &Options{Sync: SyncData, Workers: 1}, workload{
		initial: initial, change: map[string]*string{"a.txt": s("a: txedit's edit\n")}})
	var ce *fsys.ConflictError
	if !errors.As(err, &ce) || ce.Path != "a.txt" {
		t.Fatalf("commit = %v, want a conflict on a.txt", err)
	}
	keptSave(t, mem, fake, "a.txt", "a: txedit's edit\n")
}
