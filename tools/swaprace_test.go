//go:build linux || darwin

// The swap races need an atomic exchange of two names, which Linux
// (renameat2) and macOS (renameatx_np) have and the BSDs do not.

package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/internal/testlong"
	"github.com/txedit/txedit/plan"
)

// The symlink-swap races of docs/testing.md ("Race-free resolution"): a
// directory component of every path a tool is given flips, in a loop,
// between a real directory (harmless files) and a symlink to the journal,
// or to a directory the deny lists cover. The policy is checked on the
// path as resolved; a tool that opens by name afterwards, and follows what
// is there then, reads or writes the journal or the denied directory. The
// audit read the journal 47 times in 1,500 read_text_file calls this way,
// and wrote into .txedit/txns.
//
// Every read and write tool of every toolset is called, round after round,
// on paths through the flipping component; afterwards no answer holds a
// byte of the journal's or the denied directory's files (or their names,
// or their sizes), no file of the tree outside them holds one (a copy or a
// move through the race), and nothing in them was created, changed, moved
// or removed.

// Markers planted in the journal and the denied directory. The harmless
// directory holds files of the same names with other bytes (and sizes).
const (
	journalBytes = "JOURNAL-BYTES-7f3a"
	deniedBytes  = "DENIED-BYTES-5c1e"
	// journalSize and deniedSize are the planted files' sizes, which a
	// stat through the race would tell (get_file_info, ls -l).
	journalSize = 4242
	deniedSize  = 3131
)

// swapCall is one call of a tool through the flipping component d; the
// function makes the arguments of the call's i-th round (paths under
// root).
type swapCall struct {
	toolset, tool string
	args          func(root string, i int) string
}

func jsonArgs(v map[string]any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// swapCalls are the calls of the races: every read and write tool of every
// toolset, on a file, a directory or a new name below d.
func swapCalls() []swapCall {
	abs := func(root, rel string) string { return filepath.Join(root, rel) }
	m := func(kv ...any) map[string]any {
		out := map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i].(string)] = kv[i+1]
		}
		return out
	}
	c := func(ts, tool string, f func(root string, i int) map[string]any) swapCall {
		return swapCall{ts, tool, func(root string, i int) string { return jsonArgs(f(root, i)) }}
	}
	addPatch := func(i int) string {
		return fmt.Sprintf("*** Begin Patch\n*** Add File: d/txns/pwn-patch-%d\n+pwned\n*** End Patch\n", i)
	}
	return []swapCall{
		// txedit
		c("txedit", "fs_read", func(r string, i int) map[string]any { return m("mode", "Line", "path", "d/planted") }),
		c("txedit", "fs_read", func(r string, i int) map[string]any {
			return m("mode", "Line", "paths", []string{"d/planted", "d/edit-me"})
		}),
		c("txedit", "fs_read", func(r string, i int) map[string]any { return m("mode", "Directory", "path", "d", "depth", 2) }),
		c("txedit", "fs_read", func(r string, i int) map[string]any { return m("mode", "Search", "path", "d", "pattern", "BYTES") }),
		c("txedit", "fs_write", func(r string, i int) map[string]any {
			return m("command", "create", "path", fmt.Sprintf("d/txns/pwn-create-%d", i), "file_text", "pwned\n")
		}),
		c("txedit", "fs_write", func(r string, i int) map[string]any {
			return m("command", "str_replace", "path", "d/edit-me", "old_str", "edit-me", "new_str", "edit-me")
		}),
		c("txedit", "fs_write", func(r string, i int) map[string]any {
			return m("command", "append", "path", "d/edit-me", "new_str", "")
		}),
		c("txedit", "fs_write", func(r string, i int) map[string]any {
			return m("command", "delete", "path", "d/del-me")
		}),
		c("txedit", "fs_write", func(r string, i int) map[string]any {
			return m("command", "move", "path", "d/mv", "new_path", fmt.Sprintf("pwn-moved-%d", i))
		}),
		c("txedit", "apply_patch", func(r string, i int) map[string]any { return m("input", addPatch(i)) }),
		// An LSP WorkspaceEdit: a create with an edit, and a rename out of d.
		c("txedit", "apply_patch", func(r string, i int) map[string]any {
			uri := "file://" + filepath.Join(r, fmt.Sprintf("d/txns/pwn-lsp-%d", i))
			return m("format", "lsp", "input", `{"documentChanges":[{"kind":"create","uri":"`+uri+`"},{"textDocument":{"uri":"`+uri+`","version":null},"edits":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"newText":"pwned\n"}]}]}`)
		}),
		c("txedit", "apply_patch", func(r string, i int) map[string]any {
			return m("format", "lsp", "input", `{"documentChanges":[{"kind":"rename","oldUri":"file://`+filepath.Join(r, "d/mv")+`","newUri":"file://`+filepath.Join(r, fmt.Sprintf("pwn-lspmv-%d", i))+`"}]}`)
		}),
		c("txedit", "undo", func(r string, i int) map[string]any { return m("force", true) }),
		c("txedit", "history", func(r string, i int) map[string]any { return m("limit", 3) }),
		c("txedit", "glob", func(r string, i int) map[string]any { return m("pattern", "**", "path", "d") }),
		c("txedit", "grep", func(r string, i int) map[string]any {
			return m("pattern", "BYTES", "path", "d", "output_mode", "content")
		}),
		// claude
		c("claude", "Read", func(r string, i int) map[string]any { return m("file_path", abs(r, "d/planted")) }),
		c("claude", "Write", func(r string, i int) map[string]any {
			return m("file_path", abs(r, fmt.Sprintf("d/txns/pwn-write-%d", i)), "content", "pwned\n")
		}),
		c("claude", "Edit", func(r string, i int) map[string]any {
			return m("file_path", abs(r, "d/edit-me"), "old_string", "edit-me", "new_string", "edit-me!")
		}),
		c("claude", "MultiEdit", func(r string, i int) map[string]any {
			return m("file_path", abs(r, "d/edit-me"), "edits", []any{m("old_string", "edit-me", "new_string", "edit-me?")})
		}),
		c("claude", "Grep", func(r string, i int) map[string]any {
			return m("pattern", "BYTES", "path", abs(r, "d"), "output_mode", "content")
		}),
		c("claude", "Glob", func(r string, i int) map[string]any { return m("pattern", "**/*", "path", abs(r, "d")) }),
		c("claude", "LS", func(r string, i int) map[string]any { return m("path", abs(r, "d")) }),
		// filesystem
		c("filesystem", "read_text_file", func(r string, i int) map[string]any { return m("path", abs(r, "d/planted")) }),
		c("filesystem", "read_file", func(r string, i int) map[string]any { return m("path", abs(r, "d/planted")) }),
		c("filesystem", "read_media_file", func(r string, i int) map[string]any { return m("path", abs(r, "d/planted")) }),
		c("filesystem", "read_multiple_files", func(r string, i int) map[string]any {
			return m("paths", []string{abs(r, "d/planted"), abs(r, "d/edit-me")})
		}),
		c("filesystem", "write_file", func(r string, i int) map[string]any {
			return m("path", abs(r, fmt.Sprintf("d/txns/pwn-fsw-%d", i)), "content", "pwned\n")
		}),
		c("filesystem", "edit_file", func(r string, i int) map[string]any {
			return m("path", abs(r, "d/edit-me"), "edits", []any{m("oldText", "edit-me", "newText", "edit-me")})
		}),
		c("filesystem", "create_directory", func(r string, i int) map[string]any {
			return m("path", abs(r, fmt.Sprintf("d/txns/pwn-dir-%d", i)))
		}),
		c("filesystem", "list_directory", func(r string, i int) map[string]any { return m("path", abs(r, "d")) }),
		c("filesystem", "list_directory_with_sizes", func(r string, i int) map[string]any { return m("path", abs(r, "d")) }),
		c("filesystem", "directory_tree", func(r string, i int) map[string]any { return m("path", abs(r, "d")) }),
		c("filesystem", "move_file", func(r string, i int) map[string]any {
			return m("source", abs(r, "d/mv"), "destination", abs(r, fmt.Sprintf("pwn-fsmv-%d", i)))
		}),
		c("filesystem", "search_files", func(r string, i int) map[string]any { return m("path", abs(r, "d"), "pattern", "**") }),
		c("filesystem", "get_file_info", func(r string, i int) map[string]any { return m("path", abs(r, "d/planted")) }),
		c("filesystem", "undo", func(r string, i int) map[string]any { return m("force", true) }),
		// codex
		c("codex", "apply_patch", func(r string, i int) map[string]any { return m("input", addPatch(i+1_000_000)) }),
		c("codex", "fs_read", func(r string, i int) map[string]any { return m("mode", "Line", "path", "d/planted") }),
		c("codex", "glob", func(r string, i int) map[string]any { return m("pattern", "**", "path", "d") }),
		c("codex", "grep", func(r string, i int) map[string]any {
			return m("pattern", "BYTES", "path", "d", "output_mode", "content")
		}),
		// amazonq
		c("amazonq", "fs_read", func(r string, i int) map[string]any { return m("mode", "Line", "path", abs(r, "d/planted")) }),
		c("amazonq", "fs_read", func(r string, i int) map[string]any { return m("mode", "Directory", "path", abs(r, "d")) }),
		c("amazonq", "fs_read", func(r string, i int) map[string]any {
			return m("mode", "Search", "path", abs(r, "d"), "pattern", "BYTES")
		}),
		c("amazonq", "fs_write", func(r string, i int) map[string]any {
			return m("command", "create", "path", abs(r, fmt.Sprintf("d/txns/pwn-q-%d", i)), "file_text", "pwned\n")
		}),
		// deepagents
		c("deepagents", "ls", func(r string, i int) map[string]any { return m("path", "d") }),
		c("deepagents", "read_file", func(r string, i int) map[string]any { return m("path", "d/planted") }),
		c("deepagents", "write_file", func(r string, i int) map[string]any {
			return m("path", fmt.Sprintf("d/txns/pwn-da-%d", i), "content", "pwned\n")
		}),
		c("deepagents", "edit_file", func(r string, i int) map[string]any {
			return m("path", "d/edit-me", "old_string", "edit-me", "new_string", "edit-me")
		}),
		c("deepagents", "glob", func(r string, i int) map[string]any { return m("pattern", "**", "path", "d") }),
		c("deepagents", "grep", func(r string, i int) map[string]any {
			return m("pattern", "BYTES", "path", "d", "output_mode", "content")
		}),
		// adk
		c("adk", "file_search", func(r string, i int) map[string]any { return m("dir_path", "d", "pattern", "*") }),
		c("adk", "list_directory", func(r string, i int) map[string]any { return m("dir_path", "d") }),
		c("adk", "read_file", func(r string, i int) map[string]any { return m("file_path", "d/planted") }),
		c("adk", "write_file", func(r string, i int) map[string]any {
			return m("file_path", fmt.Sprintf("d/txns/pwn-adk-%d", i), "text", "pwned\n")
		}),
		c("adk", "write_file", func(r string, i int) map[string]any {
			return m("file_path", "d/edit-me", "text", "", "append", true)
		}),
		c("adk", "copy_file", func(r string, i int) map[string]any {
			return m("source_path", "d/planted", "destination_path", fmt.Sprintf("pwn-copy-%d", i))
		}),
		c("adk", "copy_file", func(r string, i int) map[string]any {
			return m("source_path", "edit-me-src", "destination_path", fmt.Sprintf("d/txns/pwn-copyin-%d", i))
		}),
		c("adk", "move_file", func(r string, i int) map[string]any {
			return m("source_path", "d/mv", "destination_path", fmt.Sprintf("pwn-adkmv-%d", i))
		}),
		c("adk", "file_delete", func(r string, i int) map[string]any { return m("file_path", "d/del-me") }),
		c("adk", "grep_file", func(r string, i int) map[string]any {
			return m("file_path", "d", "pattern", "BYTES", "recursive", true)
		}),
		c("adk", "grep_file", func(r string, i int) map[string]any { return m("file_path", "d/planted", "pattern", "BYTES") }),
		c("adk", "find_files", func(r string, i int) map[string]any { return m("dir_path", "d") }),
		c("adk", "diff_files", func(r string, i int) map[string]any {
			return m("file_path1", "d/planted", "file_path2", "edit-me-src")
		}),
	}
}

