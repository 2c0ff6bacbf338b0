// Command realdiffbench times `txedit apply` of real diffs against `git
// apply` of the same diffs: the diffs between consecutive releases of
// modules from the Go module proxy (corpus.sh builds them), the N with
// most files, each applied to a fresh export of the older release on
// every run (bench/README.md, "Real diffs").
//
//	go run ./bench/realdiffbench -corpus DIR [-dir DIR] [-top 20] [-runs 3] [-goals FILE] [-before BIN]
//
// For each diff both methods run side by side, interleaved, -runs times;
// before each run the older tree is copied afresh (untimed, then sync(2)),
// so txedit always makes a new journal (its first commit) and neither
// method finds the other's files in the page cache more than the copy
// left there. The first run of each method is checked: the tree must equal
// the newer release afterwards. It prints a row per diff (files, hunks,
// medians, the ratio of medians) and, under the table, the median of the
// per-diff ratios and the ratio of the sums, which the goal is about
// (1.5x on disk, 2x on tmpfs).
//
// Beside git apply, which never syncs, runs the durable floor of the same
// work: git apply, then the files it changed and their directories synced
// (an fdatasync of each file, then an fsync of each directory, 32 in
// flight, as txedit issues its syncs: bench/internal/durable; as
// bench/replacebench's "then sync of the changed files"), with txedit's ratio to it and the median of those
// ratios under the table. Beside that floor runs the least journaled
// apply (leastJournaled): the before-images of every path the diff
// touches packed into one file and made durable with its name
// (bench/internal/durable.Pack), which docs/journal.md's protocol needs
// before the first file is replaced, then git apply and the floor's
// syncs, the files' and the directories' in one round (the pack covers
// a power loss between them);
// the least any undoable, all-or-nothing durable apply of the diff does.
// Under the table: txedit's ratio to it, and both floors' ratios to git
// apply (medians of the per-diff ratios), against the goal's bound.
// -before BIN runs another txedit build beside them, interleaved, for a
// before/after comparison in one run.
package main

import (
	"bytes"
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
	"syscall"
	"time"

	"github.com/txedit/txedit/bench/internal/durable"
	"github.com/txedit/txedit/bench/internal/timing"
)

type entry struct {
	name, dir   string
	files, hunk int
	bytes       int64
}

