package engine

import (
	"context"
	"strings"
	"testing"
)

func TestPatternReplace(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"a.js":                "const x = 1;\nconst y = 2;\n",
		"lib/b.js":            "const z = 3;\r\n",
		"lib/deep/c.js":       "let ok = 1; const deep = 2;\n",
		"node_modules/m/x.js": "const vendored = 1;\n",
		"dist/out.js":         "const built = 1;\n",
		"notes.txt":           "const in text\n",
		".hidden.js":          "const hidden = 1;\n",
		"bin.js":              "const \x00 binary\n",
		"nochange.js":         "var nothing = 1;\n",
	}
	writeTree(t, dir, files)
	before := readTree(t, dir)
	w := openWS(t, dir, nil)
	req := `{"command":"pattern_replace","directory":".","file_pattern":"*.js","sed_pattern":"s/const /let /g","exclude_patterns":["node_modules/**","dist/**"]`
	res := run(t, w, req+`,"dry_run":true}`)
	if !res.Success || res.FilesModified != 3 || res.FilesSkipped != 1 {
		t.Fatalf("dry run: %+v", res)
	}
	var paths []string
	for _, f := range res.Files {
		paths = append(paths, f.Path)
		if f.Replacements == 0 || !*f.WouldModify {
			t.Errorf("file %s: %+v", f.Path, f)
		}
	}
	if strings.Join(paths, " ") != "a.js lib/b.js lib/deep/c.js" || res.Files[0].Replacements != 2 {
		t.Errorf("files: %v %+v", paths, res.Files[0])
	}
	if !strings.Contains(res.Diff, "+let x = 1;") || !strings.Contains(res.Diff, "+let z = 3;\r") {
		t.Errorf("diff:\n%s", res.Diff)
	}
	if got := readTree(t, dir); treeString(got) != treeString(before) {
		t.Fatal("dry run wrote")
	}
	res = run(t, w, req+`}`)
	if !res.Success || res.FilesModified != 3 || res.TransactionID == "" {
		t.Fatalf("apply: %+v", res)
	}
	got := readTree(t, dir)
	if got["a.js"] != "let x = 1;\nlet y = 2;\n" || got["lib/b.js"] != "let z = 3;\r\n" || got["node_modules/m/x.js"] != files["node_modules/m/x.js"] ||
		got["notes.txt"] != files["notes.txt"] || got[".hidden.js"] != files[".hidden.js"] || got["bin.js"] != files["bin.js"] {
		t.Errorf("after apply:\n%s", treeString(got))
	}
	// One transaction, undone as one.
	if _, err := w.Undo(context.Background(), UndoOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := readTree(t, dir); treeString(got) != treeString(before) {
		t.Fatalf("undo did not restore:\n%s", treeString(got))
	}
}

func TestPatternReplaceOptions(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"top.go": "a.b\n", "sub/low.go": "a.b\n", ".h.go": "a.b axb\n", "x.go": "axb\n"})
	w := openWS(t, dir, nil)
	// Not recursive, literal: "." is a dot, not any character.
	res := run(t, w, `{"command":"pattern_replace","directory":".","file_pattern":"*.go","sed_pattern":"s/a.b/A.B/g","recursive":false,"literal":true,"hidden":true,"dry_run":true}`)
	var paths []string
	for _, f := range res.Files {
		paths = append(paths, f.Path)
	}
	if strings.Join(paths, " ") != ".h.go top.go" {
		t.Errorf("non-recursive literal hidden: %v", paths)
	}
	// Together with fileEdits: the pattern applies after the explicit
	// edits, all in one transaction.
	res = run(t, w, `{"fileEdits":[{"path":"x.go","edits":[{"command":"append","new_str":"a.b again"}]},{"path":"new.txt","edits":[{"command":"create","file_text":"made\n"}]}],
		"directory":".","file_pattern":"*.go","sed_pattern":"s/a.b/Q/g"}`)
	if !res.Success || res.FilesModified != 4 {
		t.Fatalf("combined: %+v", res)
	}
	got := readTree(t, dir)
	if got["x.go"] != "Q\nQ again\n" || got["top.go"] != "Q\n" || got["sub/low.go"] != "Q\n" || got["new.txt"] != "made\n" || got[".h.go"] != "a.b axb\n" {
		t.Errorf("combined result:\n%s", treeString(got))
	}
	log, _ := w.Log(context.Background(), LogOptions{})
	if len(log) != 1 || len(log[0].Files) != 4 {
		t.Errorf("want one transaction of 4 files: %s", mustJSON(log))
	}
	// A bad sed pattern is refused before anything is read.
	if res := run(t, w, `{"command":"pattern_replace","file_pattern":"*","sed_pattern":"s/(/x/"}`); res.Success || res.Code != "invalid_request" {
		t.Errorf("bad sed: %+v", res)
	}
}

// TestPatternReplaceLargeFiles: files larger than the walk's buffer are
// looked at a piece at a time (fsys.ScanReader) and read whole only when
// a piece holds the pattern's literal: one whose only match straddles
// two pieces is changed, one without a match is not, a binary one is
// skipped, whether the request is literal or a regex that is a plain
// string; the dry run and the commit find the same files.
func TestPatternReplaceLargeFiles(t *testing.T) {
	line := "\tx := compute(ctx, y) // a line of a large file\n"
	big := func(n int) string { return strings.Repeat(line, n/len(line)+1)[:n] }
	seam := big(200 << 10)
	seam = seam[:64<<10-4] + "errors.New(" + seam[64<<10-4+len("errors.New("):]
	bin := big(100<<10) + "errors.New("
	bin = "\x00" + bin[1:]
	files := map[string]string{
		"seam.go":   seam,
		"none.go":   big(300 << 10),
		"end.go":    big(130<<10) + "errors.New(",
		"bin.go":    bin,
		"small.go":  "errors.New(\"x\")\n",
		"nomatc.go": "nothing\n",
	}
	for _, literal := range []bool{true, false} {
		dir := t.TempDir()
		writeTree(t, dir, files)
		w := openWS(t, dir, nil)
		req := `{"command":"pattern_replace","directory":".","file_pattern":"*.go","sed_pattern":"s/errors.New(/errors.Newf(/g","literal":true`
		if !literal {
			req = `{"command":"pattern_replace","directory":".","file_pattern":"*.go","sed_pattern":"s/errors\\.New\\(/errors.Newf(/g"`
		}
		for _, dry := range []bool{true, false} {
			r := req + `}`
			if dry {
				r = req + `,"dry_run":true}`
			}
			res := run(t, w, r)
			var paths []string
			for _, f := range res.Files {
				paths = append(paths, f.Path)
			}
			if !res.Success || res.FilesModified != 3 || res.FilesSkipped != 1 || strings.Join(paths, " ") != "end.go seam.go small.go" {
				t.Fatalf("literal %v, dry run %v: %v %+v", literal, dry, paths, res)
			}
		}
		got := readTree(t, dir)
		for name, want := range files {
			if name != "bin.go" && name != "none.go" && name != "nomatc.go" {
				want = strings.ReplaceAll(want, "errors.New(", "errors.Newf(")
			}
			if got[name] != want {
				t.Errorf("literal %v: %s is %d bytes, want %d (%q)", literal, name, len(got[name]), len(want), name)
			}
		}
	}
}