// swapRig is one race's tree: the root, the journal or denied directory
// the symlink leads to, and the harmless directory it alternates with.
type swapRig struct {
	root   string
	target string // ".txedit" or "secret"
	marker string // the bytes planted in the target
	size   int
	// names only the target holds: an answer that names one listed it
	onlyNames []string
}

// plant writes the files the races aim at: in the target (the journal or
// the denied directory) the markers, in the harmless directory files of
// the same names with other bytes.
func (r *swapRig) plant(t *testing.T, dir string, marker string, size int) {
	t.Helper()
	body := func(s string, n int) []byte {
		b := []byte(s + "\n")
		for len(b) < n {
			b = append(b, []byte(s+"\n")...)
		}
		return b[:n]
	}
	for _, f := range []struct {
		name string
		data []byte
	}{
		{"planted", body(marker, size)},
		{"edit-me", []byte("edit-me " + marker + "\n")},
		{"del-me", []byte(marker + "\n")},
		{"mv", []byte(marker + "\n")},
	} {
		if err := os.WriteFile(filepath.Join(dir, f.name), f.data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Join(dir, "txns"), 0o755)
}

// newSwapRig makes the tree: root/.txedit (a journal, made by a first
// write), root/secret (denied by the options the caller opens with),
// root/d (the harmless directory) and root/x (the symlink to target); the
// racer exchanges d and x.
func newSwapRig(t *testing.T, target string) *swapRig {
	t.Helper()
	root := t.TempDir()
	w, err := engine.Open(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	// A first commit makes the journal (its key, txns/).
	req, err := plan.Parse([]byte(`{"command":"create","path":"first.txt","file_text":"x\n"}`))
	if err != nil {
		t.Fatal(err)
	}
	res, err := w.Apply(context.Background(), req)
	if err != nil || !res.Success {
		t.Fatalf("first write: %v %+v", err, res)
	}
	w.Close()
	r := &swapRig{root: root, target: target}
	if target == ".txedit" {
		r.marker, r.size, r.onlyNames = journalBytes, journalSize, []string{"only-journal-name", "LOCK"}
	} else {
		r.marker, r.size, r.onlyNames = deniedBytes, deniedSize, []string{"only-denied-name"}
	}
	tdir := filepath.Join(root, target)
	os.MkdirAll(tdir, 0o755)
	r.plant(t, tdir, r.marker, r.size)
	os.WriteFile(filepath.Join(tdir, r.onlyNames[0]), []byte(r.marker+"\n"), 0o644)
	d := filepath.Join(root, "d")
	os.MkdirAll(d, 0o755)
	r.plant(t, d, "harmless", 9)
	os.WriteFile(filepath.Join(root, "edit-me-src"), []byte("edit-me harmless\n"), 0o644)
	if err := os.Symlink(target, filepath.Join(root, "x")); err != nil {
		t.Fatal(err)
	}
	return r
}

// race flips d and x (RENAME_EXCHANGE: at every instant d is either the
// harmless directory or the symlink) until stop is closed; the harmless
// directory is restored between flips through a handle on it, so that
// deletes and moves keep finding their files.
func (r *swapRig) race(stop <-chan struct{}, flips *atomic.Int64) {
	rfd, err := unix.Open(r.root, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		panic(err)
	}
	defer unix.Close(rfd)
	for i := 0; ; i++ {
		select {
		case <-stop:
			// Leave d the harmless directory.
			var st unix.Stat_t
			if unix.Fstatat(rfd, "d", &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
				exchangeNames(rfd, "d", rfd, "x")
			}
			return
		default:
		}
		if exchangeNames(rfd, "d", rfd, "x") == nil {
			flips.Add(1)
		}
		// Each state holds for a while, of a length that varies: a
		// window between a check and an open is hit when a flip falls
		// inside it and none undoes it before the open.
		spin := (i * 7919) % spinMax
		for j := 0; j < spin; j++ {
			if j%256 == 0 {
				runtime.Gosched()
			}
		}
	}
}

var spinMax = func() int { n, _ := strconv.Atoi(os.Getenv("SPIN")); return max(n, 1) }()

// refill puts back, in the harmless directory, the files deletes and
// moves took away (by a handle on it: d may be the symlink now).
func refill(hfd int) {
	for _, n := range []string{"del-me", "mv"} {
		if fd, err := unix.Openat(hfd, n, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644); err == nil {
			unix.Write(fd, []byte("harmless\n"))
			unix.Close(fd)
		}
	}
}

// leak reports what an answer gives away of the target.
func (r *swapRig) leak(text string) string {
	if strings.Contains(text, r.marker) {
		return "its bytes"
	}
	for _, n := range r.onlyNames {
		if strings.Contains(text, n) {
			return "the name " + n
		}
	}
	for _, s := range []string{fmt.Sprintf("size: %d", r.size), fmt.Sprintf(`"size":%d`, r.size), fmt.Sprintf(" %d ", r.size)} {
		if strings.Contains(text, s) {
			return "its size (" + s + ")"
		}
	}
	return ""
}

// check walks the tree after the races: the target holds exactly what was
// planted (and, for the journal, txedit's own files), and no file outside
// it holds the target's bytes.
func (r *swapRig) check(t *testing.T) (writes int) {
	t.Helper()
	tdir := filepath.Join(r.root, r.target)
	want := map[string]bool{"planted": true, "edit-me": true, "del-me": true, "mv": true, "txns": true, r.onlyNames[0]: true}
	filepath.WalkDir(tdir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == tdir {
			return nil
		}
		rel, _ := filepath.Rel(tdir, p)
		name := d.Name()
		if strings.Contains(name, "pwn") {
			t.Errorf("written inside %s through the race: %s", r.target, rel)
			writes++
		}
		if !strings.Contains(rel, "/") && !want[name] && r.target != ".txedit" {
			t.Errorf("a new name in %s: %s", r.target, rel)
			writes++
		}
		return nil
	})
	body := func(s string, n int) string {
		b := s + "\n"
		for len(b) < n {
			b += s + "\n"
		}
		return b[:n]
	}
	for name, data := range map[string]string{"planted": body(r.marker, r.size), "edit-me": "edit-me " + r.marker + "\n",
		"del-me": r.marker + "\n", "mv": r.marker + "\n", r.onlyNames[0]: r.marker + "\n"} {
		if b, err := os.ReadFile(filepath.Join(tdir, name)); err != nil || string(b) != data {
			t.Errorf("%s/%s changed through the race: %q, %v", r.target, name, b, err)
			writes++
		}
	}
	filepath.WalkDir(r.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && (d.Name() == ".txedit" || d.Name() == "secret") {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), r.marker) {
				rel, _ := filepath.Rel(r.root, p)
				t.Errorf("%s holds %s's bytes (copied or moved through the race)", rel, r.target)
				writes++
			}
		}
		return nil
	})
	return writes
}

