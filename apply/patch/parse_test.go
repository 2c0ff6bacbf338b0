package patch

import (
	"strings"
	"testing"
)

// parseCase parses in and compares the dump (dumpFiles) with want: want
// either equals the whole dump, or starts with "error " and is a prefix of
// it.
type parseCase struct {
	name, in, want string
}

func runParseCases(t *testing.T, f Format, cases []parseCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			files, err := Parse(f, []byte(tc.in))
			got := dumpFiles(files, err)
			if strings.HasPrefix(tc.want, "error ") {
				if !strings.HasPrefix(got, tc.want) {
					t.Errorf("got:\n%s\nwant prefix:\n%s", got, tc.want)
				}
				return
			}
			if got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

const (
	upd  = "update a.txt (line 2)\n  hunk 0\n    -\"x\"\n    +\"y\"\n"
	upd3 = "update a.txt (line 3)\n  hunk 0\n    -\"x\"\n    +\"y\"\n" // after a wrapper line
)

var applyPatchCases = []parseCase{
	{"minimal", "*** Begin Patch\n*** Update File: a.txt\n@@\n-x\n+y\n*** End Patch\n", upd},
	{"CRLF input", "*** Begin Patch\r\n*** Update File: a.txt\r\n@@\r\n-x\r\n+y\r\n*** End Patch\r\n", upd},
	{"lines that carry their CR keep it", "*** Begin Patch\n*** Update File: a.txt\n@@\n-x\r\n\r\n+y\n*** End Patch\n",
		"update a.txt (line 2)\n  hunk 0\n    -\"x\\r\"\n    -\"\\r\"\n    +\"\\r\"\n    +\"y\"\n"},
	{"an added file keeps its lines' CRs", "*** Begin Patch\n*** Add File: a.txt\n+x\r\n+y\n*** End Patch\n", "add a.txt overwrite (line 2)\n  content \"x\\r\\ny\\n\"\n"},
	{"heredoc <<EOF", "<<EOF\n*** Begin Patch\n*** Update File: a.txt\n@@\n-x\n+y\n*** End Patch\nEOF\n", upd3},
	{"heredoc <<\"EOF\"", "<<\"EOF\"\n*** Begin Patch\n*** Update File: a.txt\n@@\n-x\n+y\n*** End Patch\nEOF", upd3},
	{"heredoc quotes mismatched", "<<\"EOF'\n*** Begin Patch\n*** Update File: a.txt\n@@\n-x\n+y\n*** End Patch\nEOF", "error invalid_request: line 1: \"<<\\\"EOF'\": the patch must start with"},
	{"heredoc not closed", "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: a.txt\n@@\n-x\n+y\n*** End Patch\n", "error invalid_request: line 1:"},
	{"fenced", "```\n*** Begin Patch\n*** Update File: a.txt\n@@\n-x\n+y\n*** End Patch\n```\n", upd3},
	{"first hunk without @@", "*** Begin Patch\n*** Update File: a.txt\n-x\n+y\n*** End Patch", upd},
	{"missing begin", "*** Update File: a.txt\n@@\n-x\n+y\n*** End Patch", "error invalid_request: line 1: \"*** Update File: a.txt\": the patch must start with \"*** Begin Patch\""},
	{"missing end", "*** Begin Patch\n*** Update File: a.txt\n@@\n-x\n+y\n", "error invalid_request: line 5: \"+y\": the patch must end with \"*** End Patch\""},
	{"only begin", "*** Begin Patch\n", "error invalid_request: line 1:"},
	{"empty input", "  \n", "error invalid_request: the patch is empty"},
	{"end patch in the middle", "*** Begin Patch\n*** Delete File: a\n*** End Patch\n*** Delete File: b\n*** End Patch", "error invalid_request: line 3: \"*** End Patch\" before the end"},
	{"bad hunk line", "*** Begin Patch\n*** Update File: a.txt\n@@\nx\n*** End Patch", "error invalid_request: line 4: \"x\": every line of an update hunk starts with"},
	{"second hunk without @@", "*** Begin Patch\n*** Update File: a.txt\n@@\n-x\n+y\nstray\n-q\n*** End Patch", "error invalid_request: line 6: \"stray\": every line of an update hunk starts with ' ' (context), '-' (removed) or '+' (added), and a new hunk starts with @@"},
	{"end of file alone", "*** Begin Patch\n*** Update File: a.txt\n@@\n*** End of File\n*** End Patch", "error invalid_request: line 3: the hunk has no lines"},
	{"anchor without lines", "*** Begin Patch\n*** Update File: a.txt\n@@ def f():\n*** End Patch", "error invalid_request: line 3: the hunk has no lines"},
	{"no path", "*** Begin Patch\n*** Delete File:   \n*** End Patch", "error invalid_request: line 2: \"*** Delete File:\" names no path"},
	{"move to without path", "*** Begin Patch\n*** Update File: a\n*** Move to:\n@@\n-x\n+y\n*** End Patch", "error invalid_request: line 3: \"*** Move to:\" names no path"},
	{"pure rename", "*** Begin Patch\n*** Update File: a\n*** Move to: b\n*** End Patch", "update a -> b (line 2)\n"},
	{"stacked anchors and a unified header", "*** Begin Patch\n*** Update File: a.py\n@@ class A:\n@@     def f(self):\n@@ -12,3 +12,3 @@ def f\n-x\n+y\n*** End Patch",
		"update a.py (line 2)\n  hunk 0 line 12 @@\"class A:\" @@\"    def f(self):\"\n    -\"x\"\n    +\"y\"\n"},
	{"end of file marker padded", "*** Begin Patch\n*** Update File: a.txt\n@@\n-x\n+y\n  *** End of File  \n*** End Patch", "update a.txt (line 2)\n  hunk 0 at-eof\n    -\"x\"\n    +\"y\"\n"},
	{"blank lines: inside a hunk kept, at its end dropped", "*** Begin Patch\n*** Update File: a.txt\n@@\n a\n\n-x\n+y\n\n\n*** End Patch",
		"update a.txt (line 2)\n  hunk 0\n    -\"a\"\n    -\"\"\n    -\"x\"\n    +\"a\"\n    +\"\"\n    +\"y\"\n"},
	{"add file: blank line among + lines", "*** Begin Patch\n*** Add File: n.txt\n+a\n\n+b\n\n*** Delete File: z\n*** End Patch",
		"add n.txt overwrite (line 2)\n  content \"a\\n\\nb\\n\"\ndelete z (line 7)\n"},
	{"add file: no lines", "*** Begin Patch\n*** Add File: e.txt\n*** End Patch", "add e.txt overwrite (line 2)\n  content \"\"\n"},
	{"add file: line not starting with +", "*** Begin Patch\n*** Add File: n.txt\n+a\nb\n*** End Patch", "error invalid_request: line 4: \"b\" is not a file operation"},
	{"several operations", "*** Begin Patch\n*** Delete File: a\n\n*** Add File: b\n+x\n*** Update File: c\n*** Move to: d\n@@ f\n+z\n*** End Patch",
		"delete a (line 2)\nadd b overwrite (line 4)\n  content \"x\\n\"\nupdate c -> d (line 6)\n  hunk 0 @@\"f\"\n    +\"z\"\n"},
	{"context line starting with ***", "*** Begin Patch\n*** Update File: a.c\n@@\n ***p = 0;\n-x\n+y\n*** End Patch",
		"update a.c (line 2)\n  hunk 0\n    -\"***p = 0;\"\n    -\"x\"\n    +\"***p = 0;\"\n    +\"y\"\n"},
}

func TestParseApplyPatch(t *testing.T) { runParseCases(t, FormatApplyPatch, applyPatchCases) }

var responsesCases = []parseCase{
	{"create", `{"type":"create_file","path":"n.txt","diff":"+a\n+b"}`, "add n.txt overwrite (line 0)\n  content \"a\\nb\\n\"\n"},
	{"update without @@", `{"type":"update_file","path":"a.txt","diff":"-x\n+y\n"}`, "update a.txt (line 0)\n  hunk 0\n    -\"x\"\n    +\"y\"\n"},
	{"delete ignores a diff", `{"type":"delete_file","path":"a.txt","diff":""}`, "delete a.txt (line 0)\n"},
	{"no path", `{"type":"delete_file"}`, "error invalid_request: operation 0 (delete_file) has no path"},
	{"no diff", `{"type":"update_file","path":"a"}`, "error invalid_request: operation 0 (update_file) has no diff"},
	{"empty update diff", `{"type":"update_file","path":"a","diff":""}`, "error invalid_request: operation 0 (update_file): the diff has no hunks"},
	{"envelope inside a diff", `{"type":"update_file","path":"a","diff":"@@\n-x\n+y\n*** End Patch"}`, "error invalid_request: operation 0 (update_file): diff line 4: \"*** End Patch\": an update_file diff holds only hunks"},
	{"unknown type", `{"type":"rename_file","path":"a"}`, "error invalid_request: item 0: type \"rename_file\" is neither"},
	{"unknown operation type", `{"type":"apply_patch_call","operation":{"type":"chmod","path":"a"}}`, "error invalid_request: operation 0: type \"chmod\" is not"},
	{"bad JSON", `[{"type":}]`, "error invalid_request: invalid JSON"},
	{"empty array", `[]`, "error invalid_request: no operations"},
}

func TestParseResponses(t *testing.T) { runParseCases(t, FormatResponses, responsesCases) }

var diffCases = []parseCase{
	{"quoted names with octal escapes", "diff --git \"a/caf\\303\\251.txt\" \"b/caf\\303\\251.txt\"\n--- \"a/caf\\303\\251.txt\"\n+++ \"b/caf\\303\\251.txt\"\n@@ -1 +1 @@\n-x\n+y\n",
		"update café.txt (line 1)\n  hunk 0 line 1\n    -\"x\"\n    +\"y\"\n"},
	{"git --no-prefix", "diff --git src/a.go src/a.go\n--- src/a.go\n+++ src/a.go\n@@ -1 +1 @@\n-x\n+y\n", "update src/a.go (line 1)\n  hunk 0 line 1\n    -\"x\"\n    +\"y\"\n"},
	{"plain diff with other names does not rename", "--- a/old.py\n+++ b/new.py\n@@ -1 +1 @@\n-x\n+y\n", "update old.py (line 1)\n  hunk 0 line 1\n    -\"x\"\n    +\"y\"\n"},
	{"diff -u file.orig file patches file", "--- hello.c.orig\t2024-01-01\n+++ hello.c\t2024-01-02\n@@ -1 +1 @@\n-x\n+y\n", "update hello.c (line 1)\n  hunk 0 line 1\n    -\"x\"\n    +\"y\"\n"},
	{"diff -u file file.new patches file", "--- src/a.go\n+++ src/a.go.new\n@@ -1 +1 @@\n-x\n+y\n", "update src/a.go (line 1)\n  hunk 0 line 1\n    -\"x\"\n    +\"y\"\n"},
	{"CRLF lines", "--- a/w.txt\r\n+++ b/w.txt\r\n@@ -1,2 +1,2 @@\r\n a\r\n-x\r\n+y\r\n", "update w.txt (line 1)\n  hunk 0 line 1\n    -\"a\"\n    -\"x\"\n    +\"a\"\n    +\"y\"\n"},
	{"a git diff's CRs are the lines' own", "--- a/w.txt\n+++ b/w.txt\n@@ -1,2 +1,2 @@\n a\r\n-x\r\n+x\n", "update w.txt (line 1)\n  hunk 0 line 1\n    -\"a\\r\"\n    -\"x\\r\"\n    +\"a\\r\"\n    +\"x\"\n"},
	{"new CRLF file keeps its bytes", "--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+a\r\n+b\r\n", "add n.txt (line 1)\n  content \"a\\r\\nb\\r\\n\"\n"},
	{"new file without final newline", "--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n\\ No newline at end of file\n", "add n.txt (line 1)\n  content \"a\\nb\"\n"},
	{"no newline on the context line", "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-x\n+y\n z\n\\ No newline at end of file\n",
		"update f (line 1)\n  hunk 0 line 1 old-no-eol new-no-eol\n    -\"x\"\n    -\"z\"\n    +\"y\"\n    +\"z\"\n"},
	{"no newline added", "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+x\n", "update f (line 1)\n  hunk 0 line 1 old-no-eol\n    -\"x\"\n    +\"x\"\n"},
	{"-U0 addition states the line before", "--- a/f\n+++ b/f\n@@ -3,0 +4,2 @@\n+p\n+q\n", "update f (line 1)\n  hunk 0 line 4\n    +\"p\"\n    +\"q\"\n"},
	{"empty line in a hunk is context", "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n\n-x\n+y\n", "update f (line 1)\n  hunk 0 line 1\n    -\"a\"\n    -\"\"\n    -\"x\"\n    +\"a\"\n    +\"\"\n    +\"y\"\n"},
	{"format-patch signature after the hunks", "From 1 Mon\nSubject: [PATCH] x\n\n---\n f | 2 +-\n\ndiff --git a/f b/f\nindex 1..2 100644\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-x\n+y\n-- \n2.39.5\n\n",
		"update f (line 7)\n  hunk 0 line 1\n    -\"x\"\n    +\"y\"\n"},
	{"svn Index lines are ignored", "Index: f\n===================================================================\n--- f\t(revision 1)\n+++ f\t(working copy)\n@@ -1 +1 @@\n-x\n+y\n", "update f (line 3)\n  hunk 0 line 1\n    -\"x\"\n    +\"y\"\n"},
	{"same file twice", "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-x\n+y\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-y\n+z\n", "update f (line 1)\n  hunk 0 line 1\n    -\"x\"\n    +\"y\"\nupdate f (line 6)\n  hunk 0 line 1\n    -\"y\"\n    +\"z\"\n"},
	{"empty new file", "diff --git a/e b/e\nnew file mode 100644\nindex 0000000..e69de29\n", "add e mode ->100644 (line 1)\n  content \"\"\n"},
	{"empty deleted file", "diff --git a/e b/e\ndeleted file mode 100755\nindex e69de29..0000000\n", "delete e mode 100755-> (line 1)\n"},
	{"mode change of a name with spaces", "diff --git a/my file b/my file\nold mode 100644\nnew mode 100755\n", "update my file mode 100644->100755 (line 1)\n"},
	{"pure rename", "diff --git a/x b/y\nsimilarity index 100%\nrename from x\nrename to y\n", "update x -> y (line 1)\n"},
	{"more lines than the header says, to the end: recounted", "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-x\n-x2\n+y\n", "update f (line 1)\n  hunk 0 line 1 recounted\n    -\"x\"\n    -\"x2\"\n    +\"y\"\n"},
	{"more lines than the header says, then prose", "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-x\n-x2\n+y\nthanks\n", "error invalid_request: line 5: \"-x2\": the hunk has more lines than its header (line 3) says"},
	{"fewer lines than the header says, to the next hunk: recounted", "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n-x\n+y\n@@ -9 +9 @@\n-p\n+q\n",
		"update f (line 1)\n  hunk 0 line 1 recounted\n    -\"x\"\n    +\"y\"\n  hunk 1 line 9\n    -\"p\"\n    +\"q\"\n"},
	{"a recounted pure addition goes after the stated line", "--- a/f\n+++ b/f\n@@ -5,1 +6,1 @@\n+y\n", "update f (line 1)\n  hunk 0 line 6 recounted\n    +\"y\"\n"},
	{"counts met, more hunk lines, then prose: refused, not dropped", "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-x\n+y\n-z\n+w\nthanks\n", "error invalid_request: line 6: \"-z\": the hunk at line 3 has more lines than its header says, and they run into other text"},
	{"counts met, then a git format-patch signature: not hunk lines", "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-x\n+y\n-- \n2.39.5\n\n", "update f (line 1)\n  hunk 0 line 1\n    -\"x\"\n    +\"y\"\n"},
	{"garbage in a counted hunk", "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-x\n+y\nhello\n", "error invalid_request: line 6: the hunk at line 3 ends early: its header promises 1 more old and 1 more new lines"},
	{"bad hunk header", "--- a/f\n+++ b/f\n@@ -a +b @@\n-x\n", "error invalid_request: line 3: \"@@ -a +b @@\" is not a hunk header"},
	{"no hunks", "--- a/f\n+++ b/f\n", "error invalid_request: line 1: the diff of f has no hunks"},
	{"copy", "diff --git a/x b/y\nsimilarity index 100%\ncopy from x\ncopy to y\n", "error invalid_request: line 3: \"copy from x\": copies are not supported"},
	{"symlink", "diff --git a/l b/l\nnew file mode 120000\n--- /dev/null\n+++ b/l\n@@ -0,0 +1 @@\n+target\n\\ No newline at end of file\n", "add l mode ->120000 (line 1)\n  content \"target\"\n"},
	{"symlink changed: the index line's mode", "diff --git a/l b/l\nindex 1234567..89abcde 120000\n--- a/l\n+++ b/l\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n",
		"update l mode 120000->120000 (line 1)\n  hunk 0 line 1 old-no-eol new-no-eol\n    -\"a\"\n    +\"b\"\n"},
	{"a type change in one section", "diff --git a/l b/l\nold mode 100644\nnew mode 120000\n", "error invalid_request: line 1: mode 100644 to 120000 in one section"},
	{"submodule", "diff --git a/s b/s\nnew file mode 160000\nindex 0000000..1234567\n--- /dev/null\n+++ b/s\n@@ -0,0 +1 @@\n+Subproject commit 1234567\n", "error invalid_request: line 1: mode 160000: submodules are not supported"},
	{"git binary patch without the full index", "diff --git a/b b/b\nindex 1..2\nGIT binary patch\nliteral 1\n", "error invalid_request: line 3: a binary patch needs the full index line"},
	{"new file with context is refused", "--- /dev/null\n+++ b/n\n@@ -1 +1,2 @@\n a\n+b\n", "error invalid_request: line 3: a new file's hunk can only add lines"},
	{"bad quoted name", "--- \"a/x\\q\"\n+++ b/x\n@@ -1 +1 @@\n-x\n+y\n", "error invalid_request: line 1: bad escape in a quoted name"},
	{"nothing", "just some text\n", "error invalid_request: no file changes found"},
}

func TestParseUnified(t *testing.T) { runParseCases(t, FormatDiff, diffCases) }

var searchReplaceCases = []parseCase{
	{"decorated path", "### **`src/x.py`**:\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n", "update src/x.py blocks (line 2)\n  hunk 0\n    -\"a\"\n    +\"b\"\n"},
	{"path with spaces in backticks", "`my dir/x.py`\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n", "update my dir/x.py blocks (line 2)\n  hunk 0\n    -\"a\"\n    +\"b\"\n"},
	{"escaped underscore", "my\\_mod.py\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n", "update my_mod.py blocks (line 2)\n  hunk 0\n    -\"a\"\n    +\"b\"\n"},
	{"nine-character markers and SEARCH>", "f\n<<<<<<<<< SEARCH>\na\n=========\nb\n>>>>>>>>> REPLACE\n", "update f blocks (line 2)\n  hunk 0\n    -\"a\"\n    +\"b\"\n"},
	{"four '<' is not a marker", "f\n<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n", "error invalid_request: no SEARCH/REPLACE blocks found"},
	{"divider inside REPLACE is content", "f\n<<<<<<< SEARCH\na\n=======\nb\n=======\nc\n>>>>>>> REPLACE\n", "update f blocks (line 2)\n  hunk 0\n    -\"a\"\n    +\"b\"\n    +\"=======\"\n    +\"c\"\n"},
	{"block opened inside SEARCH", "f\n<<<<<<< SEARCH\na\n<<<<<<< SEARCH\n", "error invalid_request: line 4: \"<<<<<<< SEARCH\" inside the SEARCH part of the block at line 2"},
	{"no divider", "f\n<<<<<<< SEARCH\na\n", "error invalid_request: line 2: the block has no ======= line"},
	{"CRLF", "f\r\n<<<<<<< SEARCH\r\na\r\n=======\r\nb\r\n>>>>>>> REPLACE\r\n", "update f blocks (line 2)\n  hunk 0\n    -\"a\"\n    +\"b\"\n"},
	{"lines that carry their CR keep it", "f\n<<<<<<< SEARCH\na\r\n=======\na\n>>>>>>> REPLACE\n", "update f blocks (line 2)\n  hunk 0\n    -\"a\\r\"\n    +\"a\"\n"},
	{"interleaved files merge per file", "a\n<<<<<<< SEARCH\n1\n=======\n2\n>>>>>>> REPLACE\nb\n<<<<<<< SEARCH\n3\n=======\n4\n>>>>>>> REPLACE\na\n<<<<<<< SEARCH\n5\n=======\n6\n>>>>>>> REPLACE\n",
		"update a blocks (line 2)\n  hunk 0\n    -\"1\"\n    +\"2\"\n  hunk 1\n    -\"5\"\n    +\"6\"\nupdate b blocks (line 8)\n  hunk 0\n    -\"3\"\n    +\"4\"\n"},
	{"fence line before the path", "```python\nf.py\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```\n", "update f.py blocks (line 3)\n  hunk 0\n    -\"a\"\n    +\"b\"\n"},
	{"empty REPLACE deletes", "f\n<<<<<<< SEARCH\na\n=======\n>>>>>>> REPLACE\n", "update f blocks (line 2)\n  hunk 0\n    -\"a\"\n"},
}

func TestParseSearchReplace(t *testing.T) { runParseCases(t, FormatSearchReplace, searchReplaceCases) }

func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Format
	}{
		{`{"fileEdits": []}`, FormatJSON},
		{`  {"path": "a", "command": "create"}`, FormatJSON},
		{`[1, 2]`, FormatJSON},
		{`{"type": "apply_patch_call", "operation": {}}`, FormatResponses},
		{`[{"type": "create_file", "path": "a", "diff": "+x"}]`, FormatResponses},
		{`{"type": "delete_file", "path": "a"}`, FormatResponses},
		{"*** Begin Patch\n*** End Patch", FormatApplyPatch},
		{"\ufeff\n\n  *** Begin Patch  \n", FormatApplyPatch},
		{"apply_patch <<'EOF'\n*** Begin Patch\n", FormatApplyPatch},
		{"```\n*** Begin Patch\n", FormatApplyPatch},
		{"a\nb\nc\n*** Begin Patch\n", ""},
		{"f.py\n<<<<<<< SEARCH\n", FormatSearchReplace},
		{"------- SEARCH\n", FormatSearchReplace},
		{"diff --git a/x b/x\n", FormatDiff},
		{"commit message\n--- a/x\n+++ b/x\n", FormatDiff},
		{"@@ -1 +1 @@\n", FormatDiff},
		{"--- a/x\nnot +++\n", ""},
		{"hello", ""},
		{"  \n ", ""},
	} {
		if got := Detect([]byte(tc.in)); got != tc.want {
			t.Errorf("Detect(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestParseFormat(t *testing.T) {
	for _, name := range []string{"", "auto", "json", "apply_patch", "responses", "diff", "search_replace"} {
		if _, err := ParseFormat(name); err != nil {
			t.Errorf("ParseFormat(%q): %v", name, err)
		}
	}
	if _, err := ParseFormat("udiff"); err == nil || !strings.Contains(err.Error(), "unknown format \"udiff\"") {
		t.Errorf("ParseFormat(udiff) = %v", err)
	}
	for _, in := range []string{`{"a":1}`, "plain text"} {
		if _, err := Parse(FormatAuto, []byte(in)); err == nil {
			t.Errorf("Parse(auto, %q) succeeded", in)
		}
	}
}

func TestPaths(t *testing.T) {
	for _, tc := range []struct{ old, nw, wantOld, wantNew string }{
		{"a/x", "b/x", "x", "x"},
		{"a/x", "b/y", "x", "y"},
		{"/dev/null", "b/x", "/dev/null", "x"},
		{"a/x", "/dev/null", "x", "/dev/null"},
		{"c/x", "w/x", "x", "x"},
		{"old/d/x", "new/d/x", "d/x", "d/x"},
		{"src/x", "src/x", "src/x", "src/x"},
		{"x", "x", "x", "x"},
		{"a/x", "a/x", "a/x", "a/x"},
		{"/dev/null", "x", "/dev/null", "x"},
	} {
		if o, n := stripPrefixes(tc.old, tc.nw); o != tc.wantOld || n != tc.wantNew {
			t.Errorf("stripPrefixes(%q, %q) = %q, %q", tc.old, tc.nw, o, n)
		}
	}
	for _, tc := range []struct{ in, a, b string }{
		{"a/x b/x", "a/x", "b/x"},
		{"a/my file b/my file", "a/my file", "b/my file"},
		{`"a/q\"x" "b/q\"x"`, `a/q"x`, `b/q"x`},
		{`a/p "b/q\tx"`, "a/p", "b/q\tx"},
	} {
		if a, b, ok := splitGitHeader(tc.in); !ok || a != tc.a || b != tc.b {
			t.Errorf("splitGitHeader(%q) = %q, %q, %v", tc.in, a, b, ok)
		}
	}
	for in, want := range map[string]string{
		"b/x\t2024-01-01 10:00":  "b/x",
		"b/my file\t":            "b/my file",
		`"b/\a\b\f\n\r\t\v\\\""`: "b/\a\b\f\n\r\t\v\\\"",
		"  x  ":                  "x",
	} {
		if got, err := headerPath(in); err != nil || got != want {
			t.Errorf("headerPath(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{`"unterminated`, `"a\9"`, `"a\400"`} {
		if _, err := headerPath(in); err == nil {
			t.Errorf("headerPath(%q) succeeded", in)
		}
	}
}
