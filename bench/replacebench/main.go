// Command replacebench times a literal replacement (errors.New( ->
// errors.Newf() across a tree by txedit, with its journal and fsync on,
// side by side with `rg -l | xargs sd` and `find | xargs sed -i` (which
// journal nothing and sync nothing), and prints medians of wall time, CPU
// time and peak RSS, and ratios (bench/README.md: within 1.2x of rg | sd).
//
//	go run ./bench/replacebench [-runs 7] [-dir DIR] [-files N] [-modes] [-history] [-goals FILE]
//
// The tree is a copy of GOROOT/src (about 600 files change), or with
// -files N a synthetic tree of N files of about 4 KiB, every one of which
// changes (the 50,000-file memory goal: -files 50000 -modes). -modes adds
// txedit's other output modes (--dry-run, --json, --json --dry-run) for
// their peak RSS; -history times what reads or reverts the replacement's
// transaction afterwards (show, show --json, undo --dry-run [--json], undo,
// redo: docs/testing.md, the reliability audit). The tree is made under -dir, whose file system (disk or
// a tmpfs) is the one measured.
//
// Every run starts from the pristine tree (git checkout of a committed
// copy) and sync(2) flushes before the clock starts.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"github.com/txedit/txedit/bench/internal/durable"
	"github.com/txedit/txedit/bench/internal/timing"
)

const (
	find = "errors.New("
	repl = "errors.Newf("
	// The regex replacement (finding the files that change costs what a
	// search costs: bench/README.md): a regex that is a plain string, as an
	// agent writes it, and a name nothing in the tree uses.
	findRE = `errors\.New`
	replRE = "errors.NewErr"
)

