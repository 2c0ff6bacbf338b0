package clientconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

var testServer = Server{Command: "/opt/bin/txedit", Args: []string{"mcp", "--toolset", "claude", "--root", "/src/app"}}

// fixture is a temporary home directory and project.
type fixture struct {
	env     *Env
	project string
}

func newFixture(t *testing.T) fixture {
	dir := t.TempDir()
	home, project := filepath.Join(dir, "home"), filepath.Join(dir, "project")
	for _, d := range []string{home, project} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// No XDG_CONFIG_HOME, APPDATA, CLAUDE_CONFIG_DIR…: everything under home.
	return fixture{env: &Env{GOOS: runtime.GOOS, Home: home, Getenv: func(string) string { return "" }}, project: project}
}

func (f fixture) opts(c *Client, s Scope) Options {
	return Options{Client: c, Scope: s, Project: f.project, Server: testServer, Env: f.env}
}

// fresh is the file txedit creates, written out by hand.
func fresh(c *Client) string {
	typ := ""
	if c.Type {
		typ = "\n      \"type\": \"stdio\","
	}
	return `{
  "` + c.Key + `": {
    "txedit": {` + typ + `
      "command": "/opt/bin/txedit",
      "args": [
        "mcp",
        "--toolset",
        "claude",
        "--root",
        "/src/app"
      ]
    }
  }
}
`
}

// existing is a file with another server and other settings, in the
// client's own shape.
func existing(c *Client) string {
	if c.JSONC {
		return "{\n\t// my servers\n\t\"inputs\": [],\n\t\"" + c.Key + "\": {\n\t\t\"other\": {\"type\": \"stdio\", \"command\": \"npx\", \"args\": [\"-y\", \"other-mcp\"]}, // keep me\n\t},\n}\n"
	}
	return "{\n  \"numStartups\": 12,\n  \"" + c.Key + "\": {\n    \"other\": {\n      \"command\": \"npx\",\n      \"args\": [\"-y\", \"other-mcp\"],\n      \"env\": {\"TOKEN\": \"s3cret\"}\n    }\n  },\n  \"zzz\": {\"a\": [1, 2.50, 1e3]}\n}\n"
}

