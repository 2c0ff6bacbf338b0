package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/txedit/txedit/bench/internal/timing"
	"github.com/txedit/txedit/engine"
)

// The sides of a comparison: the official server, and txedit serving its
// default toolset (fs_write) or its filesystem toolset (the official
// server's tools, edit_file answered as the official server answers).
const (
	official = "official"
	txedit   = "txedit"
	txeditFS = "txedit-fs"
)

// sample is one run of one measure on one side at one journal size.
type sample struct {
	perEdit time.Duration            // wall time over the edits (or spawns)
	cpu     time.Duration            // the server's (or the CLI processes') CPU time per edit
	phases  map[string]time.Duration // txedit's TXEDIT_TIMINGS, per edit
	kept    int                      // transactions the journal retains after the run (-1: not counted)
}

// measure is one row group of the table.
type measure struct {
	name     string
	official bool // the official server has a side of its own
	// ref names the measure whose official side this one is set
	// against, when it has none of its own (the CLI).
	ref string
	// run makes one run on side at journal size k, in root (a fresh copy
	// of the corpus), and checks what it changed.
	run func(side string, k int, root string) (sample, error)
}

type key struct {
	measure string
	k       int
	side    string
}

type bench struct {
	*config
	c        *corpus
	tmpl     map[int]string // journal size -> template tree
	script   string         // loop.mjs, written out
	client   *client        // node running it
	profiles int            // CPU profiles written (-profile)
	version  string         // the official server's version
	out      io.Writer
}

func run(out io.Writer, cfg *config) error {
	b := &bench{config: cfg, c: newCorpus(cfg.n), tmpl: map[int]string{}, out: out}
	b.fsKind = timing.FSKind(b.dir)
	b.script = filepath.Join(b.dir, "loop.mjs")
	if err := os.WriteFile(b.script, loopScript, 0o644); err != nil {
		return err
	}
	defer os.Remove(b.script)
	defer b.stopClient()
	if b.official != "" {
		v, err := packageVersion(b.official)
		if err != nil {
			return fmt.Errorf("-official: %v", err)
		}
		b.version = v
	}
	sdkVersion, err := packageVersion(b.sdk)
	if err != nil {
		return fmt.Errorf("-sdk: %v", err)
	}
	for _, k := range b.journals {
		t := filepath.Join(b.dir, fmt.Sprintf("template-%d", k))
		os.RemoveAll(t)
		defer os.RemoveAll(t)
		start := time.Now()
		if err := b.c.write(t); err != nil {
			return err
		}
		if err := prefill(t, b.c, k); err != nil {
			return err
		}
		if got, err := b.retained(t); err != nil {
			return err
		} else if got != k {
			return fmt.Errorf("the template's journal retains %d transactions, not %d", got, k)
		}
		fmt.Fprintf(os.Stderr, "agentloopbench: corpus with %d retained transactions made in %v\n", k, time.Since(start).Round(time.Millisecond))
		b.tmpl[k] = t
	}
	root := filepath.Join(b.dir, "run")
	defer os.RemoveAll(root)

	measures := b.measures()
	samples := map[key][]sample{}
	begin := time.Now()
	for r := 0; r < b.runs; r++ {
		fmt.Fprintf(os.Stderr, "agentloopbench: round %d of %d (%v so far)\n", r+1, b.runs, time.Since(begin).Round(time.Second))
		for _, k := range b.journals {
			for _, m := range measures {
				sides := []string{txedit}
				if m.official && b.official != "" {
					sides = []string{official, txedit}
					if r%2 == 1 {
						sides = []string{txedit, official}
					}
				}
				for _, side := range sides {
					if err := b.fresh(root, k); err != nil {
						return err
					}
					s, err := m.run(side, k, root)
					if err != nil {
						return fmt.Errorf("%s, %s, journal %d: %w", m.name, side, k, err)
					}
					samples[key{m.name, k, side}] = append(samples[key{m.name, k, side}], s)
				}
			}
		}
	}
	var counts map[key]map[string]float64
	if b.strace != "" {
		fmt.Fprintln(os.Stderr, "agentloopbench: system calls (strace)")
		if counts, err = b.syscalls(root); err != nil {
			return err
		}
	}
	b.report(measures, samples, counts, sdkVersion)
	return nil
}

