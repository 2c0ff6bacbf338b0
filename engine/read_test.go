package engine

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/txedit/txedit/hash"
	"github.com/txedit/txedit/plan"
)

func ip(n int) *int { return &n }

func TestReadLineMode(t *testing.T) {
	dir := t.TempDir()
	content := "one\r\ntwo\nthree\nfour"
	writeTree(t, dir, map[string]string{"f.txt": content, "bin.dat": "a\x00b", "latin1.txt": "caf\xe9\n"})
	w := openWS(t, dir, &Options{ReadOnly: true})
	read := func(req *plan.ReadRequest) []*plan.ReadResult {
		t.Helper()
		res, err := w.Read(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	whole := hash.Of([]byte(content)).String()
	tests := []struct {
		name       string
		start, end *int
		content    string
		token      string
		code       plan.Code
	}{
		{name: "whole file", content: content, token: whole},
		{name: "window", start: ip(2), end: ip(3), content: "two\nthree\n", token: hash.Token{Sum: hash.Of([]byte("two\nthree\n")), Start: 2, End: 3}.String()},
		{name: "negative from the end", start: ip(-2), content: "three\nfour", token: hash.Token{Sum: hash.Of([]byte("three\nfour")), Start: 3, End: 4}.String()},
		{name: "end clamped", start: ip(4), end: ip(99), content: "four", token: hash.Token{Sum: hash.Of([]byte("four")), Start: 4, End: 4}.String()},
		{name: "start past end", start: ip(9), code: plan.CodeLineOutOfRange},
		{name: "zero", start: ip(0), code: plan.CodeInvalidRequest},
	}
	for _, tc := range tests {
		r := read(&plan.ReadRequest{Mode: "Line", Path: "f.txt", StartLine: tc.start, EndLine: tc.end})[0]
		if tc.code != "" {
			if r.Success || r.Code != tc.code {
				t.Errorf("%s: %+v, want code %s", tc.name, r, tc.code)
			}
			continue
		}
		if !r.Success || r.Content != tc.content || r.ContentHash != tc.token || r.FileHash != whole || r.TotalLines != 4 {
			t.Errorf("%s: %+v", tc.name, r)
		}
		if _, err := time.Parse(time.RFC3339Nano, r.LastModified); err != nil || !strings.HasSuffix(r.LastModified, "Z") {
			t.Errorf("%s: last_modified %q is not RFC 3339 UTC", tc.name, r.LastModified)
		}
	}
	// A batch keeps request order and reports each path's own failure.
	rs := read(&plan.ReadRequest{Mode: "line", Paths: []string{"f.txt", "missing.txt", "bin.dat", "../x", "latin1.txt"}})
	want := []plan.Code{"", plan.CodeFileNotFound, plan.CodeBinaryFile, plan.CodeOutsideRoot, ""}
	for i, r := range rs {
		if r.Code != want[i] || r.Path != []string{"f.txt", "missing.txt", "bin.dat", "../x", "latin1.txt"}[i] {
			t.Errorf("batch[%d] = %+v, want code %q", i, r, want[i])
		}
	}
	if rs[4].Warning == "" {
		t.Error("non-UTF-8 content came back without a warning")
	}
	// The token a read returns is accepted by an edit of that range.
	w2 := openWS(t, dir, nil)
	tok := read(&plan.ReadRequest{Mode: "Line", Path: "f.txt", StartLine: ip(2), EndLine: ip(3)})[0].ContentHash
	if res := run(t, w2, `{"fileEdits":[{"path":"f.txt","edits":[{"command":"replace_lines","start_line":2,"end_line":2,"new_str":"TWO","content_hash":"`+tok+`"}]}]}`); !res.Success {
		t.Errorf("edit with the read's token: %+v", res)
	}
}

func TestReadDirectorySearchImage(t *testing.T) {
	dir := t.TempDir()
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
	writeTree(t, dir, map[string]string{"a/b/c.txt": "x", "a/.h": "h", "top.txt": "alpha\nBeta\ngamma\ndelta beta\n", "img.png": png, "fake.png": "not an image"})
	os.Symlink("top.txt", filepath.Join(dir, "ln"))
	w := openWS(t, dir, &Options{ReadOnly: true})
	ctx := context.Background()
	rs, _ := w.Read(ctx, &plan.ReadRequest{Mode: "Directory", Path: "a"})
	if r := rs[0]; !r.Success || len(r.Entries) != 2 || r.Entries[0].Path != "a/.h" || r.Entries[1].Kind != "dir" {
		t.Errorf("directory depth 0: %+v", r.Entries)
	}
	rs, _ = w.Read(ctx, &plan.ReadRequest{Mode: "Directory", Path: ".", Depth: ip(5)})
	var paths []string
	for _, e := range rs[0].Entries {
		paths = append(paths, e.Path+":"+string(e.Kind))
	}
	if got := strings.Join(paths, " "); got != "a:dir a/.h:file a/b:dir a/b/c.txt:file fake.png:file img.png:file ln:symlink top.txt:file" {
		t.Errorf("recursive listing: %s", got)
	}
	rs, _ = w.Read(ctx, &plan.ReadRequest{Mode: "Search", Path: "top.txt", Pattern: "BETA", ContextLines: ip(1)})
	if r := rs[0]; !r.Success || len(r.Matches) != 2 || r.Matches[0].Line != 2 || r.Matches[0].Before[0] != "alpha" || r.Matches[1].Line != 4 {
		t.Errorf("search: %+v", r)
	}
	rs, _ = w.Read(ctx, &plan.ReadRequest{Mode: "Image", ImagePaths: []string{"img.png", "fake.png"}})
	if r := rs[0]; !r.Success || r.Images[0].MediaType != "image/png" || r.Images[0].Data != base64.StdEncoding.EncodeToString([]byte(png)) {
		t.Errorf("image: %+v", r)
	}
	if r := rs[1]; r.Success || r.Code != plan.CodeInvalidRequest {
		t.Errorf("non-image: %+v", r)
	}
	if _, err := w.Read(ctx, &plan.ReadRequest{Mode: "Tree", Path: "."}); plan.CodeOf(err) != plan.CodeInvalidRequest {
		t.Errorf("unknown mode: %v", err)
	}
}

func TestListFindDiffGlob(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"src/a.go": "package a\n", "src/b.go": "package b\n", "src/sub/c.go": "package c\n",
		".hidden/d.go": "", "docs/x.md": "", "same1": "s\n", "same2": "s\n", "vendor/v.go": "", ".gitignore": "vendor/\n"})
	w := openWS(t, dir, &Options{ReadOnly: true, DenyRead: []string{"secret*"}})
	ctx := context.Background()
	ents, err := w.List(ctx, "src", ListOptions{Depth: 1, Ignore: []string{"b.go"}})
	if err != nil || len(ents) != 3 || ents[0].Path != "src/a.go" || ents[1].Path != "src/sub" || ents[2].Path != "src/sub/c.go" {
		t.Errorf("list: %v %+v", err, ents)
	}
	// find -name: base names at any depth, ignore files not honoured,
	// paths relative to the directory; directories on their own too.
	found, err := w.Glob(ctx, GlobOptions{Path: "src", Pattern: "*.go", NoIgnore: true, Relative: true})
	if err != nil || strings.Join(found.Files, " ") != "a.go b.go sub/c.go" {
		t.Errorf("find: %v %v", err, found.Files)
	}
	found, _ = w.Glob(ctx, GlobOptions{Path: ".", Pattern: "*", NoIgnore: true, OnlyDirs: true, Relative: true})
	if strings.Join(found.Files, " ") != "docs src src/sub vendor" {
		t.Errorf("find dirs: %v", found.Files)
	}
	if d, err := w.Diff(ctx, "same1", "same2"); err != nil || d != "" {
		t.Errorf("identical: %q %v", d, err)
	}
	if d, _ := w.Diff(ctx, "src/a.go", "src/b.go"); d != "--- src/a.go\n+++ src/b.go\n@@ -1 +1 @@\n-package a\n+package b\n" {
		t.Errorf("diff:\n%s", d)
	}
	g, err := w.Glob(ctx, GlobOptions{Pattern: "**/*.go"})
	if err != nil || strings.Join(g.Files, " ") != "src/a.go src/b.go src/sub/c.go" {
		t.Errorf("glob: %v %v", err, g.Files)
	}
	g, _ = w.Glob(ctx, GlobOptions{Pattern: "sub/*.go", Path: "src"})
	if strings.Join(g.Files, " ") != "src/sub/c.go" {
		t.Errorf("glob below a path: %v", g.Files)
	}
	g, _ = w.Glob(ctx, GlobOptions{Pattern: "*.go", Hidden: true, NoIgnore: true, Limit: 2})
	if len(g.Files) != 2 || !g.Truncated {
		t.Errorf("glob limit: %+v", g)
	}
}

