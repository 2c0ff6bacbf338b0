// Command patchpeers runs the patch corpus (internal/patchcorpus) through
// txedit's three patch paths and through the real programs agents use on
// the same inputs, and prints one table: per path and program, how many
// cases came out as intended, wrong (success, but not the intended file),
// refused, and refused but changed. bench/patchpeers/run.sh installs the
// pinned peers and runs it; docs/patch-formats.md carries the table.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/txedit/txedit/apply/patch"
	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/internal/patchcorpus"
)

var (
	files = flag.Int("files", 40, "Go files of GOROOT/src to make cases from")
	peers = flag.String("peers", "/tmp/txedit-patchpeers", "the npm prefix holding @openai/codex and @openai/agents-core (and applydiff.mjs)")
)

func main() {
	flag.Parse()
	log.SetFlags(0)
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		log.Fatal(err)
	}
	srcs, err := patchcorpus.GoSources(os.DirFS(filepath.Join(strings.TrimSpace(string(goroot)), "src")), *files)
	if err != nil {
		log.Fatal(err)
	}
	cases := patchcorpus.Generate(srcs)
	work, err := os.MkdirTemp("", "patchpeers")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(work)

	type row struct {
		f    patchcorpus.Format
		prog string
	}
	rows := []row{
		{patchcorpus.ApplyPatch, "txedit"}, {patchcorpus.ApplyPatch, "codex " + version(*peers, "codex")},
		{patchcorpus.Responses, "txedit"}, {patchcorpus.Responses, "agents-core " + version(*peers, "agents-core") + " applyDiff"},
		{patchcorpus.Diff, "txedit"}, {patchcorpus.Diff, "git apply (" + gitVersion() + ")"}, {patchcorpus.Diff, "GNU patch " + patchVersion()},
	}
	tallies := map[row]*patchcorpus.Tally{}
	wrongByClass := map[row]map[string]int{}
	add := func(r row, c *patchcorpus.Case, runs []patchcorpus.Run) {
		v, ws := patchcorpus.Classify(c, runs...)
		if tallies[r] == nil {
			tallies[r], wrongByClass[r] = &patchcorpus.Tally{}, map[string]int{}
		}
		tallies[r].Add(c.Name, v, ws)
		if v == patchcorpus.Wrong || v == patchcorpus.RefusedChanged {
			wrongByClass[r][c.Class]++
		}
	}
	codex := filepath.Join(*peers, "node_modules", ".bin", "codex")
	var sdk []*patchcorpus.Case
	for i, c := range cases {
		n := 1
		if c.Intent == patchcorpus.Retry {
			n = 2
		}
		dir := filepath.Join(work, fmt.Sprint(i))
		for _, f := range patchcorpus.Formats {
			p, ok := c.Patches[f]
			if !ok {
				continue
			}
			add(row{f, "txedit"}, c, txedit(dir, c, f, p, n))
			switch f {
			case patchcorpus.ApplyPatch:
				add(rows[1], c, program(dir, c, n, nil, codex, "--codex-run-as-apply-patch", p))
			case patchcorpus.Responses:
				sdk = append(sdk, c)
			case patchcorpus.Diff:
				add(rows[5], c, program(dir, c, n, []byte(p), "git", "-c", "core.autocrlf=false", "apply", "-"))
				add(rows[6], c, program(dir, c, n, []byte(p), "patch", "-p1", "--forward", "--no-backup-if-mismatch", "-r", "-", "-s"))
			}
		}
	}
	for i, runs := range applyDiff(work, sdk) {
		add(rows[3], sdk[i], runs)
	}

	fmt.Printf("%d cases from %d files of Go's source (%s)\n\n%s", len(cases), len(srcs), patchcorpus.Classes(cases), patchcorpus.Header)
	for _, r := range rows {
		fmt.Printf("| %s | %s | %s |\n", r.f, r.prog, tallies[r].Row())
	}
	fmt.Printf("\nWrong or refused-but-changed, by class:\n\n")
	for _, r := range rows {
		var parts []string
		for cl, n := range wrongByClass[r] {
			parts = append(parts, fmt.Sprintf("%s %d", cl, n))
		}
		sort.Strings(parts)
		if len(parts) == 0 {
			parts = []string{"none"}
		}
		fmt.Printf("- %s, %s: %s\n", r.f, r.prog, strings.Join(parts, ", "))
	}
}

