package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/txedit/txedit/bench/internal/timing"
	"github.com/txedit/txedit/engine"
)

// packageVersion reads an npm package directory's version.
func packageVersion(dir string) (string, error) {
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return "", err
	}
	var p struct{ Name, Version string }
	if err := json.Unmarshal(data, &p); err != nil {
		return "", fmt.Errorf("%s: %v", dir, err)
	}
	return p.Name + " " + p.Version, nil
}

func median(ss []sample, f func(sample) time.Duration) time.Duration {
	if len(ss) == 0 {
		return 0
	}
	ds := make([]time.Duration, len(ss))
	for i, s := range ss {
		ds[i] = f(s)
	}
	return timing.Median(ds)
}

func wall(s sample) time.Duration { return s.perEdit }
func cpu(s sample) time.Duration  { return s.cpu }

// keptText is the journal's size after the runs, as "1000", or "1000-1003"
// when the runs differ.
func keptText(ss []sample) string {
	lo, hi := -1, -1
	for _, s := range ss {
		if s.kept < 0 {
			continue
		}
		if lo < 0 || s.kept < lo {
			lo = s.kept
		}
		hi = max(hi, s.kept)
	}
	switch {
	case lo < 0:
		return "-"
	case lo == hi:
		return fmt.Sprint(lo)
	}
	return fmt.Sprintf("%d-%d", lo, hi)
}

func ms(d time.Duration) string {
	if d == 0 {
		return "-"
	}
	if d >= 100*time.Millisecond {
		return fmt.Sprintf("%.0fms", float64(d)/1e6)
	}
	return fmt.Sprintf("%.2fms", float64(d)/1e6)
}

func ratio(a, b time.Duration) string {
	if a == 0 || b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", float64(a)/float64(b))
}

func (b *bench) report(measures []measure, samples map[key][]sample, counts map[key]map[string]float64, sdk string) {
	w := b.out
	k0 := b.journals[0]
	kmax := b.journals[len(b.journals)-1]
	node, _ := execOutput(b.config.node, "--version")
	fmt.Fprintf(w, "agent loop on %s (%s): N = %d; median of %d runs, official and txedit alternating; %d cores, load average %s\n",
		b.fsKind, b.dir, b.n, b.runs, runtime.NumCPU(), timing.LoadAvg())
	peer := "not measured (no -official: bench/run.sh agentloop installs it)"
	if b.official != "" {
		peer = b.version + " (edit_file, answered with the diff; node " + strings.TrimSpace(node) + ")"
	}
	fmt.Fprintf(w, "official: %s\n", peer)
	fmt.Fprintf(w, "txedit: `txedit mcp` (toolset txedit: fs_write, command str_replace, answered with the diff; rows \"filesystem toolset\": --toolset filesystem, the official server's edit_file call and answer; the files read once first, untimed), and `txedit apply --json -`, a process per edit; client %s\n", sdk)
	fmt.Fprintf(w, "journal: the transactions retained when the loop starts (TXEDIT_KEEP = that number, so each commit retires the oldest; at 0 the default %d); per edit: wall time over the edits; CPU: the server's (or the CLI processes') per edit; vs %d: txedit against itself at journal %d\n",
		defaultKeep, k0, k0)
	if b.think > 0 {
		fmt.Fprintf(w, "think: %v before each MCP edit (-think), untimed: an MCP edit's time is from its request to its answer, the server idle before it; the CLI rows send each edit as the last ends\n", b.think)
	}
	width := len("measure")
	for _, m := range measures {
		width = max(width, len(m.name))
	}
	fmt.Fprintf(w, "%-*s %7s %10s %10s %7s %7s %9s %9s %6s\n", width, "measure", "journal", "official", "txedit", "ratio", fmt.Sprintf("vs %d", k0), "CPU off", "CPU tx", "kept")
	for _, m := range measures {
		ref := m.name
		if m.ref != "" {
			ref = m.ref
		}
		for i, k := range b.journals {
			name := ""
			if i == 0 {
				name = m.name
			}
			off := samples[key{ref, k, official}]
			tx := samples[key{m.name, k, txedit}]
			offCPU := median(off, cpu)
			if m.ref != "" {
				offCPU = 0 // another measure's
			}
			fmt.Fprintf(w, "%-*s %7d %10s %10s %7s %7s %9s %9s %6s\n", width, name, k, ms(median(off, wall)), ms(median(tx, wall)),
				ratio(median(tx, wall), median(off, wall)), ratio(median(tx, wall), median(samples[key{m.name, k0, txedit}], wall)),
				ms(offCPU), ms(median(tx, cpu)), keptText(tx))
		}
	}
	fmt.Fprintf(w, "(kept: the transactions txedit's journal retains after the loop, as txedit log lists them; the CLI row's official column is the official server's MCP edit of the same rounds; spawn: ms per start, from spawning the server to its tools/list answer)\n")

	b.phaseTable(measures, samples)
	if counts != nil {
		b.syscallTable(counts)
	}
	b.goalLines(measures, samples, counts, k0, kmax)
}

