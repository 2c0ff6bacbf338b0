// Command commitbench times a durable txedit commit of N files × E edits
// side by side with the same change made by plain os.WriteFile (no fsync),
// by `git apply` of the equivalent patch and, with -edits 1, by one
// `sd` process given all the files, in one run, and prints the medians of
// wall time, CPU time and peak RSS (of the child processes) and their
// ratios (bench/README.md: within 1.3x of sd, faster than git apply).
//
//	go run ./bench/commitbench [-files 1000] [-edits 10] [-runs 11] [-dir DIR] [-dirty 1G]
//
// Every run starts from a fresh copy of the corpus, and sync(2) flushes
// that copy before the clock starts, so no method pays for another's
// writes. The page cache stays warm for all methods alike. With -dirty,
// another process (dd, no fsync) then leaves that much unwritten data on
// the corpus's file system before the clock starts, removed after the
// run: the cost of a commit on a machine where something else writes.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/txedit/txedit/apply"
	"github.com/txedit/txedit/bench/internal/durable"
	"github.com/txedit/txedit/bench/internal/timing"
	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/internal/par"
	"github.com/txedit/txedit/plan"
)

// The edit of every file when there is one a file: found once in each.
const oneOld, oneNew = "= compute(0)", "= recompute(0, cache)"

