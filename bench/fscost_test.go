package bench

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestFSCostBench runs bench/run.sh fscost tiny (3 calls a row, on the
// temporary directory's file system): every row is printed with a time.
func TestFSCostBench(t *testing.T) {
	tmp := t.TempDir()
	// run.sh measures FS=disk only off a tmpfs and FS=tmpfs only on one:
	// whichever the temporary directory is.
	env := []string{"FS=disk", "DISK=" + tmp, "TMPDIR=" + tmp}
	if kind, err := exec.Command("stat", "-f", "-c", "%T", tmp).Output(); err == nil && strings.TrimSpace(string(kind)) == "tmpfs" {
		env = []string{"FS=tmpfs", "TMPFS=" + tmp, "TMPDIR=" + tmp}
	}
	text := runSh(t, env, "fscost", "-n", "3")
	rows := []string{"create an empty file", "mkdir", "hard link to an existing file", "unnamed file (O_TMPFILE) made and linked",
		"unlink an empty file", "unlink a file of 8 KiB", "fsync of a directory with one new entry", "fdatasync of a new file of 8 KiB",
		"1 directory fsyncs at once", "8 directory fsyncs at once"}
	if strings.Contains(text, "skipped") {
		t.Fatalf("run.sh skipped the test's directory: %s", text)
	}
	for _, row := range rows {
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(row) + `.*\s[0-9.]+µs$`).MatchString(text) {
			t.Errorf("no row for %q", row)
		}
	}
	if strings.Contains(text, "fscostbench:") {
		t.Error("fscostbench reported an error")
	}
}
