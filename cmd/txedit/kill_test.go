package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/txedit/txedit/internal/testlong"
	"github.com/txedit/txedit/journal"
)

var hooked struct {
	once sync.Once
	bin  string
	err  error
}

// hookedBinary builds txedit with the test hooks (not under the race
// detector: the processes are killed, not checked for races).
func hookedBinary(t *testing.T) string {
	t.Helper()
	hooked.once.Do(func() {
		dir, err := os.MkdirTemp("", "txedit-hooked")
		if err != nil {
			hooked.err = err
			return
		}
		hooked.bin = filepath.Join(dir, "txedit")
		out, err := exec.Command("go", "build", "-tags", "txedit_testhooks", "-o", hooked.bin, ".").CombinedOutput()
		if err != nil {
			hooked.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if hooked.err != nil {
		t.Fatal(hooked.err)
	}
	return hooked.bin
}

// killWorkload is n files in 10 directories and a request that edits most,
// deletes some, moves some into new directories and creates some.
func killWorkload(n int) (map[string]string, string) {
	files := map[string]string{}
	var edits []map[string]any
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("d%02d/f%03d.txt", i%10, i)
		var b strings.Builder
		for l := 0; l < 20; l++ {
			fmt.Fprintf(&b, "file %d line %d\n", i, l)
		}
		files[name] = b.String()
		var ops []map[string]any
		switch i % 20 {
		case 0:
			ops = []map[string]any{{"command": "delete"}}
		case 1:
			ops = []map[string]any{{"command": "str_replace", "old_str": "line 3\n", "new_str": "line three\n"},
				{"command": "move", "new_path": fmt.Sprintf("moved/m%02d/f%03d.txt", i%5, i)}}
		default:
			ops = []map[string]any{{"command": "str_replace", "old_str": fmt.Sprintf("file %d line 3\n", i), "new_str": "edited\n"},
				{"command": "append", "new_str": "appended"}}
		}
		edits = append(edits, map[string]any{"path": name, "edits": ops})
		if i%20 == 2 {
			edits = append(edits, map[string]any{"path": fmt.Sprintf("new/n%02d/g%03d.txt", i%3, i),
				"edits": []map[string]any{{"command": "create", "file_text": "created\n"}}})
		}
	}
	req, _ := json.Marshal(map[string]any{"fileEdits": edits})
	return files, string(req)
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// tree snapshots a directory outside the journal, and lists temporary
// files anywhere in it.
func tree(t *testing.T, dir string) (string, []string) {
	t.Helper()
	var entries, temps []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if journal.IsTemp(d.Name()) || strings.HasSuffix(d.Name(), ".tmp") {
			temps = append(temps, rel)
		}
		if rel == "." || strings.HasPrefix(rel, journal.Dir) || d.Name() == "req.json" {
			return nil
		}
		if d.IsDir() {
			entries = append(entries, rel+"/")
			return nil
		}
		data, _ := os.ReadFile(p)
		entries = append(entries, fmt.Sprintf("%s=%x", rel, data))
		return nil
	})
	sort.Strings(entries)
	return strings.Join(entries, "\n"), temps
}

type killRig struct {
	bin      string
	files    map[string]string
	req      string
	old, new string
	calls    int
}

func newKillRig(t *testing.T, n int) *killRig {
	r := &killRig{bin: hookedBinary(t)}
	r.files, r.req = killWorkload(n)
	dir := r.fresh(t)
	r.old, _ = tree(t, dir)
	cmd := exec.Command(r.bin, "apply", "--root", dir, filepath.Join(dir, "req.json"))
	cmd.Env = append(os.Environ(), "TXEDIT_TEST_COUNT=1", "TXEDIT_TEST_NOSYNC=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if out, err := cmd.Output(); err != nil {
		t.Fatalf("clean run: %v\n%s%s", err, out, stderr.String())
	}
	r.new, _ = tree(t, dir)
	fmt.Sscanf(strings.TrimSpace(stderr.String()[strings.LastIndex(stderr.String(), "calls "):]), "calls %d", &r.calls)
	if r.calls < 10 || r.old == r.new {
		t.Fatalf("clean run: %d calls, changed=%v", r.calls, r.old != r.new)
	}
	return r
}

func (r *killRig) fresh(t *testing.T) string {
	dir := t.TempDir()
	writeFiles(t, dir, r.files)
	os.WriteFile(filepath.Join(dir, "req.json"), []byte(r.req), 0o644)
	return dir
}

// check recovers a killed workspace and asserts the guarantees.
func (r *killRig) check(t *testing.T, dir, label string) (committed bool) {
	out, err := exec.Command(r.bin, "recover", "--root", dir).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: txedit recover: %v\n%s", label, err, out)
	}
	logOut, _ := exec.Command(r.bin, "log", "--json", "--root", dir).Output()
	var log []struct{ State string }
	json.Unmarshal(logOut, &log)
	for _, e := range log {
		switch e.State {
		case "committed":
			committed = true
		case "pending":
			t.Errorf("%s: a transaction is still pending", label)
		}
	}
	got, temps := tree(t, dir)
	switch {
	case committed && got != r.new:
		t.Errorf("%s: committed, but the tree is not the new tree", label)
	case !committed && got != r.old:
		t.Errorf("%s: not committed, but the tree is not the old tree", label)
	}
	if len(temps) > 0 {
		t.Errorf("%s: temporary files left: %v", label, temps)
	}
	return committed
}