// runSwapRaces calls every tool rounds times while d flips, and returns
// the leaks and writes it saw.
func runSwapRaces(t *testing.T, target string, rounds int) (calls, leaks, writes int) {
	rig := newSwapRig(t, target)
	opts := &engine.Options{Durability: engine.NotDurable}
	if target == "secret" {
		opts.DenyRead, opts.DenyWrite = []string{"secret/**"}, []string{"secret/**"}
	}
	w, err := engine.Open(rig.root, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	env := &Env{W: w.NewSession(engine.SessionOptions{Agent: "racer", NoReadCheck: true}), Mode: ModeAcceptEdits}
	sets := map[string]*Toolset{}
	calls_ := swapCalls()
	for _, c := range calls_ {
		if sets[c.toolset] == nil {
			ts, err := Get(c.toolset)
			if err != nil {
				t.Fatal(err)
			}
			sets[c.toolset] = ts
		}
		if sets[c.toolset].Tool(c.tool) == nil {
			t.Fatalf("%s has no tool %s", c.toolset, c.tool)
		}
	}
	hfd, err := unix.Open(filepath.Join(rig.root, "d"), unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(hfd)
	stop := make(chan struct{})
	var flips atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); rig.race(stop, &flips) }()
	byTool, oks := map[string]int{}, map[string]int{}
	for i := 0; i < rounds; i++ {
		for _, c := range calls_ {
			refill(hfd)
			res := Call(context.Background(), env, sets[c.toolset].Tool(c.tool), json.RawMessage(c.args(rig.root, i)))
			calls++
			if res.OK {
				oks[c.toolset+" "+c.tool]++
			}
			text := res.TextOf()
			if b, err := json.Marshal(res.Value); err == nil {
				text += string(b)
			}
			for _, m := range res.Media {
				text += string(m.Data)
			}
			if what := rig.leak(text); what != "" {
				leaks++
				if byTool[c.toolset+" "+c.tool]++; byTool[c.toolset+" "+c.tool] == 1 {
					t.Errorf("%s %s gave away %s's %s: %.300s", c.toolset, c.tool, target, what, text)
				}
			}
		}
	}
	close(stop)
	wg.Wait()
	writes = rig.check(t)
	t.Logf("%s: %d calls, %d flips of d, %d answers that gave the target away %v, %d writes in it", target, calls, flips.Load(), leaks, byTool, writes)
	// The races are real only if the tools work between the flips: each
	// tool succeeded on some calls (d was the directory then).
	var never []string
	for _, c := range calls_ {
		if oks[c.toolset+" "+c.tool] == 0 {
			never = append(never, c.toolset+" "+c.tool)
		}
	}
	t.Logf("successful answers by tool: %v", oks)
	if len(never) > 0 && testlong.Long() {
		t.Errorf("never answered success during the races: %v", never)
	}
	return calls, leaks, writes
}