// txedit applies the patch n times in a fresh workspace.
func txedit(dir string, c *patchcorpus.Case, f patchcorpus.Format, input string, n int) []patchcorpus.Run {
	fresh(dir, c)
	w, err := engine.Open(dir, &engine.Options{Durability: engine.NotDurable})
	if err != nil {
		log.Fatal(err)
	}
	defer w.Close()
	format := map[patchcorpus.Format]patch.Format{patchcorpus.ApplyPatch: patch.FormatApplyPatch, patchcorpus.Responses: patch.FormatResponses, patchcorpus.Diff: patch.FormatDiff}[f]
	var runs []patchcorpus.Run
	for range n {
		r := patchcorpus.Run{}
		if req, _, err := patch.Compile(format, []byte(input)); err == nil {
			res, _ := w.Apply(context.Background(), req)
			r.OK = res.Success
		}
		r.File, _ = os.ReadFile(filepath.Join(dir, patchcorpus.Path))
		runs = append(runs, r)
	}
	return runs
}

// program runs a peer n times in a fresh directory holding the case's
// file; exit status 0 is success.
func program(dir string, c *patchcorpus.Case, n int, stdin []byte, name string, args ...string) []patchcorpus.Run {
	fresh(dir, c)
	var runs []patchcorpus.Run
	for range n {
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Stdin = bytes.NewReader(stdin)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "LC_ALL=C")
		err := cmd.Run()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			log.Fatalf("%s: %v", name, err)
		}
		data, _ := os.ReadFile(filepath.Join(dir, patchcorpus.Path))
		runs = append(runs, patchcorpus.Run{OK: err == nil, File: data})
	}
	return runs
}

func fresh(dir string, c *patchcorpus.Case) {
	os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, patchcorpus.Path), c.Before, 0o644); err != nil {
		log.Fatal(err)
	}
}

// applyDiff runs agents-core's applyDiff on the Responses cases, in one
// node process (applydiff.mjs).
func applyDiff(work string, cases []*patchcorpus.Case) [][]patchcorpus.Run {
	type in struct {
		Before string `json:"before"`
		Diff   string `json:"diff"`
		N      int    `json:"n"`
	}
	var ins []in
	for _, c := range cases {
		var item struct {
			Operation struct {
				Diff string `json:"diff"`
			} `json:"operation"`
		}
		if err := json.Unmarshal([]byte(c.Patches[patchcorpus.Responses]), &item); err != nil {
			log.Fatal(err)
		}
		n := 1
		if c.Intent == patchcorpus.Retry {
			n = 2
		}
		ins = append(ins, in{string(c.Before), item.Operation.Diff, n})
	}
	inFile, outFile := filepath.Join(work, "sdk-in.json"), filepath.Join(work, "sdk-out.json")
	data, _ := json.Marshal(ins)
	if err := os.WriteFile(inFile, data, 0o644); err != nil {
		log.Fatal(err)
	}
	cmd := exec.Command("node", "applydiff.mjs", inFile, outFile)
	cmd.Dir = *peers
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		log.Fatalf("node applydiff.mjs: %v", err)
	}
	var outs []struct {
		Runs []struct {
			OK   bool   `json:"ok"`
			File string `json:"file"`
		} `json:"runs"`
	}
	data, err := os.ReadFile(outFile)
	if err == nil {
		err = json.Unmarshal(data, &outs)
	}
	if err != nil || len(outs) != len(cases) {
		log.Fatalf("applydiff.mjs output: %v (%d of %d)", err, len(outs), len(cases))
	}
	res := make([][]patchcorpus.Run, len(outs))
	for i, o := range outs {
		for _, r := range o.Runs {
			res[i] = append(res[i], patchcorpus.Run{OK: r.OK, File: []byte(r.File)})
		}
	}
	return res
}

func version(prefix, pkg string) string {
	data, err := os.ReadFile(filepath.Join(prefix, "node_modules", "@openai", pkg, "package.json"))
	if err != nil {
		log.Fatalf("@openai/%s is not installed in %s: run bench/patchpeers/run.sh", pkg, prefix)
	}
	var p struct{ Version string }
	json.Unmarshal(data, &p)
	return p.Version
}

func gitVersion() string {
	out, _ := exec.Command("git", "--version").Output()
	return strings.TrimPrefix(strings.TrimSpace(string(out)), "git version ")
}

func patchVersion() string {
	out, _ := exec.Command("patch", "--version").Output()
	first, _, _ := strings.Cut(string(out), "\n")
	return strings.TrimPrefix(first, "GNU patch ")
}
