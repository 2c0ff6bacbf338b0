// Command agentloopbench measures the agent's loop (bench/README.md,
// "Agent loop"): many small edits, each answered before the next is
// sent, through MCP and through the CLI, side by side with the official MCP
// filesystem server (@modelcontextprotocol/server-filesystem, which journals
// nothing and never syncs), at several journal sizes, and prints per-edit
// times, their ratios of medians and the system calls each edit makes.
//
//	go run ./bench/agentloopbench -txedit BIN -sdk DIR [-official DIR] [-n 200] [-journals 0,200,1000] [-runs 5] [-dir DIR]
//
// Every measurement runs through the official TypeScript MCP client
// (loop.mjs, embedded, run by node with the SDK at -sdk), on a fresh copy of
// a corpus whose journal already retains the given number of transactions,
// with TXEDIT_KEEP at that number (so each commit also retires the oldest, a
// long session's steady state; journal size 0 keeps the default, 200, and
// the journal grows by the loop's own edits). Measures:
//
//   - N sequential edits of one file, each a str_replace answered with its
//     diff: the official server's edit_file, txedit's fs_write (the default
//     toolset, the command + path form), after one untimed read (txedit's
//     read-before-write rule);
//   - one edit in each of N files, the same way (the N reads untimed);
//   - a dry-run edit (edit_file dryRun, fs_write dry_run), repeated;
//   - spawn to first tools/list: start the server, initialize, list tools;
//   - the one-file edits through the CLI, `txedit apply --json -`, a
//     process per edit (no session: no read), set against the official
//     server's MCP edits of the same round.
//
// Each round runs every measure at every journal size, the official server
// and txedit one after the other, in alternating order. Then, untimed, the
// system calls of one edit (strace -f -c) at each journal size: of the CLI
// process, and of each MCP server, attached after its read.
// TXEDIT_TIMINGS=1 is set for txedit's timed runs: where its time goes, by
// phase.
package main

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/txedit/txedit/bench/internal/timing"
	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/plan"
)

//go:embed loop.mjs
var loopScript []byte

// The journal's default retention (README, "Undo, redo and the journal").
const defaultKeep = 200

type config struct {
	dir, txedit, sdk, official, node, strace string
	n, runs, spawns, dryRuns, straceEdits    int
	journals                                 []int
	only                                     *regexp.Regexp
	goals                                    string
	fsKind                                   string
	verbose                                  bool
	profile                                  string
	think                                    time.Duration
}

func main() {
	var c config
	var journals, only string
	flag.StringVar(&c.dir, "dir", "", "scratch directory, on the file system to measure (default: a temp dir)")
	flag.StringVar(&c.txedit, "txedit", "", "txedit binary (default: built from this module)")
	flag.StringVar(&c.sdk, "sdk", "", "the @modelcontextprotocol/sdk package directory (node_modules/@modelcontextprotocol/sdk)")
	flag.StringVar(&c.official, "official", "", "the @modelcontextprotocol/server-filesystem package directory; empty: txedit alone")
	flag.StringVar(&c.node, "node", "node", "node binary")
	flag.IntVar(&c.n, "n", 200, "edits of the one file, and files edited once each")
	flag.StringVar(&journals, "journals", "0,200,1000", "journal sizes: transactions retained when a loop starts")
	flag.IntVar(&c.runs, "runs", 5, "runs of each measure")
	flag.IntVar(&c.spawns, "spawns", 3, "server starts per run of the spawn measure")
	flag.IntVar(&c.dryRuns, "dry-runs", 50, "dry-run edits per run (the first few pay for warming the server up)")
	flag.IntVar(&c.straceEdits, "strace", 20, "edits counted under strace -f -c per case (0: no system call table)")
	flag.StringVar(&only, "only", "", "run only the measures whose name matches this regexp (no goal lines then)")
	flag.StringVar(&c.goals, "goals", "", "append the goal lines (goal, measured, pass/miss) to this file, for bench/run.sh's summary")
	flag.BoolVar(&c.verbose, "v", false, "say how long each node task took")
	flag.DurationVar(&c.think, "think", 0, "an agent's thinking time before each MCP edit (e.g. 20ms): the client waits that long, untimed, so an edit is measured from its request to its answer with the server idle before it (what a server does after an answer, such as txedit's retention, falls in the pause); 0: each edit sent as the last is answered")
	flag.StringVar(&c.profile, "profile", "", "write a CPU profile of txedit's MCP server over each MCP run into this directory (TXEDIT_CPUPROFILE; go tool pprof -top BIN FILE); such a run's times carry the profiler's cost")
	flag.Parse()
	if c.sdk == "" {
		fail(errors.New("-sdk: the @modelcontextprotocol/sdk package directory is needed (bench/run.sh agentloop installs it)"))
	}
	for _, s := range strings.Split(journals, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || k < 0 {
			fail(fmt.Errorf("-journals: %q is not a journal size", s))
		}
		c.journals = append(c.journals, k)
	}
	sort.Ints(c.journals)
	if only != "" {
		c.only = regexp.MustCompile(only)
		c.goals = ""
	}
	if c.n < 1 || c.runs < 1 {
		fail(errors.New("-n and -runs must be at least 1"))
	}
	if c.dir == "" {
		d, err := os.MkdirTemp("", "agentloopbench")
		check(err)
		defer os.RemoveAll(d)
		c.dir = d
	}
	check(os.MkdirAll(c.dir, 0o755))
	if c.txedit == "" {
		bin, err := timing.BuildTxedit(c.dir)
		check(err)
		c.txedit = bin
	}
	if c.profile != "" {
		check(os.MkdirAll(c.profile, 0o755))
	}
	for _, p := range []*string{&c.txedit, &c.sdk, &c.official, &c.dir, &c.profile} {
		if *p != "" {
			abs, err := filepath.Abs(*p)
			check(err)
			*p = abs
		}
	}
	if c.straceEdits > 0 {
		c.strace = straceWorks()
	}
	if err := run(os.Stdout, &c); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "agentloopbench: %v\n", err)
	os.Exit(1)
}

