// Command searchbench times txedit's read side against ripgrep, fd and cat
// on copies of the Go distribution's src tree, side by side, and prints one
// table per file system and corpus size (bench/README.md: grep within 1.2x of rg
// through the CLI and the toolset's grep tool, glob no slower than fd, batch
// read with hashes within 1.2x of cat).
//
//	go run ./bench/searchbench [-fs disk,tmpfs] [-scale 1,5] [-runs 11] [-only RE]
//
// or `bench/run.sh search [flags]`. Every round runs each method of a
// comparison once, one after the other (txedit CLI, txedit tool, peer), so
// drift of the machine hits all alike; the table shows medians of wall time,
// of CPU time (user+sys, from wait4's rusage: other processes' load barely
// moves it) and of peak RSS (ru_maxrss), and their ratios to the peer.
// Process start is included for every method. Each method runs once
// untimed first, so the page cache is warm for all.
//
// The corpora (a copy of GOROOT/src made a git repository, or -scale
// copies of it) are built under -disk and -tmpfs and kept there for the
// next run unless -clean.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/txedit/txedit/bench/internal/timing"
)

var (
	runs    = flag.Int("runs", 11, "timed runs of each method")
	fsList  = flag.String("fs", "disk,tmpfs", "file systems to run on: disk, tmpfs")
	scales  = flag.String("scale", "1", "corpus sizes, in copies of GOROOT/src (e.g. 1,5)")
	only    = flag.String("only", "", "run only the comparisons whose title matches this regexp")
	diskDir = flag.String("disk", filepath.Join(os.TempDir(), "txedit-searchbench"), "scratch directory on disk")
	shmDir  = flag.String("tmpfs", "/dev/shm/txedit-searchbench", "scratch directory on a tmpfs")
	bin     = flag.String("txedit", "", "txedit binary to time (default: build ./cmd/txedit)")
	before  = flag.String("before", "", "another txedit binary (an older build) timed in the same rounds, for before/after rows")
	clean   = flag.Bool("clean", false, "remove the corpora when done")
	goals   = flag.String("goals", "", "append the batch read's goal line (goal, ratio, pass/miss) to this file, for bench/run.sh's summary")
)

func main() {
	flag.Parse()
	if *before != "" {
		abs, err := filepath.Abs(*before)
		check(err)
		*before = abs
	}
	var filter *regexp.Regexp
	if *only != "" {
		filter = regexp.MustCompile(*only)
	}
	txedit := *bin
	if txedit == "" {
		d, err := os.MkdirTemp("", "searchbench-bin")
		check(err)
		defer os.RemoveAll(d)
		txedit, err = timing.BuildTxedit(d)
		check(err)
	} else if abs, err := filepath.Abs(txedit); err == nil {
		txedit = abs
	}
	fd := "fdfind"
	if _, err := exec.LookPath(fd); err != nil {
		fd = "fd"
	}
	rgVersion, _ := exec.Command("rg", "--version").Output()
	fmt.Printf("%d cores, %s; peers: %s, %s\n", runtime.NumCPU(), runtime.Version(), firstLine(rgVersion), fd)
	for _, fsName := range strings.Split(*fsList, ",") {
		base := map[string]string{"disk": *diskDir, "tmpfs": *shmDir}[fsName]
		if base == "" {
			fmt.Fprintf(os.Stderr, "searchbench: unknown file system %q (want disk or tmpfs)\n", fsName)
			os.Exit(2)
		}
		check(os.MkdirAll(base, 0o755))
		if kind := timing.FSKind(base); (fsName == "tmpfs") != (kind == "tmpfs") {
			fmt.Fprintf(os.Stderr, "searchbench: %s is on %s, not what -fs %s wants; skipped\n", base, kind, fsName)
			continue
		}
		for _, s := range strings.Split(*scales, ",") {
			scale, err := strconv.Atoi(s)
			check(err)
			corpus := makeCorpus(base, scale)
			bench(fsName+" ("+timing.FSKind(base)+")", corpus, scale, txedit, fd, filter)
			if *clean {
				os.RemoveAll(corpus)
			}
		}
	}
}

