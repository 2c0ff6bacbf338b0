// Command replacebench times a literal replacement across a copy of the Go
// src tree (errors.New( -> errors.Newf(, about 600 files) by txedit, with
// its journal and fsync on, side by side with `rg -l | xargs sd` and
// `find | xargs sed -i` (which journal nothing), and prints medians and
// ratios (SPEC §11: no slower than rg | sd).
//
//	go run ./bench/replacebench [-runs 7] [-dir DIR]
//
// Every run starts from the pristine tree (git checkout of a committed
// copy) and sync(2) flushes before the clock starts.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"

	"github.com/txedit/txedit/bench/internal/timing"
)

const (
	find = "errors.New("
	repl = "errors.Newf("
)

func main() {
	runs := flag.Int("runs", 7, "runs of each method")
	dir := flag.String("dir", "", "scratch directory (default: a temp dir, removed after)")
	flag.Parse()
	if *dir == "" {
		d, err := os.MkdirTemp("", "replacebench")
		check(err)
		defer os.RemoveAll(d)
		*dir = d
	}
	txedit, err := timing.BuildTxedit(*dir)
	check(err)
	corpus := filepath.Join(*dir, "tree")
	if _, err := os.Stat(filepath.Join(corpus, ".git")); err != nil {
		check(exec.Command("cp", "-a", filepath.Join(timing.GoRoot(), "src"), corpus).Run())
		for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "pristine"}} {
			cmd := exec.Command("git", args...)
			cmd.Dir = corpus
			check(cmd.Run())
		}
	}
	reset := func() error {
		os.RemoveAll(filepath.Join(corpus, ".txedit"))
		cmd := exec.Command("git", "checkout", "-q", "--", ".")
		cmd.Dir = corpus
		if err := cmd.Run(); err != nil {
			return err
		}
		syscall.Sync()
		return nil
	}
	methods := []timing.Method{
		{Name: "txedit replace --literal (journal, durable)", Setup: reset,
			Run: timing.Command(corpus, txedit, "replace", "--literal", "--glob", "*.go", "s/"+find+"/"+repl+"/g")},
		{Name: "find -name '*.go' -type f | xargs sed -i", Setup: reset,
			Run: timing.Command(corpus, "sh", "-c", `find . -name '*.go' -type f -print0 | xargs -0 sed -i 's/errors\.New(/errors.Newf(/g'`)},
		{Name: "rg -l -F | xargs sd -s (no journal)", Setup: reset,
			Run: timing.Command(corpus, "sh", "-c", `rg -l -F -g '*.go' 'errors.New(' | xargs sd -s 'errors.New(' 'errors.Newf('`)},
	}
	times, err := timing.Interleaved(*runs, methods)
	check(err)
	check(reset())
	fmt.Printf("literal replacement errors.New( -> errors.Newf( in GOROOT/src (~590 files), %d cores, median of %d runs\n", runtime.NumCPU(), *runs)
	var names []string
	for _, m := range methods {
		names = append(names, m.Name)
	}
	timing.Report(os.Stdout, "ratio to rg | sd:", names, times)
}

func check(err error) {
	if err != nil {
		panic(err)
	}
}
