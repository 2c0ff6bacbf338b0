package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/internal/swapsave"
	"github.com/txedit/txedit/plan"
)

// An edit whose every commit try meets an outside save: each dialect's
// refusal (a conflict) shows the change and the edited lines as they are
// now, numbered as its read numbers them, so the agent retries from them
// without reading the file again; the retry lands (docs/design.md,
// "Concurrency").
func TestConflictAtEveryTryShowsRegion(t *testing.T) {
	for _, tc := range []struct {
		toolset, read, edit string
		want                []string
	}{
		{"claude", "Read", "Edit", []string{"<tool_use_error>f.txt: another program was saving the file at each of the 4 tries"}},
		{"filesystem", "read_text_file", "edit_file", []string{"[conflict] " /* the path as named */, "another program was saving it each time"}},
		{"deepagents", "read_file", "edit_file", []string{"Error: ", "another program was saving the file at each of the 4 tries"}},
	} {
		t.Run(tc.toolset, func(t *testing.T) {
			dir := t.TempDir()
			orig := src(12)
			os.WriteFile(filepath.Join(dir, "f.txt"), []byte(orig), 0o644)
			inner, err := fsys.NewOS(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer inner.Close()
			sfs, sv := swapsave.New(inner, "f.txt", orig)
			w, err := engine.Open(dir, &engine.Options{FS: sfs})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			env := &Env{W: w.NewSession(engine.SessionOptions{Agent: "alice"}), Mode: ModeAcceptEdits}
			edit := func() Result {
				switch tc.toolset {
				case "claude":
					return call(t, env, "claude", "Edit", `{"file_path":"f.txt","old_string":"line 9\n","new_string":"line nine\n"}`)
				case "filesystem":
					return fsCall(t, env, "edit_file", map[string]any{"path": "f.txt", "edits": []map[string]any{{"oldText": "line 9", "newText": "line nine"}}})
				}
				return call(t, env, "deepagents", "edit_file", `{"path":"f.txt","old_string":"line 9\n","new_string":"line nine\n"}`)
			}
			if tc.toolset == "filesystem" {
				fsCall(t, env, tc.read, map[string]any{"path": "f.txt"})
			} else if r := call(t, env, tc.toolset, tc.read, `{"file_path":"f.txt","path":"f.txt"}`); !r.OK {
				t.Fatal(r.TextOf())
			}
			sv.On.Store(true)
			r := edit()
			sv.On.Store(false)
			text := r.TextOf()
			if r.OK || r.Code != plan.CodeConflict || !strings.Contains(text, "Note (txedit): it changed since your last read, by a writer outside txedit:\n@@ -1 +1 @@\n-line 1\n+line 1 (save 4)\n") ||
				!strings.Contains(text, "Lines 8-10 now read:\n8\tline 8\n9\tline 9\n10\tline 10\n") {
				t.Fatalf("edit whose every try met a save: %s", text)
			}
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Fatalf("edit whose every try met a save: no %q in %s", w, text)
				}
			}
			if r := edit(); !r.OK || strings.Contains(r.TextOf(), "Note (txedit)") {
				t.Fatalf("the retry from the lines shown: %s", r.TextOf())
			}
			if got := read(t, dir, "f.txt"); got != strings.Replace(strings.Replace(orig, "line 1\n", "line 1 (save 4)\n", 1), "line 9\n", "line nine\n", 1) {
				t.Fatalf("file %q", got)
			}
		})
	}
}

// A file that a save in place keeps empty at every try: the refusal shows
// the change (every line gone) and says to read the file again, since the
// empty file does not count as read; once the save has written, the edit
// is rebased from the version the agent read.
func TestEmptiedFileRefusalSaysReadAgain(t *testing.T) {
	a, _, dir := twoAgents(t, "f.txt", src(12))
	if r := call(t, a, "claude", "Read", `{"file_path":"f.txt"}`); !r.OK {
		t.Fatal(r.TextOf())
	}
	os.WriteFile(filepath.Join(dir, "f.txt"), nil, 0o644)
	edit := `{"file_path":"f.txt","old_string":"line 9\n","new_string":"line nine\n"}`
	r := call(t, a, "claude", "Edit", edit)
	if text := r.TextOf(); r.OK || r.Code != plan.CodeStaleHash || !strings.Contains(text, "-line 12\n") ||
		!strings.Contains(text, "read it again before retrying") || strings.Contains(text, "counts as read") {
		t.Fatalf("edit of a file found empty at every try: %s", text)
	}
	saved := strings.Replace(src(12), "line 1\n", "line 1 (saved)\n", 1)
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte(saved), 0o644)
	if r := call(t, a, "claude", "Edit", edit); !r.OK || !strings.Contains(r.TextOf(), "by a writer outside txedit") {
		t.Fatalf("the edit once the save wrote: %s", r.TextOf())
	}
	if got := read(t, dir, "f.txt"); got != strings.Replace(saved, "line 9\n", "line nine\n", 1) {
		t.Fatalf("file %q", got)
	}
}
