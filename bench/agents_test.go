package bench

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestAgentsBench runs a tiny `bench/run.sh agents` (2 agents × 3 edits of
// a 60-line file, txedit alone: AGENTS_INSTALL=0 and no peers), so that
// the benchmark of agents in parallel (docs/design.md, "Concurrency")
// cannot rot: it must build, start a server per agent, drive both
// toolsets through both scenarios without and with an outside writer, and
// print every row. What it asserts holds on any run, however short: every
// edit lands, none is lost, and every refusal of an edit of the shared line
// shows the line as it is now (-fail-on-loss exits 1 otherwise).
func TestAgentsBench(t *testing.T) {
	disk := t.TempDir()
	text := runSh(t, []string{"AGENTS_INSTALL=0", "AGENTS_PEERS=" + disk + "/none", "AGENTS_OUTSIDE=5", "FS=disk", "DISK=" + disk, "TMPDIR=" + disk},
		"agents", "-agents", "2", "-edits", "3", "-lines", "60", "-think", "1ms", "-outside-every", "2ms", "-fail-on-loss")
	row := regexp.MustCompile(`(?m)^(claude|filesystem) +txedit mcp --toolset (?:claude|filesystem) +(disjoint|shared) +(-|[0-9]+) +([0-9]+)/([0-9]+) +([0-9]+) .* ([0-9]+) +([0-9]+) +([0-9]+) +[0-9.]+s$`)
	seen := map[string]bool{}
	for _, m := range row.FindAllStringSubmatch(text, -1) {
		key := m[1] + " " + m[2] + " " + map[bool]string{true: "alone", false: "outside"}[m[3] == "-"]
		seen[key] = true
		landed, made, gaveUp, lost := atoi(m[4]), atoi(m[5]), atoi(m[6]), atoi(m[7])
		if made != 6 || landed != made || gaveUp != 0 {
			t.Errorf("%s: %d of %d edits landed, %d given up; want 6 of 6", key, landed, made, gaveUp)
		}
		if lost != 0 || atoi(m[9]) != 0 {
			t.Errorf("%s: %d edits lost, %d outside saves lost", key, lost, atoi(m[9]))
		}
	}
	for _, ts := range []string{"claude", "filesystem"} {
		for _, sc := range []string{"disjoint", "shared"} {
			for _, out := range []string{"alone", "outside"} {
				if !seen[ts+" "+sc+" "+out] {
					t.Errorf("no row for %s, %s, %s", ts, sc, out)
				}
			}
		}
	}
	// The shared line's refusals each showed it.
	for _, m := range regexp.MustCompile(`(?m)shared line, outside (?:yes|no): ([0-9]+) of ([0-9]+) refusals showed`).FindAllStringSubmatch(text, -1) {
		if m[1] != m[2] {
			t.Errorf("only %s of %s refusals showed the shared line's current text", m[1], m[2])
		}
	}
	if !strings.Contains(text, "peers: none (txedit alone)") {
		t.Errorf("peers line missing")
	}
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }
