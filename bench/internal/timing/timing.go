// Package timing runs benchmark methods side by side and reports medians
// and their ratios, with CPU time and peak RSS of child processes.
package timing

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Method is one way of doing the benchmarked job: either Run, in this
// process, or Cmd, a child process measured by RunMeasured.
type Method struct {
	Name string
	// Setup runs before each timed run, untimed (may be nil).
	Setup func() error
	// Run does the job in this process; its sample has no peak RSS.
	Run func() error
	// Cmd returns the child process doing the job (not started), when
	// Run is nil.
	Cmd func() *exec.Cmd
	// Teardown runs after each timed run, untimed (may be nil).
	Teardown func() error
}

// Sample is one timed run.
type Sample struct {
	Wall time.Duration
	// CPU is user+system time: of the child and the children it waited
	// for, or of this whole process for a method run in it.
	CPU time.Duration
	// RSSKB is the peak resident set of the child, in KiB: for a shell
	// pipeline, of its largest process (not their sum). 0 for a method
	// run in this process.
	RSSKB int64
}

// Interleaved runs every method runs times, one after the other in each
// round, so that drift of the machine hits all alike, and returns each
// method's samples.
func Interleaved(runs int, methods []Method) ([][]Sample, error) {
	samples := make([][]Sample, len(methods))
	for r := 0; r < runs; r++ {
		for i, m := range methods {
			s, err := m.once()
			if err != nil {
				return nil, err
			}
			samples[i] = append(samples[i], s)
		}
	}
	return samples, nil
}

// Alternating is Interleaved with every other round in the reverse
// order: no method always runs right after the same one (whose unsynced
// leftovers, writeback and cache state it would meet every time), and a
// method early in a round is late in the next.
func Alternating(runs int, methods []Method) ([][]Sample, error) {
	samples := make([][]Sample, len(methods))
	for r := 0; r < runs; r++ {
		for k := range methods {
			i := k
			if r%2 == 1 {
				i = len(methods) - 1 - k
			}
			s, err := methods[i].once()
			if err != nil {
				return nil, err
			}
			samples[i] = append(samples[i], s)
		}
	}
	return samples, nil
}

func (m Method) once() (Sample, error) {
	if m.Setup != nil {
		if err := m.Setup(); err != nil {
			return Sample{}, fmt.Errorf("%s setup: %w", m.Name, err)
		}
	}
	var s Sample
	var err error
	if m.Run != nil {
		cpu0 := selfCPU()
		start := time.Now()
		err = m.Run()
		s.Wall = time.Since(start)
		s.CPU = selfCPU() - cpu0
	} else {
		s, err = RunMeasured(m.Cmd())
	}
	if err != nil {
		return Sample{}, fmt.Errorf("%s: %w", m.Name, err)
	}
	if m.Teardown != nil {
		if err := m.Teardown(); err != nil {
			return Sample{}, fmt.Errorf("%s teardown: %w", m.Name, err)
		}
	}
	return s, nil
}

// TimeBin is GNU time, if installed: RunMeasured takes peak RSS from it.
// A child that Go starts shares this process's memory until it execs
// (vfork), and the kernel counts that in the child's ru_maxrss; time(1)
// forks the command from its own small process, so what it reports is
// the command's own.
var TimeBin, _ = exec.LookPath("/usr/bin/time")

// RunMeasured runs cmd (not yet started) and returns its wall time, CPU
// time and peak RSS. Without GNU time the peak RSS is wait4's, at least
// this process's own at the fork. An unset Stdout goes to /dev/null; an
// unset Stderr is kept for the error of a failing command. The error of
// a command that exits non-zero is an *exec.ExitError, wrapped.
func RunMeasured(cmd *exec.Cmd) (Sample, error) {
	var rssFile string
	if TimeBin != "" {
		f, err := os.CreateTemp("", "timing-rss")
		if err != nil {
			return Sample{}, err
		}
		f.Close()
		rssFile = f.Name()
		defer os.Remove(rssFile)
		cmd.Args = append([]string{TimeBin, "-f", "%M", "-o", rssFile, cmd.Path}, cmd.Args[1:]...)
		cmd.Path = TimeBin
	}
	var stderr bytes.Buffer
	if cmd.Stderr == nil {
		cmd.Stderr = &limited{&stderr, 4096}
	}
	start := time.Now()
	err := cmd.Run()
	s := Sample{Wall: time.Since(start)}
	if ps := cmd.ProcessState; ps != nil {
		s.CPU = ps.UserTime() + ps.SystemTime()
		if rssFile != "" {
			out, _ := os.ReadFile(rssFile)
			if f := strings.Fields(string(out)); len(f) > 0 {
				s.RSSKB, _ = strconv.ParseInt(f[len(f)-1], 10, 64)
			}
		} else if ru, _ := ps.SysUsage().(*syscall.Rusage); ru != nil {
			s.RSSKB = int64(ru.Maxrss) // KiB on Linux
		}
	}
	if err != nil {
		name := cmd.Args
		if rssFile != "" {
			name = name[5:]
		}
		return s, fmt.Errorf("%s: %w: %s", strings.Join(name, " "), err, strings.TrimSpace(stderr.String()))
	}
	return s, nil
}