// phaseTable prints where txedit's time per edit goes, by the phases
// TXEDIT_TIMINGS reports; rest is the wall time the phases do not cover
// (process start and exit, the request and the answer, MCP).
func (b *bench) phaseTable(measures []measure, samples map[key][]sample) {
	w := b.out
	seen := map[string]bool{}
	for _, ss := range samples {
		for _, s := range ss {
			for p := range s.phases {
				seen[p] = true
			}
		}
	}
	if len(seen) == 0 {
		return
	}
	order := engine.TimingPhases()
	var phases []string
	for _, p := range order {
		if seen[p] {
			phases = append(phases, p)
			delete(seen, p)
		}
	}
	var others []string
	for p := range seen {
		others = append(others, p)
	}
	sort.Strings(others)
	phases = append(phases, others...)
	fmt.Fprintf(w, "\nwhere txedit's time per edit goes (TXEDIT_TIMINGS=1, medians of the runs; rest: what no phase covers, as process start and exit, request and answer, MCP)\n")
	width := len("measure")
	for _, m := range measures {
		width = max(width, len(m.name))
	}
	fmt.Fprintf(w, "%-*s %7s %9s", width, "measure", "journal", "wall")
	for _, p := range phases {
		fmt.Fprintf(w, " %8s", p)
	}
	fmt.Fprintf(w, " %8s\n", "rest")
	for _, m := range measures {
		for i, k := range b.journals {
			ss := samples[key{m.name, k, txedit}]
			if len(ss) == 0 || ss[0].phases == nil {
				continue
			}
			name := ""
			if i == 0 {
				name = m.name
			}
			fmt.Fprintf(w, "%-*s %7d %9s", width, name, k, ms(median(ss, wall)))
			for _, p := range phases {
				fmt.Fprintf(w, " %8s", ms(median(ss, func(s sample) time.Duration { return s.phases[p] })))
			}
			rest := median(ss, func(s sample) time.Duration {
				r := s.perEdit
				for _, d := range s.phases {
					r -= d
				}
				return r
			})
			fmt.Fprintf(w, " %8s\n", ms(rest))
		}
	}
}

func total(counts map[string]float64, fsOnly bool) float64 {
	var t float64
	for name, n := range counts {
		if !fsOnly || fsCalls[name] {
			t += n
		}
	}
	return t
}

func (b *bench) syscallTable(counts map[key]map[string]float64) {
	w := b.out
	var sizes []int
	for _, k := range b.journals {
		if _, ok := counts[key{scCLI, k, txedit}]; ok {
			sizes = append(sizes, k)
		}
	}
	k0 := sizes[0]
	fmt.Fprintf(w, "\nsystem calls per edit (strace -f -c over %d edits of the one file; all: every call, the runtime's futex, nanosleep, epoll, signals and mmap too; fs: calls on files and descriptors, by name, the MCP pipe's reads and writes included)\n", min(b.straceEdits, b.n))
	width := max(len(scCLI), len(scMCP)) + len(" (txedit, filesystem toolset)")
	fmt.Fprintf(w, "%-*s %7s %8s %8s %8s %8s\n", width, "where", "journal", "all", "fs", fmt.Sprintf("all/%d", k0), fmt.Sprintf("fs/%d", k0))
	rows := []struct{ where, side, label string }{
		{scCLI, txedit, scCLI},
		{scMCP, txedit, scMCP + " (txedit)"},
		{scMCP, txeditFS, scMCP + " (txedit, filesystem toolset)"},
		{scMCP, official, scMCP + " (official)"},
	}
	for _, r := range rows {
		base := counts[key{r.where, k0, r.side}]
		if base == nil {
			continue
		}
		for i, k := range sizes {
			c := counts[key{r.where, k, r.side}]
			label := ""
			if i == 0 {
				label = r.label
			}
			fmt.Fprintf(w, "%-*s %7d %8.0f %8.0f %7.2fx %7.2fx\n", width, label, k, total(c, false), total(c, true),
				total(c, false)/total(base, false), total(c, true)/total(base, true))
		}
	}
	// The calls by name, at the smallest and the largest journal.
	kmax := sizes[len(sizes)-1]
	for _, r := range rows {
		a, z := counts[key{r.where, k0, r.side}], counts[key{r.where, kmax, r.side}]
		if a == nil {
			continue
		}
		var names []string
		for name := range union(a, z) {
			names = append(names, name)
		}
		sort.Slice(names, func(i, j int) bool {
			if z[names[i]] != z[names[j]] {
				return z[names[i]] > z[names[j]]
			}
			return names[i] < names[j]
		})
		var parts []string
		for _, name := range names {
			if fsCalls[name] {
				parts = append(parts, fmt.Sprintf("%s %s", name, count(a[name], z[name], k0 != kmax)))
			}
		}
		fmt.Fprintf(w, "  fs calls, %s, journal %d", r.label, k0)
		if k0 != kmax {
			fmt.Fprintf(w, " -> %d", kmax)
		}
		fmt.Fprintf(w, ": %s\n", strings.Join(parts, ", "))
		var rt []string
		for _, name := range names {
			if !fsCalls[name] && (a[name] >= 1 || z[name] >= 1) {
				rt = append(rt, fmt.Sprintf("%s %s", name, count(a[name], z[name], k0 != kmax)))
			}
		}
		fmt.Fprintf(w, "  other calls: %s\n", strings.Join(rt, ", "))
	}
}