func each(t *testing.T, fn func(t *testing.T, c *Client, s Scope)) {
	for _, c := range Clients() {
		for _, s := range c.Scopes {
			t.Run(c.Name+"/"+string(s), func(t *testing.T) { fn(t, c, s) })
		}
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestInstallMissingFile(t *testing.T) {
	each(t, func(t *testing.T, c *Client, s Scope) {
		f := newFixture(t)
		ch, err := Install(f.opts(c, s))
		if err != nil {
			t.Fatal(err)
		}
		if ch.Action != Added || !ch.Written || ch.Old != nil {
			t.Fatalf("action %s written %v old %q", ch.Action, ch.Written, ch.Old)
		}
		want, _ := c.Path(s, f.project, *f.env)
		if ch.Path != want || ch.Target != want {
			t.Errorf("path %s, want %s", ch.Path, want)
		}
		if got := mustRead(t, want); string(got) != fresh(c) {
			t.Errorf("created\n%s\nwant\n%s", got, fresh(c))
		}
		if runtime.GOOS != "windows" {
			fi, _ := os.Stat(want)
			di, _ := os.Stat(filepath.Dir(want))
			perm, dperm := fs.FileMode(0o600), fs.FileMode(0o700)
			if s == Project {
				perm, dperm = 0o644, 0o755
			}
			if fi.Mode().Perm() != perm&^umask() {
				t.Errorf("mode %v, want %v", fi.Mode().Perm(), perm&^umask())
			}
			if filepath.Dir(want) != f.env.Home && filepath.Dir(want) != f.project && di.Mode().Perm() != dperm&^umask() {
				t.Errorf("directory mode %v, want %v", di.Mode().Perm(), dperm&^umask())
			}
		}
		if !strings.Contains(ch.Diff(), "--- /dev/null\n+++ "+want) {
			t.Errorf("diff of a new file:\n%s", ch.Diff())
		}
	})
}

func TestInstallKeepsOtherServersAndUninstallRestores(t *testing.T) {
	each(t, func(t *testing.T, c *Client, s Scope) {
		f := newFixture(t)
		path, _ := c.Path(s, f.project, *f.env)
		os.MkdirAll(filepath.Dir(path), 0o755)
		orig := existing(c)
		if err := os.WriteFile(path, []byte(orig), 0o640); err != nil {
			t.Fatal(err)
		}
		ch, err := Install(f.opts(c, s))
		if err != nil {
			t.Fatal(err)
		}
		if ch.Action != Added || !ch.Written {
			t.Fatalf("action %s written %v", ch.Action, ch.Written)
		}
		got := mustRead(t, path)
		// The original is all there, byte for byte: the edit only inserted.
		if !isInsertion([]byte(orig), got) {
			t.Errorf("not a pure insertion into the original:\n%s", got)
		}
		if !c.JSONC && !json.Valid(got) {
			t.Errorf("not valid JSON:\n%s", got)
		}
		if fi, _ := os.Stat(path); runtime.GOOS != "windows" && fi.Mode().Perm() != 0o640 {
			t.Errorf("mode %v, want the file's 0640", fi.Mode().Perm())
		}
		d, err := parse(got, c.JSONC)
		if err != nil {
			t.Fatal(err)
		}
		m, _, _, _ := d.walk([]string{c.Key, "txedit"})
		if m == nil || !d.equal(m.val, c.entry(testServer)) {
			t.Errorf("entry missing or wrong:\n%s", got)
		}

		// The entry again: nothing to do, nothing written.
		before, _ := os.Stat(path)
		time.Sleep(10 * time.Millisecond)
		ch, err = Install(f.opts(c, s))
		if err != nil || ch.Action != Unchanged || ch.Written || ch.Diff() != "" {
			t.Fatalf("reinstall: %v %+v", err, ch)
		}
		if after, _ := os.Stat(path); !after.ModTime().Equal(before.ModTime()) || !os.SameFile(before, after) {
			t.Error("an unchanged install replaced the file")
		}

		// Uninstall gives back the original bytes.
		ch, err = Uninstall(f.opts(c, s))
		if err != nil || ch.Action != Removed || !ch.Written {
			t.Fatalf("uninstall: %v %+v", err, ch)
		}
		if got := mustRead(t, path); string(got) != orig {
			t.Errorf("after uninstall\n%s\nwant the original\n%s", got, orig)
		}
		ch, err = Uninstall(f.opts(c, s))
		if err != nil || ch.Action != Absent || ch.Written {
			t.Fatalf("second uninstall: %v %+v", err, ch)
		}
	})
}

func TestInstallUpdatesAnExistingEntry(t *testing.T) {
	each(t, func(t *testing.T, c *Client, s Scope) {
		f := newFixture(t)
		path, _ := c.Path(s, f.project, *f.env)
		os.MkdirAll(filepath.Dir(path), 0o755)
		orig := `{"` + c.Key + `": {"txedit": {"command": "/old/txedit", "args": ["mcp"], "env": {"A": "1"}, "disabled": false}, "z": {}}}`
		os.WriteFile(path, []byte(orig), 0o600)
		ch, err := Install(f.opts(c, s))
		if err != nil {
			t.Fatal(err)
		}
		if ch.Action != Updated {
			t.Fatalf("action %s", ch.Action)
		}
		var got map[string]map[string]map[string]any
		if err := json.Unmarshal(mustRead(t, path), &got); err != nil {
			t.Fatal(err)
		}
		e := got[c.Key]["txedit"]
		if e["command"] != testServer.Command || len(e["args"].([]any)) != len(testServer.Args) ||
			e["env"].(map[string]any)["A"] != "1" || e["disabled"] != false || got[c.Key]["z"] == nil {
			t.Errorf("updated entry %v", got)
		}
		if c.Type != (e["type"] == "stdio") {
			t.Errorf("type %v", e["type"])
		}
		if d := ch.Diff(); !strings.Contains(d, "-") || !strings.Contains(d, "/opt/bin/txedit") {
			t.Errorf("diff:\n%s", d)
		}
	})
}

func TestMalformedFilesAreLeftAlone(t *testing.T) {
	bad := []string{
		"{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"}\n    \"b\": {}\n  }\n}\n", // a missing comma
		"{\"mcpServers\": ",
		"not json",
		"[]",
		`{"mcpServers": [], "servers": []}`,
		`{"mcpServers": {"txedit": 1, "txedit": 2}, "servers": {"txedit": 1, "txedit": 2}}`,
	}
	each(t, func(t *testing.T, c *Client, s Scope) {
		for _, b := range bad {
			f := newFixture(t)
			path, _ := c.Path(s, f.project, *f.env)
			os.MkdirAll(filepath.Dir(path), 0o755)
			os.WriteFile(path, []byte(b), 0o600)
			for name, fn := range map[string]func(Options) (*Change, error){"install": Install, "uninstall": Uninstall} {
				_, err := fn(f.opts(c, s))
				var me *MalformedError
				if !errors.As(err, &me) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "left unchanged") {
					t.Errorf("%s %q: %v", name, b, err)
				}
				if got := mustRead(t, path); string(got) != b {
					t.Errorf("%s changed a malformed file", name)
				}
			}
		}
	})
}

