package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/txedit/txedit/plan"
)

// TestCreateThroughDirectoryLink: ld is a link to a directory inside the
// root; creating ld/new.txt creates realdir/new.txt (the link is a
// directory on the way, not the file's name), where it was refused as
// "a dangling symlink" (docs/testing.md, the reliability audit). A link whose own target is
// missing is still refused, as the last component or on the way.
func TestCreateThroughDirectoryLink(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"realdir/old.txt": "old\n"})
	os.Symlink("realdir", filepath.Join(dir, "ld"))
	os.Symlink("nodir", filepath.Join(dir, "gone"))
	os.Symlink("realdir/missing.txt", filepath.Join(dir, "lf"))
	w := openWS(t, dir, nil)
	if res := run(t, w, `{"command":"create","path":"ld/new.txt","file_text":"new\n"}`); !res.Success {
		t.Fatalf("create through a link to a directory: %s %s", res.Code, res.Error)
	}
	if got := readTree(t, dir)["realdir/new.txt"]; got != "new\n" {
		t.Fatalf("realdir/new.txt = %q", got)
	}
	if res := run(t, w, `{"command":"create","path":"ld/sub/deeper.txt","file_text":"d\n"}`); !res.Success {
		t.Fatalf("create below a link to a directory: %s %s", res.Code, res.Error)
	}
	for _, p := range []string{"gone/x.txt", "lf"} {
		res := run(t, w, `{"command":"create","path":"`+p+`","file_text":"x\n"}`)
		if res.Success || res.Code != plan.CodeDenied || !strings.Contains(res.Error, "dangling symlink") {
			t.Errorf("create %s through a dangling link: %s %s", p, res.Code, res.Error)
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, "realdir/missing.txt")); err == nil {
		t.Error("a create through a dangling link wrote its target")
	}
}

// TestBusyNamesTheOtherWorkspace: a writer kept waiting by a writer of
// another workspace (one nested in its root, or one that contains it) is
// told which, not "another txedit process is committing in this
// workspace" (docs/testing.md, the reliability audit).
func TestBusyNamesTheOtherWorkspace(t *testing.T) {
	top := t.TempDir()
	writeTree(t, top, map[string]string{"a.txt": "a\n", "sub/b.txt": "b\n"})
	quick := &Options{LockTimeout: 50 * time.Millisecond}
	outer, inner := openWS(t, top, quick), openWS(t, filepath.Join(top, "sub"), quick)
	held, err := inner.j.Lock()
	if err != nil {
		t.Fatal(err)
	}
	res := run(t, outer, `{"command":"create","path":"c.txt","file_text":"c\n"}`)
	held.Unlock()
	if res.Code != plan.CodeBusy || !strings.Contains(res.Error, "nested inside this one") {
		t.Errorf("outer writer while the nested one commits: %s %s", res.Code, res.Error)
	}
	if held, err = outer.j.Lock(); err != nil {
		t.Fatal(err)
	}
	res = run(t, inner, `{"command":"create","path":"d.txt","file_text":"d\n"}`)
	held.Unlock()
	if res.Code != plan.CodeBusy || !strings.Contains(res.Error, "the workspace at ") || !strings.Contains(res.Error, "which contains this one") {
		t.Errorf("nested writer while the outer one commits: %s %s", res.Code, res.Error)
	}
	// The same workspace: the message it always had.
	if held, err = inner.j.Lock(); err != nil {
		t.Fatal(err)
	}
	res = run(t, openWS(t, filepath.Join(top, "sub"), quick), `{"command":"create","path":"e.txt","file_text":"e\n"}`)
	held.Unlock()
	if res.Code != plan.CodeBusy || !strings.Contains(res.Error, "committing in this workspace") {
		t.Errorf("a second writer of one workspace: %s %s", res.Code, res.Error)
	}
}