// swapRounds is how many times the races call every tool: in the long run
// at least 10,000 calls against each target.
func swapRounds() int {
	return testlong.Pick(12, (10000+len(swapCalls())-1)/len(swapCalls()))
}

// TestSwapRaceJournal: the races against the journal.
func TestSwapRaceJournal(t *testing.T) {
	runSwapRaces(t, ".txedit", swapRounds())
}

// TestSwapRaceDenied: the races against a directory --deny-read and
// --deny-write cover.
func TestSwapRaceDenied(t *testing.T) {
	runSwapRaces(t, "secret", swapRounds())
}

// flipFS flips d at the worst moment instead of at random: right after
// the k-th time a call looked at d (Lstat) and found the harmless
// directory, d becomes the symlink and stays one until the call is over.
// The engine looks at d when it resolves a path through it (k=1) and, for
// a listing, when it checks what it resolved (k=2). On a file system that
// follows what is there when it opens, every read, listing and write
// through d then reaches the target; on one that follows nothing, the
// call is refused (ELOOP: a symlink appeared on a resolved path). A
// commit checks its directories once more before its renames (Revalidate;
// schedule k = -1 flips d right after that check), and k = -2 flips d
// right before its first write through d.
type flipFS struct {
	fsys.FS
	f *flipper
}