func TestCommentsOnlyWhereTheClientReadsThem(t *testing.T) {
	src := "{\n  // mine\n  \"servers\": {},\n  \"mcpServers\": {},\n}\n"
	each(t, func(t *testing.T, c *Client, s Scope) {
		f := newFixture(t)
		path, _ := c.Path(s, f.project, *f.env)
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(path, []byte(src), 0o600)
		ch, err := Install(f.opts(c, s))
		if !c.JSONC {
			var me *MalformedError
			if !errors.As(err, &me) || !strings.Contains(err.Error(), "comments are not JSON") {
				t.Errorf("a comment in a plain JSON file: %v", err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		got := mustRead(t, path)
		if !bytes.HasPrefix(got, []byte("{\n  // mine\n  \"servers\": {\n    \"txedit\": {")) || !bytes.HasSuffix(got, []byte("  },\n  \"mcpServers\": {},\n}\n")) {
			t.Errorf("JSONC edit:\n%s", got)
		}
		if ch.Action != Added {
			t.Errorf("action %s", ch.Action)
		}
	})
}

func TestReadOnly(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX permissions")
	}
	each(t, func(t *testing.T, c *Client, s Scope) {
		f := newFixture(t)
		path, _ := c.Path(s, f.project, *f.env)
		os.MkdirAll(filepath.Dir(path), 0o755)
		orig := existing(c)
		os.WriteFile(path, []byte(orig), 0o444)
		_, err := Install(f.opts(c, s))
		var ro *ReadOnlyError
		if !errors.As(err, &ro) || ro.Dir || !strings.Contains(err.Error(), path+" is read-only") {
			t.Errorf("install into a read-only file: %v", err)
		}
		// A dry run says so too: the real run would fail.
		if _, err := Install(withDryRun(f.opts(c, s))); !errors.As(err, &ro) {
			t.Errorf("dry run on a read-only file: %v", err)
		}
		if got := mustRead(t, path); string(got) != orig {
			t.Error("a read-only file was changed")
		}
		if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o444 {
			t.Errorf("mode changed to %v", fi.Mode().Perm())
		}
		// Nothing to remove: a read-only file is no obstacle.
		if ch, err := Uninstall(f.opts(c, s)); err != nil || ch.Action != Absent {
			t.Errorf("uninstall of an absent entry from a read-only file: %v %+v", err, ch)
		}

		// A read-only directory the file would be created in.
		g := newFixture(t)
		path, _ = c.Path(s, g.project, *g.env)
		top := g.env.Home
		if s == Project {
			top = g.project
		}
		os.Chmod(top, 0o555)
		defer os.Chmod(top, 0o755)
		_, err = Install(g.opts(c, s))
		if !errors.As(err, &ro) || !ro.Dir || ro.Path != top {
			t.Errorf("install under a read-only directory: %v", err)
		}
		if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("a file was created: %v", err)
		}
	})
}

// isInsertion reports whether b is a with bytes inserted at one place.
func isInsertion(a, b []byte) bool {
	for k := 0; k <= len(a); k++ {
		if len(b) > len(a) && bytes.HasPrefix(b, a[:k]) && bytes.HasSuffix(b, a[k:]) {
			return true
		}
	}
	return false
}

func withDryRun(o Options) Options { o.DryRun = true; return o }

func TestDryRunWritesNothing(t *testing.T) {
	each(t, func(t *testing.T, c *Client, s Scope) {
		f := newFixture(t)
		path, _ := c.Path(s, f.project, *f.env)
		ch, err := Install(withDryRun(f.opts(c, s)))
		if err != nil || ch.Action != Added || ch.Written {
			t.Fatalf("%v %+v", err, ch)
		}
		if string(ch.New) != fresh(c) || !strings.Contains(ch.Diff(), "+      \"command\": \"/opt/bin/txedit\",") {
			t.Errorf("dry run content %s\ndiff %s", ch.New, ch.Diff())
		}
		// Neither the file nor its directories.
		for p := path; p != f.env.Home && p != f.project; p = filepath.Dir(p) {
			if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("%s exists after a dry run", p)
			}
		}

		os.MkdirAll(filepath.Dir(path), 0o755)
		orig := existing(c)
		os.WriteFile(path, []byte(orig), 0o600)
		for name, fn := range map[string]func(Options) (*Change, error){"install": Install, "uninstall": Uninstall} {
			if _, err := fn(withDryRun(f.opts(c, s))); err != nil {
				t.Fatal(err)
			}
			if got := mustRead(t, path); string(got) != orig {
				t.Errorf("dry-run %s wrote the file", name)
			}
		}
		Install(f.opts(c, s))
		installed := mustRead(t, path)
		ch, err = Uninstall(withDryRun(f.opts(c, s)))
		if err != nil || ch.Action != Removed || ch.Written || string(ch.New) != orig || !strings.Contains(ch.Diff(), "-    \"txedit\"") && !strings.Contains(ch.Diff(), "-\t\t\"txedit\"") {
			t.Errorf("dry-run uninstall: %v %+v\n%s", err, ch, ch.Diff())
		}
		if got := mustRead(t, path); !bytes.Equal(got, installed) {
			t.Error("dry-run uninstall wrote the file")
		}
	})
}