func main() {
	corpus := flag.String("corpus", "", "the corpus: directories each holding old/, new/ and patch.diff (bench/realdiffbench/corpus.sh builds it)")
	dir := flag.String("dir", "", "scratch directory, on the file system to measure (default: a temp dir)")
	bin := flag.String("txedit", "", "txedit binary (default: built from this module)")
	top := flag.Int("top", 20, "the diffs with most files to run")
	runs := flag.Int("runs", 3, "runs of each method per diff")
	only := flag.String("only", "", "run only the diffs whose name matches this regexp")
	goals := flag.String("goals", "", "append the goal line to this file, for bench/run.sh's summary")
	before := flag.String("before", "", "another txedit binary (a build before a change), run interleaved with the others: two more columns, its time and txedit's ratio to it, and the median of those ratios")
	syncFiles := flag.String("sync-files", "", "internal: fdatasync the files listed in this file (NUL-separated), 32 in flight, then fsync the directories listed in -sync-dirs, and exit (the durable floor's last step: bench/internal/durable)")
	syncDirs := flag.String("sync-dirs", "", "internal: the directories of -sync-files")
	leastApply := flag.String("least-apply", "", "internal: the least journaled apply of this diff in the current directory (leastJournaled): the before-images of the paths listed in -least-names packed and made durable, git apply, then -sync-files and -sync-dirs synced; and exit")
	leastNames := flag.String("least-names", "", "internal: the paths whose before-images -least-apply packs")
	flag.Parse()
	if *leastApply != "" {
		leastMain(*leastApply, *leastNames, *syncFiles, *syncDirs)
	}
	if *syncFiles != "" {
		durable.Main(*syncFiles, *syncDirs)
	}
	if *corpus == "" {
		fmt.Fprintln(os.Stderr, "realdiffbench: -corpus DIR is required (bench/realdiffbench/corpus.sh DIR builds it)")
		os.Exit(2)
	}
	if *dir == "" {
		d, err := os.MkdirTemp("", "realdiffbench")
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
	if *before != "" {
		abs, err := filepath.Abs(*before)
		check(err)
		*before = abs
	}
	entries := list(*corpus)
	if *only != "" {
		re := regexp.MustCompile(*only)
		var keep []entry
		for _, e := range entries {
			if re.MatchString(e.name) {
				keep = append(keep, e)
			}
		}
		entries = keep
	}
	if len(entries) > *top {
		entries = entries[:*top]
	}
	if len(entries) == 0 {
		fmt.Fprintln(os.Stderr, "realdiffbench: no diffs in", *corpus)
		os.Exit(1)
	}
	work := filepath.Join(*dir, "work")
	kind := timing.FSKind(*dir)
	bound := 1.5
	if kind == "tmpfs" {
		bound = 2
	}
	fmt.Printf("real diffs (%s), the %d with most files, applied to a fresh export on %s (%s); %d cores, median of %d runs each, load average %s\n",
		*corpus, len(entries), kind, *dir, runtime.NumCPU(), *runs, timing.LoadAvg())
	header := fmt.Sprintf("%-52s %6s %6s %9s %10s %10s %7s %10s %10s %10s %7s %10s %7s", "diff", "files", "hunks", "KiB", "txedit", "git apply", "ratio", "CPU tx", "CPU git", "git+sync", "vs sync", "least j.", "vs lj.")
	if *before != "" {
		header += fmt.Sprintf(" %10s %7s %10s", "before", "vs bef.", "CPU bef.")
	}
	fmt.Println(header)
	var ratios, floorRatios, leastRatios, floorGit, leastGit, beforeRatios []float64
	var sumTx, sumGit, sumFloor, sumLeast time.Duration
	floorFiles, floorDirs := filepath.Join(*dir, "floor-files"), filepath.Join(*dir, "floor-dirs")
	packNames := filepath.Join(*dir, "least-names")
	// The floor's syncs: the benchmark itself, 32 in flight, as txedit
	// issues its own (bench/internal/durable), not coreutils sync, which
	// waits for each file in turn.
	self, err := os.Executable()
	check(err)
	for _, e := range entries {
		patch := filepath.Join(e.dir, "patch.diff")
		files, dirs, err := floorLists(e.dir)
		check(err)
		check(os.WriteFile(floorFiles, nulList(files), 0o644))
		check(os.WriteFile(floorDirs, nulList(dirs), 0o644))
		names, err := leastPackNames(e.dir)
		check(err)
		check(os.WriteFile(packNames, nulList(names), 0o644))
		fresh := func() error {
			if err := os.RemoveAll(work); err != nil {
				return err
			}
			if out, err := exec.Command("cp", "-a", filepath.Join(e.dir, "old"), work).CombinedOutput(); err != nil {
				return fmt.Errorf("cp: %v: %s", err, out)
			}
			syscall.Sync()
			return nil
		}
		verified := map[string]bool{}
		verify := func(name string) func() error {
			return func() error {
				if verified[name] {
					return nil
				}
				verified[name] = true
				out, err := exec.Command("diff", "-r", "-q", "--exclude=.txedit", "--exclude="+leastPack+"*", "--no-dereference", filepath.Join(e.dir, "new"), work).CombinedOutput()
				if err != nil {
					return fmt.Errorf("%s of %s: the tree is not the newer release's: %v\n%s", name, e.name, err, firstLines(out, 10))
				}
				return nil
			}
		}
		cmd := func(name string, args ...string) func() *exec.Cmd {
			return func() *exec.Cmd {
				c := exec.Command(name, args...)
				c.Dir = work
				return c
			}
		}
		methods := []timing.Method{
			{Name: "txedit apply", Setup: fresh, Teardown: verify("txedit apply"), Cmd: cmd(txedit, "apply", patch)},
			{Name: "git apply", Setup: fresh, Teardown: verify("git apply"), Cmd: cmd("git", "apply", patch)},
			{Name: "git apply, then sync of the changed files", Setup: fresh, Teardown: verify("git apply, then sync"),
				Cmd: cmd("sh", "-c", `git apply "$1" && "$4" -sync-files "$2" -sync-dirs "$3"`, "sh", patch, floorFiles, floorDirs, self)},
			{Name: "least journaled apply", Setup: fresh, Teardown: verify("least journaled apply"),
				Cmd: cmd(self, "-least-apply", patch, "-least-names", packNames, "-sync-files", floorFiles, "-sync-dirs", floorDirs)},
		}
		if *before != "" {
			methods = append(methods, timing.Method{Name: "txedit apply (before)", Setup: fresh, Teardown: verify("txedit apply (before)"), Cmd: cmd(*before, "apply", patch)})
		}
		samples, err := timing.Interleaved(*runs, methods)
		check(err)
		tx, _ := timing.Medians(samples[0])
		gt, _ := timing.Medians(samples[1])
		fl, _ := timing.Medians(samples[2])
		r := timing.Ratio(samples[0], samples[1])
		rf := timing.Ratio(samples[0], samples[2])
		lj, _ := timing.Medians(samples[3])
		rl := timing.Ratio(samples[0], samples[3])
		ratios = append(ratios, r)
		floorRatios = append(floorRatios, rf)
		leastRatios = append(leastRatios, rl)
		floorGit = append(floorGit, timing.Ratio(samples[2], samples[1]))
		leastGit = append(leastGit, timing.Ratio(samples[3], samples[1]))
		sumTx += tx.Wall
		sumGit += gt.Wall
		sumFloor += fl.Wall
		sumLeast += lj.Wall
		row := fmt.Sprintf("%-52s %6d %6d %9.0f %10s %10s %6.2fx %10s %10s %10s %6.2fx %10s %6.2fx", trunc(e.name, 52), e.files, e.hunk, float64(e.bytes)/1024,
			timing.Ms(tx.Wall), timing.Ms(gt.Wall), r, timing.Ms(tx.CPU), timing.Ms(gt.CPU), timing.Ms(fl.Wall), rf, timing.Ms(lj.Wall), rl)
		if *before != "" {
			bf, _ := timing.Medians(samples[4])
			rb := timing.Ratio(samples[0], samples[4])
			beforeRatios = append(beforeRatios, rb)
			row += fmt.Sprintf(" %10s %6.2fx %10s", timing.Ms(bf.Wall), rb, timing.Ms(bf.CPU))
		}
		fmt.Println(row)
	}
	os.RemoveAll(work)
	os.Remove(floorFiles)
	os.Remove(floorDirs)
	os.Remove(packNames)
	med, lo, hi := median(ratios)
	sum := float64(sumTx) / float64(max(sumGit, 1))
	fmt.Printf("median of the per-diff ratios %.2fx (%.2f-%.2fx); sums %s against %s, %.2fx; load average after %s\n",
		med, lo, hi, timing.Ms(sumTx), timing.Ms(sumGit), sum, timing.LoadAvg())
	fmed, flo, fhi := median(floorRatios)
	fmt.Printf("against the durable floor (git apply, then a sync of the changed files and their directories): median of the per-diff ratios %.2fx (%.2f-%.2fx); sums %s against %s, %.2fx\n",
		fmed, flo, fhi, timing.Ms(sumTx), timing.Ms(sumFloor), float64(sumTx)/float64(max(sumFloor, 1)))
	lmed, llo, lhi := median(leastRatios)
	fmt.Printf("against the least journaled apply (the before-images packed and durable, git apply, then the changed files and directories synced in one round): median of the per-diff ratios %.2fx (%.2f-%.2fx); sums %s against %s, %.2fx\n",
		lmed, llo, lhi, timing.Ms(sumTx), timing.Ms(sumLeast), float64(sumTx)/float64(max(sumLeast, 1)))
	fgmed, fglo, fghi := median(floorGit)
	lgmed, lglo, lghi := median(leastGit)
	below := func(r float64) string {
		if bound < r {
			return "below"
		}
		return "not below"
	}
	fmt.Printf("the durable floor is %.2fx git apply (%.2f-%.2fx); the least journaled apply is %.2fx git apply (%.2f-%.2fx); medians of the per-diff ratios, sums %.2fx and %.2fx: the goal's %.1fx is %s the durable floor and %s the least journaled apply\n",
		fgmed, fglo, fghi, lgmed, lglo, lghi, float64(sumFloor)/float64(max(sumGit, 1)), float64(sumLeast)/float64(max(sumGit, 1)), bound, below(fgmed), below(lgmed))
	if *before != "" {
		bmed, blo, bhi := median(beforeRatios)
		fmt.Printf("against the build before (%s): median of the per-diff ratios %.2fx (%.2f-%.2fx)\n", *before, bmed, blo, bhi)
	}
	check(timing.Goal(*goals, fmt.Sprintf("real diffs: txedit apply within %.1fx of git apply (median of per-diff ratios, %d diffs, %s)", bound, len(entries), kind),
		fmt.Sprintf("%.2fx", med), med <= bound))
}

// median returns the median of rs (sorted in place), its least and its
// greatest.
func median(rs []float64) (med, lo, hi float64) {
	sort.Float64s(rs)
	med = rs[len(rs)/2]
	if len(rs)%2 == 0 {
		med = (rs[len(rs)/2-1] + rs[len(rs)/2]) / 2
	}
	return med, rs[0], rs[len(rs)-1]
}

// floorLists reads the diff in d/patch.diff and returns, relative to the
// tree's root, the files git apply leaves changed (modified, added, the
// new names of renames: they are fdatasynced) and the directories whose
// entries it changed (fsynced): the parent of every added, deleted or
// renamed path and of every file it rewrote (git apply writes a new file
// and renames it over the old one), and, up the tree, each directory that
// holds a directory created or removed, up to the first that existed
// before and after. d/old and d/new tell which directories existed.
func floorLists(d string) (files, dirs []string, err error) {
	data, err := os.ReadFile(filepath.Join(d, "patch.diff"))
	if err != nil {
		return nil, nil, err
	}
	isDir := func(tree, rel string) bool {
		st, err := os.Lstat(filepath.Join(d, tree, rel))
		return err == nil && st.IsDir()
	}
	seenDir := map[string]bool{}
	addDirs := func(p string) {
		for dir := filepath.Dir(p); ; dir = filepath.Dir(dir) {
			inNew := isDir("new", dir)
			if inNew && !seenDir[dir] {
				seenDir[dir] = true
				dirs = append(dirs, dir)
			}
			if dir == "." || inNew && isDir("old", dir) {
				return
			}
		}
	}
	seenFile := map[string]bool{}
	for _, p := range patchPaths(data) {
		if p.newPath != "" && !seenFile[p.newPath] {
			seenFile[p.newPath] = true
			files = append(files, p.newPath)
			addDirs(p.newPath)
		}
		if p.oldPath != "" && p.oldPath != p.newPath {
			addDirs(p.oldPath)
		}
	}
	return files, dirs, nil
}

// A filePatch is one file of a git diff: its path before (empty when
// added) and after (empty when deleted).
type filePatch struct{ oldPath, newPath string }

// patchPaths reads each file's paths out of a git diff's extended headers
// (docs: git-diff(1), "Generating patches"): "diff --git a/P b/P", then
// rename from/to, new/deleted file mode, and the ---/+++ lines before the
// first hunk.
func patchPaths(data []byte) []filePatch {
	var out []filePatch
	cur := -1
	header := false // between "diff --git" and the first hunk: a hunk's "--- " is a removed line
	for _, l := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(l, "diff --git "):
			out = append(out, filePatch{})
			cur = len(out) - 1
			header = true
			// Unquoted and the same path on both sides: "a/P b/P".
			h := strings.TrimPrefix(l, "diff --git ")
			if n := len(h); n%2 == 1 && strings.HasPrefix(h, "a/") && h[n/2] == ' ' && h[:n/2][2:] == h[n/2+1:][2:] {
				out[cur].oldPath, out[cur].newPath = h[2:n/2], h[2:n/2]
			}
		case !header:
		case strings.HasPrefix(l, "@@ "), strings.HasPrefix(l, "GIT binary patch"), strings.HasPrefix(l, "Binary files "):
			header = false
		case strings.HasPrefix(l, "new file mode"):
			out[cur].oldPath = ""
		case strings.HasPrefix(l, "deleted file mode"):
			out[cur].newPath = ""
		case strings.HasPrefix(l, "rename from "):
			out[cur].oldPath = unquote(strings.TrimPrefix(l, "rename from "))
		case strings.HasPrefix(l, "rename to "):
			out[cur].newPath = unquote(strings.TrimPrefix(l, "rename to "))
		case strings.HasPrefix(l, "copy to "):
			out[cur].oldPath, out[cur].newPath = "", unquote(strings.TrimPrefix(l, "copy to "))
		case strings.HasPrefix(l, "--- "):
			if p := unquote(strings.TrimPrefix(l, "--- ")); p != "/dev/null" {
				out[cur].oldPath = strings.TrimPrefix(p, "a/")
			}
		case strings.HasPrefix(l, "+++ "):
			if p := unquote(strings.TrimPrefix(l, "+++ ")); p != "/dev/null" {
				out[cur].newPath = strings.TrimPrefix(p, "b/")
			}
		}
	}
	return out
}