func (r *killRig) killAt(t *testing.T, n int) bool {
	dir := r.fresh(t)
	cmd := exec.Command(r.bin, "apply", "--root", dir, filepath.Join(dir, "req.json"))
	cmd.Env = append(os.Environ(), "TXEDIT_TEST_KILL_AT="+strconv.Itoa(n), "TXEDIT_TEST_NOSYNC=1")
	cmd.Run()
	return r.check(t, dir, fmt.Sprintf("killed at call %d of %d", n, r.calls))
}

// killFromOutside runs cmd (a hooked binary) until it has made n
// file-system calls, where it stops itself and says so on a pipe, and
// SIGKILLs it there. It returns the call the process stopped at, 0 when
// it finished first. The kill lands wherever the process was, inside a
// call or between calls, in whichever goroutine: a kill at a random
// moment, at a point the test observed rather than after a sleep, so the
// machine's speed changes where it lands, never whether the test passes.
func killFromOutside(t *testing.T, cmd *exec.Cmd, n int) (stoppedAt int) {
	t.Helper()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	cmd.Env = append(cmd.Env, "TXEDIT_TEST_STOP_AT="+strconv.Itoa(n))
	cmd.ExtraFiles = []*os.File{pw}
	err = cmd.Start()
	pw.Close()
	if err != nil {
		t.Fatal(err)
	}
	// A line when it stopped; end of file when it exited first.
	line, _ := bufio.NewReader(pr).ReadString('\n')
	cmd.Process.Kill() // SIGKILL, which a stopped process gets too
	cmd.Wait()
	fmt.Sscanf(line, "stopped at call %d", &stoppedAt)
	return stoppedAt
}

// TestKillEveryStep SIGKILLs `txedit apply` at every file-system call of
// a 20-file transaction, and at calls spread over a 200-file one, then
// runs `txedit recover`: every file is entirely old or new, and no
// temporary file is left. The quick run kills at a sample of the small
// run's calls (testlong.Sweep: the first, the last, evenly between, and
// around the commit point) and at 4 of the big one's; TXEDIT_LONG=1 at
// every call and at 120.
func TestKillEveryStep(t *testing.T) {
	small := newKillRig(t, 20)
	points, commits := testlong.Sweep(small.calls, 8, func(n int) bool { return small.killAt(t, n) })
	big := newKillRig(t, 200)
	step := max(1, big.calls/testlong.Pick(4, 120))
	trials := 0
	for n := 1; n <= big.calls; n += step {
		big.killAt(t, n)
		trials++
	}
	t.Logf("20 files: %d kills (at %d of %d calls), %d ended committed; 200 files: %d kills (every %dth of %d calls)", len(points), len(points), small.calls, commits, trials, step, big.calls)
	if commits == 0 || commits == len(points) {
		t.Errorf("kills never landed on both sides of the commit point (%d of %d committed)", commits, len(points))
	}
}

