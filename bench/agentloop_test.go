package bench

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestAgentLoopBench runs a tiny `bench/run.sh agentloop` (3 edits, journal
// sizes 0 and 5, one run, on disk), so that the instrument the agent loop's
// goals are measured with cannot rot: it must build, drive both kinds of server
// through the official MCP client, check every edit it times, and print
// its tables. It installs nothing (AGENTLOOP_INSTALL=0): the MCP SDK comes
// from cmd/txedit/testdata/mcpclient (npm ci, as CI does) or from a
// previous `bench/run.sh agentloop`, and the official filesystem server is
// measured only when such a run installed it.
func TestAgentLoopBench(t *testing.T) {
	missing := t.Skip
	if os.Getenv("CI") != "" {
		missing = t.Fatal
	}
	if _, err := exec.LookPath("node"); err != nil {
		missing("node is not installed: the agent-loop bench drives MCP servers with the TypeScript MCP client; install Node.js to run it")
		return
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	peers := os.Getenv("AGENTLOOP_PEERS")
	if peers == "" {
		peers = "/tmp/txedit-agentloop"
	}
	sdkHere := exists(filepath.Join(repo, "cmd/txedit/testdata/mcpclient/node_modules/@modelcontextprotocol/sdk/package.json"))
	if !sdkHere && !exists(filepath.Join(peers, "node_modules/@modelcontextprotocol/sdk/package.json")) {
		missing("the TypeScript MCP client is not installed: run npm ci --prefix cmd/txedit/testdata/mcpclient (the README's test command does)")
		return
	}
	withOfficial := exists(filepath.Join(peers, "node_modules/@modelcontextprotocol/server-filesystem/package.json"))
	_, straceErr := exec.Command("strace", "-f", "-c", "-o", os.DevNull, "true").CombinedOutput()

	disk := t.TempDir()
	profiles := t.TempDir()
	text := runSh(t, []string{"AGENTLOOP_INSTALL=0", "AGENTLOOP_PEERS=" + peers, "AGENTLOOP_N=3", "JOURNALS=0,5",
		"RUNS=1", "FS=disk", "DISK=" + disk, "TMPDIR=" + disk},
		"agentloop", "-spawns", "1", "-dry-runs", "2", "-strace", "2", "-profile", profiles, "-think", "1ms")
	// -think: the pause before each MCP edit is said in the header (the
	// rows below are timed with it).
	if !strings.Contains(text, "think: 1ms before each MCP edit") {
		t.Errorf("no think line for -think 1ms")
	}

	// Every measure has a row at each journal size with txedit's time per
	// edit, and its ratio to itself at journal 0.
	num := `([0-9.]+ms|-)`
	for _, m := range []string{"3 edits of one file, MCP", "one edit in each of 3 files, MCP", "dry-run edit, MCP",
		"spawn to first tools/list", "3 edits of one file, MCP, filesystem toolset", "one edit in each of 3 files, MCP, filesystem toolset",
		"dry-run edit, MCP, filesystem toolset", `3 edits of one file, CLI \(a process each\)`} {
		row := regexp.MustCompile(`(?m)^` + m + ` +0 +` + num + ` +([0-9.]+ms) +([0-9.]+x|-) +1\.00x .*\n +5 +` + num + ` +([0-9.]+ms) +([0-9.]+x|-) +[0-9.]+x `)
		if !row.MatchString(text) {
			t.Errorf("no rows for %q at journal sizes 0 and 5", m)
		}
	}
	// TXEDIT_KEEP reaches the MCP server and the CLI alike: a journal that
	// began with 5 transactions retains 5 after 3 more edits (GC retires
	// down to the retention after each commit), not 8; one that began
	// empty, under the default retention, retains the 3.
	for _, m := range []string{"3 edits of one file, MCP", "3 edits of one file, MCP, filesystem toolset", `3 edits of one file, CLI \(a process each\)`} {
		if !regexp.MustCompile(`(?m)^` + m + ` +0 .* 3\n +5 .* 5$`).MatchString(text) {
			t.Errorf("%s: the journal does not keep TXEDIT_KEEP's 5 transactions (the kept column)", m)
		}
	}
	// Where txedit's time goes: the CLI's commit phase is there.
	if !regexp.MustCompile(`(?m)^3 edits of one file, CLI \(a process each\) +0 +[0-9.]+ms .*\n +5 `).MatchString(text) ||
		!strings.Contains(text, "where txedit's time per edit goes") || !regexp.MustCompile(` commit +gc `).MatchString(text) {
		t.Errorf("no phase table with commit and gc columns")
	}
	if straceErr == nil {
		for _, where := range []string{`CLI edit \(txedit apply --json -, the whole process\)`, `MCP edit \(the server process, attached after the read\) \(txedit\)`,
			`MCP edit \(the server process, attached after the read\) \(txedit, filesystem toolset\)`} {
			if !regexp.MustCompile(`(?m)^` + where + ` +0 +[0-9]+ +[0-9]+ +1\.00x +1\.00x\n +5 +[0-9]+ +[0-9]+ `).MatchString(text) {
				t.Errorf("no system call rows for %s", where)
			}
		}
		if !regexp.MustCompile(`fs calls, CLI edit .*: .*openat [0-9.]+->[0-9.]+`).MatchString(text) {
			t.Errorf("no system calls by name for the CLI")
		}
	} else {
		t.Logf("strace does not work here (%v): the system call table is not checked", straceErr)
	}
	// -profile: a CPU profile of the MCP server over each of its timed
	// runs (3 kinds of loop, 2 toolsets, 2 journal sizes), each written.
	profs, _ := filepath.Glob(filepath.Join(profiles, "mcp-*.prof"))
	if len(profs) != 12 {
		t.Errorf("-profile wrote %d profiles, want 12: %v", len(profs), profs)
	}
	for _, p := range profs {
		if st, err := os.Stat(p); err != nil || st.Size() == 0 {
			t.Errorf("profile %s is empty", p)
		}
	}
	// The summary carries the loop's goals.
	if !strings.Contains(text, "agent loop: time per edit at 5 retained within 1.3x of a fresh journal") {
		t.Errorf("no goal lines in the summary")
	}

	t.Run("official", func(t *testing.T) {
		if !withOfficial {
			t.Skipf("the official MCP filesystem server is not installed in %s: `bench/run.sh agentloop` installs it from npm (never from go test); it was measured without", peers)
		}
		if !strings.Contains(text, "official: @modelcontextprotocol/server-filesystem ") {
			t.Errorf("the official server is installed but was not measured")
		}
		if !regexp.MustCompile(`(?m)^3 edits of one file, MCP +0 +[0-9.]+ms +[0-9.]+ms +[0-9.]+x `).MatchString(text) {
			t.Errorf("no official time and ratio for the one-file edits")
		}
		if straceErr == nil && !regexp.MustCompile(`(?m)^MCP edit \(the server process, attached after the read\) \(official\) +0 +[0-9]+ `).MatchString(text) {
			t.Errorf("no system call row for the official server")
		}
	})
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
