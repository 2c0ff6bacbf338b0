// Command agentsbench measures agents editing one tree in parallel
// (bench/run.sh agents; docs/design.md, "Concurrency"): N agents, each
// with its own MCP server process (its own session), make M edits each
// in one shared Go file, all at once, with and without an outside writer
// saving the file as an editor does. The simulated agent does what an
// agent does: it reads the file once, then edits; an edit refused is
// retried, from the line the refusal shows as it is now (txedit's note)
// or else after reading the file again.
//
//	go run ./bench/agentsbench -txedit BIN [-peers DIR] [-agents 4] [-edits 25] [-lines 400]
//	    [-toolsets claude,filesystem] [-scenarios disjoint,shared] [-outside 0] [-dir DIR]
//
// Scenarios: disjoint (each agent edits lines of its own function, one
// line per edit) and shared (every agent edits one shared line, adding
// its mark to it). Servers: txedit mcp with the toolset, and its peer from
// -peers (npm packages, pinned by bench/run.sh): Claude Code's `claude mcp
// serve` for the claude toolset, the official MCP filesystem server for
// the filesystem toolset.
//
// Each row counts: the edits landed (answered success) of those made;
// edits given up (still refused after -retries tries); refusals by code;
// reads; the characters of every answer the agents read (reads, edit
// answers, refusals); what the same work needs with nothing changing
// behind the agents (their first reads and their landed edits' answers
// without txedit's notes), and the ratio of the two; lost updates: edits
// answered success whose change is missing from the file at the end (no
// one removes a change in these scenarios), "by the outside writer" when
// one of its saves read the file before the edit was answered and wrote
// it after the edit was sent (an editor's save overwriting; not txedit's
// to prevent); and the outside saves lost.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

type config struct {
	txedit, peers, dir            string
	agents, edits, lines, retries int
	toolsets, scenarios           []string
	outside                       int
	outsideEvery, think, timeout  time.Duration
	claudeVersion, fsVersion      string
	failOnLoss                    bool
	seed                          uint64
}

func main() {
	var c config
	var toolsets, scenarios string
	flag.StringVar(&c.txedit, "txedit", "txedit", "the txedit binary (txedit-mcp beside it)")
	flag.StringVar(&c.peers, "peers", "", "directory whose node_modules holds @anthropic-ai/claude-code and @modelcontextprotocol/server-filesystem (empty: txedit alone)")
	flag.StringVar(&c.dir, "dir", "", "scratch directory (default a temporary one)")
	flag.IntVar(&c.agents, "agents", 4, "agents, each its own MCP server process")
	flag.IntVar(&c.edits, "edits", 25, "edits each agent makes")
	flag.IntVar(&c.lines, "lines", 400, "lines of the shared Go file (at least what the edits need)")
	flag.IntVar(&c.retries, "retries", 30, "tries of one edit before the agent gives it up")
	flag.StringVar(&toolsets, "toolsets", "claude,filesystem", "toolsets: claude, filesystem")
	flag.StringVar(&scenarios, "scenarios", "disjoint,shared", "scenarios: disjoint, shared")
	flag.IntVar(&c.outside, "outside", 0, "also run each with an outside writer making this many saves (0: without only)")
	flag.DurationVar(&c.outsideEvery, "outside-every", 20*time.Millisecond, "the outside writer's pause between saves")
	flag.DurationVar(&c.think, "think", 5*time.Millisecond, "each agent's pause after an edit (random, up to twice this: a model's turn, so that the agents' edits interleave)")
	flag.Uint64Var(&c.seed, "seed", 1, "random seed of the pauses")
	flag.DurationVar(&c.timeout, "timeout", 2*time.Minute, "a call unanswered this long fails the run")
	flag.BoolVar(&c.failOnLoss, "fail-on-loss", false, "exit 1 if txedit lost an update, or a txedit refusal showed no region in the shared scenario")
	flag.Parse()
	c.toolsets, c.scenarios = strings.Split(toolsets, ","), strings.Split(scenarios, ",")
	if c.agents < 1 || c.edits < 1 {
		fmt.Fprintln(os.Stderr, "usage: agentsbench -txedit BIN [-peers DIR] [-agents N] [-edits M]")
		flag.PrintDefaults()
		os.Exit(2)
	}
	if c.dir == "" {
		d, err := os.MkdirTemp("", "agentsbench")
		if err != nil {
			fatal(err)
		}
		defer os.RemoveAll(d)
		c.dir = d
	}
	for _, p := range []*string{&c.txedit, &c.peers, &c.dir} {
		if *p != "" {
			if a, err := filepath.Abs(*p); err == nil && (filepath.IsAbs(*p) || strings.ContainsRune(*p, '/')) {
				*p = a
			}
		}
	}
	c.claudeVersion = npmVersion(filepath.Join(c.peers, "node_modules/@anthropic-ai/claude-code"))
	c.fsVersion = npmVersion(filepath.Join(c.peers, "node_modules/@modelcontextprotocol/server-filesystem"))
	bad := false
	var rows []*row
	for _, ts := range c.toolsets {
		for _, sn := range c.scenarios {
			outs := []int{0}
			if c.outside > 0 {
				outs = append(outs, c.outside)
			}
			for _, out := range outs {
				for _, srv := range c.servers(ts) {
					r, err := c.run(srv, sn, out)
					if err != nil {
						fatal(fmt.Errorf("%s, %s: %w", srv.name, sn, err))
					}
					rows = append(rows, r)
					if c.failOnLoss && strings.HasPrefix(srv.name, "txedit") && (r.lost > 0 || r.outsideLost > 0 || sn == "shared" && r.withRegion < r.refusalCount()) {
						bad = true
					}
				}
			}
		}
	}
	c.report(os.Stdout, rows)
	if bad {
		fmt.Fprintln(os.Stderr, "agentsbench: txedit lost an update, or refused an edit of the shared line without its current text")
		os.Exit(1)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "agentsbench:", err)
	os.Exit(1)
}

