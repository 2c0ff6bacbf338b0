package bench

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// TestSoak runs a tiny `bench/run.sh soak` (300 outside saves, a kill -9
// of an MCP server every 300 ms, on disk) so that the soak (bench/README.md,
// "Soak") cannot rot: it must build, drive MCP sessions, CLI processes and both
// kinds of outside writer at once, and print every row of its table. What
// it asserts is what must hold on any run, however short: no transaction
// half applied, no rename-style outside save lost, nothing pending after
// the final recover, no staged file left, no refused edit in effect (but
// one an outside writer kept from its commit's moment, logged), and no
// edit answered success lost but by a commit on a transient state.
// In-place outside saves lost are logged, not asserted (what remains of
// their window is measured, bench/README.md "Soak").
func TestSoak(t *testing.T) {
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	disk := t.TempDir()
	cmd := exec.Command("bash", filepath.Join(repo, "bench/run.sh"), "soak", "-kill", "300ms", "-details", "3", "-agents", "3", "-agent-edits", "20")
	cmd.Env = append(os.Environ(), "SOAK_SAVES=300", "FS=disk", "DISK="+disk, "TMPDIR="+disk)
	out, err := cmd.CombinedOutput()
	text := string(out)
	if err != nil {
		t.Fatalf("bench/run.sh soak: %v\n%s", err, text)
	}
	t.Logf("%s", text)

	count := func(row string) int {
		t.Helper()
		m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(row) + ` +([0-9]+)$`).FindStringSubmatch(text)
		if m == nil {
			t.Errorf("no row %q", row)
			return -1
		}
		n, _ := strconv.Atoi(m[1])
		return n
	}
	rows := map[string]int{}
	for _, row := range []string{
		"outside saves made, rename-style", "outside saves lost, rename-style", "outside saves made, in-place", "outside saves lost, in-place",
		"txedit edits sent, MCP", "txedit edits sent, CLI", "txedit edits answered success, MCP", "txedit edits answered success, CLI",
		"txedit edits answered success, 2-file", "txedit edits lost after success", "txedit edits replaced by an outside writer",
		"transactions half applied", "refused edits in effect", "edits that read a transient in-place state",
		"commits on a transient in-place state", "no answer (server killed), in effect", "no answer (server killed), not in effect",
		"pending transactions after the final recover", "stray temporary files", "MCP servers killed (kill -9)", "txedit recover runs", "refusals",
		"txedit edits sent, agents", "txedit edits answered success, agents", "agents' edits given up (30 tries)", "agents' refusals",
		"agents' refusals that showed the line as it is now", "refused edits kept by an outside save of their commit's moment",
	} {
		rows[row] = count(row)
	}
	if t.Failed() {
		return
	}
	if made := rows["outside saves made, rename-style"] + rows["outside saves made, in-place"]; made < 300 {
		t.Errorf("%d outside saves made, want at least 300 (SOAK_SAVES)", made)
	}
	if rows["outside saves made, rename-style"] == 0 || rows["outside saves made, in-place"] == 0 {
		t.Errorf("a style of outside writer made no save")
	}
	if rows["txedit edits sent, MCP"] == 0 || rows["txedit edits sent, CLI"] == 0 || rows["txedit edits answered success, MCP"] == 0 {
		t.Errorf("the txedit sessions did not edit")
	}
	// Agents in parallel (docs/design.md, "Concurrency"): every edit of
	// the 3 × 20 lands (rebased on the others' and the outside saves, or
	// retried from the line a refusal shows), none given up.
	if m := regexp.MustCompile(`(?m)^agents' edits landed \(of -agents x -agent-edits\) +([0-9]+)/([0-9]+)$`).FindStringSubmatch(text); m == nil || m[1] != m[2] || m[2] != "60" {
		t.Errorf("agents' edits landed: %v, want 60/60", m)
	}
	if rows["agents' edits given up (30 tries)"] != 0 {
		t.Errorf("agents gave up %d edits", rows["agents' edits given up (30 tries)"])
	}
	if rows["MCP servers killed (kill -9)"] == 0 || rows["txedit recover runs"] < rows["MCP servers killed (kill -9)"]+1 {
		t.Errorf("no kill -9, or fewer recover runs than kills (+1, the final one)")
	}
	for _, row := range []string{"transactions half applied", "outside saves lost, rename-style", "pending transactions after the final recover",
		"stray temporary files", "refused edits in effect"} {
		if rows[row] != 0 {
			t.Errorf("%s: %d, want 0", row, rows[row])
		}
	}
	// A refused edit whose marker an outside writer kept, having read it
	// in the moment its commit had it in place before the rollback (the
	// journal proves it: docs/journal.md, "Writers outside txedit"), is
	// the writer's save, as a replaced edit is: logged, not asserted.
	if n := rows["refused edits kept by an outside save of their commit's moment"]; n > 0 {
		t.Logf("refused edits kept by an outside save of their commit's moment: %d", n)
	}
	if n := rows["outside saves lost, in-place"]; n > 0 {
		t.Logf("in-place outside saves lost: %d of %d (measured, not yet asserted: bench/README.md, Soak)", n, rows["outside saves made, in-place"])
	}
	// An edit answered success can be lost only by a commit on a transient
	// in-place state (which wipes what the partial state lacked): without
	// one, every such edit is in its files or replaced by an outside writer.
	if n, w := rows["txedit edits lost after success"], rows["commits on a transient in-place state"]; n > 0 && w == 0 {
		t.Errorf("txedit edits lost after success: %d, with no commit on a transient in-place state", n)
	} else if n > 0 {
		t.Logf("txedit edits lost after success: %d (commits on a transient in-place state: %d)", n, w)
	}
}
