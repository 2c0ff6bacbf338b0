package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/txedit/txedit/internal/goplstest"
	"github.com/txedit/txedit/internal/testlong"
)

// The rename tests drive the gopls the tests pin (internal/tools/gopls,
// built once per test binary) and compare txedit rename with gopls
// rename -w on a copy of the same module: the same bytes in every file.

// renameCase is one rename: the identifier word on the first line of file
// holding marker, renamed to to; refused: gopls refuses it.
type renameCase struct {
	file, marker, word, to string
	refused                bool
	long                   bool // only in the long run
}

// copyModule copies the module at src into a new directory (writable:
// the module cache's copies are read-only); files named *.crlf lose that
// suffix (CRLF Go files cannot live in the repository as .go: gofmt).
func copyModule(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, strings.TrimSuffix(rel, ".crlf"))
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// locate returns FILE:LINE:COL of c's word in the module at dir.
func (c renameCase) locate(t *testing.T, dir string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, c.file))
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(string(data), "\n") {
		if strings.Contains(line, c.marker) {
			col := strings.Index(line, c.word)
			if col < 0 {
				t.Fatalf("%s: %q not on the line of %q", c.file, c.word, c.marker)
			}
			return c.file + ":" + strconv.Itoa(i+1) + ":" + strconv.Itoa(col+1)
		}
	}
	t.Fatalf("%s: no line holds %q", c.file, c.marker)
	return ""
}

// goplsRename runs gopls rename -w in dir and returns what it said.
func goplsRename(t *testing.T, gopls, dir, pos, to string) (string, error) {
	t.Helper()
	cmd := exec.Command(gopls, "rename", "-w", pos, to)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// checkRename renames c in two copies of the module at src, one with
// gopls rename -w and one with txedit rename, and checks that every file
// is the same, that the module builds (build), and that one txedit undo
// gives back the module as it was; a case gopls refuses must be refused
// with gopls's own message, writing nothing.
func checkRename(t *testing.T, gopls, src string, c renameCase, build bool) {
	t.Helper()
	ref, dir := copyModule(t, src), copyModule(t, src)
	before, _ := tree(t, dir)
	pos := c.locate(t, dir)
	said, gerr := goplsRename(t, gopls, ref, pos, c.to)
	if (gerr != nil) != c.refused {
		t.Fatalf("gopls rename -w %s %s: %v\n%s", pos, c.to, gerr, said)
	}
	r := runCLI("rename", "--root", dir, "--server", gopls+" serve", filepath.Join(dir, pos), c.to)
	if c.refused {
		// gopls names the files relative to where it runs: the copies'
		// names differ.
		msg := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(said), "gopls: "))
		msg = strings.ReplaceAll(msg, filepath.Base(ref)+string(filepath.Separator), filepath.Base(dir)+string(filepath.Separator))
		if r.code != 1 || !strings.Contains(r.stderr, msg) {
			t.Errorf("%s → %s: exit %d, stderr %q; want 1 and gopls's words %q", pos, c.to, r.code, r.stderr, msg)
		}
		if after, _ := tree(t, dir); after != before {
			t.Errorf("%s → %s: refused, yet files changed", pos, c.to)
		}
		if log := runCLI("log", "--root", dir, "--json"); strings.Contains(log.stdout, `"id"`) {
			t.Errorf("%s → %s: refused, yet a transaction: %s", pos, c.to, log.stdout)
		}
		return
	}
	if r.code != 0 {
		t.Fatalf("txedit rename %s %s: exit %d\n%s\n%s", pos, c.to, r.code, r.stdout, r.stderr)
	}
	want, _ := tree(t, ref)
	if got, _ := tree(t, dir); got != want {
		t.Fatalf("txedit rename %s %s differs from gopls rename -w:\n%s", pos, c.to, firstDiff(got, want))
	}
	if build {
		cmd := exec.Command("go", "build", "./...")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("go build ./... after renaming %s to %s: %v\n%s", pos, c.to, err, out)
		}
	}
	if u := runCLI("undo", "--root", dir); u.code != 0 {
		t.Fatalf("undo: %+v", u)
	}
	if after, _ := tree(t, dir); after != before {
		t.Errorf("one txedit undo after renaming %s to %s left:\n%s", pos, c.to, firstDiff(after, before))
	}
}

// firstDiff names the first entry where two tree snapshots differ.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var a, b string
		if i < len(g) {
			a = g[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if a != b {
			return "got  " + clip(a) + "\nwant " + clip(b)
		}
	}
	return "(equal)"
}

func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

