//go:build ignore

// record.go runs the apply_patch scenarios through the real Codex
// release the codex toolset follows (@openai/codex 0.169.0, its native
// apply_patch: `codex --codex-run-as-apply-patch PATCH`, run in the
// directory to patch) and writes what it answered into golden.json: its
// stdout, stderr and exit status, and the tree after. TestCodexGoldens
// (tools/codex_test.go) replays them through txedit's codex toolset, with
// no network. On demand, never in CI (docs/toolsets.md):
//
//	go run tools/testdata/codex/record.go [-codex /tmp/pp/node_modules/.bin/codex]
//
// Without -codex it installs the pinned package with npm into
// /tmp/txedit-patchpeers (as bench/patchpeers/run.sh does).
//
// The scenarios are apply/patch/testdata/ap_*.txtar (their "patch" and
// "in/PATH" sections) and tools/testdata/codex/scenarios/*.txtar, in the
// same format. A section whose last line ends with ^D has no final
// newline.
package main

import (
	"bytes"
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
	"unicode/utf8"

	"github.com/rogpeppe/go-internal/txtar"
)

const release = "0.169.0"

var codexBin = flag.String("codex", "", "the codex binary of @openai/codex "+release+" (default: npm install it into /tmp/txedit-patchpeers)")

type scenario struct {
	Name   string            `json:"name"`
	Source string            `json:"source"`
	Patch  string            `json:"patch"`
	Tree   map[string]string `json:"tree"`
	Stdout string            `json:"stdout"`
	Stderr string            `json:"stderr"`
	Exit   int               `json:"exit"`
	After  map[string]string `json:"after"`
}

type golden struct {
	Release  string      `json:"release"`
	Command  string      `json:"command"`
	Note     string      `json:"note"`
	Scenario []*scenario `json:"scenarios"`
}

func main() {
	flag.Parse()
	log.SetFlags(0)
	root, err := os.Getwd()
	if err != nil {
		log.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "tools", "testdata", "codex")); err != nil {
		log.Fatal("run from the repository's root: go run tools/testdata/codex/record.go")
	}
	bin := *codexBin
	if bin == "" {
		bin = install()
	}
	pkg := filepath.Join(filepath.Dir(filepath.Dir(bin)), "@openai", "codex", "package.json")
	var p struct{ Version string }
	if b, err := os.ReadFile(pkg); err != nil || json.Unmarshal(b, &p) != nil || p.Version != release {
		log.Fatalf("%s is not @openai/codex %s (%s: version %q, %v)", bin, release, pkg, p.Version, err)
	}
	var sources []string
	for _, g := range []string{"apply/patch/testdata/ap_*.txtar", "tools/testdata/codex/scenarios/*.txtar"} {
		m, _ := filepath.Glob(g)
		sources = append(sources, m...)
	}
	out := golden{Release: "@openai/codex " + release, Command: "codex --codex-run-as-apply-patch PATCH",
		Note: "recorded by tools/testdata/codex/record.go; $ROOT is the directory the patch ran in"}
	work, err := os.MkdirTemp("", "codex-record")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(work)
	for i, src := range sources {
		ar, err := txtar.ParseFile(src)
		if err != nil {
			log.Fatal(err)
		}
		s := &scenario{Name: strings.TrimSuffix(filepath.Base(src), ".txtar"), Source: src, Tree: map[string]string{}}
		for _, f := range ar.Files {
			if f.Name == "patch" {
				s.Patch = string(unmarkEOF(f.Data))
			} else if path, ok := strings.CutPrefix(f.Name, "in/"); ok {
				s.Tree[path] = string(unmarkEOF(f.Data))
			}
		}
		dir := filepath.Join(work, fmt.Sprint(i))
		for path, text := range s.Tree {
			must(os.MkdirAll(filepath.Join(dir, filepath.Dir(path)), 0o755))
			must(os.WriteFile(filepath.Join(dir, path), []byte(text), 0o644))
		}
		must(os.MkdirAll(dir, 0o755))
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(bin, "--codex-run-as-apply-patch", s.Patch)
		cmd.Dir, cmd.Stdout, cmd.Stderr = dir, &stdout, &stderr
		cmd.Env = append(os.Environ(), "HOME="+dir, "LC_ALL=C", "NO_COLOR=1")
		err = cmd.Run()
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee):
			s.Exit = ee.ExitCode()
		case err != nil:
			log.Fatalf("%s: %v", src, err)
		}
		s.Stdout = strings.ReplaceAll(stdout.String(), dir, "$ROOT")
		s.Stderr = strings.ReplaceAll(stderr.String(), dir, "$ROOT")
		s.After = snapshot(dir)
		out.Scenario = append(out.Scenario, s)
		fmt.Fprintf(os.Stderr, "%-45s exit %d\n", s.Name, s.Exit)
	}
	sort.Slice(out.Scenario, func(i, j int) bool { return out.Scenario[i].Name < out.Scenario[j].Name })
	b, err := json.MarshalIndent(out, "", " ")
	must(err)
	must(os.WriteFile(filepath.Join("tools", "testdata", "codex", "golden.json"), append(b, '\n'), 0o644))
	fmt.Fprintf(os.Stderr, "%d scenarios recorded with @openai/codex %s\n", len(out.Scenario), release)
}

// snapshot: every file under dir with its text; an empty directory as
// "PATH/".
func snapshot(dir string) map[string]string {
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		must(err)
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if ents, _ := os.ReadDir(p); len(ents) == 0 && rel != "." {
				out[rel+"/"] = ""
			}
			return nil
		}
		b, err := os.ReadFile(p)
		must(err)
		if !utf8.Valid(b) {
			log.Fatalf("%s: not UTF-8; golden.json holds text only", p)
		}
		out[rel] = string(b)
		return nil
	})
	return out
}

func install() string {
	prefix := "/tmp/txedit-patchpeers"
	bin := filepath.Join(prefix, "node_modules", ".bin", "codex")
	if b, err := os.ReadFile(filepath.Join(prefix, "node_modules", "@openai", "codex", "package.json")); err == nil && bytes.Contains(b, []byte(`"version": "`+release+`"`)) {
		return bin
	}
	must(os.MkdirAll(prefix, 0o755))
	if _, err := os.Stat(filepath.Join(prefix, "package.json")); err != nil {
		must(os.WriteFile(filepath.Join(prefix, "package.json"), []byte("{\"private\": true}\n"), 0o644))
	}
	cmd := exec.Command("npm", "install", "--prefix", prefix, "--no-audit", "--no-fund", "--loglevel=error", "@openai/codex@"+release)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	must(cmd.Run())
	return bin
}

func unmarkEOF(b []byte) []byte {
	if c, ok := bytes.CutSuffix(b, []byte("^D\n")); ok {
		return c
	}
	return b
}

func must(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