func npmVersion(dir string) string {
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return ""
	}
	const key = `"version": "`
	i := strings.Index(string(data), key)
	if i < 0 {
		return "?"
	}
	v := string(data[i+len(key):])
	return v[:strings.IndexByte(v, '"')]
}

// A scenario is the shared file and what each agent's k-th edit changes.
type scenario struct {
	name                 string
	agents, edits, lines int
}

const outsidePrefix = "// outside:"

const sharedPrefix = "var shared = 0 // marks:"

// file is the Go file the agents share: a header (with the outside
// writer's line), then a function per agent holding the lines its edits
// change (disjoint), with filler up to the size asked; the shared
// scenario has one more line that every agent edits.
func (s *scenario) file() string {
	var b strings.Builder
	b.WriteString("// Code generated by bench/agentsbench: agents editing in parallel.\n" + outsidePrefix + "\n\npackage bench\n\n")
	if s.name == "shared" {
		b.WriteString(sharedPrefix + "\n\n")
	}
	header := strings.Count(b.String(), "\n")
	per := max(s.edits+4, (s.lines-header)/s.agents)
	for a := 0; a < s.agents; a++ {
		fmt.Fprintf(&b, "func agent%d() int {\n", a)
		filler := per - 4 - s.edits
		// Lines of ordinary length (the file's 31 characters a line on
		// average are what the measurement in docs/design.md's
		// "Concurrency" read: 12.5k characters a Read of 400 lines).
		for k := 0; k < s.edits; k++ {
			fmt.Fprintf(&b, "\tv%d_%d := %d\n", a, k, 0)
			if k < filler {
				fmt.Fprintf(&b, "\tw%d_%d := fmt.Sprintf(\"%%d-%%d\", v%d_%d, %d)\n", a, k, a, k, k+1)
			}
		}
		for j := s.edits; j < filler; j++ {
			fmt.Fprintf(&b, "\tw%d_%d := strings.Repeat(\"-\", len(w%d_%d))\n", a, j, a, j-1)
		}
		fmt.Fprintf(&b, "\treturn %d\n}\n\n", a)
	}
	return b.String()
}

