package txedit

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/txedit/txedit"

// allowed lists, for every package of the module, the module packages and
// third-party modules it may import directly. A package missing here fails
// the test: new packages declare their place. (The idea of Go's own
// go/build/deps_test.go, at our scale.)
var allowed = map[string][]string{
	"hash":                     {"github.com/cespare/xxhash/v2"},
	"plan":                     {"hash", "internal/jsonenc"},
	"apply":                    {"plan", "hash", "internal/grep"},
	"apply/patch":              {"plan", "apply", "hash"},
	"fsys":                     {"golang.org/x/sys"},
	"fsys/memfs":               {"fsys"},
	"fsys/faultfs":             {"fsys"},
	"fsys/fstest":              {"fsys", "fsys/memfs", "fsys/faultfs"},
	"internal/jsonenc":         {},
	"internal/par":             {"github.com/sourcegraph/conc"},
	"internal/fdtable":         {"golang.org/x/sys"},
	"internal/ignore":          {"github.com/gobwas/glob"},
	"internal/grep":            {"plan"},
	"internal/walk":            {"fsys", "internal/ignore", "internal/par", "github.com/sourcegraph/conc"},
	"journal":                  {"fsys", "hash", "internal/par"},
	"engine":                   {"plan", "apply", "hash", "journal", "fsys", "internal/par", "internal/walk", "internal/ignore", "internal/grep", "internal/fdtable"},
	"tools":                    {"engine", "plan", "apply", "apply/patch", "hash", "journal", "fsys", "internal/grep", "internal/jsonenc", "internal/lsp"},
	"tools/mcpserver":          {"tools", "engine", "plan", "github.com/modelcontextprotocol/go-sdk"},
	"cmd/txedit":               {"*"},
	"bench":                    {"*"},
	"bench/commitbench":        {"*"},
	"bench/replacebench":       {"*"},
	"bench/searchbench":        {"*"},
	"bench/agentloopbench":     {"*"},
	"bench/soakbench":          {"*"},
	"bench/agentsbench":        {"*"},
	"bench/internal/delta":     {},
	"bench/internal/durable":   {"fsys", "internal/par"},
	"bench/startbench":         {"*"},
	"bench/fscostbench":        {"*"},
	"bench/realdiffbench":      {"*"},
	"bench/internal/timing":    {"*"},
	"internal/buildinfo":       {},
	"internal/mcpcli":          {"engine", "plan", "tools"},
	"internal/profile":         {},
	"cmd/txedit-mcp":           {"*"},
	"internal/patchcorpus":     {},
	"internal/modcorpus":       {},
	"internal/modcorpus/build": {"internal/modcorpus"},
	"internal/testlong":        {},
	"internal/teststate":       {},
	"internal/mountns":         {},
	// A file system on which an outside writer saves at each commit's
	// swap: a test double of the engine's and the toolsets' tests.
	"internal/swapsave":     {"fsys", "journal"},
	"bench/patchpeers":      {"*"},
	"internal/clientconfig": {"apply", "github.com/google/renameio/v2", "golang.org/x/sys"},
	// The LSP client: JSON-RPC over a server's stdio, nothing of the
	// module (the rename in tools drives it; the engine never sees it).
	"internal/lsp": {},
	// Builds the pinned gopls for the tests (internal/tools/gopls).
	"internal/goplstest": {},
	"":                   {},
}

// io lists the packages that do I/O: pure packages import none of them,
// and import no module package that is not pure itself.
var io = []string{"os", "os/exec", "os/signal", "syscall", "net", "net/http", "golang.org/x/sys/unix",
	module + "/fsys", module + "/journal", module + "/engine"}

var pure = map[string]bool{"hash": true, "plan": true, "apply": true, "apply/patch": true, "internal/grep": true, "internal/ignore": true, "internal/patchcorpus": true, "internal/jsonenc": true}

// touchSources stats every Go file of the module, so that the test cache
// (which tracks the files a test opens or stats, not what go list reads)
// runs these tests again when an import changes.
func touchSources(t *testing.T) {
	t.Helper()
	filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".go") {
			os.Stat(p)
		}
		if err == nil && d.IsDir() && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".") && p != ".") {
			return filepath.SkipDir
		}
		return nil
	})
}