func main() {
	files := flag.Int("files", 1000, "files in the transaction")
	edits := flag.Int("edits", 10, "str_replace edits per file; with 1, the same literal in every file, and sd joins the comparison")
	runs := flag.Int("runs", 11, "runs of each method")
	dir := flag.String("dir", "", "scratch directory, on the file system to measure (default: a temp dir)")
	txedit := flag.String("txedit", "", "txedit binary for the CLI method (default: built from this module)")
	dirtyFlag := flag.String("dirty", "", "leave this much dirty data (e.g. 1G, 512M) of another process on the file system before each run")
	only := flag.String("only", "", "run only the methods whose name matches this regexp (the references are kept)")
	goals := flag.String("goals", "", "append the goal lines (goal, measured, pass/miss) to this file, for bench/run.sh's summary")
	applyOnce := flag.String("apply-once", "", "internal: apply the request in file -request to this root and exit (the fresh-process library method)")
	requestFile := flag.String("request", "", "internal: the request file of -apply-once")
	flag.Parse()
	if *applyOnce != "" {
		os.Exit(applyInFreshProcess(*applyOnce, *requestFile))
	}
	dirtyMiB, err := parseSize(*dirtyFlag)
	if err != nil {
		fmt.Fprintf(os.Stderr, "commitbench: -dirty: %v\n", err)
		os.Exit(2)
	}
	if *dir == "" {
		d, err := os.MkdirTemp("", "commitbench")
		check(err)
		defer os.RemoveAll(d)
		*dir = d
	}
	check(os.MkdirAll(*dir, 0o755))
	kind := timing.FSKind(*dir)
	if dirtyMiB > 0 && kind == "tmpfs" {
		fmt.Fprintf(os.Stderr, "commitbench: -dirty on a tmpfs (%s) measures nothing: a tmpfs never writes its pages back, so no sync has dirty data to flush\n", *dir)
		os.Exit(2)
	}
	if *txedit == "" {
		bin, err := timing.BuildTxedit(*dir)
		check(err)
		*txedit = bin
	} else if abs, err := filepath.Abs(*txedit); err == nil {
		*txedit = abs
	}

	corpus := filepath.Join(*dir, "corpus")
	os.RemoveAll(corpus)
	defer os.RemoveAll(corpus)
	reqJSON, newContent := makeCorpus(corpus, *files, *edits)
	self, err := os.Executable()
	check(err)
	reqFile := filepath.Join(*dir, "request.json")
	check(os.WriteFile(reqFile, reqJSON, 0o644))
	defer os.Remove(reqFile)
	patchFile := filepath.Join(*dir, "change.patch")
	check(os.WriteFile(patchFile, []byte(dryRunDiff(corpus, reqJSON)), 0o644))
	defer os.Remove(patchFile)
	var names []string
	for name := range newContent {
		names = append(names, name)
	}
	sort.Strings(names)

	root := filepath.Join(*dir, "run")
	dirtyFile := filepath.Join(*dir, "dirty")
	var atStart []meminfo // Dirty and Writeback when each clock started
	// setupWith copies the corpus, runs pre (if not nil) and leaves the
	// dirty data, if any, after syncing the rest.
	setupWith := func(pre func(root string) error) error {
		os.RemoveAll(root)
		if err := os.CopyFS(root, os.DirFS(corpus)); err != nil {
			return err
		}
		if pre != nil {
			if err := pre(root); err != nil {
				return err
			}
		}
		syscall.Sync()
		if dirtyMiB > 0 {
			if err := dirty(dirtyFile, dirtyMiB); err != nil {
				return err
			}
			m := readMeminfo()
			if len(atStart) == 0 {
				fmt.Printf("dirty data when the first clock starts (/proc/meminfo): Dirty %s, Writeback %s (%d MiB of it written by dd)\n",
					timing.MiB(m.dirtyKB), timing.MiB(m.writebackKB), dirtyMiB)
			}
			atStart = append(atStart, m)
		}
		return nil
	}
	setup := func() error { return setupWith(nil) }
	teardown := func() error {
		err := verify(root, newContent)
		os.Remove(dirtyFile)
		if err1 := os.RemoveAll(root); err == nil {
			err = err1
		}
		return err
	}
	libWith := func(name string, mode engine.Durability, setup func() error) timing.Method {
		return timing.Method{Name: name, Setup: setup, Teardown: teardown, Run: func() error {
			return applyRequest(root, mode, reqJSON)
		}}
	}
	lib := func(name string, mode engine.Durability) timing.Method { return libWith(name, mode, setup) }
	child := func(name string, argv ...string) timing.Method {
		return timing.Method{Name: name, Setup: setup, Teardown: teardown, Cmd: func() *exec.Cmd {
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Dir = root
			return cmd
		}}
	}
	methods := []timing.Method{
		{Name: "os.WriteFile, no fsync", Setup: setup, Teardown: teardown, Run: func() error {
			for name, data := range newContent {
				if err := os.WriteFile(filepath.Join(root, name), data, 0o644); err != nil {
					return err
				}
			}
			return nil
		}},
		// The sync floor: what any durable
		// replacement of these files costs without a journal: each new
		// content written to a temporary file beside its target,
		// fdatasynced, renamed over it, up to 32 files in flight, then
		// each directory synced.
		{Name: "bare durable write (write, fdatasync, rename, 32 in flight)", Setup: setup, Teardown: teardown, Run: func() error {
			return bareDurable(root, newContent)
		}},
	}
	// What any implementation of the journal's protocol (docs/journal.md)
	// must at least do on top of the
	// bare durable write (minimal_linux.go): the floor of the journal's
	// protocol itself, under the same load.
	for _, m := range minimalMethods(root, newContent, setupWith) {
		methods = append(methods, timing.Method{Name: m.name, Setup: m.setup, Teardown: teardown, Run: m.run})
	}
	methods = append(methods,
		lib("txedit library (durable, default)", engine.DurableAuto),
		// The same commit in a workspace whose journal exists (made by
		// an earlier transaction before the clock starts): what every
		// commit after a workspace's first costs. The method above also
		// pays for making the journal (its directories, key, .gitignore:
		// several syncs in a row), once per workspace.
		libWith("txedit library (durable, journal in use)", engine.DurableAuto, func() error { return setupWith(primeJournal) }),
		lib("txedit library (durable, syncfs)", engine.DurableSyncFS),
		lib("txedit library (durable, fsync each)", engine.DurableFsync),
		lib("txedit library (no sync)", engine.NotDurable),
		// The floor of the CLI: the same library call in a new process
		// (start, a cold heap), without the command line around it.
		child("txedit library (durable, fresh process)", self, "-apply-once", root, "-request", reqFile),
		child("txedit apply (CLI, durable)", *txedit, "apply", "--root", root, reqFile),
	)
	cli := len(methods) - 1
	sdIndex := -1
	if *edits == 1 {
		sdIndex = len(methods)
		methods = append(methods, child("sd "+timing.SdLiteral()+" (one process, all files)", append([]string{"sd", timing.SdLiteral(), oneOld, oneNew}, names...)...))
	}
	methods = append(methods, child("git apply", "git", "apply", "-p1", patchFile))
	gitIndex := len(methods) - 1
	if *only != "" {
		re := regexp.MustCompile(*only)
		var kept []timing.Method
		for i, m := range methods {
			if re.MatchString(m.Name) || i == 0 || i == cli || i == sdIndex || i == gitIndex {
				kept = append(kept, m)
			}
		}
		if len(kept) != len(methods) {
			fmt.Fprintln(os.Stderr, "commitbench: -only is for exploring; no goal lines are written")
			*goals = ""
		}
		methods = kept
		cli, sdIndex, gitIndex = index(methods, "txedit apply"), index(methods, "sd "), len(methods)-1
	}

	// The 60-file goal's line compares two methods of 10-20 ms, each
	// run moving by a fifth on a shared machine: with 5 runs the ratio
	// of their medians moved 0.90-1.22x run to run, with 21 1.03-1.07x
	// (bench/README.md, round 4, "commit measurement"). So the goal's
	// runs are at least minGoalRuns.
	if n := goalRuns(*runs, *files, dirtyMiB, *goals != ""); n != *runs {
		fmt.Printf("(%d runs asked; the %d-file goal line, quiet, needs at least %d: running %d)\n", *runs, *files, n, n)
		*runs = n
	}
	// Every other round in the reverse order: no method always follows
	// the same one.
	samples, err := timing.Alternating(*runs, methods)
	if err != nil {
		os.Remove(dirtyFile)
		os.RemoveAll(root)
		fmt.Fprintf(os.Stderr, "commitbench: %v\n", err)
		os.Exit(1)
	}

	condition := "quiet"
	if dirtyMiB > 0 {
		condition = fmt.Sprintf("%s of another process's dirty data", *dirtyFlag)
	}
	fmt.Printf("commit of %d files x %d edits on %s (%s), %s; %d cores, median of %d runs, load average %s\n",
		*files, *edits, kind, *dir, condition, runtime.NumCPU(), *runs, timing.LoadAvg())
	refs := []timing.Ref{{Label: "vs WriteFile", Index: 0}}
	if sdIndex >= 0 {
		refs = append(refs, timing.Ref{Label: "vs sd", Index: sdIndex})
	}
	refs = append(refs, timing.Ref{Label: "vs git apply", Index: gitIndex})
	var labels []string
	for _, m := range methods {
		labels = append(labels, m.Name)
	}
	timing.Report(os.Stdout, labels, samples, refs...)
	if len(atStart) > 0 {
		low := atStart[0]
		for _, m := range atStart {
			low.dirtyKB, low.writebackKB = min(low.dirtyKB, m.dirtyKB), min(low.writebackKB, m.writebackKB)
		}
		fmt.Printf("(Dirty when the clock started: at least %s in every run; Writeback at least %s)\n", timing.MiB(low.dirtyKB), timing.MiB(low.writebackKB))
	}

	// How far the 1.1x bound is from what the protocol itself allows:
	// the least a journaled commit does (minimal_linux.go), against the
	// bare write and against txedit (docs/journal.md, "What the
	// protocol itself costs").
	least := -1 // the fastest of its shapes in this run
	for i, m := range methods {
		if strings.HasPrefix(m.Name, "minimal journaled commit") && (least < 0 || timing.Ratio(samples[i], samples[least]) < 1) {
			least = i
		}
	}
	if bare, lib := index(methods, "bare durable write"), index(methods, "txedit library (durable, journal in use)"); bare >= 0 && least >= 0 {
		fmt.Printf("the least journaled commit here %s is %.2fx the bare durable write", strings.TrimPrefix(methods[least].Name, "minimal journaled commit "), timing.Ratio(samples[least], samples[bare]))
		if lib >= 0 {
			fmt.Printf("; txedit (journal in use) is %.2fx it (median of the rounds' own ratios %.2fx)", timing.Ratio(samples[lib], samples[least]), timing.PairedRatio(samples[lib], samples[least]))
		}
		fmt.Println()
	}

	what := fmt.Sprintf("%d files, %s, quiet", *files, kind)
	if dirtyMiB > 0 {
		what = fmt.Sprintf("%d files, %s, %s dirty", *files, kind, *dirtyFlag)
	}
	// The goals (bench/README.md): a 1,000-file commit no slower than sd
	// and than git apply;
	// a 60-file one within 1.15x of the least journaled commit (the
	// floor of any commit that keeps the journal's promises), quiet and
	// under another process's dirty data.
	if *files >= 1000 {
		// Each line says where the least journaled commit of the same
		// run stands against the same peer: a bound below it is one no
		// commit that keeps the journal's promises can meet (floorNote;
		// docs/journal.md, "What the protocol itself costs").
		peers := []struct {
			name string
			i    int
		}{{"sd", sdIndex}, {"git apply", gitIndex}}
		const bound = 1.0
		for _, p := range peers {
			if p.i < 0 {
				continue
			}
			cond := what
			if least >= 0 {
				floor := timing.Ratio(samples[least], samples[p.i])
				fmt.Println(floorNote(p.name, floor, bound))
				cond += fmt.Sprintf("; the least journaled commit %.2fx", floor)
			}
			r := timing.Ratio(samples[cli], samples[p.i])
			check(timing.Goal(*goals, fmt.Sprintf("durable commit (txedit apply) at most %.1fx %s (%s)", bound, p.name, cond), fmt.Sprintf("%.2fx", r), r <= bound))
		}
	} else if lib := index(methods, "txedit library (durable, journal in use)"); lib >= 0 && least >= 0 {
		r := timing.Ratio(samples[lib], samples[least])
		check(timing.Goal(*goals, fmt.Sprintf("durable commit (the library, journal in use) within 1.15x of the least journaled commit (%s)", what), fmt.Sprintf("%.2fx", r), r <= 1.15))
	}
	if fresh := index(methods, "txedit library (durable, fresh process)"); fresh >= 0 {
		r := timing.Ratio(samples[cli], samples[fresh])
		check(timing.Goal(*goals, fmt.Sprintf("durable commit (txedit apply) within 1.1x of its floor, the library in a fresh process (%s)", what), fmt.Sprintf("%.2fx", r), r <= 1.1))
	}
}