// flipper exchanges d and x in root, keeping track of which d is.
type flipper struct {
	mu     sync.Mutex
	root   string
	isLink bool
	flips  int
	k      int // flip at the k-th look at d (-1: after Revalidate, -2: before a write)
	broken error
	looks  int
}

func (f *flipper) set(link bool) {
	if f.isLink == link {
		return
	}
	if err := exchangeNames(unix.AT_FDCWD, filepath.Join(f.root, "d"), unix.AT_FDCWD, filepath.Join(f.root, "x")); err != nil {
		// A tool moved or removed d or x: a write where it had no
		// business (the symlink is not the agent's path either).
		f.broken = err
		return
	}
	f.isLink = link
	f.flips++
}

// reset makes d the directory again, to flip at the k-th look.
func (f *flipper) reset(k int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.set(false)
	f.k, f.looks = k, 0
}

func (f *flipper) looked() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.looks++; f.looks == f.k {
		f.set(true)
	}
}

func (x *flipFS) View() (fsys.FS, func()) {
	v, release := x.FS.View()
	return &flipFS{FS: v, f: x.f}, release
}

// Revalidate is where the commit checks that the directories it holds
// are still at their paths, just before its renames: schedule k = -1
// flips d right after it.
func (x *flipFS) Revalidate() error {
	err := x.FS.Revalidate()
	x.f.mu.Lock()
	if x.f.k == -1 {
		x.f.set(true)
	}
	x.f.mu.Unlock()
	return err
}