func count(a, z float64, both bool) string {
	f := func(x float64) string {
		if x == float64(int(x)) {
			return fmt.Sprintf("%.0f", x)
		}
		return fmt.Sprintf("%.1f", x)
	}
	if !both {
		return f(a)
	}
	return f(a) + "->" + f(z)
}

func union(a, b map[string]float64) map[string]bool {
	u := map[string]bool{}
	for k := range a {
		u[k] = true
	}
	for k := range b {
		u[k] = true
	}
	return u
}

// goalLines prints (and appends to -goals) the goals for the loop:
// an MCP edit within 1.5x of the official server's, the time per edit at
// the largest journal within 1.3x of a fresh one's, and its system calls
// within 1.1x.
func (b *bench) goalLines(measures []measure, samples map[key][]sample, counts map[key]map[string]float64, k0, kmax int) {
	if b.goals == "" || k0 != 0 {
		return
	}
	what := b.fsKind
	// The edit loops (not the dry runs, not the spawns).
	var loops []measure
	for _, m := range measures {
		if !strings.Contains(m.name, "dry-run") && !strings.HasPrefix(m.name, "spawn") {
			loops = append(loops, m)
		}
	}
	for _, m := range loops {
		ref := m.name
		if m.ref != "" {
			ref = m.ref
		}
		if b.official == "" || !strings.Contains(m.name, "MCP") {
			continue
		}
		worst, at := 0.0, 0
		for _, k := range b.journals {
			r := float64(median(samples[key{m.name, k, txedit}], wall)) / float64(max(median(samples[key{ref, k, official}], wall), 1))
			if r > worst {
				worst, at = r, k
			}
		}
		check(timing.Goal(b.goals, fmt.Sprintf("agent loop: %s within 1.5x of the official server (%s; worst journal size)", m.name, what),
			fmt.Sprintf("%.2fx (%d)", worst, at), worst <= 1.5))
	}
	if kmax == 0 {
		return
	}
	for _, m := range loops {
		r := float64(median(samples[key{m.name, kmax, txedit}], wall)) / float64(max(median(samples[key{m.name, 0, txedit}], wall), 1))
		check(timing.Goal(b.goals, fmt.Sprintf("agent loop: time per edit at %d retained within 1.3x of a fresh journal: %s (%s)", kmax, m.name, what),
			fmt.Sprintf("%.2fx", r), r <= 1.3))
	}
	for _, where := range []string{scCLI, scMCP} {
		a, z := counts[key{where, 0, txedit}], counts[key{where, kmax, txedit}]
		if a == nil || z == nil {
			continue
		}
		r := total(z, false) / total(a, false)
		check(timing.Goal(b.goals, fmt.Sprintf("agent loop: system calls per edit at %d retained within 1.1x of a fresh journal: %s (%s)", kmax, where, what),
			fmt.Sprintf("%.2fx", r), r <= 1.1))
	}
}

func execOutput(name string, args ...string) (string, error) {
	out, err := exec.Command(name, args...).Output()
	return string(out), err
}