func TestSymlinkIsWrittenThrough(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	c, _ := Lookup("cursor")
	f := newFixture(t)
	dotfiles := filepath.Join(filepath.Dir(f.env.Home), "dotfiles")
	os.MkdirAll(dotfiles, 0o755)
	target := filepath.Join(dotfiles, "mcp.json")
	os.WriteFile(target, []byte(existing(c)), 0o600)
	link, _ := c.Path(User, f.project, *f.env)
	os.MkdirAll(filepath.Dir(link), 0o755)
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	ch, err := Install(f.opts(c, User))
	if err != nil {
		t.Fatal(err)
	}
	if ch.Path != link || ch.Target != target {
		t.Errorf("path %s target %s", ch.Path, ch.Target)
	}
	if li, err := os.Lstat(link); err != nil || li.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v", err)
	}
	if !bytes.Contains(mustRead(t, target), []byte(`"/opt/bin/txedit"`)) {
		t.Error("the target was not written")
	}
	if _, err := Uninstall(f.opts(c, User)); err != nil || string(mustRead(t, target)) != existing(c) {
		t.Errorf("uninstall through the link: %v", err)
	}

	// A dangling link is reported; nothing is created.
	os.Remove(target)
	_, err = Install(f.opts(c, User))
	if err == nil || !strings.Contains(err.Error(), "symbolic link to "+target+", which does not exist") {
		t.Errorf("dangling link: %v", err)
	}
	if _, err := os.Lstat(target); !errors.Is(err, fs.ErrNotExist) {
		t.Error("the link's target was created")
	}
}

func TestOddFiles(t *testing.T) {
	c, _ := Lookup("claude-desktop")
	f := newFixture(t)
	path, _ := c.Path(User, "", *f.env)
	os.MkdirAll(path, 0o755) // a directory where the file should be
	if _, err := Install(f.opts(c, User)); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a directory: %v", err)
	}
	os.Remove(path)

	// An empty (or blank) file is as good as a missing one.
	os.WriteFile(path, []byte(" \n"), 0o600)
	ch, err := Install(f.opts(c, User))
	if err != nil || ch.Action != Added || string(mustRead(t, path)) != fresh(c) {
		t.Errorf("a blank file: %v %+v", err, ch)
	}

	// --file: any path.
	other := filepath.Join(f.project, "custom.json")
	o := f.opts(c, User)
	o.File, o.Name = other, "txedit-2"
	if ch, err := Install(o); err != nil || ch.Path != other || !bytes.Contains(mustRead(t, other), []byte(`"txedit-2": {`)) {
		t.Errorf("--file: %v %+v", err, ch)
	}
}