// floorNote says where the least journaled commit of a run stands against
// a peer a goal bounds txedit by (floor: its ratio to the peer's median):
// a bound below it cannot be met by any commit that keeps the journal's
// promises (docs/journal.md, "What the protocol itself costs"), only by
// a run in which the peer was slow.
func floorNote(peer string, floor, bound float64) string {
	below := "not below it"
	if bound < floor {
		below = "below it"
	}
	return fmt.Sprintf("the least journaled commit here is %.2fx %s: the goal's %.1fx is %s", floor, peer, bound, below)
}

// minGoalRuns is the fewest runs a goal line of fewer than 1,000 files
// is measured with, quiet.
const minGoalRuns = 21

// goalRuns is how many runs to make of runs asked: at least minGoalRuns
// where a quiet goal line of fewer than 1,000 files is written (the
// line against the least journaled commit). Under another process's
// dirty data each run first writes it (seconds a run), and that line
// passes by far (0.57x in round 4's quiet run), so it keeps the runs
// asked, as do the 1,000-file lines and exploring without goals.
func goalRuns(runs, files, dirtyMiB int, goals bool) int {
	if goals && files < 1000 && dirtyMiB == 0 {
		return max(runs, minGoalRuns)
	}
	return runs
}

// primeJournal makes root's journal as a workspace's first transaction
// does (a directory made and committed), so that the commit measured
// after it is not the workspace's first.
func primeJournal(root string) error {
	w, err := engine.Open(root, &engine.Options{Durability: engine.DurableAuto})
	if err != nil {
		return err
	}
	defer w.Close()
	_, err = w.MakeDir(context.Background(), ".commitbench-primed")
	return err
}