func goList(t *testing.T, args ...string) []string {
	t.Helper()
	touchSources(t)
	out, err := exec.Command("go", append([]string{"list"}, args...)...).Output()
	if err != nil {
		t.Fatalf("go list %v: %v", args, err)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

func TestImportDirection(t *testing.T) {
	for _, line := range goList(t, "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...") {
		f := strings.Fields(line)
		pkg := strings.TrimPrefix(strings.TrimPrefix(f[0], module), "/")
		ok, known := allowed[pkg]
		if !known {
			t.Errorf("package %q has no entry in allowed: give it its place in the layering", pkg)
			continue
		}
		if len(ok) == 1 && ok[0] == "*" {
			continue
		}
	imports:
		for _, imp := range f[1:] {
			if !strings.Contains(strings.Split(imp, "/")[0], ".") {
				continue // the standard library
			}
			rel, inModule := strings.CutPrefix(imp, module+"/")
			for _, a := range ok {
				if (inModule && rel == a) || (!inModule && (imp == a || strings.HasPrefix(imp, a+"/"))) {
					continue imports
				}
			}
			t.Errorf("%s imports %s, which the layering does not allow", pkg, imp)
		}
	}
}

func TestPurePackagesDoNoIO(t *testing.T) {
	for _, line := range goList(t, "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...") {
		f := strings.Fields(line)
		pkg := strings.TrimPrefix(strings.TrimPrefix(f[0], module), "/")
		if !pure[pkg] {
			continue
		}
		for _, imp := range f[1:] {
			for _, bad := range io {
				if imp == bad {
					t.Errorf("%s imports %s: it must stay pure (bytes in, bytes out)", pkg, imp)
				}
			}
			if rel, ok := strings.CutPrefix(imp, module+"/"); ok && !pure[rel] {
				t.Errorf("%s imports %s, which is not pure", pkg, imp)
			}
		}
	}
}

// TestEngineKnowsNoDialect: nothing the engine depends on is a toolset,
// the MCP SDK or the command line.
func TestEngineKnowsNoDialect(t *testing.T) {
	for _, d := range goList(t, "-deps", "./engine") {
		if strings.HasPrefix(d, module+"/tools") || strings.HasPrefix(d, module+"/cmd") || strings.Contains(d, "modelcontextprotocol") || d == module+"/internal/lsp" {
			t.Errorf("engine depends on %s", d)
		}
	}
}

// TestOnlyTheServerLinksTheSDK: txedit itself does not link the MCP SDK
// or what it brings (net/http, crypto/tls, OAuth): their package inits
// ran in every command, ~12 ms a start (docs/design.md, "Process start").
// Only txedit-mcp links them.
func TestOnlyTheServerLinksTheSDK(t *testing.T) {
	for _, d := range goList(t, "-deps", "./cmd/txedit") {
		if strings.Contains(d, "modelcontextprotocol") || d == "net/http" || d == "crypto/tls" || strings.HasPrefix(d, "golang.org/x/oauth2") {
			t.Errorf("cmd/txedit links %s", d)
		}
	}
	found := false
	for _, d := range goList(t, "-deps", "./cmd/txedit-mcp") {
		found = found || strings.Contains(d, "modelcontextprotocol/go-sdk/mcp")
	}
	if !found {
		t.Error("cmd/txedit-mcp does not link the MCP SDK: what serves MCP?")
	}
}

// TestCommandLinksLittle: what every txedit process would pay at start
// for nothing (docs/design.md, "Process start") stays out of the command:
// the profiler unless built with -tags txedit_pprof, a JSON Schema
// library and its logger (tools has its own validator), cgo's libc.
func TestCommandLinksLittle(t *testing.T) {
	for _, d := range goList(t, "-deps", "./cmd/txedit") {
		if d == "runtime/pprof" || d == "compress/gzip" || d == "log/slog" || d == "runtime/cgo" || strings.Contains(d, "jsonschema") || strings.Contains(d, "gotextdiff") {
			t.Errorf("cmd/txedit links %s", d)
		}
	}
	found := false
	for _, d := range goList(t, "-deps", "-tags", "txedit_pprof", "./cmd/txedit") {
		found = found || d == "runtime/pprof"
	}
	if !found {
		t.Error("cmd/txedit -tags txedit_pprof does not link runtime/pprof: TXEDIT_CPUPROFILE would write nothing")
	}
}

// TestNoLanguageServerLinked: the binaries talk to a language server the
// user brings; they never link one, and gopls (which the tests build from
// their own module, internal/tools/gopls) is no requirement of txedit's
// module.
func TestNoLanguageServerLinked(t *testing.T) {
	for _, bin := range []string{"./cmd/txedit", "./cmd/txedit-mcp"} {
		for _, d := range goList(t, "-deps", bin) {
			if strings.HasPrefix(d, "golang.org/x/tools/gopls") {
				t.Errorf("%s links %s", bin, d)
			}
		}
	}
	for _, m := range goList(t, "-m", "all") {
		if strings.HasPrefix(m, "golang.org/x/tools/gopls ") {
			t.Errorf("the module requires %s: gopls belongs to internal/tools/gopls's module", m)
		}
	}
}

// TestFuzzTargetsDocumented: every fuzz target of the module is in
// fuzz/README.md's table (fuzz/run.sh finds them all by itself).
func TestFuzzTargetsDocumented(t *testing.T) {
	readme, err := os.ReadFile("fuzz/README.md")
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		data, _ := os.ReadFile(p)
		for _, line := range strings.Split(string(data), "\n") {
			name, ok := strings.CutPrefix(line, "func Fuzz")
			if !ok {
				continue
			}
			name = "Fuzz" + name[:strings.IndexByte(name, '(')]
			found++
			if !strings.Contains(string(readme), "`"+filepath.ToSlash(filepath.Dir(p))+"."+name+"`") {
				t.Errorf("%s (%s) is not in fuzz/README.md", name, p)
			}
		}
		return nil
	})
	if found < 10 {
		t.Errorf("found only %d fuzz targets: the walk is broken", found)
	}
}

