// Package mountns runs a test again in a mount namespace of its own, for
// tests that mount (a bind mount, a tmpfs) and must leave no mount behind:
// the namespace goes with the child process. It needs root and unshare(1).
package mountns

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Require skips t unless the process is root, and fails it if unshare(1)
// is missing. A test calls it before setup that costs something; Rerun
// calls it too.
func Require(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("skipped: mounting needs root (a mount namespace of its own, made with unshare -m)")
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Fatalf("unshare(1) is needed to make a mount namespace: %v", err)
	}
	return unshare
}

// Rerun runs t's own test again in a mount namespace of its own (unshare
// -m, private propagation), with env ("KEY=value", which the test reads to
// know it is the child) added to the environment, and fails t unless the
// child passes. The child's output is logged.
func Rerun(t *testing.T, env ...string) {
	t.Helper()
	unshare := Require(t)
	cmd := exec.Command(unshare, "-m", "--propagation", "private", os.Args[0], "-test.run=^"+t.Name()+"$", "-test.v")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	t.Logf("in the mount namespace:\n%s", out)
	if err != nil || !strings.Contains(string(out), "--- PASS: "+t.Name()) {
		t.Fatalf("the child failed: %v", err)
	}
}