func index(ms []timing.Method, prefix string) int {
	for i, m := range ms {
		if strings.HasPrefix(m.Name, prefix) {
			return i
		}
	}
	return -1
}

// parseSize reads a size such as 1G or 512M (binary units) into MiB.
func parseSize(s string) (int, error) {
	if s == "" {
		return 0, nil
	}
	t := strings.TrimSuffix(strings.TrimSuffix(strings.ToUpper(s), "B"), "I")
	mult := 0
	switch {
	case strings.HasSuffix(t, "M"):
		mult = 1
	case strings.HasSuffix(t, "G"):
		mult = 1024
	default:
		return 0, fmt.Errorf("%q: want a size in M or G, as 1G or 512M", s)
	}
	n, err := strconv.Atoi(t[:len(t)-1])
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q: want a size in M or G, as 1G or 512M", s)
	}
	return n * mult, nil
}

// dirty has another process, dd, write mib MiB into path through the page
// cache and exit without syncing: the data is dirty, not yet written back.
func dirty(path string, mib int) error {
	out, err := exec.Command("dd", "if=/dev/zero", "of="+path, "bs=1M", fmt.Sprintf("count=%d", mib), "status=none").CombinedOutput()
	if err != nil {
		return fmt.Errorf("dd: %v: %s", err, out)
	}
	return nil
}