// maxFuncLines is the longest a function outside bench/ and the tests may
// be (each core function reads as a short story of named steps, the
// details in helpers beside it; docs/design.md).
const maxFuncLines = 100

// TestFunctionsAreShort keeps every function of the module's packages
// (not the benchmarks, not tests) within maxFuncLines.
func TestFunctionsAreShort(t *testing.T) {
	fset := token.NewFileSet()
	checked := 0
	filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if n := d.Name(); p != "." && (p == "bench" || n == "testdata" || n == "node_modules" || strings.HasPrefix(n, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			return nil
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			checked++
			if n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1; n > maxFuncLines {
				t.Errorf("%s: %s is %d lines (at most %d: split it into named steps)", p, fn.Name.Name, n, maxFuncLines)
			}
		}
		return nil
	})
	if checked < 500 {
		t.Errorf("checked only %d functions: the walk is broken", checked)
	}
}

// citation matches what a comment must not cite: the product
// specification (by its name in capitals, or a section sign and number) or
// an issue (the word and a number, or a number after "#"). A reader of the
// repository has its docs (docs/*.md, bench/README.md), not those.
var citation = regexp.MustCompile(`\bSPEC\b|§|(?i:\bissues?\s*#?\d+)|(?:^|[\s(])#\d+\b`)

// TestCommentsCiteOnlyDocs: no comment of the module's Go files, and no
// comment line of its shell scripts, cites the specification or an issue
// number; comments cite the repository's own docs, or say the thing itself.
func TestCommentsCiteOnlyDocs(t *testing.T) {
	fset := token.NewFileSet()
	checked := 0
	filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if name := d.Name(); name == "node_modules" || name == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		switch {
		case strings.HasSuffix(p, ".go"):
			f, err := parser.ParseFile(fset, p, nil, parser.ParseComments|parser.SkipObjectResolution)
			if err != nil {
				return nil // a test input that is not Go
			}
			checked++
			for _, g := range f.Comments {
				for _, c := range g.List {
					if m := citation.FindString(c.Text); m != "" {
						t.Errorf("%s: a comment cites %q: cite docs/….md (or say the thing itself)", fset.Position(c.Pos()), strings.TrimSpace(m))
					}
				}
			}
		case strings.HasSuffix(p, ".sh") || filepath.Base(p) == "run" && filepath.Base(filepath.Dir(p)) == ".ci":
			data, _ := os.ReadFile(p)
			checked++
			for i, line := range strings.Split(string(data), "\n") {
				if c, ok := strings.CutPrefix(strings.TrimSpace(line), "#"); ok && citation.MatchString(c) {
					t.Errorf("%s:%d: a comment cites %q: cite docs/….md (or say the thing itself)", p, i+1, strings.TrimSpace(citation.FindString(c)))
				}
			}
		}
		return nil
	})
	if checked < 100 {
		t.Errorf("checked only %d files: the walk is broken", checked)
	}
}

// TestTestsKeepTheirOwnKeys: every package whose tests open workspaces
// (they import the engine, the journal or a toolset) gives its test binary
// a key store of its own (internal/teststate), or each workspace a test
// opens on disk adds an entry to the key store in the real home directory
// (docs/design.md, "What makes a journal trusted"): a machine that ran the
// tests a few hundred times held thousands of them.
func TestTestsKeepTheirOwnKeys(t *testing.T) {
	// The journal's own tests give every journal a store (NewKeys over a
	// temporary directory, or the process's memory) and import none of
	// these.
	opens := []string{module + "/engine", module + "/tools", module + "/tools/mcpserver", module + "/internal/mcpcli"}
	for _, line := range goList(t, "-f", "{{.ImportPath}}|{{.Dir}}|{{join .TestImports \" \"}} {{join .XTestImports \" \"}}", "./...") {
		f := strings.SplitN(line, "|", 3)
		if len(f) != 3 || f[0] == module || strings.HasSuffix(f[0], "/internal/teststate") {
			continue
		}
		imps := strings.Fields(f[2])
		needs, isolated := false, slices.Contains(imps, module+"/internal/teststate")
		for _, o := range opens {
			needs = needs || f[0] == o || slices.Contains(imps, o)
		}
		if needs && !isolated {
			t.Errorf("%s: its tests open workspaces but do not call teststate.Isolate in a TestMain", f[0])
		}
	}
}