func check(err error) {
	if err != nil {
		fail(err)
	}
}

// straceWorks returns strace's path when it can trace here (ptrace may be
// forbidden in a container), else "" after saying why.
func straceWorks() string {
	bin, err := exec.LookPath("strace")
	if err != nil {
		fmt.Fprintln(os.Stderr, "agentloopbench: strace is not installed (apt-get install strace): no system call table")
		return ""
	}
	if out, err := exec.Command(bin, "-f", "-c", "-o", os.DevNull, "true").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "agentloopbench: strace does not work here (%v: %s): no system call table\n", err, bytes.TrimSpace(out))
		return ""
	}
	return bin
}

// edit is one str_replace of the loop.
type edit struct{ path, old, new string }

// corpus is the tree every run starts from, one per journal size.
type corpus struct {
	one    string   // the file edited N times
	files  []string // the N files edited once each
	single []edit   // the N edits of one
	each   []edit   // one edit of each of files
	dry    edit     // the dry-run edit (of one)
}

func newCorpus(n int) *corpus {
	c := &corpus{one: "loop/one.go"}
	for i := 0; i < n; i++ {
		c.single = append(c.single, edit{c.one, fmt.Sprintf("value_0_%d = compute(%d)", i, i), fmt.Sprintf("value_0_%d = recompute(%d, cache)", i, i)})
		f := fmt.Sprintf("pkg%02d/file%04d.go", i%20, i)
		c.files = append(c.files, f)
		c.each = append(c.each, edit{f, fmt.Sprintf("value_%d_7 = compute(7)", i+1), fmt.Sprintf("value_%d_7 = recompute(7, cache)", i+1)})
	}
	c.dry = c.single[0]
	return c
}

// write lays the corpus out under root: the one file has a line per edit
// (at least 100, about 40 bytes each), every other file about 4 KiB; each
// starts with a "// rev 0" line, which the journal's pre-filled
// transactions change.
func (c *corpus) write(root string) error {
	lines := max(len(c.single), 100)
	var b strings.Builder
	b.WriteString("// rev 0\npackage loop\n\n")
	for l := 0; l < lines; l++ {
		fmt.Fprintf(&b, "var value_0_%d = compute(%d) // line %d\n", l, l, l)
	}
	if err := writeFile(filepath.Join(root, c.one), b.String()); err != nil {
		return err
	}
	for i, f := range c.files {
		b.Reset()
		fmt.Fprintf(&b, "// rev 0\npackage pkg%02d\n\n", i%20)
		for l := 0; b.Len() < 4096; l++ {
			fmt.Fprintf(&b, "var value_%d_%d = compute(%d) // line %d of file %d\n", i+1, l, l, l, i+1)
		}
		if err := writeFile(filepath.Join(root, f), b.String()); err != nil {
			return err
		}
	}
	return nil
}

func writeFile(path, content string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(content), 0o644)
}

// prefill commits k transactions with the txedit library in this process,
// each a one-line edit of the corpus's files in turn (their "// rev" line),
// so that the journal retains k when a loop starts. They are not synced one
// by one (the journal is the same; a sync(2) follows before any clock).
func prefill(root string, c *corpus, k int) error {
	if k == 0 {
		return nil
	}
	w, err := engine.Open(root, &engine.Options{Durability: engine.NotDurable, Keep: k, Agent: "prefill"})
	if err != nil {
		return err
	}
	defer w.Close()
	paths := append([]string{c.one}, c.files...)
	rev := make(map[string]int)
	for j := 0; j < k; j++ {
		p := paths[j%len(paths)]
		r := rev[p]
		rev[p] = r + 1
		req, err := json.Marshal(map[string]string{"command": "str_replace", "path": p,
			"old_str": fmt.Sprintf("// rev %d\n", r), "new_str": fmt.Sprintf("// rev %d\n", r+1)})
		if err != nil {
			return err
		}
		r1, err := plan.Parse(req)
		if err != nil {
			return err
		}
		if res, err := w.Apply(context.Background(), r1); err != nil {
			return fmt.Errorf("prefill: %v", err)
		} else if res.FilesModified != 1 {
			return fmt.Errorf("prefill: transaction %d changed %d files", j, res.FilesModified)
		}
	}
	return nil
}
