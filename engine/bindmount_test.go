//go:build linux

package engine

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/plan"

	"github.com/txedit/txedit/internal/mountns"
)

// TestBindMount: with b bind-mounted on a, a/f.txt and b/f.txt are one
// file. A request that edits line 1 through one name and line 3 through
// the other reported success for both and lost one ("a file may be named
// once per request" compared resolved paths, not inodes). The test runs
// itself again in a mount namespace of its own (unshare -m), where it
// makes the bind mount; that needs root.
func TestBindMount(t *testing.T) {
	if os.Getenv("TXEDIT_BIND_CHILD") != "" {
		bindMountChild(t)
		return
	}
	mountns.Require(t)
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a/f.txt": "one\ntwo\nthree\n", "b/": ""})
	mountns.Rerun(t, "TXEDIT_BIND_CHILD="+dir)
	// The namespace is gone: b is empty again, a/f.txt as the child left it.
	if ents, _ := os.ReadDir(filepath.Join(dir, "b")); len(ents) != 0 {
		t.Errorf("the bind mount outlived its namespace: %v", ents)
	}
}

func bindMountChild(t *testing.T) {
	dir := os.Getenv("TXEDIT_BIND_CHILD")
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if err := syscall.Mount(a, b, "", syscall.MS_BIND, ""); err != nil {
		t.Fatalf("mount --bind: %v", err)
	}
	orig := "one\ntwo\nthree\n"
	if data, _ := os.ReadFile(filepath.Join(b, "f.txt")); string(data) != orig {
		t.Fatalf("the bind mount does not show a: %q", data)
	}
	w := openWS(t, dir, nil)

	// 1. One request, the file named twice: refused, nothing written.
	res := run(t, w, `{"fileEdits":[
		{"path":"a/f.txt","edits":[{"command":"replace_lines","start_line":1,"end_line":1,"new_str":"ONE"}]},
		{"path":"b/f.txt","edits":[{"command":"replace_lines","start_line":3,"end_line":3,"new_str":"THREE"}]}]}`)
	if res.Success || res.Code != plan.CodeInvalidRequest {
		t.Fatalf("a request naming one file twice: %+v", res)
	}
	if data, _ := os.ReadFile(filepath.Join(a, "f.txt")); string(data) != orig {
		t.Fatalf("written: %q", data)
	}
	// 2. fileEdits names a/f.txt and a pattern_replace finds b/f.txt: the
	// journal refuses two ops on one inode, whichever way they came.
	res = run(t, w, `{"fileEdits":[{"path":"a/f.txt","edits":[{"command":"replace_lines","start_line":1,"end_line":1,"new_str":"ONE"}]}],
		"directory":"b","file_pattern":"*.txt","sed_pattern":"s/three/THREE/"}`)
	data, _ := os.ReadFile(filepath.Join(a, "f.txt"))
	switch {
	case res.Success && string(data) != "ONE\ntwo\nTHREE\n":
		t.Fatalf("both edits reported, the file is %q", data)
	case !res.Success && string(data) != orig:
		t.Fatalf("refused, but the file is %q", data)
	}
	t.Logf("fileEdits + pattern through the other name: success=%v code=%s %s", res.Success, res.Code, res.Error)
	// 3. Two workspaces, one rooted at a and one at b: one directory, so
	// their writers are serialised (its LOCK and its tree lock are one
	// inode each, whatever the path).
	oa, err := fsys.NewOS(a)
	if err != nil {
		t.Fatal(err)
	}
	defer oa.Close()
	ob, err := fsys.NewOS(b)
	if err != nil {
		t.Fatal(err)
	}
	defer ob.Close()
	os.MkdirAll(filepath.Join(a, ".txedit"), 0o700)
	unlock, err := oa.Lock(".txedit/LOCK", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if u, err := ob.Lock(".txedit/LOCK", 50*time.Millisecond); err == nil {
		u()
		t.Errorf("writers of a and of its bind mount b were not serialised")
	}
	unlock()
}
