package journal

import (
	"errors"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/fsys/memfs"
)

// saveBeforeSwap is an editor that saves f.txt (a temporary file renamed
// over it) at the worst moment: after the commit's identity check, just
// before the staged file is put in place.
type saveBeforeSwap struct {
	fsys.FS
	once sync.Once
	save func()
}

func (s *saveBeforeSwap) hit(a, b string) {
	if strings.HasPrefix(a, ".txedit-") && b == "f.txt" {
		s.once.Do(s.save)
	}
}

func (s *saveBeforeSwap) Exchange(a, b string) error { s.hit(a, b); return s.FS.Exchange(a, b) }
func (s *saveBeforeSwap) Rename(a, b string) error   { s.hit(a, b); return s.FS.Rename(a, b) }
func (s *saveBeforeSwap) View() (fsys.FS, func()) {
	v, release := s.FS.View()
	return &saveBeforeSwap{FS: v, save: func() { s.once.Do(s.save) }}, release
}

// TestOutsideSaveIsNeverReplaced (issue #27 item 1): a writer that knows
// nothing of txedit saves the file between the commit's identity check and
// its rename. A rename replaced that save silently; the exchange sees what
// it displaced, gives the save back and fails with a conflict. With the
// exchange switched off (brokenOrder.noExchange) the save is lost, so the
// test has teeth. On memfs and on the real file system (renameat2).
func TestOutsideSaveIsNeverReplaced(t *testing.T) {
	for _, backend := range []string{"memfs", "os"} {
		for _, broken := range []bool{false, true} {
			var inner fsys.FS
			var save func()
			var read func() string
			switch backend {
			case "memfs":
				mem := memfs.New(map[string]string{"f.txt": "old\n"})
				inner = mem
				save = func() {
					f, _ := mem.Create("editor.tmp", 0o644)
					f.Write([]byte("the editor's save\n"))
					f.Close()
					mem.Rename("editor.tmp", "f.txt")
				}
				read = func() string { return mem.Files()["f.txt"] }
			default:
				dir := t.TempDir()
				os.WriteFile(dir+"/f.txt", []byte("old\n"), 0o644)
				o, err := fsys.NewOS(dir)
				if err != nil {
					t.Fatal(err)
				}
				defer o.Close()
				inner = o
				save = func() {
					os.WriteFile(dir+"/editor.tmp", []byte("the editor's save\n"), 0o644)
					os.Rename(dir+"/editor.tmp", dir+"/f.txt")
				}
				read = func() string { b, _ := os.ReadFile(dir + "/f.txt"); return string(b) }
			}
			brokenOrder.noExchange = broken
			err := runTx(&saveBeforeSwap{FS: inner, save: save}, &Options{Sync: SyncNone}, workload{
				initial: map[string]string{"f.txt": "old\n"}, change: map[string]*string{"f.txt": s("txedit's edit\n")}})
			brokenOrder.noExchange = false
			got := read()
			if broken {
				if got != "txedit's edit\n" {
					t.Errorf("%s without the exchange: f.txt = %q; the test no longer shows the window", backend, got)
				}
				continue
			}
			var ce *fsys.ConflictError
			if !errors.As(err, &ce) || got != "the editor's save\n" {
				t.Errorf("%s: commit = %v, f.txt = %q: the outside save was not kept", backend, err, got)
			}
		}
	}
}