// method is one way of doing a comparison's job.
type method struct {
	name   string
	via    string // how txedit is called, for the table: CLI, tool, claude Grep…
	before bool   // the -before binary
	argv   []string
	stdin  string // file fed to stdin, or ""
	input  []byte // bytes fed to stdin
}

type comparison struct {
	title string
	tx    []method // txedit's ways (CLI, tool)
	peer  method
}

func bench(fsName, corpus string, scale int, txedit, fd string, filter *regexp.Regexp) {
	list, err := exec.Command("git", "-C", corpus, "ls-files", "--others", "--exclude-standard").Output()
	check(err)
	files := strings.Fields(string(list))
	var bytesTotal int64
	for _, f := range files {
		if fi, err := os.Lstat(filepath.Join(corpus, f)); err == nil {
			bytesTotal += fi.Size()
		}
	}
	// The batch read's request and cat's list: every file a walk reads.
	readReq, _ := json.Marshal(map[string]any{"mode": "Line", "paths": files})
	reqFile := filepath.Join(filepath.Dir(corpus), filepath.Base(corpus)+"-read.json")
	check(os.WriteFile(reqFile, readReq, 0o644))
	listFile := filepath.Join(filepath.Dir(corpus), filepath.Base(corpus)+"-files.txt")
	check(os.WriteFile(listFile, []byte(strings.Join(files, "\n")+"\n"), 0o644))

	rg := func(args ...string) method {
		return method{name: "rg", argv: append([]string{"rg", "--no-config"}, args...)}
	}
	cli := func(args ...string) method {
		return method{name: "txedit grep", via: "CLI", argv: append([]string{txedit, "grep"}, args...)}
	}
	tool := func(args map[string]any) method {
		in, _ := json.Marshal(args)
		return method{name: "txedit tool grep", via: "tool", argv: []string{txedit, "tool", "grep", "--toolset", "txedit"}, input: in}
	}
	// The other toolsets' grep tools, with the arguments each takes
	// (deepagents' grep has no case folding and no context: it is
	// left out of the comparisons that need them).
	dialect := func(toolset, name string, args map[string]any) method {
		in, _ := json.Marshal(args)
		return method{name: "txedit tool " + name, via: toolset + " " + name, argv: []string{txedit, "tool", name, "--toolset", toolset}, input: in}
	}
	claude := func(args map[string]any) method {
		a := map[string]any{"head_limit": 1 << 30} // Claude Code's Grep stops at 250 by default
		for k, v := range args {
			a[k] = v
		}
		return dialect("claude", "Grep", a)
	}
	codex := func(args map[string]any) method { return dialect("codex", "grep", args) }
	deep := func(args map[string]any) method { return dialect("deepagents", "grep", args) }
	lit := map[string]any{"pattern": "func main"}
	cnt := map[string]any{"pattern": `func \w+\(ctx context\.Context`, "output_mode": "count"}
	ctx := map[string]any{"pattern": `errors\.New\(`, "output_mode": "content", "-n": true, "-C": 2}
	alt := map[string]any{"pattern": `fmt\.Errorf|errors\.New|panic\(`, "output_mode": "count"}
	word := map[string]any{"pattern": `\bdeprecated\b`, "-i": true}
	comps := []comparison{
		{"grep -l literal: func main", []method{cli("-l", "func main"), tool(lit), claude(lit), codex(lit), deep(lit)}, rg("-l", "func main")},
		{`grep -c regex: func \w+\(ctx context\.Context`, []method{cli("-c", `func \w+\(ctx context\.Context`), tool(cnt), claude(cnt), codex(cnt), deep(cnt)},
			rg("-c", `func \w+\(ctx context\.Context`)},
		{`grep content -n -C2: errors\.New\(`, []method{cli("-n", "-C", "2", `errors\.New\(`), tool(ctx), claude(ctx), codex(ctx)},
			rg("--no-heading", "-n", "-C", "2", `errors\.New\(`)},
		{`grep -c alternation: fmt\.Errorf|errors\.New|panic\(`, []method{cli("-c", `fmt\.Errorf|errors\.New|panic\(`), tool(alt), claude(alt), codex(alt), deep(alt)},
			rg("-c", `fmt\.Errorf|errors\.New|panic\(`)},
		{`grep -l -i word: \bdeprecated\b`, []method{cli("-l", "-i", `\bdeprecated\b`), tool(word), claude(word), codex(word)}, rg("-l", "-i", `\bdeprecated\b`)},
		{"glob **/*.go", []method{{name: "txedit glob", via: "CLI", argv: []string{txedit, "glob", "**/*.go"}},
			{name: "txedit tool glob", via: "tool", argv: []string{txedit, "tool", "glob", "--toolset", "txedit"}, input: []byte(`{"pattern":"**/*.go"}`)}},
			method{name: "fd", argv: []string{fd, "-t", "f", "-g", "**/*.go"}}},
		{"batch read, every file, with hashes", []method{{name: "txedit read --json", via: "CLI", argv: []string{txedit, "read", "--json", reqFile}}},
			method{name: "xargs cat", argv: []string{"xargs", "-d", `\n`, "cat"}, stdin: listFile}},
	}
	load := timing.LoadAvg()
	fmt.Printf("\n%s, %s: %d files, %.0f MiB; median of %d runs; load average %s\n", fsName, corpus, len(files), float64(bytesTotal)/(1<<20), *runs, load)
	fmt.Printf("%-52s %9s %9s %6s %8s %8s %6s %7s %7s %5s\n", "comparison", "txedit", "peer", "ratio", "CPU tx", "CPU peer", "ratio", "RSS tx", "RSS pr", "ratio")
	for _, c := range comps {
		if filter != nil && !filter.MatchString(c.title) {
			continue
		}
		tx := c.tx
		if *before != "" {
			for _, m := range c.tx {
				b := m
				b.argv = append([]string{*before}, m.argv[1:]...)
				b.before = true
				tx = append(tx, b)
			}
		}
		ms := append(append([]method{}, tx...), c.peer)
		if strings.HasPrefix(c.title, "grep") {
			agree(corpus, c, ms)
		}
		samples := make([][]timing.Sample, len(ms))
		for r := -1; r < *runs; r++ { // round -1 warms the cache, untimed
			for i, m := range ms {
				s, err := runOnce(corpus, m)
				check(err)
				if r >= 0 {
					samples[i] = append(samples[i], s)
				}
			}
		}
		peer := medians(samples[len(ms)-1])
		for i, m := range tx {
			t := medians(samples[i])
			via := m.via
			if m.before {
				via += ", before"
			}
			fmt.Printf("%-52s %9s %9s %5.2fx %8s %8s %5.2fx %6.1fM %6.1fM %4.1fx\n", trunc(c.title+" ("+via+")", 52),
				ms3(t.Wall), ms3(peer.Wall), ratio(t.Wall, peer.Wall), ms3(t.CPU), ms3(peer.CPU), ratio(t.CPU, peer.CPU),
				float64(t.RSSKB)/1024, float64(peer.RSSKB)/1024, float64(t.RSSKB)/float64(max(peer.RSSKB, 1)))
			if strings.HasPrefix(c.title, "batch read") && !m.before {
				r := ratio(t.Wall, peer.Wall)
				check(timing.Goal(*goals, fmt.Sprintf("batch read within 1.2x of cat (%s, %d files)", fsName, len(files)), fmt.Sprintf("%.2fx", r), r <= 1.2))
			}
		}
	}
	if timing.TimeBin != "" {
		fmt.Printf("(load average after: %s; peak RSS as /usr/bin/time reports it)\n", timing.LoadAvg())
	} else {
		fmt.Printf("(load average after: %s; no /usr/bin/time: peak RSS from wait4, at least this process's own %.1fM)\n", timing.LoadAvg(), float64(selfMaxRSS())/1024)
	}
}

