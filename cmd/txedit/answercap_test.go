package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestToolWriteAnswerBudget: `txedit tool --toolset txedit fs_write` of a
// pattern_replace over 2,000 tiny files answers under 45,000 bytes of
// compact JSON (it answered every file with its diff, 900 KB); the diffs it leaves out, read
// back page by page with the history tool, are with the kept ones
// exactly the transaction's diff as `txedit show --json` prints it.
func TestToolWriteAnswerBudget(t *testing.T) {
	const n = 2000
	dir := t.TempDir()
	for i := 0; i < n; i++ {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%04d.txt", i)), []byte(fmt.Sprintf("old value %d\n", i)), 0o644)
	}
	r := runStdin(`{"command":"pattern_replace","file_pattern":"*.txt","sed_pattern":"s/old/new/"}`, "tool", "--toolset", "txedit", "fs_write", "--root", dir)
	var ans struct {
		TransactionID string `json:"transaction_id"`
		Files         []struct{ Path, Diff string }
		DiffsOmitted  int `json:"diffs_omitted"`
		FilesOmitted  int `json:"files_omitted"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &ans); err != nil || r.code != 0 {
		t.Fatalf("fs_write: %v %+v", err, r)
	}
	var all strings.Builder
	kept := 0
	for _, f := range ans.Files {
		if f.Diff != "" {
			all.WriteString(f.Diff)
			kept++
		}
	}
	var compact bytes.Buffer
	json.Compact(&compact, []byte(r.stdout))
	if len(ans.Files)+ans.FilesOmitted != n || compact.Len() > 45000 || kept == 0 || ans.DiffsOmitted != n-kept {
		t.Fatalf("answer of %d bytes (%d compact): %d files (%d omitted), %d diffs kept (%d bytes), %d omitted", len(r.stdout), compact.Len(), len(ans.Files), ans.FilesOmitted, kept, all.Len(), ans.DiffsOmitted)
	}
	offset, pages := kept, 0
	for {
		h := runStdin(fmt.Sprintf(`{"transaction_id":%q,"offset":%d}`, ans.TransactionID, offset), "tool", "--toolset", "txedit", "history", "--root", dir)
		var page struct {
			Diffs      []struct{ Path, Diff string }
			NextOffset int `json:"next_offset"`
		}
		if err := json.Unmarshal([]byte(h.stdout), &page); err != nil || h.code != 0 || len(page.Diffs) == 0 {
			t.Fatalf("history at %d: %v %+v", offset, err, h)
		}
		for _, d := range page.Diffs {
			all.WriteString(d.Diff)
		}
		pages++
		if page.NextOffset == 0 {
			break
		}
		offset = page.NextOffset
	}
	s := run1(t, "show", "--json", ans.TransactionID, "--root", dir)
	var show struct{ Diff string }
	if err := json.Unmarshal([]byte(s), &show); err != nil {
		t.Fatal(err)
	}
	if all.String() != show.Diff || pages < 2 {
		t.Errorf("the answer's and history's diffs (%d bytes, %d pages) are not the transaction's (%d bytes)", all.Len(), pages, len(show.Diff))
	}
}

func run1(t *testing.T, args ...string) string {
	t.Helper()
	r := runStdin("", args...)
	if r.code != 0 {
		t.Fatalf("%q: %+v", args, r)
	}
	return r.stdout
}