// fresh makes root a copy of the template with k retained transactions,
// flushed to the device (sync(2)) so that no run pays for the copy.
func (b *bench) fresh(root string, k int) error {
	if err := os.RemoveAll(root); err != nil {
		return err
	}
	if out, err := exec.Command("cp", "-a", b.tmpl[k], root).CombinedOutput(); err != nil {
		return fmt.Errorf("cp -a: %v: %s", err, out)
	}
	// A copy of a journal is not trusted where it lands (docs/design.md,
	// "What makes a journal trusted"): this user made it, so adopts it.
	if _, err := os.Lstat(filepath.Join(root, ".txedit")); err == nil {
		w, err := engine.Open(root, &engine.Options{Durability: engine.NotDurable})
		if err != nil {
			return err
		}
		_, err = w.AdoptJournal(context.Background())
		w.Close()
		if err != nil {
			return fmt.Errorf("adopting the copied journal: %v", err)
		}
	}
	syscall.Sync()
	return nil
}

func (b *bench) measures() []measure {
	n := b.n
	ms := []measure{
		{name: fmt.Sprintf("%d edits of one file, MCP", n), official: true, run: func(side string, k int, root string) (sample, error) {
			return b.mcpEdits(side, k, root, b.c.single, false)
		}},
		{name: fmt.Sprintf("one edit in each of %d files, MCP", n), official: true, run: func(side string, k int, root string) (sample, error) {
			return b.mcpEdits(side, k, root, b.c.each, false)
		}},
		{name: "dry-run edit, MCP", official: true, run: func(side string, k int, root string) (sample, error) {
			edits := make([]edit, b.dryRuns)
			for i := range edits {
				edits[i] = b.c.dry
			}
			return b.mcpEdits(side, k, root, edits, true)
		}},
		{name: "spawn to first tools/list", official: true, run: b.spawn},
	}
	// The same loops with txedit's filesystem toolset: the very calls the
	// official server gets, answered with the same text.
	for i := range 3 {
		m := ms[i]
		ms = append(ms, measure{name: m.name + ", filesystem toolset", ref: m.name, run: func(_ string, k int, root string) (sample, error) {
			return m.run(txeditFS, k, root)
		}})
	}
	ms = append(ms, measure{name: fmt.Sprintf("%d edits of one file, CLI (a process each)", n), ref: ms[0].name,
		run: func(_ string, k int, root string) (sample, error) { return b.cliEdits(k, root, b.c.single) }})
	if b.only != nil {
		var kept []measure
		for _, m := range ms {
			if b.only.MatchString(m.name) {
				kept = append(kept, m)
			}
		}
		ms = kept
	}
	return ms
}

// server returns the command line of side's MCP server on root.
func (b *bench) server(side string, k int, root string, timings bool) map[string]any {
	switch side {
	case official:
		return map[string]any{"command": b.config.node, "args": []string{filepath.Join(b.official, "dist", "index.js"), root}, "cwd": root}
	case txeditFS:
		return map[string]any{"command": b.txedit, "args": []string{"mcp", "--toolset", "filesystem", "--root", root}, "cwd": root, "env": txeditEnv(k, timings)}
	}
	return map[string]any{"command": b.txedit, "args": []string{"mcp", "--root", root}, "cwd": root, "env": txeditEnv(k, timings)}
}

// txeditEnv is the environment txedit runs with at journal size k: its
// retention raised to k (TXEDIT_KEEP), and TXEDIT_TIMINGS.
func txeditEnv(k int, timings bool) map[string]string {
	env := map[string]string{}
	if k > 0 {
		env["TXEDIT_KEEP"] = strconv.Itoa(k)
	}
	if timings {
		env["TXEDIT_TIMINGS"] = "1"
	}
	return env
}

// call is one MCP tool call.
type call struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
}

// editCall returns side's tool call making e (or previewing it).
func editCall(side, root string, e edit, dry bool) call {
	if side == official || side == txeditFS {
		args := map[string]any{"path": filepath.Join(root, e.path), "edits": []map[string]string{{"oldText": e.old, "newText": e.new}}}
		if dry {
			args["dryRun"] = true
		}
		return call{"edit_file", args}
	}
	args := map[string]any{"command": "str_replace", "path": e.path, "old_str": e.old, "new_str": e.new}
	if dry {
		args["dry_run"] = true
	}
	return call{"fs_write", args}
}