// No temporary file is left next to the configuration file, after a
// write or a refused one.
func TestNoTemporaryFilesLeft(t *testing.T) {
	c, _ := Lookup("vscode")
	f := newFixture(t)
	path, _ := c.Path(Project, f.project, *f.env)
	Install(f.opts(c, Project))
	Install(f.opts(c, Project))
	Uninstall(f.opts(c, Project))
	os.WriteFile(path, []byte("{oops"), 0o644)
	Install(f.opts(c, Project))
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 || entries[0].Name() != "mcp.json" {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("files next to mcp.json: %v", names)
	}
}

// A file that changes between txedit's read and its write (a client
// rewriting it) is not replaced: that change would be lost.
func TestConcurrentChangeIsNotOverwritten(t *testing.T) {
	c, _ := Lookup("claude-code")
	for _, exists := range []bool{true, false} {
		f := newFixture(t)
		path, _ := c.Path(User, "", *f.env)
		if exists {
			os.WriteFile(path, []byte(existing(c)), 0o600)
		}
		theirs := []byte(`{"numStartups": 13, "mcpServers": {}}`)
		testHookBeforeWrite = func() { os.WriteFile(path, theirs, 0o600) }
		_, err := Install(f.opts(c, User))
		testHookBeforeWrite = nil
		if err == nil || !strings.Contains(err.Error(), "changed while txedit was editing it") {
			t.Errorf("exists %v: %v", exists, err)
		}
		if got := mustRead(t, path); !bytes.Equal(got, theirs) {
			t.Errorf("exists %v: the other writer's content was replaced:\n%s", exists, got)
		}
	}
}

// TestConcurrentInstallsKeepEveryEntry (docs/testing.md, the reliability audit): eight
// installs at once into one file each read it, added their entry and
// replaced it, so only the last ones' entries survived (2 to 6 of 8, all
// exiting 0). They are serialised now: every entry is there, and none
// failed.
func TestConcurrentInstallsKeepEveryEntry(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "mcp.json")
	c, err := Lookup("cursor")
	if err != nil {
		t.Fatal(err)
	}
	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = Install(Options{Client: c, Scope: User, File: file, Name: fmt.Sprintf("tx%d", i),
				Server: Server{Command: "txedit", Args: []string{"mcp"}}, Env: &Env{GOOS: "linux", Home: dir, Getenv: func(string) string { return "" }}})
		}()
	}
	wg.Wait()
	data, _ := os.ReadFile(file)
	for i := range n {
		if errs[i] != nil {
			t.Errorf("install %d: %v", i, errs[i])
		}
		if !strings.Contains(string(data), fmt.Sprintf(`"tx%d"`, i)) {
			t.Errorf("entry tx%d lost:\n%s", i, data)
		}
	}
}

// TestDuplicateServerKeyRefused (docs/testing.md, the reliability audit): a key twice in
// mcpServers was accepted (only the key being installed was checked).
func TestDuplicateServerKeyRefused(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "mcp.json")
	orig := `{"mcpServers": {"a": {"command": "x"}, "a": {"command": "y"}}}` + "\n"
	os.WriteFile(file, []byte(orig), 0o644)
	c, _ := Lookup("cursor")
	_, err := Install(Options{Client: c, Scope: User, File: file, Server: Server{Command: "txedit"}, Env: &Env{GOOS: "linux", Home: dir, Getenv: func(string) string { return "" }}})
	var me *MalformedError
	if !errors.As(err, &me) || !strings.Contains(err.Error(), `"a" occurs twice`) {
		t.Errorf("install into a file with a duplicate server: %v", err)
	}
	if data, _ := os.ReadFile(file); string(data) != orig {
		t.Errorf("the file changed:\n%s", data)
	}
}