// agree warns when txedit's CLI and the peer do not print the same
// number of lines: the comparison would not be of the same work.
func agree(corpus string, c comparison, ms []method) {
	out := func(m method) int {
		cmd := command(corpus, m)
		var lc lineCounter
		cmd.Stdout = &lc
		cmd.Run()
		return int(lc)
	}
	if a, b := out(ms[0]), out(c.peer); a != b {
		fmt.Fprintf(os.Stderr, "searchbench: %s: %s prints %d lines, %s %d\n", c.title, ms[0].name, a, c.peer.name, b)
	}
}

// lineCounter counts the lines written to it: the output is not kept,
// so that this process stays small (a child's peak RSS as wait4 reports
// it is at least its parent's at the fork).
type lineCounter int

func (c *lineCounter) Write(p []byte) (int, error) {
	*c += lineCounter(bytes.Count(p, []byte{'\n'}))
	return len(p), nil
}

func command(dir string, m method) *exec.Cmd {
	cmd := exec.Command(m.argv[0], m.argv[1:]...)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	switch {
	case m.stdin != "":
		f, err := os.Open(m.stdin)
		check(err)
		cmd.Stdin = f
	case m.input != nil:
		cmd.Stdin = bytes.NewReader(m.input)
	}
	return cmd
}

// runOnce runs m with its output into a pipe that is drained, as a
// caller would read it, and returns its wall time, CPU time (its and its
// children's) and peak RSS (timing.RunMeasured: GNU time's, if installed).
func runOnce(dir string, m method) (timing.Sample, error) {
	cmd := command(dir, m)
	cmd.Stdout = io.Discard
	s, err := timing.RunMeasured(cmd)
	if f, ok := cmd.Stdin.(*os.File); ok {
		f.Close()
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 1 {
		err = nil // no match, as grep says
	}
	return s, err
}

func medians(ss []timing.Sample) timing.Sample {
	m, _ := timing.Medians(ss)
	return m
}

func ratio(a, b time.Duration) float64 { return float64(a) / float64(max(b, 1)) }

func ms3(d time.Duration) string { return fmt.Sprintf("%.1fms", float64(d)/1e6) }

func trunc(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}

// makeCorpus returns base/srcN, a git repository holding scale copies of
// GOROOT/src (the tree itself when scale is 1), making it if needed.
func makeCorpus(base string, scale int) string {
	corpus := filepath.Join(base, fmt.Sprintf("src%d", scale))
	if _, err := os.Stat(filepath.Join(corpus, ".git")); err == nil {
		return corpus
	}
	os.RemoveAll(corpus)
	src := filepath.Join(timing.GoRoot(), "src")
	fmt.Fprintf(os.Stderr, "searchbench: copying %s into %s (%d copies)\n", src, corpus, scale)
	for i := 0; i < scale; i++ {
		dst := corpus
		if scale > 1 {
			dst = filepath.Join(corpus, fmt.Sprintf("copy%d", i))
		}
		check(os.MkdirAll(filepath.Dir(dst), 0o755))
		if out, err := exec.Command("cp", "-a", src, dst).CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "cp: %v %s", err, out)
			os.Exit(1)
		}
	}
	cmd := exec.Command("git", "init", "-q")
	cmd.Dir = corpus
	check(cmd.Run())
	return corpus
}

func selfMaxRSS() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return int64(ru.Maxrss)
}

func firstLine(b []byte) string {
	s, _, _ := strings.Cut(string(b), "\n")
	return s
}

func check(err error) {
	if err != nil {
		panic(err)
	}
}
