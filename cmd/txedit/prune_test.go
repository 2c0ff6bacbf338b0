package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestJournalPrune: txedit journal prune lists the key store's entries
// whose recorded root no longer holds their journal (root deleted, .txedit
// deleted, .txedit another journal's, a journal moved away) and removes
// them only with --remove; it keeps live journals, entries younger than
// journal.PruneMinAge, and entries whose root cannot be looked at for a
// reason other than "does not exist" (docs/journal.md, "Pruning the key
// store").
func TestJournalPrune(t *testing.T) {
	// The package's own key store (TestMain, internal/teststate): the
	// process keeps the store it first opened, so no t.Setenv here.
	store := filepath.Join(os.Getenv("XDG_STATE_HOME"), "txedit", "journals")
	dir := t.TempDir()
	ws := map[string]string{}
	ids := map[string]string{}
	for _, n := range []string{"live", "deleted", "nojournal", "other", "moved", "young", "unreachable"} {
		root := filepath.Join(dir, n, "ws")
		if err := os.MkdirAll(root, 0o755); err != nil {
			t.Fatal(err)
		}
		if r := runStdin(`{"command":"create","path":"f","file_text":"x\n"}`, "apply", "--root", root, "-"); r.code != 0 {
			t.Fatal(n, r)
		}
		id, err := os.ReadFile(filepath.Join(root, ".txedit", "id"))
		if err != nil {
			t.Fatal(err)
		}
		ws[n], ids[n] = root, strings.TrimSpace(string(id))
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.RemoveAll(filepath.Dir(ws["deleted"])))
	must(os.RemoveAll(filepath.Join(ws["nojournal"], ".txedit")))
	must(os.RemoveAll(filepath.Join(ws["other"], ".txedit")))
	if r := runStdin(`{"command":"create","path":"g","file_text":"y\n"}`, "apply", "--root", ws["other"], "-"); r.code != 0 {
		t.Fatal(r)
	}
	newOther, _ := os.ReadFile(filepath.Join(ws["other"], ".txedit", "id"))
	moved := filepath.Join(dir, "moved", "elsewhere")
	must(os.Rename(ws["moved"], moved))
	must(os.RemoveAll(filepath.Dir(ws["young"])))
	// A file where the root's parent was: ENOTDIR, not "does not exist".
	must(os.RemoveAll(filepath.Dir(ws["unreachable"])))
	must(os.WriteFile(filepath.Dir(ws["unreachable"]), nil, 0o644))
	// Every entry but the young one's is old enough to prune.
	old := time.Now().Add(-time.Hour)
	for n, id := range ids {
		if n != "young" {
			must(os.Chtimes(filepath.Join(store, id), old, old))
		}
	}
	ents, err := os.ReadDir(store)
	must(err)
	before := len(ents)

	gone := []string{"deleted", "nojournal", "other", "moved"}
	kept := []string{"live", "young", "unreachable"}
	r := runCLI("journal", "prune")
	if r.code != 0 {
		t.Fatal(r)
	}
	for _, n := range gone {
		if !strings.Contains(r.stdout, "would remove "+ids[n]) {
			t.Errorf("dry run does not list %s: %s", n, r.stdout)
		}
	}
	for _, n := range kept {
		if strings.Contains(r.stdout, ids[n]) {
			t.Errorf("dry run lists %s: %s", n, r.stdout)
		}
	}
	if ents, _ := os.ReadDir(store); len(ents) != before {
		t.Errorf("dry run changed the store: %d entries, was %d", len(ents), before)
	}

	r = runCLI("journal", "prune", "--remove", "--json")
	if r.code != 0 {
		t.Fatal(r)
	}
	var out struct {
		Removed int `json:"removed"`
		Entries []struct {
			ID, Reason string
			Removed    bool
		} `json:"entries"`
	}
	must(json.Unmarshal([]byte(r.stdout), &out))
	if out.Removed < len(gone) {
		t.Errorf("removed %d, want %d: %s", out.Removed, len(gone), r.stdout)
	}
	for _, n := range gone {
		if _, err := os.Lstat(filepath.Join(store, ids[n])); !os.IsNotExist(err) {
			t.Errorf("%s's entry not removed: %v", n, err)
		}
	}
	for _, n := range kept {
		if _, err := os.Lstat(filepath.Join(store, ids[n])); err != nil {
			t.Errorf("%s's entry removed: %v", n, err)
		}
	}
	if _, err := os.Lstat(filepath.Join(store, strings.TrimSpace(string(newOther)))); err != nil {
		t.Errorf("the new journal's entry removed: %v", err)
	}
	// The live journal is still trusted; the moved one is not (as
	// documented): undo there is refused, nothing else happens.
	if r := runCLI("undo", "--root", ws["live"]); r.code != 0 {
		t.Errorf("undo of the live journal: %+v", r)
	}
	if r := runCLI("undo", "--root", moved, "--json"); r.code == 0 || !strings.Contains(r.stdout, "untrusted_journal") {
		t.Errorf("undo of the moved journal after prune: %+v", r)
	}
	if r := runCLI("journal", "prune", "--bogus"); r.code != 2 {
		t.Errorf("bad flag: %+v", r)
	}
	if r := runCLI("journal", "adopt", "--remove"); r.code != 2 {
		t.Errorf("--remove outside prune: %+v", r)
	}
}