// unquote undoes git's C-style quoting of a path with unusual characters.
func unquote(s string) string {
	if strings.HasPrefix(s, "\"") {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
	}
	return s
}

// nulList is names, each ended by a NUL (xargs -0).
func nulList(names []string) []byte {
	var b bytes.Buffer
	for _, n := range names {
		b.WriteString(n)
		b.WriteByte(0)
	}
	return b.Bytes()
}

// list reads the corpus, most files first.
func list(corpus string) []entry {
	des, err := os.ReadDir(corpus)
	check(err)
	var out []entry
	for _, de := range des {
		d := filepath.Join(corpus, de.Name())
		data, err := os.ReadFile(filepath.Join(d, "patch.diff"))
		if err != nil {
			continue
		}
		if _, err := os.Stat(filepath.Join(d, "old")); err != nil {
			continue
		}
		e := entry{name: de.Name(), dir: d, bytes: int64(len(data))}
		for _, l := range bytes.Split(data, []byte{'\n'}) {
			switch {
			case bytes.HasPrefix(l, []byte("diff --git ")):
				e.files++
			case bytes.HasPrefix(l, []byte("@@ ")):
				e.hunk++
			}
		}
		if e.files > 0 {
			out = append(out, e)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].files != out[j].files {
			return out[i].files > out[j].files
		}
		return out[i].name < out[j].name
	})
	return out
}