// fixtureRenames are the renames of testdata/renamemod: the quick run
// takes a method (Echo.Hello has the same name and stays), an identifier
// after an emoji in a CRLF file, and a rename gopls refuses.
var fixtureRenames = []renameCase{
	{file: "greet/greet.go", marker: "func (g Greeter) Hello(", word: "Hello", to: "Hi"},
	{file: "greet/smile.go", marker: "var Width", word: "Width", to: "Span"},
	{file: "greet/greet.go", marker: "func Greet(", word: "Greet", to: "Other", refused: true},
	{file: "greet/greet.go", marker: "func Greet(", word: "Greet", to: "Welcome", long: true},
	{file: "greet/greet.go", marker: "type Greeter struct", word: "Greeter", to: "Host", long: true},
	{file: "greet/greet.go", marker: "\tName  string", word: "Name", to: "Label", long: true},
	{file: "greet/greet.go", marker: "count := 1", word: "count", to: "n", long: true},
}

func TestRenameLikeGopls(t *testing.T) {
	gopls := goplstest.Path(t)
	for i, c := range fixtureRenames {
		if c.long && !testlong.Long() {
			continue
		}
		checkRename(t, gopls, "testdata/renamemod", c, i == 0)
	}
}

// TestRenamePackage renames a package through gopls, which moves its
// files into the new directory (RenameFile operations) and deletes the
// old one: txedit commits all of it as one transaction (gopls rename -w
// cannot: its client offers no file renames), the module builds, and one
// undo brings the old tree back.
func TestRenamePackage(t *testing.T) {
	gopls := goplstest.Path(t)
	dir := copyModule(t, "testdata/renamemod")
	before, _ := tree(t, dir)
	r := runCLI("rename", "--root", dir, "--server", gopls, filepath.Join(dir, "greet/greet.go:3:9"), "salute")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "greet")); !os.IsNotExist(err) {
		t.Errorf("greet/ is still there: %v", err)
	}
	for _, f := range []string{"salute/greet.go", "salute/smile.go"} {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil || !strings.Contains(string(data), "package salute") {
			t.Errorf("%s: %v, package clause not renamed", f, err)
		}
	}
	main, _ := os.ReadFile(filepath.Join(dir, "cmd/hello/main.go"))
	if !strings.Contains(string(main), `"example.com/renamemod/salute"`) || !strings.Contains(string(main), "salute.Greeter{") {
		t.Errorf("cmd/hello/main.go:\n%s", main)
	}
	if crlf, _ := os.ReadFile(filepath.Join(dir, "salute/smile.go")); !strings.Contains(string(crlf), "package salute\r\n") {
		t.Errorf("salute/smile.go lost its CRLF line ends:\n%q", crlf)
	}
	cmd := exec.Command("go", "build", "./...")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("go build ./...: %v\n%s", err, out)
	}
	if u := runCLI("undo", "--root", dir); u.code != 0 {
		t.Fatalf("undo: %+v", u)
	}
	if after, _ := tree(t, dir); after != before {
		t.Errorf("after one undo:\n%s", firstDiff(after, before))
	}
}

// TestRenameSymbolTool runs the txedit toolset's rename_symbol, finding
// gopls on PATH (its default for Go files), as a dry run and then for
// real.
func TestRenameSymbolTool(t *testing.T) {
	gopls := goplstest.Path(t)
	t.Setenv("PATH", filepath.Dir(gopls)+string(os.PathListSeparator)+os.Getenv("PATH"))
	dir := copyModule(t, "testdata/renamemod")
	before, _ := tree(t, dir)
	call := func(args string) map[string]any {
		var out, errb strings.Builder
		code := run([]string{"tool", "rename_symbol", "--root", dir}, strings.NewReader(args), &out, &errb)
		var res map[string]any
		if err := json.Unmarshal([]byte(out.String()), &res); err != nil {
			t.Fatalf("exit %d: %v\n%s\n%s", code, err, out.String(), errb.String())
		}
		return res
	}
	res := call(`{"path":"greet/greet.go","line":14,"column":18,"new_name":"Hi","dry_run":true}`)
	if res["success"] != true || !strings.Contains(res["diff"].(string), "+func (g Greeter) Hi(who string) string {") {
		t.Fatalf("dry run: %v", res)
	}
	if after, _ := tree(t, dir); after != before {
		t.Fatal("the dry run wrote")
	}
	res = call(`{"path":"greet/greet.go","line":14,"column":18,"new_name":"Hi"}`)
	if res["success"] != true || res["files_modified"].(float64) != 2 {
		t.Fatalf("rename: %v", res)
	}
	main, _ := os.ReadFile(filepath.Join(dir, "cmd/hello/main.go"))
	if !strings.Contains(string(main), `g.Hi("world")`) || !strings.Contains(string(main), `greet.Echo{}.Hello("e")`) {
		t.Errorf("cmd/hello/main.go:\n%s", main)
	}
}