// limited keeps the first n bytes written to it.
type limited struct {
	b *bytes.Buffer
	n int
}

func (l *limited) Write(p []byte) (int, error) {
	if room := l.n - l.b.Len(); room > 0 {
		l.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

func selfCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BuildTxedit builds the txedit command, and txedit-mcp beside it (txedit
// mcp runs it), into dir and returns txedit's path.
func BuildTxedit(dir string) (string, error) {
	bin := dir + "/txedit"
	out, err := exec.Command("go", "build", "-o", dir+"/", "github.com/txedit/txedit/cmd/txedit", "github.com/txedit/txedit/cmd/txedit-mcp").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("build txedit: %v\n%s", err, out)
	}
	return bin, nil
}

// Median returns the median of ds.
func Median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

// Medians returns the median of each field of ss, and the largest peak
// RSS of all.
func Medians(ss []Sample) (med Sample, maxRSSKB int64) {
	var w, c []time.Duration
	var r []int64
	for _, s := range ss {
		w, c, r = append(w, s.Wall), append(c, s.CPU), append(r, s.RSSKB)
	}
	sort.Slice(r, func(i, j int) bool { return r[i] < r[j] })
	return Sample{Wall: Median(w), CPU: Median(c), RSSKB: r[len(r)/2]}, r[len(r)-1]
}

// Command returns a Run function executing name args in dir with output
// discarded; exit status 1 (no match) counts as success, as for grep.
func Command(dir, name string, args ...string) func() error {
	return func() error {
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Stdout = io.Discard
		cmd.Stderr = os.Stderr
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 {
			return nil
		}
		return err
	}
}

// Ref is a method that Report divides the others' medians by.
type Ref struct {
	Label string // column heading, as "vs sd"
	Index int    // the method's index
}

// Report prints, for each method, the medians of wall time, CPU time and
// peak RSS ("-" for a method run in this process), and the ratio of its
// median wall time to each reference method's.
func Report(w io.Writer, names []string, samples [][]Sample, refs ...Ref) {
	width := 44
	for _, n := range names {
		width = max(width, len(n))
	}
	fmt.Fprintf(w, "%-*s %10s %10s %9s", width, "method", "median", "CPU", "peak RSS")
	for _, r := range refs {
		fmt.Fprintf(w, " %12s", r.Label)
	}
	fmt.Fprintln(w)
	for i, n := range names {
		m, _ := Medians(samples[i])
		rss := "-"
		if m.RSSKB > 0 {
			rss = MiB(m.RSSKB)
		}
		fmt.Fprintf(w, "%-*s %10s %10s %9s", width, n, Ms(m.Wall), Ms(m.CPU), rss)
		for _, r := range refs {
			fmt.Fprintf(w, " %11.2fx", Ratio(samples[i], samples[r.Index]))
		}
		fmt.Fprintln(w)
	}
}

// Ratio is the median wall time of a over that of b.
func Ratio(a, b []Sample) float64 {
	ma, _ := Medians(a)
	mb, _ := Medians(b)
	return float64(ma.Wall) / float64(max(mb.Wall, 1))
}

// PairedRatio is the median, over the rounds, of a's wall time over b's
// in the same round (a and b sampled by Interleaved or Alternating, one
// sample each a round): drift of the machine between rounds, which moves
// both alike, cancels in each ratio. Samples beyond the shorter are left
// out; with none, 0.
func PairedRatio(a, b []Sample) float64 {
	n := min(len(a), len(b))
	if n == 0 {
		return 0
	}
	rs := make([]float64, n)
	for i := range n {
		rs[i] = float64(a[i].Wall) / float64(max(b[i].Wall, 1))
	}
	sort.Float64s(rs)
	if n%2 == 1 {
		return rs[n/2]
	}
	return (rs[n/2-1] + rs[n/2]) / 2
}

// Ms formats d in milliseconds.
func Ms(d time.Duration) string { return fmt.Sprintf("%.1fms", float64(d)/1e6) }

// MiB formats a size in KiB as MiB.
func MiB(kb int64) string { return fmt.Sprintf("%.1fM", float64(kb)/1024) }

// Goal appends one line to the goals file (when file is not ""), for
// bench/run.sh's summary: the goal, what was measured, and pass or miss.
func Goal(file, goal, measured string, pass bool) error {
	if file == "" {
		return nil
	}
	f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	verdict := "miss"
	if pass {
		verdict = "pass"
	}
	_, err = fmt.Fprintf(f, "%s\t%s\t%s\n", goal, measured, verdict)
	if err1 := f.Close(); err == nil {
		err = err1
	}
	return err
}

// LoadAvg returns the load averages of the last 1, 5 and 15 minutes.
func LoadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// GoRoot returns the Go distribution's root as `go env GOROOT` says (the
// benchmarks copy its src tree as their corpus).
func GoRoot() string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		panic("go env GOROOT: " + err.Error())
	}
	return strings.TrimSpace(string(out))
}

// SdLiteral returns sd's flag for a literal (not regex) find string:
// -F (--fixed-strings) since sd 1.0, -s (--string-mode) before.
func SdLiteral() string {
	out, _ := exec.Command("sd", "--help").CombinedOutput()
	if bytes.Contains(out, []byte("--fixed-strings")) {
		return "-F"
	}
	return "-s"
}