// prefix starts the line agent a's k-th edit changes.
func (s *scenario) prefix(a, k int) string {
	if s.name == "shared" {
		return sharedPrefix
	}
	return fmt.Sprintf("\tv%d_%d := ", a, k)
}

func (s *scenario) linePrefix(a, k int) string { return s.prefix(a, k) }

// change is the edit of line: its old and new text, and the token its
// landing leaves in the file.
func (s *scenario) change(a, k int, line string) (old, new, token string) {
	if s.name == "shared" {
		tok := fmt.Sprintf("a%de%d", a, k)
		return line, line + " " + tok, tok
	}
	new = fmt.Sprintf("\tv%d_%d := 1 // agent%d", a, k, a)
	return line, new, new
}

// holds reports whether content holds e's change.
func (s *scenario) holds(content string, e *edit) bool {
	if s.name == "shared" {
		return slices.Contains(strings.Fields(lineWith(content, sharedPrefix)), e.token)
	}
	return strings.Contains(content, e.token+"\n")
}

// runState is one row's run.
type runState struct {
	c         *config
	sc        *scenario
	dir, path string
	logs      string
	ready     sync.WaitGroup
}

// row is what a run measured.
type row struct {
	toolset, server, scenario   string
	outside                     int
	made, landed, gaveUp        int
	refusals                    map[string]int
	withRegion                  int
	reads, chars, base, rebased int
	lost, lostOutside           int
	outsideSaves, outsideLost   int
	took                        time.Duration
}

func (r *row) refusalCount() int {
	n := 0
	for _, v := range r.refusals {
		n += v
	}
	return n
}

func (c *config) run(srv server, scen string, outside int) (*row, error) {
	sc := &scenario{name: scen, agents: c.agents, edits: c.edits, lines: c.lines}
	dir := filepath.Join(c.dir, fmt.Sprintf("%s-%s-%d-%d", strings.Fields(srv.name)[0], srv.toolset, len(scen), outside), "tree")
	os.RemoveAll(filepath.Dir(dir))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	r := &runState{c: c, sc: sc, dir: dir, path: filepath.Join(dir, "agents.go"), logs: filepath.Dir(dir)}
	if err := os.WriteFile(r.path, []byte(sc.file()), 0o644); err != nil {
		return nil, err
	}
	stats := make([]*agentStats, c.agents)
	var wg sync.WaitGroup
	r.ready.Add(c.agents)
	t0 := time.Now()
	w := &outsideWriter{}
	done := make(chan struct{})
	var owg sync.WaitGroup
	if outside > 0 {
		owg.Add(1)
		go func() { defer owg.Done(); r.outside(w, outside, c.outsideEvery, done) }()
	}
	for a := 0; a < c.agents; a++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stats[a] = r.agent(a, srv)
			if stats[a].err != nil && stats[a].reads == 0 {
				r.ready.Done() // it failed before its read: do not hold the others
			}
		}()
	}
	wg.Wait()
	close(done)
	owg.Wait()
	took := time.Since(t0)
	for _, st := range stats {
		if st.err != nil {
			return nil, st.err
		}
	}
	final, err := os.ReadFile(r.path)
	if err != nil {
		return nil, err
	}
	content := string(final)
	res := &row{toolset: srv.toolset, server: srv.name, scenario: scen, outside: outside, refusals: map[string]int{}, took: took}
	for _, st := range stats {
		res.made += len(st.edits)
		res.gaveUp += st.gaveUp
		res.reads += st.reads
		res.chars += st.chars
		res.base += st.firstRead + st.plain
		res.withRegion += st.withRegion
		res.rebased += st.rebased
		for k, v := range st.refusals {
			res.refusals[k] += v
		}
		for _, e := range st.edits {
			if !e.landed {
				continue
			}
			res.landed++
			if sc.holds(content, e) {
				continue
			}
			if w.overwrote(e) {
				res.lostOutside++
			} else {
				res.lost++
			}
		}
	}
	res.outsideSaves = len(w.saves)
	fields := strings.Fields(lineWith(content, outsidePrefix))
	for _, s := range w.saves {
		if !slices.Contains(fields, strings.TrimSpace(s.token)) {
			res.outsideLost++
		}
	}
	return res, nil
}

