// Command searchbench times txedit's read-side commands against ripgrep,
// fd and cat on a copy of the Go distribution's src tree made a git
// repository, side by side in one run, and prints medians and ratios
// (SPEC §11: grep within 1.2x of rg, glob no slower than fd, batch read
// with hashes within 1.2x of cat).
//
//	go run ./bench/searchbench [-runs 11] [-dir DIR] [-scale 1]
//
// -scale 5 makes the corpus five copies of the tree.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/txedit/txedit/bench/internal/timing"
)

func main() {
	runs := flag.Int("runs", 11, "runs of each command")
	dir := flag.String("dir", "", "scratch directory (default: a temp dir, removed after)")
	scale := flag.Int("scale", 1, "copies of the Go src tree in the corpus")
	flag.Parse()
	if *dir == "" {
		d, err := os.MkdirTemp("", "searchbench")
		check(err)
		defer os.RemoveAll(d)
		*dir = d
	}
	txedit, err := timing.BuildTxedit(*dir)
	check(err)
	fd := "fdfind"
	if _, err := exec.LookPath(fd); err != nil {
		fd = "fd"
	}
	corpus := filepath.Join(*dir, "corpus")
	if _, err := os.Stat(corpus); err != nil {
		src := filepath.Join(timing.GoRoot(), "src")
		for i := 0; i < *scale; i++ {
			dst := corpus
			if *scale > 1 {
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
	}
	// Every file a walk would read: the input of the batch read and cat.
	list, err := exec.Command("git", "-C", corpus, "ls-files", "--others", "--exclude-standard").Output()
	check(err)
	files := strings.Fields(string(list))
	readReq, _ := json.Marshal(map[string]any{"mode": "Line", "paths": files})
	reqFile := filepath.Join(*dir, "read.json")
	check(os.WriteFile(reqFile, readReq, 0o644))
	listFile := filepath.Join(*dir, "files.txt")
	check(os.WriteFile(listFile, []byte(strings.Join(files, "\n")+"\n"), 0o644))
	fmt.Printf("corpus: %d files (%d copies of GOROOT/src), %d cores, median of %d runs\n\n", len(files), *scale, runtime.NumCPU(), *runs)

	groups := []struct {
		title   string
		methods []timing.Method
	}{
		{"grep -l literal (context.Context)", []timing.Method{
			{Name: "txedit grep -l -F", Run: timing.Command(corpus, txedit, "grep", "-l", "-F", "context.Context")},
			{Name: "rg -l -F", Run: timing.Command(corpus, "rg", "--no-config", "-l", "-F", "context.Context")},
		}},
		{"grep -c regex (func \\w+\\(ctx context\\.Context)", []timing.Method{
			{Name: "txedit grep -c", Run: timing.Command(corpus, txedit, "grep", "-c", `func \w+\(ctx context\.Context`)},
			{Name: "rg -c", Run: timing.Command(corpus, "rg", "--no-config", "-c", `func \w+\(ctx context\.Context`)},
		}},
		{"grep content -n -C2 (errors\\.New\\()", []timing.Method{
			{Name: "txedit grep -n -C2", Run: timing.Command(corpus, txedit, "grep", "-n", "-C", "2", `errors\.New\(`)},
			{Name: "rg -n -C2", Run: timing.Command(corpus, "rg", "--no-config", "--no-heading", "-n", "-C", "2", `errors\.New\(`)},
		}},
		{"grep -c alternation (fmt\\.Errorf|errors\\.New|panic\\()", []timing.Method{
			{Name: "txedit grep -c", Run: timing.Command(corpus, txedit, "grep", "-c", `fmt\.Errorf|errors\.New|panic\(`)},
			{Name: "rg -c", Run: timing.Command(corpus, "rg", "--no-config", "-c", `fmt\.Errorf|errors\.New|panic\(`)},
		}},
		{"grep -l -i word ((?i)\\bdeprecated\\b)", []timing.Method{
			{Name: "txedit grep -l -i", Run: timing.Command(corpus, txedit, "grep", "-l", "-i", `\bdeprecated\b`)},
			{Name: "rg -l -i", Run: timing.Command(corpus, "rg", "--no-config", "-l", "-i", `\bdeprecated\b`)},
		}},
		{"glob **/*.go", []timing.Method{
			{Name: "txedit glob", Run: timing.Command(corpus, txedit, "glob", "**/*.go")},
			{Name: "fd -t f -s --glob", Run: timing.Command(corpus, fd, "-t", "f", "-s", "--glob", "**/*.go")},
		}},
		{"batch read of every file with hashes", batchRead(corpus, txedit, reqFile, listFile)},
	}
	for _, g := range groups {
		times, err := timing.Interleaved(*runs, g.methods)
		check(err)
		var names []string
		for _, m := range g.methods {
			names = append(names, m.Name)
		}
		timing.Report(os.Stdout, g.title, names, times)
	}
}

func batchRead(corpus, txedit, reqFile, listFile string) []timing.Method {
	ms := []timing.Method{
		{Name: "txedit read --json (Line, all files)", Run: timing.Command(corpus, txedit, "read", "--json", reqFile)},
	}
	if _, err := exec.LookPath("xxhsum"); err == nil {
		ms = append(ms, timing.Method{Name: "xargs xxhsum -H64", Run: timing.Command(corpus, "sh", "-c", "xargs -d '\\n' xxhsum -H64 < "+listFile)})
	}
	return append(ms, timing.Method{Name: "xargs cat", Run: timing.Command(corpus, "sh", "-c", "xargs -d '\\n' cat < "+listFile)})
}

func check(err error) {
	if err != nil {
		panic(err)
	}
}
