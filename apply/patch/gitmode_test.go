package patch

import "testing"

// TestGitRenameOldSpelling and git's modes (docs/testing.md, the
// reliability audit): "rename
// old"/"rename new" named the wrong file (sliced with the length of
// "rename from "), and mode lines were applied literally (100777 as 0777,
// 100000 as 0000) where git applies only the executable bit.
func TestGitRenameOldSpellingAndModes(t *testing.T) {
	files, err := Parse(FormatDiff, []byte("diff --git a/old.txt b/new.txt\nsimilarity index 100%\nrename old old.txt\nrename new new.txt\n"))
	if err != nil || len(files) != 1 || files[0].Path != "old.txt" || files[0].MoveTo != "new.txt" {
		t.Fatalf("rename old/new: %v %+v", err, files)
	}
	for mode, want := range map[string]string{"100777": "100755", "100000": "100644", "100744": "100755", "100640": "100644", "100755": "100755"} {
		old := "100644"
		if want == "100644" {
			old = "100755"
		}
		in := "diff --git a/f b/f\nold mode " + old + "\nnew mode " + mode + "\n"
		files, err := Parse(FormatDiff, []byte(in))
		if err != nil || len(files) != 1 || files[0].NewMode != want {
			t.Errorf("new mode %s: %v %+v, want %s", mode, err, files, want)
		}
	}
}