func TestGrepModesAndLimits(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.txt": "foo 1\nbar\nfoo 2\nbaz\n", "b.txt": "nothing\n", "c.txt": "FOO\n", "secret.env": "foo\n"})
	w := openWS(t, dir, &Options{ReadOnly: true, DenyRead: []string{"*.env"}})
	ctx := context.Background()
	g := func(req plan.GrepRequest) *plan.GrepResult {
		t.Helper()
		res, err := w.Grep(ctx, &req)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if r := g(plan.GrepRequest{Pattern: "foo"}); strings.Join(r.Files, " ") != "a.txt" {
		t.Errorf("files (denied secret.env must not show): %v", r.Files)
	}
	if r := g(plan.GrepRequest{Pattern: "foo", IgnoreCase: true, OutputMode: "count"}); len(r.Counts) != 2 || r.Counts[0].Count != 2 || r.Counts[1].Count != 1 {
		t.Errorf("count: %+v", r.Counts)
	}
	r := g(plan.GrepRequest{Pattern: "foo", OutputMode: "content", Context: 1})
	if len(r.Matches) != 2 || r.Matches[0].Line != 1 || r.Matches[1].Before[0] != "bar" || r.Matches[1].After[0] != "baz" {
		t.Errorf("content: %+v", r.Matches)
	}
	if r := g(plan.GrepRequest{Pattern: "foo", OutputMode: "content", HeadLimit: 1}); len(r.Matches) != 1 || !r.Truncated {
		t.Errorf("head_limit: %+v", r)
	}
	if r := g(plan.GrepRequest{Pattern: "bar\nfoo", Multiline: true, OutputMode: "content"}); len(r.Matches) != 1 || r.Matches[0].Text != "bar\nfoo 2" {
		t.Errorf("multiline: %+v", r.Matches)
	}
	for _, bad := range []plan.GrepRequest{{Pattern: "("}, {Pattern: "a\nb"}, {Pattern: "x", OutputMode: "lines"}, {Pattern: "x", Type: "cobol"}, {Pattern: ""}} {
		if _, err := w.Grep(ctx, &bad); plan.CodeOf(err) != plan.CodeInvalidRequest {
			t.Errorf("%+v: %v, want invalid_request", bad, err)
		}
	}
	if _, err := w.Grep(ctx, &plan.GrepRequest{Pattern: "x", Path: "nope"}); plan.CodeOf(err) != plan.CodeFileNotFound {
		t.Errorf("missing path: %v", err)
	}
}

// TestBatchReadFastPath: a batch read takes the fast path (files opened
// relative to directory handles) only where it gives what the full path
// gives, down to the error of each odd path, and leaves no descriptor open.
func TestBatchReadFastPath(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"top.txt": "top\n", "d1/a.txt": "a\n", "d1/d2/b.txt": "b\nb\n", "d1/secret.txt": "s\n",
		"d1/big.txt": strings.Repeat("x", 200), "d3/c.txt": "c", "d1/bin.dat": "\x00"})
	os.Symlink("d1", filepath.Join(dir, "ln"))
	os.Symlink("d1/a.txt", filepath.Join(dir, "lf"))
	os.Symlink("/etc/passwd", filepath.Join(dir, "abs"))
	os.Symlink("../d3", filepath.Join(dir, "d1/up"))
	if err := mkfifo(filepath.Join(dir, "d1/fifo")); err != nil {
		t.Fatal(err)
	}
	w := openWS(t, dir, &Options{ReadOnly: true, MaxFileSize: 100, DenyRead: []string{"secret*"}})
	paths := []string{"top.txt", "d1/a.txt", "d1/d2/b.txt", "ln/a.txt", "lf", "abs", "d1/up/c.txt", "d1/fifo", "d1", "d1/secret.txt",
		"d1/big.txt", "d1/bin.dat", "./d1/a.txt", "d1//a.txt", "d1/../d1/a.txt", "d1/missing.txt", "d1/nodir/x", "missing/x",
		".txedit/x", "/" + "top.txt", "../out", "d3/c.txt", "d1/d2/b.txt"}
	before := countFDs(t)
	req := &plan.ReadRequest{Mode: "Line", Paths: paths}
	got, err := w.Read(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if after := countFDs(t); after != before {
		t.Errorf("%d descriptors open before the batch, %d after", before, after)
	}
	v := w.begin()
	defer v.end()
	fast := 0
	for i, p := range paths {
		if _, ok := v.quickRead(p); ok {
			fast++
		}
		want := &plan.ReadResult{Path: p}
		if err := v.readLines(want, req, false); err != nil { // the full path only
			pe := plan.As(err)
			want.Code, want.Error = pe.Code, pe.Error()
		} else {
			want.Success = true
		}
		g := got[i]
		if g.Path != p || g.Success != want.Success || g.Code != want.Code || g.Error != want.Error || g.Content != want.Content ||
			g.FileHash != want.FileHash || g.ContentHash != want.ContentHash || g.LastModified != want.LastModified || g.TotalLines != want.TotalLines {
			t.Errorf("%s: batch %+v\nfull path %+v", p, g, want)
		}
	}
	// top, a, b (twice), c and bin.dat (read, then refused as binary):
	// the plain paths; ln/a.txt, lf, d1/up/c.txt go through symlinks and
	// must not, nor may the FIFO, the directory, the denied, the too
	// large, the unclean and the missing.
	if fast != 6 {
		t.Errorf("%d paths took the fast path, want 6", fast)
	}
}

func countFDs(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	return len(ents)
}