// reads are the calls txedit's read-before-write rule needs before the
// edits: one read of every file they touch (untimed): fs_read, or the
// filesystem toolset's read_multiple_files.
func reads(side, root string, edits []edit) []call {
	if side == official {
		return nil
	}
	var paths []string
	seen := map[string]bool{}
	for _, e := range edits {
		if !seen[e.path] {
			seen[e.path] = true
			paths = append(paths, e.path)
		}
	}
	if side == txeditFS {
		for i, p := range paths {
			paths[i] = filepath.Join(root, p)
		}
		return []call{{"read_multiple_files", map[string]any{"paths": paths}}}
	}
	return []call{{"fs_read", map[string]any{"mode": "Line", "paths": paths}}}
}

type taskResult struct {
	Ms       []float64          `json:"ms"`
	CPUTicks int64              `json:"cpu_ticks"`
	Phases   map[string]float64 `json:"phases"`
	SpawnMs  []float64          `json:"spawn_ms"`
	Tools    int                `json:"tools"`
	Error    string             `json:"error"`
}

// node runs loop.mjs on task.
// client is the node process running loop.mjs: one for the whole
// benchmark, given a task a line.
type client struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *tail
}

func (b *bench) startClient() error {
	cmd := exec.Command(b.config.node, b.script, b.sdk)
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	t := &tail{}
	cmd.Stderr = t
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("node: %v", err)
	}
	b.client = &client{cmd: cmd, in: in, out: bufio.NewReader(out), stderr: t}
	return nil
}

func (b *bench) stopClient() {
	if b.client != nil {
		b.client.in.Close()
		b.client.cmd.Wait()
		b.client = nil
	}
}

// runNode has the client run a task and returns its answer.
func (b *bench) runNode(task map[string]any) (*taskResult, error) {
	if b.client == nil {
		if err := b.startClient(); err != nil {
			return nil, err
		}
	}
	data, err := json.Marshal(task)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	if _, err := b.client.in.Write(append(data, '\n')); err != nil {
		return nil, fmt.Errorf("node loop.mjs: %v: %s", err, b.client.stderr)
	}
	line, err := b.client.out.ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("node loop.mjs: %v: %s", err, b.client.stderr)
	}
	if b.verbose {
		fmt.Fprintf(os.Stderr, "agentloopbench: %s %s: %v\n", task["kind"], task["server"].(map[string]any)["command"], time.Since(start).Round(time.Millisecond))
	}
	var res taskResult
	if err := json.Unmarshal(line, &res); err != nil {
		return nil, fmt.Errorf("node loop.mjs: %v: %q", err, line)
	}
	if res.Error != "" {
		return nil, fmt.Errorf("node loop.mjs: %s", res.Error)
	}
	return &res, nil
}