func trunc(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}

func firstLines(b []byte, n int) string {
	ls := strings.SplitN(string(b), "\n", n+1)
	if len(ls) > n {
		ls = ls[:n]
	}
	return strings.Join(ls, "\n")
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "realdiffbench:", err)
		os.Exit(1)
	}
}

// leastPack is the least journaled apply's pack, in the tree's root; its
// end mark is leastPack+".done".
const leastPack = ".txedit-least-pack"

// leastPackNames reads the diff in d/patch.diff and returns, relative to
// the tree's root, every path it touches: each file's path before (its
// before-image: modified, deleted, renamed from) and after (added,
// renamed to, copied to: absent before, so rolling back removes it).
func leastPackNames(d string) ([]string, error) {
	data, err := os.ReadFile(filepath.Join(d, "patch.diff"))
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var names []string
	for _, p := range patchPaths(data) {
		for _, n := range []string{p.oldPath, p.newPath} {
			if n != "" && !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	return names, nil
}

// leastJournaled is the least an undoable, all-or-nothing, durable apply
// of patch to the tree at root must do (bench/README.md, "the least
// journaled apply"), with git apply as the apply step, in two waits on
// the device, as txedit's own syncs are made (in flight, 32 at a time,
// the Ps widened):
//
//  1. the before-images of names (every path the diff touches) read and
//     written into one new pack file, made durable with its name
//     (durable.Pack): docs/journal.md, "The commit, and what it syncs",
//     prepare: no file may be replaced before its before-image is
//     durable, or a power loss mid-apply leaves a tree that cannot be
//     rolled back;
//  2. git apply, then each changed file (files) fdatasynced and each
//     directory whose entries changed (dirs) fsynced, all in flight at
//     once (durable.SyncTogether): "rename → commit": the end mark must
//     not be durable before every rename is. The durable floor waits for
//     the files before it syncs the directories (durable.Sync); here the
//     pack covers a power loss in between (every path it names is rolled
//     back from it), so the directories need not wait.
//
// Then the end mark, not synced (docs/journal.md, "Rolling forward": a
// later round makes it durable). It is undo only: it rolls back whatever
// has no end mark. What it leaves out makes it less than a real journal
// does, never more: no lock, no staged contents durable before the
// renames and no hashes of the new contents (which rolling forward from
// a lost mark needs: an undo-only journal would have to sync its mark,
// one wait more), no check for outside writers. It runs in one process
// (this one, with git apply its child), where the floor runs three (sh,
// git apply, the syncs).
func leastJournaled(root, patch string, names, files, dirs []string) error {
	if err := durable.Pack(root, names, filepath.Join(root, leastPack)); err != nil {
		return err
	}
	c := exec.Command("git", "apply", patch)
	c.Dir = root
	if out, err := c.CombinedOutput(); err != nil {
		return fmt.Errorf("git apply: %v: %s", err, out)
	}
	in := func(ns []string) []string {
		out := make([]string, len(ns))
		for i, n := range ns {
			out[i] = filepath.Join(root, n)
		}
		return out
	}
	if err := durable.SyncTogether(in(files), in(dirs)); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(root, leastPack+".done"), nil, 0o600)
}

// leastMain is the -least-apply mode: leastJournaled in the current
// directory, with the lists read from the files named, and exit.
func leastMain(patch, namesList, filesList, dirsList string) {
	names, err := durable.ReadList(namesList)
	var files, dirs []string
	if err == nil {
		files, err = durable.ReadList(filesList)
	}
	if err == nil {
		dirs, err = durable.ReadList(dirsList)
	}
	if err == nil {
		if dirs == nil {
			dirs = []string{} // none, not the files' parents
		}
		err = leastJournaled(".", patch, names, files, dirs)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "least journaled apply:", err)
		os.Exit(1)
	}
	os.Exit(0)
}
