package bench

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// runSh runs bench/run.sh with args and env added to the environment, and
// returns what it printed (also logged); a failure fails the test.
func runSh(t *testing.T, env []string, args ...string) string {
	t.Helper()
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", append([]string{filepath.Join(repo, "bench/run.sh")}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	text := string(out)
	if err != nil {
		t.Fatalf("bench/run.sh %s: %v\n%s", strings.Join(args, " "), err, text)
	}
	t.Logf("%s", text)
	return text
}