func main() {
	runs := flag.Int("runs", 7, "runs of each method")
	dir := flag.String("dir", "", "scratch directory, on the file system to measure; the tree is kept there for the next run (default: a temp dir, removed after)")
	bin := flag.String("txedit", "", "txedit binary (default: built from this module)")
	files := flag.Int("files", 0, "a synthetic tree of this many files, every one changed, instead of a copy of GOROOT/src")
	modes := flag.Bool("modes", false, "also time txedit replace --dry-run, --json and --json --dry-run (peak RSS of each output mode)")
	history := flag.Bool("history", false, "also time txedit show, show --json, undo --dry-run, undo --dry-run --json, undo and redo of the replacement's transaction (peak RSS)")
	goals := flag.String("goals", "", "append the goal lines (goal, measured, pass/miss) to this file, for bench/run.sh's summary")
	syncFiles := flag.String("sync-files", "", "internal: fdatasync the files listed in this file (one per line), 32 in flight, then fsync their directories, and exit (the durable floor's last step: bench/internal/durable)")
	flag.Parse()
	if *syncFiles != "" {
		durable.Main(*syncFiles, "")
	}
	if *dir == "" {
		d, err := os.MkdirTemp("", "replacebench")
		check(err)
		defer os.RemoveAll(d)
		*dir = d
	}
	check(os.MkdirAll(*dir, 0o755))
	txedit := *bin
	if txedit == "" {
		var err error
		txedit, err = timing.BuildTxedit(*dir)
		check(err)
	} else if abs, err := filepath.Abs(txedit); err == nil {
		txedit = abs
	}

	corpus, what := filepath.Join(*dir, "tree"), "GOROOT/src"
	if *files > 0 {
		corpus, what = filepath.Join(*dir, fmt.Sprintf("synthetic%d", *files)), fmt.Sprintf("a synthetic tree of %d files", *files)
	}
	if _, err := os.Stat(filepath.Join(corpus, ".git")); err != nil {
		os.RemoveAll(corpus)
		if *files > 0 {
			synthesize(corpus, *files)
		} else {
			check(exec.Command("cp", "-a", filepath.Join(timing.GoRoot(), "src"), corpus).Run())
		}
		for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "pristine"}} {
			check(git(corpus, args...).Run())
		}
	}
	reset := func() error {
		os.RemoveAll(filepath.Join(corpus, ".txedit"))
		if err := git(corpus, "checkout", "-q", "--", ".").Run(); err != nil {
			return err
		}
		syscall.Sync()
		return nil
	}
	// changed counts the files each method changed, on its first run:
	// methods that change different sets of files do different work.
	changed := map[string]int{}
	count := func(name string) func() error {
		return func() error {
			if _, ok := changed[name]; ok {
				return nil
			}
			out, err := git(corpus, "diff", "--name-only").Output()
			changed[name] = bytes.Count(out, []byte{'\n'})
			return err
		}
	}
	tx := func(name string, flags ...string) timing.Method {
		args := append(append([]string{"replace"}, flags...), "--literal", "--glob", "*.go", "s/"+find+"/"+repl+"/g")
		return timing.Method{Name: name, Setup: reset, Teardown: count(name), Cmd: func() *exec.Cmd {
			cmd := exec.Command(txedit, args...)
			cmd.Dir = corpus
			return cmd
		}}
	}
	sh := func(name, script string) timing.Method {
		return timing.Method{Name: name, Setup: reset, Teardown: count(name), Cmd: func() *exec.Cmd {
			cmd := exec.Command("sh", "-c", script)
			cmd.Dir = corpus
			return cmd
		}}
	}
	// The same substitution as a JSON pattern_replace request, through
	// txedit apply and through the fs_write tool (every entry point as
	// fast as the CLI's: bench/README.md).
	request := fmt.Sprintf(`{"directory":".","file_pattern":"*.go","sed_pattern":"s/%s/%s/g","literal":true}`, find, repl)
	req := func(name string, args ...string) timing.Method {
		return timing.Method{Name: name, Setup: reset, Teardown: count(name), Cmd: func() *exec.Cmd {
			cmd := exec.Command(txedit, args...)
			cmd.Dir = corpus
			cmd.Stdin = strings.NewReader(request)
			return cmd
		}}
	}
	// The same replacement as a regex, through txedit replace and as a
	// JSON request (bench/README.md's replace rows), and its dry run.
	requestRE := fmt.Sprintf(`{"directory":".","file_pattern":"*.go","sed_pattern":"s/%s/%s/g"}`, strings.ReplaceAll(findRE, `\`, `\\`), replRE)
	txRE := func(name string, flags ...string) timing.Method {
		args := append(append([]string{"replace"}, flags...), "--glob", "*.go", "s/"+findRE+"/"+replRE+"/g")
		return timing.Method{Name: name, Setup: reset, Teardown: count(name), Cmd: func() *exec.Cmd {
			cmd := exec.Command(txedit, args...)
			cmd.Dir = corpus
			return cmd
		}}
	}
	methods := []timing.Method{tx("txedit replace --literal (journal, durable)"),
		req("txedit apply - (pattern_replace request)", "apply", "-"),
		req("txedit tool fs_write (pattern_replace request)", "tool", "--toolset", "txedit", "fs_write"),
		txRE("txedit replace, regex (journal, durable)"),
		{Name: "txedit apply -, regex request", Setup: reset, Teardown: count("txedit apply -, regex request"), Cmd: func() *exec.Cmd {
			cmd := exec.Command(txedit, "apply", "-")
			cmd.Dir = corpus
			cmd.Stdin = strings.NewReader(requestRE)
			return cmd
		}},
		txRE("txedit replace --dry-run, regex", "--dry-run"),
	}
	const (
		iLiteral, iRequest, iTool, iRegex, iRegexRequest, iDryRun = 0, 1, 2, 3, 4, 5
	)
	if *modes {
		methods = append(methods, tx("txedit replace --literal --dry-run", "--dry-run"), tx("txedit replace --literal --json", "--json"),
			tx("txedit replace --literal --json --dry-run", "--json", "--dry-run"))
	}
	sd := timing.SdLiteral()
	// The durable floor of what rg | sd does: the same writes, then the
	// changed files fdatasynced and their directories fsynced, each 32 in
	// flight, as txedit issues its own syncs (bench/internal/durable; the
	// benchmark runs itself for it). Coreutils `sync -d FILE…`, the floor
	// until round 4, waits for each file in turn: a higher floor than the
	// same syncs cost.
	self, err := os.Executable()
	check(err)
	const list = "rg -l -g '*.go' '" + findRE + "' >.rg-list"
	sdRE := "xargs sd '" + findRE + "' '" + replRE + "' <.rg-list"
	methods = append(methods,
		sh("find -name '*.go' -type f | xargs sed -i", `find . -name '*.go' -type f -print0 | xargs -0 sed -i 's/errors\.New(/errors.Newf(/g'`),
		sh("rg -l | xargs sd, regex (no journal)", list+" && "+sdRE+"; rm -f .rg-list"),
		sh("rg -l | xargs sd, regex, then sync of the changed files (32 in flight)", list+" && "+sdRE+" && '"+self+"' -sync-files .rg-list; rm -f .rg-list"),
		sh("rg -l, regex (finding the files only)", "rg -l -g '*.go' '"+findRE+"' >/dev/null"),
		sh("rg -l | xargs sd -p, regex (the dry run's peer: nothing written)", list+" && xargs sd -p '"+findRE+"' '"+replRE+"' <.rg-list >/dev/null; rm -f .rg-list"),
		sh("rg -l -F | xargs sd "+sd+" (no journal)", `rg -l -F -g '*.go' 'errors.New(' | xargs sd `+sd+` 'errors.New(' 'errors.Newf('`))
	samples, err := timing.Interleaved(*runs, methods)
	check(err)
	check(reset())
	peer := len(methods) - 1
	iSdRE, iSdSync, iRg, iSdPreview := peer-4, peer-3, peer-2, peer-1

	kind := timing.FSKind(*dir)
	fmt.Printf("literal replacement errors.New( -> errors.Newf( in %s, on %s (%s); %d cores, median of %d runs, load average %s\n",
		what, kind, *dir, runtime.NumCPU(), *runs, timing.LoadAvg())
	var names []string
	for _, m := range methods {
		names = append(names, fmt.Sprintf("%s [%d files]", m.Name, changed[m.Name]))
	}
	timing.Report(os.Stdout, names, samples, timing.Ref{Label: "vs rg | sd", Index: peer}, timing.Ref{Label: "vs sd regex", Index: iSdRE},
		timing.Ref{Label: "vs sd+sync", Index: iSdSync})
	if changed[methods[0].Name] != changed[methods[peer].Name] {
		fmt.Printf("note: txedit changed %d files, rg | sd %d: not the same work\n", changed[methods[0].Name], changed[methods[peer].Name])
	}
	if changed[methods[iRegex].Name] != changed[methods[iSdRE].Name] {
		fmt.Printf("note: txedit's regex replacement changed %d files, rg | sd's %d: not the same work\n", changed[methods[iRegex].Name], changed[methods[iSdRE].Name])
	}
	// The bounds (bench/README.md): within 1.3x of rg | sd on disk, 1.0x on a
	// tmpfs; the dry run within 1.5x of rg -l plus what sd needs (sd's
	// own preview of the same files).
	bound := 1.3
	if kind == "tmpfs" {
		bound = 1.0
	}
	for _, g := range []struct {
		i, peer int
		what    string
		bound   float64
	}{
		{iLiteral, peer, "txedit replace --literal", bound},
		{iRequest, peer, "the pattern_replace request (txedit apply -), literal", bound},
		{iRegex, iSdRE, "txedit replace, regex", bound},
		{iRegexRequest, iSdRE, "the pattern_replace request (txedit apply -), regex", bound},
	} {
		r := timing.Ratio(samples[g.i], samples[g.peer])
		check(timing.Goal(*goals, fmt.Sprintf("%s within %.1fx of rg -l | xargs sd (%s, %s)", g.what, g.bound, what, kind), fmt.Sprintf("%.2fx", r), r <= g.bound))
	}
	r := timing.Ratio(samples[iDryRun], samples[iSdPreview])
	check(timing.Goal(*goals, fmt.Sprintf("txedit replace --dry-run within 1.5x of rg -l | xargs sd -p (%s, %s)", what, kind), fmt.Sprintf("%.2fx", r), r <= 1.5))
	rg, _ := timing.Medians(samples[iRg])
	fmt.Printf("(rg -l alone %s; the durable floor, rg | sd and a sync of what it changed, is %.2fx rg | sd; txedit's regex replacement is %.2fx that floor; load average after %s)\n",
		timing.Ms(rg.Wall), timing.Ratio(samples[iSdSync], samples[iSdRE]), timing.Ratio(samples[iRegex], samples[iSdSync]), timing.LoadAvg())
	if *modes {
		// The output modes are methods 0 and 6-8 (1 and 2 are the same
		// request through apply and fs_write: their own goal lines).
		for _, m := range []struct {
			i    int
			mode string
		}{{0, "plain"}, {6, "--dry-run"}, {7, "--json"}, {8, "--json --dry-run"}, {1, "txedit apply -"}, {2, "txedit tool fs_write"}} {
			i, mode := m.i, m.mode
			_, peak := timing.Medians(samples[i])
			check(timing.Goal(*goals, fmt.Sprintf("pattern_replace peak RSS under 200 MiB, %s output (%s, %s)", mode, what, kind),
				timing.MiB(peak)+"iB", peak < 200*1024))
		}
		fmt.Println("(peak RSS: the median of the runs above; the goal lines take the largest)")
	}
	if *history {
		historyModes(corpus, txedit, what, kind, *runs, *goals, reset)
	}
}

// historyModes times, after the replacement committed, the commands that
// read or revert its transaction. Each run's setup brings the tree to the
// state its command needs (replaced, or undone for redo), committing the
// replacement or undoing it untimed when it is not.
func historyModes(corpus, txedit, what, kind string, runs int, goals string, reset func() error) {
	state, id := "", "" // "replaced" (id: its transaction) or "undone"
	txe := func(args ...string) error {
		cmd := exec.Command(txedit, args...)
		cmd.Dir = corpus
		cmd.Stderr = os.Stderr
		return cmd.Run()
	}
	replaced := func() error {
		if state == "replaced" {
			return nil
		}
		if err := reset(); err != nil {
			return err
		}
		if err := txe("replace", "--literal", "--glob", "*.go", "s/"+find+"/"+repl+"/g"); err != nil {
			return err
		}
		cmd := exec.Command(txedit, "log", "-n", "1")
		cmd.Dir = corpus
		out, err := cmd.Output()
		if err != nil {
			return err
		}
		id, state = strings.Fields(string(out))[0], "replaced"
		syscall.Sync()
		return nil
	}
	undone := func() error {
		if state == "undone" {
			return nil
		}
		if err := replaced(); err != nil {
			return err
		}
		state = "undone"
		if err := txe("undo"); err != nil {
			return err
		}
		syscall.Sync()
		return nil
	}
	m := func(name string, setup func() error, after string, args ...string) timing.Method {
		return timing.Method{Name: name, Setup: setup, Teardown: func() error {
			if after != "" {
				state = after
			}
			return nil
		}, Cmd: func() *exec.Cmd {
			a := args
			if len(a) > 0 && a[0] == "show" {
				a = append(append([]string{}, a...), id)
			}
			cmd := exec.Command(txedit, a...)
			cmd.Dir = corpus
			return cmd
		}}
	}
	methods := []timing.Method{
		m("txedit show TXID", replaced, "", "show"),
		m("txedit show --json TXID", replaced, "", "show", "--json"),
		m("txedit undo --dry-run", replaced, "", "undo", "--dry-run"),
		m("txedit undo --dry-run --json", replaced, "", "undo", "--dry-run", "--json"),
		m("txedit undo", replaced, "undone", "undo"),
		m("txedit redo", undone, "redone", "redo"),
	}
	samples, err := timing.Interleaved(runs, methods)
	check(err)
	check(reset())
	fmt.Printf("\nthe replacement's transaction afterwards (%s, on %s): median of %d runs, load average %s\n", what, kind, runs, timing.LoadAvg())
	var names []string
	for _, m := range methods {
		names = append(names, m.Name)
	}
	timing.Report(os.Stdout, names, samples)
	for i, m := range methods {
		_, peak := timing.Medians(samples[i])
		check(timing.Goal(goals, fmt.Sprintf("%s peak RSS under 200 MiB (%s, %s)", m.Name, what, kind), timing.MiB(peak)+"iB", peak < 200*1024))
	}
}

// synthesize writes n Go files of about 4 KiB, 100 to a directory, each
// calling errors.New( on 4 lines.
func synthesize(root string, n int) {
	fmt.Fprintf(os.Stderr, "replacebench: writing %d files into %s\n", n, root)
	for f := 0; f < n; f++ {
		name := filepath.Join(root, fmt.Sprintf("d%03d/file%05d.go", f/100, f))
		if f%100 == 0 {
			check(os.MkdirAll(filepath.Dir(name), 0o755))
		}
		var b strings.Builder
		fmt.Fprintf(&b, "package d%03d\n\nimport \"errors\"\n\n", f/100)
		for l := 0; b.Len() < 4096; l++ {
			if l%25 == 3 {
				fmt.Fprintf(&b, "var err%d = errors.New(\"file %d, line %d\")\n", l, f, l)
			} else {
				fmt.Fprintf(&b, "func f%d(x int) int { return x*%d + %d } // file %d\n", l, l, f, f)
			}
		}
		check(os.WriteFile(name, []byte(b.String()), 0o644))
	}
}

func git(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	return cmd
}

func check(err error) {
	if err != nil {
		panic(err)
	}
}