// TestRenameWithoutServer: a server that is not on PATH is named, with
// the command that installs it.
func TestRenameWithoutServer(t *testing.T) {
	dir := copyModule(t, "testdata/renamemod")
	t.Setenv("PATH", t.TempDir())
	r := runCLI("rename", "--root", dir, filepath.Join(dir, "greet/greet.go:14:18"), "Hi")
	if r.code != 1 || !strings.Contains(r.stderr, "the language server gopls is not on PATH: install it with `go install golang.org/x/tools/gopls@latest`, or name another with --server") {
		t.Errorf("no gopls: %+v", r)
	}
	r = runCLI("rename", "--root", dir, "--server", "txedit-no-such-server --stdio", filepath.Join(dir, "greet/greet.go:14:18"), "Hi")
	if r.code != 1 || !strings.Contains(r.stderr, "txedit-no-such-server is not on PATH, or name another with --server") {
		t.Errorf("no such server: %+v", r)
	}
	var out, errb strings.Builder
	run([]string{"tool", "rename_symbol", "--root", dir, "--server", "txedit-no-such-server --stdio"}, strings.NewReader(`{"path":"greet/greet.go","line":14,"column":18,"new_name":"Hi"}`), &out, &errb)
	if !strings.Contains(out.String(), "txedit-no-such-server is not on PATH") {
		t.Errorf("txedit tool --server: %s %s", out.String(), errb.String())
	}
	for _, bad := range []string{"greet/greet.go", "greet/greet.go:14", "greet/greet.go:0:1", "greet/greet.go:x:1"} {
		if r := runCLI("rename", "--root", dir, bad, "Hi"); r.code != 2 || !strings.Contains(r.stderr, "is not FILE:LINE:COL") {
			t.Errorf("%s: %+v", bad, r)
		}
	}
}

// realModules are the modules of the long run's sweep, from the module
// proxy, at pinned versions: cobra, and go-toml/v2 (larger: more lines
// and packages, and no requirements to download).
var realModules = []struct {
	path    string
	renames []renameCase
}{
	{"github.com/spf13/cobra@v1.10.2", []renameCase{
		{file: "cobra.go", marker: "func CheckErr(", word: "CheckErr", to: "MustSucceed"},
		{file: "command.go", marker: "func (c *Command) Root() *Command", word: "Root", to: "TopLevel"},
		{file: "args.go", marker: "type PositionalArgs func", word: "PositionalArgs", to: "ArgsValidator"},
		{file: "command.go", marker: "\tUse string", word: "Use", to: "Synopsis"},
		{file: "command.go", marker: "if displayName, ok :=", word: "displayName", to: "shown"},
		{file: "command.go", marker: "\tUse string", word: "Use", to: "Usage", refused: true},
	}},
	{"github.com/pelletier/go-toml/v2@v2.2.4", []renameCase{
		{file: "marshaler.go", marker: "func Marshal(v interface{})", word: "Marshal", to: "Serialize"},
		{file: "localtime.go", marker: "func (d LocalDate) AsTime(", word: "AsTime", to: "ToTime"},
		{file: "localtime.go", marker: "type LocalDate struct", word: "LocalDate", to: "CivilDate"},
		{file: "localtime.go", marker: "\tDay   int", word: "Day", to: "DayOfMonth"},
		{file: "marshaler.go", marker: "\tenc := NewEncoder(&buf)", word: "enc", to: "encoder"},
		{file: "localtime.go", marker: "type LocalDate struct", word: "LocalDate", to: "LocalTime", refused: true},
	}},
}

// TestRenameRealModules renames an exported function, a method, a type,
// a struct field and a local variable in real modules, each compared with
// gopls rename -w on a copy (the same bytes in every file), built, and
// undone; and a rename gopls refuses writes nothing.
func TestRenameRealModules(t *testing.T) {
	testlong.Skip(t, "renames in cobra and go-toml compared with gopls rename -w")
	gopls := goplstest.Path(t)
	for _, m := range realModules {
		out, err := exec.Command("go", "mod", "download", "-json", m.path).Output()
		if err != nil {
			t.Fatalf("go mod download %s: %v", m.path, err)
		}
		var info struct{ Dir string }
		json.Unmarshal(out, &info)
		// Its requirements, for gopls and go build.
		dl := exec.Command("go", "mod", "download")
		dl.Dir = info.Dir
		if out, err := dl.CombinedOutput(); err != nil {
			t.Fatalf("go mod download in %s: %v\n%s", m.path, err, out)
		}
		for _, c := range m.renames {
			t.Run(m.path+"/"+c.word+"→"+c.to, func(t *testing.T) { checkRename(t, gopls, info.Dir, c, true) })
		}
	}
}
