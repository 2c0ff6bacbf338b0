// Command commitbench times a durable txedit commit of N files × E edits
// side by side with the same change made by plain os.WriteFile (no fsync)
// and by `git apply` of the equivalent patch, in one run, and prints the
// medians and their ratios (SPEC §11).
//
//	go run ./bench/commitbench [-files 1000] [-edits 10] [-runs 11] [-dir DIR]
//
// Every run starts from a fresh copy of the corpus, and sync(2) flushes
// that copy before the clock starts, so no method pays for another's
// writes. The page cache stays warm for all methods alike.
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
	"strings"
	"syscall"
	"time"

	"github.com/txedit/txedit/apply"
	"github.com/txedit/txedit/bench/internal/timing"
	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/plan"
)

func main() {
	files := flag.Int("files", 1000, "files in the transaction")
	edits := flag.Int("edits", 10, "str_replace edits per file")
	runs := flag.Int("runs", 11, "runs of each method")
	dir := flag.String("dir", "", "scratch directory (default: a temp dir)")
	txedit := flag.String("txedit", "", "txedit binary for the CLI method (default: built from this module)")
	flag.Parse()
	if *dir == "" {
		d, err := os.MkdirTemp("", "commitbench")
		check(err)
		defer os.RemoveAll(d)
		*dir = d
	}
	if *txedit == "" {
		bin, err := timing.BuildTxedit(*dir)
		check(err)
		*txedit = bin
	}

	corpus := filepath.Join(*dir, "corpus")
	reqJSON, newContent := makeCorpus(corpus, *files, *edits)
	reqFile := filepath.Join(*dir, "request.json")
	check(os.WriteFile(reqFile, reqJSON, 0o644))
	patchFile := filepath.Join(*dir, "change.patch")
	check(os.WriteFile(patchFile, []byte(dryRunDiff(corpus, reqJSON)), 0o644))

	type method struct {
		name string
		run  func(root string) error
	}
	lib := func(mode engine.Durability) func(string) error {
		return func(root string) error {
			w, err := engine.Open(root, &engine.Options{Durability: mode})
			if err != nil {
				return err
			}
			defer w.Close()
			req, _ := plan.Parse(reqJSON)
			_, err = w.Apply(context.Background(), req)
			return err
		}
	}
	methods := []method{
		{"os.WriteFile, no fsync", func(root string) error {
			for name, data := range newContent {
				if err := os.WriteFile(filepath.Join(root, name), data, 0o644); err != nil {
					return err
				}
			}
			return nil
		}},
		{"txedit library (durable, syncfs)", lib(engine.DurableAuto)},
		{"txedit library (durable, fsync each)", lib(engine.DurableFsync)},
		{"txedit library (no sync)", lib(engine.NotDurable)},
		{"txedit apply (CLI, durable)", func(root string) error {
			return run(*txedit, "apply", "--root", root, reqFile)
		}},
		{"git apply", func(root string) error {
			cmd := exec.Command("git", "apply", "-p1", patchFile)
			cmd.Dir = root
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("%v: %s", err, out)
			}
			return nil
		}},
	}
	times := make([][]time.Duration, len(methods))
	for r := 0; r < *runs; r++ {
		for i, m := range methods { // interleaved, so drift hits all alike
			root := filepath.Join(*dir, fmt.Sprintf("run-%d-%d", r, i))
			check(os.CopyFS(root, os.DirFS(corpus)))
			syscall.Sync()
			start := time.Now()
			if err := m.run(root); err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", m.name, err)
				os.Exit(1)
			}
			times[i] = append(times[i], time.Since(start))
			verify(root, newContent, m.name)
			os.RemoveAll(root)
		}
	}
	base, gitMed := timing.Median(times[0]), timing.Median(times[len(methods)-1])
	fmt.Printf("commit of %d files x %d edits, median of %d runs (%s)\n", *files, *edits, *runs, *dir)
	fmt.Printf("%-40s %10s %12s %12s\n", "method", "median", "vs WriteFile", "vs git apply")
	for i, m := range methods {
		med := timing.Median(times[i])
		fmt.Printf("%-40s %10s %11.2fx %11.2fx\n", m.name, med.Round(100*time.Microsecond), float64(med)/float64(base), float64(med)/float64(gitMed))
	}
}

// makeCorpus writes files of about 4 KiB in 20 directories and returns the
// request editing 10 lines of each, and each file's new content.
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
		for e := 0; e < edits; e++ {
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

func verify(root string, want map[string][]byte, method string) {
	for name, data := range want {
		got, err := os.ReadFile(filepath.Join(root, name))
		if err != nil || !bytes.Equal(got, data) {
			fmt.Fprintf(os.Stderr, "%s: %s has the wrong content\n", method, name)
			os.Exit(1)
		}
	}
}

func run(name string, args ...string) error {
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%v: %s", err, out)
	}
	return nil
}

func check(err error) {
	if err != nil {
		panic(err)
	}
}