type meminfo struct{ dirtyKB, writebackKB int64 }

// readMeminfo reads the system's dirty and under-writeback page cache
// from /proc/meminfo (zero where there is none).
func readMeminfo() meminfo {
	var m meminfo
	b, _ := os.ReadFile("/proc/meminfo")
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		n, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "Dirty:":
			m.dirtyKB = n
		case "Writeback:":
			m.writebackKB = n
		}
	}
	return m
}

// makeCorpus writes files of about 4 KiB in 20 directories and returns the
// request editing edits lines of each, and each file's new content. With
// one edit a file, the edit is the same literal in every file (and found
// once in each), so that one sd process can make the same change.
func makeCorpus(root string, files, edits int) ([]byte, map[string][]byte) {
	type edit struct {
		Command string `json:"command"`
		OldStr  string `json:"old_str"`
		NewStr  string `json:"new_str"`
	}
	type fileEdit struct {
		Path  string `json:"path"`
		Edits []edit `json:"edits"`
	}
	var req struct {
		FileEdits []fileEdit `json:"fileEdits"`
	}
	newContent := map[string][]byte{}
	for f := 0; f < files; f++ {
		name := fmt.Sprintf("pkg%02d/file%04d.go", f%20, f)
		var b strings.Builder
		fmt.Fprintf(&b, "package pkg%02d\n\n", f%20)
		for l := 0; b.Len() < 4096; l++ {
			fmt.Fprintf(&b, "var value_%d_%d = compute(%d) // line %d of file %d\n", f, l, l*7, l, f)
		}
		p := filepath.Join(root, name)
		check(os.MkdirAll(filepath.Dir(p), 0o755))
		check(os.WriteFile(p, []byte(b.String()), 0o644))
		fe := fileEdit{Path: name}
		if edits == 1 {
			fe.Edits = append(fe.Edits, edit{"str_replace", oneOld, oneNew})
		}
		for e := 0; e < edits && edits != 1; e++ {
			l := e * 7
			fe.Edits = append(fe.Edits, edit{"str_replace", fmt.Sprintf("value_%d_%d = compute(%d)", f, l, l*7), fmt.Sprintf("value_%d_%d = recompute(%d, cache)", f, l, l*7)})
		}
		req.FileEdits = append(req.FileEdits, fe)
	}
	data, err := json.Marshal(req)
	check(err)
	r, err := plan.Parse(data)
	check(err)
	p, err := plan.Compile(r)
	check(err)
	for _, fo := range p.Files {
		old, err := os.ReadFile(filepath.Join(root, fo.Path))
		check(err)
		out := apply.Edit(fo, old, true)
		if !out.OK() {
			panic(fmt.Sprint(out.Failed))
		}
		newContent[fo.Path] = out.Content
	}
	return data, newContent
}