// tail keeps the last 8 KiB written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 8192 {
		t.buf = t.buf[len(t.buf)-8192:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// slug names an MCP run's profile: the kind of loop.
func slug(edits []edit, dry bool) string {
	switch {
	case dry:
		return "dryrun"
	case len(edits) > 1 && edits[0].path != edits[1].path:
		return "eachfile"
	}
	return "onefile"
}

// clockTick is the unit of /proc/PID/stat's times (USER_HZ, 100 on Linux).
const clockTick = 10 * time.Millisecond

func (b *bench) mcpEdits(side string, k int, root string, edits []edit, dry bool) (sample, error) {
	var calls []call
	for _, e := range edits {
		calls = append(calls, editCall(side, root, e, dry))
	}
	kept := -1 // the official server keeps no journal
	task := map[string]any{"kind": "calls", "server": b.server(side, k, root, side != official),
		"reads": reads(side, root, edits), "calls": calls, "expect": "@@", "timings": side != official,
		"think_ms": float64(b.think) / float64(time.Millisecond)}
	if b.profile != "" && side != official {
		// A CPU profile of the server over the run (it writes it when
		// its input ends: a graceful stop).
		b.profiles++
		name := fmt.Sprintf("mcp-%s-%s-journal%d-%d.prof", side, slug(edits, dry), k, b.profiles)
		task["server"].(map[string]any)["env"].(map[string]string)["TXEDIT_CPUPROFILE"] = filepath.Join(b.profile, name)
		task["graceful"] = true
	}
	res, err := b.runNode(task)
	if err != nil {
		return sample{}, err
	}
	if len(res.Ms) != len(edits) {
		return sample{}, fmt.Errorf("%d answers for %d edits", len(res.Ms), len(edits))
	}
	if err := b.verify(root, k, edits, dry); err != nil {
		return sample{}, err
	}
	if side != official {
		if kept, err = b.checkRetained(root, k, len(edits), dry); err != nil {
			return sample{}, err
		}
	}
	var total float64
	for _, ms := range res.Ms {
		total += ms
	}
	n := time.Duration(len(edits))
	s := sample{perEdit: time.Duration(total*1e6) / n, cpu: time.Duration(res.CPUTicks) * clockTick / n, kept: kept}
	if res.Phases != nil {
		s.phases = map[string]time.Duration{}
		for p, ms := range res.Phases {
			s.phases[p] = time.Duration(ms*1e6) / n
		}
	}
	return s, nil
}

func (b *bench) spawn(side string, k int, root string) (sample, error) {
	res, err := b.runNode(map[string]any{"kind": "spawn", "server": b.server(side, k, root, false), "spawns": b.spawns})
	if err != nil {
		return sample{}, err
	}
	if len(res.SpawnMs) != b.spawns || res.Tools == 0 {
		return sample{}, fmt.Errorf("%d spawns listed %d tools", len(res.SpawnMs), res.Tools)
	}
	var total float64
	for _, ms := range res.SpawnMs {
		total += ms
	}
	return sample{perEdit: time.Duration(total * 1e6 / float64(len(res.SpawnMs))), kept: -1}, nil
}

// cliEdits makes the edits with `txedit apply --json -`, a process each,
// as an agent that shells out does; each answer must carry its diff.
func (b *bench) cliEdits(k int, root string, edits []edit) (sample, error) {
	var wall, cpu time.Duration
	phases := map[string]time.Duration{}
	env := os.Environ()
	for name, v := range txeditEnv(k, true) {
		env = append(env, name+"="+v)
	}
	for _, e := range edits {
		req, err := json.Marshal(map[string]string{"command": "str_replace", "path": e.path, "old_str": e.old, "new_str": e.new})
		if err != nil {
			return sample{}, err
		}
		cmd := exec.Command(b.txedit, "apply", "--json", "--root", root, "-")
		cmd.Stdin = bytes.NewReader(req)
		cmd.Env = env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		start := time.Now()
		err = cmd.Run()
		wall += time.Since(start)
		if err != nil {
			return sample{}, fmt.Errorf("txedit apply: %v: %s", err, stderr.String())
		}
		cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		if !bytes.Contains(stdout.Bytes(), []byte("@@")) || !bytes.Contains(stdout.Bytes(), []byte(`"success": true`)) {
			return sample{}, fmt.Errorf("txedit apply answered without a diff: %s", stdout.String())
		}
		for p, d := range parseTimings(stderr.String()) {
			phases[p] += d
		}
	}
	if err := b.verify(root, k, edits, false); err != nil {
		return sample{}, err
	}
	kept, err := b.checkRetained(root, k, len(edits), false)
	if err != nil {
		return sample{}, err
	}
	n := time.Duration(len(edits))
	for p := range phases {
		phases[p] /= n
	}
	return sample{perEdit: wall / n, cpu: cpu / n, phases: phases, kept: kept}, nil
}

// timingLine is a TXEDIT_TIMINGS line: "txedit: [COMMAND: ]PHASE DURATION".
var timingLine = regexp.MustCompile(`^txedit: (?:\S+: )*([a-z]+)\s+([0-9.]+(?:ns|µs|us|ms|s|m))$`)

// parseTimings sums TXEDIT_TIMINGS lines by phase.
func parseTimings(stderr string) map[string]time.Duration {
	out := map[string]time.Duration{}
	for _, line := range strings.Split(stderr, "\n") {
		m := timingLine.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		if d, err := time.ParseDuration(m[2]); err == nil {
			out[m[1]] += d
		}
	}
	return out
}

// verify checks that the edits are in effect in root (or, for a dry run,
// that nothing changed): each file holds the template's content with the
// edits made, in order, once each.
func (b *bench) verify(root string, k int, edits []edit, dry bool) error {
	want := map[string]string{}
	for _, e := range edits {
		if _, ok := want[e.path]; !ok {
			orig, err := os.ReadFile(filepath.Join(b.tmpl[k], e.path))
			if err != nil {
				return err
			}
			want[e.path] = string(orig)
		}
		if !dry {
			if !strings.Contains(want[e.path], e.old) {
				return fmt.Errorf("bench bug: %q not in %s", e.old, e.path)
			}
			want[e.path] = strings.Replace(want[e.path], e.old, e.new, 1)
		}
	}
	for p, w := range want {
		got, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			return err
		}
		if string(got) != w {
			return fmt.Errorf("%s does not hold what the edits make of it", p)
		}
	}
	return nil
}
