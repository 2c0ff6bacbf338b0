package main

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestFloorLists: the durable floor syncs the files git apply leaves
// changed and the directories whose entries changed, read from the diff's
// headers only (a hunk's removed "-- " line is not a "--- " header), with
// quoted names unquoted, new directories' parents up to one that existed
// before, and a removed directory's parent.
func TestFloorLists(t *testing.T) {
	d := t.TempDir()
	for _, p := range []string{"old/a/x.go", "old/gone/only.txt", "old/r/from.txt", "old/r/stay.txt", "old/keep/sql.txt",
		"new/a/x.go", "new/r/stay.txt", "new/s/t/to.txt", "new/keep/sql.txt", "new/n/new.txt", "new/q/t\u00e9.txt"} {
		if err := os.MkdirAll(filepath.Join(d, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, p), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(d, "old", "q"), 0o755); err != nil {
		t.Fatal(err)
	}
	patch := `diff --git a/a/x.go b/a/x.go
index 1111111..2222222 100644
--- a/a/x.go
+++ b/a/x.go
@@ -1 +1 @@
-x
+y
diff --git a/gone/only.txt b/gone/only.txt
deleted file mode 100644
index 1111111..0000000
--- a/gone/only.txt
+++ /dev/null
@@ -1 +0,0 @@
-x
diff --git a/r/from.txt b/s/t/to.txt
similarity index 100%
rename from r/from.txt
rename to s/t/to.txt
diff --git a/keep/sql.txt b/keep/sql.txt
index 1111111..2222222 100644
--- a/keep/sql.txt
+++ b/keep/sql.txt
@@ -1,2 +1 @@
 x
--- not/a/header
+++ not/a/header/either
diff --git a/n/new.txt b/n/new.txt
new file mode 100644
index 0000000..1111111
--- /dev/null
+++ b/n/new.txt
@@ -0,0 +1 @@
+x
diff --git "a/q/t\303\251.txt" "b/q/t\303\251.txt"
new file mode 100644
index 0000000..1111111
--- /dev/null
+++ "b/q/t\303\251.txt"
@@ -0,0 +1 @@
+x
`
	if err := os.WriteFile(filepath.Join(d, "patch.diff"), []byte(patch), 0o644); err != nil {
		t.Fatal(err)
	}
	files, dirs, err := floorLists(d)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a/x.go", "s/t/to.txt", "keep/sql.txt", "n/new.txt", "q/t\u00e9.txt"}; !reflect.DeepEqual(files, want) {
		t.Errorf("files %q, want %q", files, want)
	}
	if want := []string{"a", ".", "s/t", "s", "r", "keep", "n", "q"}; !reflect.DeepEqual(dirs, want) {
		t.Errorf("dirs %q, want %q", dirs, want)
	}
}
