package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/txedit/txedit/internal/testlong"
)

// TestExitStatusPromises: `txedit apply` (durable, so every fsync is
// there to fail) fails with EIO at each of its file-system calls in turn.
// Exit status 1 promises that nothing was written: after recovery the tree
// is the old one. Exit 0 and exit 3 ("committed, durability unknown")
// mean the change took effect: the tree is new and the log lists the
// transaction committed. Before, a failed sync after the COMMITTED mark
// gave exit 1 and success:false although the files had changed, so an
// agent retrying an append applied it twice. The quick run fails a sample
// of the calls (testlong.Sweep: the ends, evenly between, and around the
// commit point); TXEDIT_LONG=1 every one.
func TestExitStatusPromises(t *testing.T) {
	bin := hookedBinary(t)
	files := map[string]string{"a/log.txt": "one\n", "b/x.txt": "x\n", "b/gone.txt": "bye\n"}
	req := `{"fileEdits":[{"path":"a/log.txt","edits":[{"command":"append","new_str":"two"}]},
		{"path":"b/x.txt","edits":[{"command":"str_replace","old_str":"x","new_str":"X"}]},
		{"path":"b/gone.txt","edits":[{"command":"delete"}]},
		{"path":"c/new.txt","edits":[{"command":"create","file_text":"new\n"}]}]}`
	fresh := func() string {
		dir := t.TempDir()
		writeFiles(t, dir, files)
		os.WriteFile(filepath.Join(dir, "req.json"), []byte(req), 0o644)
		return dir
	}
	apply := func(dir string, env ...string) (int, string) {
		cmd := exec.Command(bin, "apply", "--json", "--root", dir, filepath.Join(dir, "req.json"))
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.Output()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode(), string(out)
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0, string(out)
	}
	dir := fresh()
	old, _ := tree(t, dir)
	cmd := exec.Command(bin, "apply", "--root", dir, filepath.Join(dir, "req.json"))
	cmd.Env = append(os.Environ(), "TXEDIT_TEST_COUNT=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("clean run: %v\n%s", err, out)
	}
	var calls int
	fmt.Sscanf(string(out[strings.LastIndex(string(out), "calls "):]), "calls %d", &calls)
	new, _ := tree(t, dir)
	statuses := map[int]int{}
	// The outcome turns more than once (a failed read early on may not
	// stop the commit), so the quick sample also takes the last 8 calls:
	// the commit mark and the syncs after it.
	points, _ := testlong.Sweep(calls, 8, func(n int) bool {
		dir := fresh()
		status, out := apply(dir, "TXEDIT_TEST_EIO_AT="+strconv.Itoa(n))
		statuses[status]++
		var res struct {
			Success    bool   `json:"success"`
			Code       string `json:"code"`
			Durability string `json:"durability"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("EIO at call %d: exit %d, output %q", n, status, out)
		}
		if out, err := exec.Command(bin, "recover", "--root", dir).CombinedOutput(); err != nil {
			t.Fatalf("EIO at call %d: recover: %v\n%s", n, err, out)
		}
		logOut, _ := exec.Command(bin, "log", "--json", "--root", dir).Output()
		committed := strings.Contains(string(logOut), `"state": "committed"`)
		got, temps := tree(t, dir)
		label := fmt.Sprintf("EIO at call %d of %d: exit %d, success=%v code=%s", n, calls, status, res.Success, res.Code)
		switch status {
		case 1:
			if got != old || committed || res.Success {
				t.Errorf("%s: exit 1 but something was written (committed=%v)", label, committed)
			}
		case 0, 3:
			if got != new || !committed || !res.Success {
				t.Errorf("%s: the change did not take effect (committed=%v)", label, committed)
			}
			if (status == 3) != (res.Durability == "unknown" && res.Code == "commit_unknown") {
				t.Errorf("%s: durability %q", label, res.Durability)
			}
		default:
			t.Errorf("%s: unexpected exit status", label)
		}
		if len(temps) > 0 {
			t.Errorf("%s: temporary files left: %v", label, temps)
		}
		return committed
	}, testlong.Range(calls-7, calls, 1)...)
	t.Logf("EIO at %d of %d calls: exit statuses %v", len(points), calls, statuses)
	// Exit 3 needs a sync after the COMMITTED mark, which only a
	// transaction recovery could not finish forward has (a directory made
	// alone, a change of mode alone: journal/forward.go); this request's
	// mark is not synced, so a fault after its renames' sync is no doubt.
	if statuses[0] == 0 || statuses[1] == 0 {
		t.Errorf("the faults did not cross the commit point: exit statuses %v", statuses)
	}
}