func dryRunDiff(root string, reqJSON []byte) string {
	w, err := engine.Open(root, &engine.Options{ReadOnly: true})
	check(err)
	defer w.Close()
	req, _ := plan.Parse(reqJSON)
	res, err := w.Preview(context.Background(), req)
	check(err)
	return res.Diff
}

// verify checks that every file has the content the change gives it.
func verify(root string, want map[string][]byte) error {
	for name, data := range want {
		got, err := os.ReadFile(filepath.Join(root, name))
		if err != nil || !bytes.Equal(got, data) {
			return fmt.Errorf("%s has the wrong content", name)
		}
	}
	return nil
}

// minimalMethod is one of minimalMethods' table rows.
type minimalMethod struct {
	name       string
	setup, run func() error
}

func check(err error) {
	if err != nil {
		panic(err)
	}
}

// applyInFreshProcess is the fresh-process library method: the request
// in reqFile applied to root as a program embedding txedit would, exit
// status 0 on success.
func applyInFreshProcess(root, reqFile string) int {
	reqJSON, err := os.ReadFile(reqFile)
	if err == nil {
		err = applyRequest(root, engine.DurableAuto, reqJSON)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// applyRequest opens the workspace at root with the durability mode and
// applies the request: the library methods' work.
func applyRequest(root string, mode engine.Durability, reqJSON []byte) error {
	w, err := engine.Open(root, &engine.Options{Durability: mode})
	if err != nil {
		return err
	}
	defer w.Close()
	req, err := plan.Parse(reqJSON)
	if err != nil {
		return err
	}
	_, err = w.Apply(context.Background(), req)
	return err
}

// bareDurable replaces each file with its new content durably and
// nothing else: a temporary file beside it, written and fdatasynced, then
// renamed over it (up to 32 at once), then each directory fsynced (up to
// 32 at once: syncDirs).
//
// With more than 8 files it runs with the Ps txedit's journal gives its
// sync rounds (par.Widen: a goroutine in fsync keeps its P meanwhile, so
// with GOMAXPROCS 2 only about two of the 32 are in flight at once), and
// like the journal not on a file system in memory (durable.Widen): the
// floor is what the same calls cost made the same way, not less.
func bareDurable(root string, contents map[string][]byte) error {
	defer durable.Widen(root, len(contents))()
	names := make([]string, 0, len(contents))
	for n := range contents {
		names = append(names, n)
	}
	sem := make(chan struct{}, 32)
	errs := make(chan error, len(names))
	var mu sync.Mutex
	dirs := map[string]bool{}
	for _, n := range names {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			p := filepath.Join(root, n)
			tmp := p + ".bare.tmp"
			f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
			if err == nil {
				_, err = f.Write(contents[n])
				if err == nil {
					err = durable.DataSync(f)
				}
				if cerr := f.Close(); err == nil {
					err = cerr
				}
			}
			if err == nil {
				err = os.Rename(tmp, p)
			}
			mu.Lock()
			dirs[filepath.Dir(p)] = true
			mu.Unlock()
			errs <- err
		}()
	}
	var first error
	for range names {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	if err := syncDirs(dirs); first == nil {
		first = err
	}
	return first
}

// dirSync fsyncs the directory d (a variable for the test of syncDirs).
var dirSync = func(d string) error {
	f, err := os.Open(d)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// syncDirs fsyncs every directory in dirs, up to 32 at once, as txedit's
// journal issues a round's directory syncs (and bench/internal/durable,
// the other benchmarks' floor): a floor that synced them one after the
// other would wait for each in turn, which txedit does not.
func syncDirs(dirs map[string]bool) error {
	list := make([]string, 0, len(dirs))
	for d := range dirs {
		list = append(list, d)
	}
	return par.Do(context.Background(), len(list), 32, func(i int) error { return dirSync(list[i]) })
}