// overwrote reports whether an outside save may have overwritten e: it
// read the file before e was answered and wrote it after e was sent.
func (w *outsideWriter) overwrote(e *edit) bool {
	for _, s := range w.saves {
		if s.read.Before(e.answered) && s.wrote.After(e.sent) {
			return true
		}
	}
	return false
}

func (c *config) report(out io.Writer, rows []*row) {
	fmt.Fprintf(out, "agents in parallel: %d agents × %d edits, one %d-line Go file, each agent its own MCP server process; %d cores, %s\n",
		c.agents, c.edits, c.lines, runtime.NumCPU(), loadAvg())
	fmt.Fprintf(out, "peers: %s\n", c.peerLine())
	fmt.Fprintf(out, "agent: reads the file once, then edits; a refused edit is retried from the line the refusal shows (txedit), else after reading the file again (at most %d tries)\n", c.retries)
	fmt.Fprintf(out, "%-10s %-38s %-8s %-7s %9s %7s %-30s %5s %10s %10s %6s %5s %9s %8s %7s\n",
		"toolset", "server", "regions", "outside", "landed", "gave up", "refusals (by code)", "reads", "chars read", "needed", "ratio", "lost", "lost (out)", "out lost", "time")
	for _, r := range rows {
		out2 := "-"
		if r.outside > 0 {
			out2 = fmt.Sprintf("%d", r.outsideSaves)
		}
		fmt.Fprintf(out, "%-10s %-38s %-8s %-7s %9s %7d %-30s %5d %10s %10s %6.2f %5d %9d %8d %6.1fs\n",
			r.toolset, r.server, r.scenario, out2, fmt.Sprintf("%d/%d", r.landed, r.made), r.gaveUp, refusalText(r), r.reads,
			kchars(r.chars), kchars(r.base), float64(r.chars)/float64(max(r.base, 1)), r.lost, r.lostOutside, r.outsideLost, r.took.Seconds())
	}
	fmt.Fprintln(out, "(landed: edits answered success of those made; refusals: answers refusing an edit, by txedit's code or the peer's words; needed: the agents' first reads and their landed edits' answers without txedit's notes; ratio: chars read / needed;")
	fmt.Fprintln(out, " lost: edits answered success whose change is missing at the end; lost (out): of those, edits an outside save may have overwritten (it read before the answer, wrote after the edit was sent); out lost: outside saves missing at the end)")
	for _, r := range rows {
		if r.scenario == "shared" && strings.HasPrefix(r.server, "txedit") {
			fmt.Fprintf(out, "%s, shared line, outside %s: %d of %d refusals showed the line's current text; %d edits rebased\n", r.server, map[bool]string{true: "yes", false: "no"}[r.outside > 0], r.withRegion, r.refusalCount(), r.rebased)
		}
		if r.scenario == "disjoint" && strings.HasPrefix(r.server, "txedit") {
			fmt.Fprintf(out, "%s, disjoint, outside %s: %d edits rebased on others' changes\n", r.server, map[bool]string{true: "yes", false: "no"}[r.outside > 0], r.rebased)
		}
	}
}

func (c *config) peerLine() string {
	var p []string
	if c.claudeVersion != "" {
		p = append(p, "@anthropic-ai/claude-code@"+c.claudeVersion+" (claude mcp serve)")
	}
	if c.fsVersion != "" {
		p = append(p, "@modelcontextprotocol/server-filesystem@"+c.fsVersion)
	}
	if len(p) == 0 {
		return "none (txedit alone)"
	}
	return strings.Join(p, ", ")
}

func refusalText(r *row) string {
	if len(r.refusals) == 0 {
		return "-"
	}
	var keys []string
	for k := range r.refusals {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, r.refusals[k]))
	}
	return strings.Join(parts, ", ")
}

func kchars(n int) string {
	if n < 10000 {
		return fmt.Sprintf("%d", n)
	}
	return fmt.Sprintf("%.1fk", float64(n)/1000)
}

func loadAvg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "load average ?"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "load average ?"
	}
	return "load average " + strings.Join(f[:3], " ")
}