// A commit writes its staging files beside their targets, makes
// directories, renames and removes: schedule k = -2 flips d right before
// the first of those through it.
func (x *flipFS) beforeWrite(name string) {
	x.f.mu.Lock()
	if x.f.k == -2 && under(name) {
		x.f.set(true)
	}
	x.f.mu.Unlock()
}

func under(name string) bool { return strings.HasPrefix(name, "d/") }

func (x *flipFS) Create(name string, perm fs.FileMode) (fsys.File, error) {
	x.beforeWrite(name)
	return x.FS.Create(name, perm)
}
func (x *flipFS) Mkdir(name string, perm fs.FileMode) error {
	x.beforeWrite(name)
	return x.FS.Mkdir(name, perm)
}
func (x *flipFS) Rename(a, b string) error {
	x.beforeWrite(a)
	x.beforeWrite(b)
	return x.FS.Rename(a, b)
}
func (x *flipFS) Link(a, b string) error {
	x.beforeWrite(a)
	x.beforeWrite(b)
	return x.FS.Link(a, b)
}
func (x *flipFS) Remove(name string) error {
	x.beforeWrite(name)
	return x.FS.Remove(name)
}

func (x *flipFS) Lstat(name string) (fs.FileInfo, error) {
	fi, err := x.FS.Lstat(name)
	if name == "d" && err == nil && fi.IsDir() {
		x.f.looked()
	}
	return fi, err
}

// TestSwapAtTheWorstMoment: every tool of every toolset, with d flipped
// right between the engine's check and its open (flipFS), against the
// journal and against a denied directory: nothing of either is read or
// written. On a file system that followed the symlink it found at the
// open, the reads, listings and writes through d reached the target on
// every call (docs/testing.md).
func TestSwapAtTheWorstMoment(t *testing.T) {
	for _, target := range []string{".txedit", "secret"} {
		t.Run(target, func(t *testing.T) {
			rig := newSwapRig(t, target)
			inner, err := fsys.NewOS(rig.root)
			if err != nil {
				t.Fatal(err)
			}
			defer inner.Close()
			fl := &flipper{root: rig.root}
			opts := &engine.Options{Durability: engine.NotDurable, FS: &flipFS{FS: inner, f: fl}}
			if target == "secret" {
				opts.DenyRead, opts.DenyWrite = []string{"secret/**"}, []string{"secret/**"}
			}
			w, err := engine.Open(rig.root, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			env := &Env{W: w.NewSession(engine.SessionOptions{Agent: "racer", NoReadCheck: true}), Mode: ModeAcceptEdits}
			hfd, err := unix.Open(filepath.Join(rig.root, "d"), unix.O_RDONLY|unix.O_DIRECTORY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer unix.Close(hfd)
			leaks, prev := 0, ""
			for _, k := range []int{1, 2, 3, 4, -1, -2} {
				for i, c := range swapCalls() {
					fl.reset(k)
					if fl.broken != nil {
						t.Fatalf("%s (schedule %d) moved or removed d or x through the race: %v", prev, k, fl.broken)
					}
					prev = c.toolset + " " + c.tool + " " + c.args(rig.root, i)
					refill(hfd)
					ts, _ := Get(c.toolset)
					res := Call(context.Background(), env, ts.Tool(c.tool), json.RawMessage(c.args(rig.root, i)))
					text := res.TextOf()
					if b, err := json.Marshal(res.Value); err == nil {
						text += string(b)
					}
					if what := rig.leak(text); what != "" {
						leaks++
						t.Errorf("%s %s gave away %s's %s: %.200s", c.toolset, c.tool, target, what, text)
					}
				}
			}
			fl.reset(0)
			writes := rig.check(t)
			t.Logf("%s: %d flips at the worst moment, %d answers that gave the target away, %d writes in it", target, fl.flips, leaks, writes)
		})
	}
}
