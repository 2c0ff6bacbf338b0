// Command startbench measures process start (bench/README.md, "Process
// start"): how long
// `txedit version` takes against a Go hello world built by the same
// toolchain in the same run, and how long commands that do real work take
// when an agent shells out for each call (a one-file read, the list of a
// toolset's tools). Methods run interleaved, one after the other in each
// round, as separate processes started from this one; the table has the
// median wall and CPU times and each method's ratio to hello world.
//
// Wall time, not CPU time, is the measure (what the agent waits); with
// other work on the machine the medians drift together (interleaving), but
// a ratio is only as good as the quietest run: run it on a quiet machine
// (bench/README.md, "Process start").
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"

	"github.com/txedit/txedit/bench/internal/timing"
)

const hello = `package main

import "fmt"

func main() { fmt.Println("hello, world") }
`

func main() {
	runs := flag.Int("runs", 300, "rounds (every method once per round)")
	txedit := flag.String("txedit", "", "the txedit binary (default: built here)")
	dir := flag.String("dir", "", "scratch directory (default: a temporary one)")
	goals := flag.String("goals", "", "append the goal line to this file (bench/run.sh's summary)")
	before := flag.String("before", "", "another txedit binary (an earlier build) whose version command runs beside, for a before and after")
	flag.Parse()
	if err := run(*runs, *txedit, *before, *dir, *goals); err != nil {
		fmt.Fprintln(os.Stderr, "startbench:", err)
		os.Exit(1)
	}
}

func run(runs int, txedit, before, dir, goals string) error {
	if dir == "" {
		d, err := os.MkdirTemp("", "startbench")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	if txedit == "" {
		bin, err := timing.BuildTxedit(filepath.Join(dir, "bin"))
		if err != nil {
			return err
		}
		txedit = bin
	}
	helloBin, err := buildHello(dir)
	if err != nil {
		return err
	}
	work := filepath.Join(dir, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(work, "a.txt"), []byte("one\ntwo\nthree\n"), 0o644); err != nil {
		return err
	}
	req := filepath.Join(dir, "read.json")
	if err := os.WriteFile(req, []byte(`{"mode":"Line","path":"a.txt"}`), 0o644); err != nil {
		return err
	}
	// A child's peak RSS is not measured: GNU time would add its own
	// process start to every sample, and without it wait4 counts this
	// process's memory at the fork.
	timing.TimeBin = ""
	cmd := func(name string, args ...string) func() *exec.Cmd {
		return func() *exec.Cmd {
			c := exec.Command(name, args...)
			c.Dir = work
			c.Env = append(os.Environ(), "TXEDIT_AGENT=startbench")
			return c
		}
	}
	withStdin := func(mk func() *exec.Cmd, file string) func() *exec.Cmd {
		return func() *exec.Cmd {
			c := mk()
			c.Stdin, _ = os.Open(file) // closed by Wait
			return c
		}
	}
	trueBin, err := exec.LookPath("true")
	if err != nil {
		return err
	}
	methods := []timing.Method{
		{Name: "true (the floor: a process spawned and waited for)", Cmd: cmd(trueBin)},
		{Name: "hello world (Go, same toolchain)", Cmd: cmd(helloBin)},
		{Name: "txedit version", Cmd: cmd(txedit, "version")},
		{Name: "txedit read (one file's lines)", Cmd: cmd(txedit, "read", req)},
		{Name: "txedit tool fs_read (the same, as a tool)", Cmd: withStdin(cmd(txedit, "tool", "fs_read"), req)},
	}
	if before != "" {
		methods = append(methods, timing.Method{Name: "txedit version (-before " + filepath.Base(before) + ")", Cmd: cmd(before, "version")})
	}
	names := make([]string, len(methods))
	for i, m := range methods {
		names[i] = m.Name
	}
	// One untimed round: the page cache holds every binary.
	if _, err := timing.Interleaved(1, methods); err != nil {
		return err
	}
	samples, err := timing.Interleaved(runs, methods)
	if err != nil {
		return err
	}
	for _, ss := range samples {
		for i := range ss {
			ss[i].RSSKB = 0
		}
	}
	fi, _ := os.Stat(txedit)
	hi, _ := os.Stat(helloBin)
	fmt.Printf("process start: %d rounds; %s; load average %s; txedit %.1f MB, hello world %.1f MB\n",
		runs, runtime.Version(), timing.LoadAvg(), float64(fi.Size())/1e6, float64(hi.Size())/1e6)
	timing.Report(os.Stdout, names, samples, timing.Ref{Label: "vs hello", Index: 1})
	// The spawn itself (fork, exec, wait: what /bin/true costs) is the
	// same for every method and would pull every ratio towards 1; the
	// goal is judged on what is left of each median once the floor's is
	// taken off.
	floor, _ := timing.Medians(samples[0])
	helloMed, _ := timing.Medians(samples[1])
	fmt.Printf("\nless the floor (%s): ", timing.Ms(floor.Wall))
	net := func(i int) float64 {
		m, _ := timing.Medians(samples[i])
		return float64(m.Wall-floor.Wall) / float64(max(helloMed.Wall-floor.Wall, 1))
	}
	for i := 2; i < len(methods); i++ {
		fmt.Printf("%s %.2fx hello world's", methods[i].Name, net(i))
		if i < len(methods)-1 {
			fmt.Print("; ")
		}
	}
	fmt.Println()
	r := net(2)
	return timing.Goal(goals, "process start: txedit version within 1.5x of a Go hello world (less the spawn floor)", fmt.Sprintf("%.2fx", r), r <= 1.5)
}

// buildHello builds a hello world with the go command that builds txedit.
func buildHello(dir string) (string, error) {
	src := filepath.Join(dir, "hello")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(src, "main.go"), []byte(hello), 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(src, "go.mod"), []byte("module hello\n\ngo 1.26\n"), 0o644); err != nil {
		return "", err
	}
	bin := filepath.Join(src, "hello")
	c := exec.Command("go", "build", "-o", bin, ".")
	c.Dir = src
	if out, err := c.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build hello world: %v\n%s", err, out)
	}
	return bin, nil
}