// TestKillRandomTimes SIGKILLs a 200-file `txedit apply` from outside at
// random points of its run (300 with TXEDIT_LONG=1, 8 in the quick
// run) and kills the process where it stopped (killFromOutside). The
// points are a stratified random sample of the calls and a tenth more
// (so that some runs finish first): trial i picks at random in the i-th
// of as many equal slices. The seed is logged; TXEDIT_SEED repeats it.
func TestKillRandomTimes(t *testing.T) {
	rig := newKillRig(t, 200)
	trials := testlong.Pick(8, 300)
	rng := testlong.Rand(t)
	span := rig.calls + rig.calls/10
	commits, finished := 0, 0
	for i := 0; i < trials; i++ {
		dir := rig.fresh(t)
		n := 1 + i*span/trials + rng.Intn(max(1, span/trials))
		cmd := exec.Command(rig.bin, "apply", "--root", dir, filepath.Join(dir, "req.json"))
		cmd.Env = append(os.Environ(), "TXEDIT_TEST_NOSYNC=1")
		at := killFromOutside(t, cmd, n)
		if at == 0 {
			finished++
		}
		if rig.check(t, dir, fmt.Sprintf("kill %d, picked call %d, stopped at call %d of %d (0: finished)", i, n, at, rig.calls)) {
			commits++
		}
	}
	// (Kills on both sides of the commit point are TestKillEveryStep's
	// to prove: a random sample of 4,000 calls rarely lands in the few
	// after the commit mark.)
	t.Logf("%d kills from outside of a 200-file commit (%d calls): %d ended committed (%d ran to the end first), %d rolled back", trials, rig.calls, commits, finished, trials-commits)
}

// TestKillFinishesForward SIGKILLs `txedit apply` at each of the last
// calls of a small transaction: one killed after its renames and before
// its COMMITTED mark has every file new, and `txedit recover` finishes it
// (journal/forward.go) and says so, in text and in JSON; one killed before
// is rolled back and says that. Either way the tree is the one the
// answer names.
func TestKillFinishesForward(t *testing.T) {
	r := newKillRig(t, 6)
	said := map[string]int{}
	for n := max(1, r.calls-40); n <= r.calls; n++ {
		for _, asJSON := range []bool{n%2 == 0} { // text and JSON by turns
			dir := r.fresh(t)
			cmd := exec.Command(r.bin, "apply", "--root", dir, filepath.Join(dir, "req.json"))
			cmd.Env = append(os.Environ(), "TXEDIT_TEST_KILL_AT="+strconv.Itoa(n), "TXEDIT_TEST_NOSYNC=1")
			cmd.Run()
			args := []string{"recover", "--root", dir}
			if asJSON {
				args = append(args, "--json")
			}
			out, err := exec.Command(r.bin, args...).CombinedOutput()
			if err != nil {
				t.Fatalf("killed at call %d: txedit recover: %v\n%s", n, err, out)
			}
			got, temps := tree(t, dir)
			label := fmt.Sprintf("killed at call %d of %d (json %v)", n, r.calls, asJSON)
			switch text := string(out); {
			case asJSON && strings.Contains(text, `"finished": true`), !asJSON && strings.Contains(text, "finished "):
				said["finished"]++
				said[fmt.Sprintf("finished, json %v", asJSON)]++
				if got != r.new || !strings.Contains(text, "committed") && !asJSON {
					t.Errorf("%s: recover said it finished the transaction, but the tree is not the new one\n%s", label, text)
				}
			case asJSON && strings.Contains(text, `"id"`), !asJSON && strings.Contains(text, "rolled back"):
				said["rolled back"]++
				if got != r.old {
					t.Errorf("%s: recover rolled back, but the tree is not the old one\n%s", label, text)
				}
			default:
				said["nothing"]++
				if got != r.old && got != r.new {
					t.Errorf("%s: the tree is neither old nor new\n%s", label, text)
				}
			}
			if len(temps) > 0 {
				t.Errorf("%s: temporary files left: %v", label, temps)
			}
		}
	}
	t.Logf("recover said: %v", said)
	if said["finished, json true"] == 0 || said["finished, json false"] == 0 || said["rolled back"] == 0 {
		t.Errorf("the kills did not land on both sides of the renames: %v", said)
	}
}
