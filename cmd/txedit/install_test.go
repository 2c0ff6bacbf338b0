package main

import (
	"bytes"
	"encoding/json"
	"github.com/txedit/txedit/internal/clientconfig"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// installEnv is a temporary home directory (with nothing else in the
// environment pointing elsewhere) and a project directory.
func installEnv(t *testing.T) (home, project string) {
	t.Helper()
	dir := t.TempDir()
	home, project = filepath.Join(dir, "home"), filepath.Join(dir, "project")
	os.Mkdir(home, 0o755)
	os.Mkdir(project, 0o755)
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	for _, k := range []string{"XDG_CONFIG_HOME", "APPDATA", "CLAUDE_CONFIG_DIR", "VSCODE_APPDATA", "VSCODE_PORTABLE"} {
		t.Setenv(k, "")
	}
	return home, project
}

// configFile is where each client's file is expected, written out
// independently of internal/clientconfig.
func configFile(client, scope, home, project string) string {
	appConfig := filepath.Join(home, ".config")
	switch runtime.GOOS {
	case "darwin":
		appConfig = filepath.Join(home, "Library", "Application Support")
	case "windows":
		appConfig = filepath.Join(home, "AppData", "Roaming")
	}
	return map[string]string{
		"claude-desktop/user": filepath.Join(appConfig, "Claude", "claude_desktop_config.json"),
		"claude-code/user":    filepath.Join(home, ".claude.json"),
		"claude-code/project": filepath.Join(project, ".mcp.json"),
		"cursor/user":         filepath.Join(home, ".cursor", "mcp.json"),
		"cursor/project":      filepath.Join(project, ".cursor", "mcp.json"),
		"vscode/user":         filepath.Join(appConfig, "Code", "User", "mcp.json"),
		"vscode/project":      filepath.Join(project, ".vscode", "mcp.json"),
	}[client+"/"+scope]
}

var clientScopes = []struct{ client, scope, key string }{
	{"claude-desktop", "user", "mcpServers"},
	{"claude-code", "project", "mcpServers"},
	{"claude-code", "user", "mcpServers"},
	{"cursor", "project", "mcpServers"},
	{"cursor", "user", "mcpServers"},
	{"vscode", "project", "servers"},
	{"vscode", "user", "servers"},
}

type cliResult struct {
	code           int
	stdout, stderr string
}

func runCLI(args ...string) cliResult {
	var out, errb bytes.Buffer
	code := run(args, strings.NewReader(""), &out, &errb)
	return cliResult{code, out.String(), errb.String()}
}

func TestInstallEveryClient(t *testing.T) {
	const exe = "/usr/local/bin/txedit"
	for _, cs := range clientScopes {
		t.Run(cs.client+"/"+cs.scope, func(t *testing.T) {
			home, project := installEnv(t)
			path := configFile(cs.client, cs.scope, home, project)
			base := []string{"--client", cs.client, "--scope", cs.scope, "--root", project}
			install := append([]string{"mcp", "install", "--command", exe}, base...)
			uninstall := append([]string{"mcp", "uninstall"}, base...)

			// Dry run on a missing file: the diff, nothing written.
			r := runCLI(append(install, "--dry-run")...)
			if r.code != 0 || !strings.Contains(r.stdout, "--- /dev/null\n+++ "+path) || !strings.Contains(r.stdout, "Dry run, nothing was written") {
				t.Fatalf("dry run: %+v", r)
			}
			if _, err := os.Stat(path); !os.IsNotExist(err) {
				t.Fatalf("dry run created %s", path)
			}

			// A missing file is created with the entry.
			r = runCLI(install...)
			if r.code != 0 || !strings.Contains(r.stdout, "Added the txedit server to") || !strings.Contains(r.stdout, path) {
				t.Fatalf("install: %+v", r)
			}
			var cfg map[string]map[string]struct {
				Type    string   `json:"type"`
				Command string   `json:"command"`
				Args    []string `json:"args"`
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(data, &cfg); err != nil {
				t.Fatalf("%v\n%s", err, data)
			}
			e := cfg[cs.key]["txedit"]
			// A project's file names the project by the client's own
			// variable (it is committed and shared); a user's by path.
			wantRoot := project
			if cs.scope == "project" {
				c, _ := clientconfig.Lookup(cs.client)
				wantRoot = c.ProjectRoot
			}
			wantArgs := []string{"mcp", "--toolset", "txedit", "--root", wantRoot}
			if e.Command != exe || strings.Join(e.Args, " ") != strings.Join(wantArgs, " ") {
				t.Errorf("entry %+v, want %s %v", e, exe, wantArgs)
			}
			if (cs.client == "vscode" || cs.client == "claude-code") != (e.Type == "stdio") {
				t.Errorf("type %q", e.Type)
			}

			// Again: nothing to do.
			if r = runCLI(install...); r.code != 0 || !strings.Contains(r.stdout, "already has this txedit server; nothing was written") {
				t.Errorf("reinstall: %+v", r)
			}
			// Another toolset: updated.
			if r = runCLI(append(install, "--toolset", "claude")...); r.code != 0 || !strings.Contains(r.stdout, "Updated the txedit server in") {
				t.Errorf("update: %+v", r)
			}
			if data, _ := os.ReadFile(path); !bytes.Contains(data, []byte(`"claude"`)) {
				t.Errorf("not updated:\n%s", data)
			}
			// Removed; then there is nothing to remove.
			if r = runCLI(uninstall...); r.code != 0 || !strings.Contains(r.stdout, "Removed the txedit server from") {
				t.Errorf("uninstall: %+v", r)
			}
			if data, _ := os.ReadFile(path); bytes.Contains(data, []byte("txedit")) {
				t.Errorf("still there:\n%s", data)
			}
			if r = runCLI(uninstall...); r.code != 0 || !strings.Contains(r.stdout, "has no txedit server; nothing was written") {
				t.Errorf("uninstall again: %+v", r)
			}
		})
	}
}

func TestInstallKeepsOtherServers(t *testing.T) {
	for _, cs := range clientScopes {
		t.Run(cs.client+"/"+cs.scope, func(t *testing.T) {
			home, project := installEnv(t)
			path := configFile(cs.client, cs.scope, home, project)
			os.MkdirAll(filepath.Dir(path), 0o755)
			other := `"github": {"command": "docker", "args": ["run", "-i", "--rm", "ghcr.io/github/github-mcp-server"], "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "<token>"}}`
			orig := "{\n  \"theme\": \"dark\",\n  \"" + cs.key + "\": {\n    " + other + "\n  },\n  \"zeta\": [1, 2.0, 3e0]\n}\n"
			os.WriteFile(path, []byte(orig), 0o600)
			args := []string{"--client", cs.client, "--scope", cs.scope, "--root", project}
			if r := runCLI(append([]string{"mcp", "install", "--command", "txedit"}, args...)...); r.code != 0 {
				t.Fatalf("install: %+v", r)
			}
			data, _ := os.ReadFile(path)
			// The other server, the other keys and their spelling survive
			// byte for byte; the new entry comes after the other server.
			if !bytes.HasPrefix(data, []byte("{\n  \"theme\": \"dark\",\n  \""+cs.key+"\": {\n    "+other+",\n    \"txedit\": {")) ||
				!bytes.HasSuffix(data, []byte("\n    }\n  },\n  \"zeta\": [1, 2.0, 3e0]\n}\n")) {
				t.Errorf("edited file:\n%s", data)
			}
			if r := runCLI(append([]string{"mcp", "uninstall"}, args...)...); r.code != 0 {
				t.Fatalf("uninstall: %+v", r)
			}
			if data, _ := os.ReadFile(path); string(data) != orig {
				t.Errorf("uninstall did not restore the file:\n%s", data)
			}
		})
	}
}

func TestInstallRefusesMalformedAndReadOnlyFiles(t *testing.T) {
	for _, cs := range clientScopes {
		t.Run(cs.client+"/"+cs.scope, func(t *testing.T) {
			home, project := installEnv(t)
			path := configFile(cs.client, cs.scope, home, project)
			os.MkdirAll(filepath.Dir(path), 0o755)
			args := []string{"--client", cs.client, "--scope", cs.scope, "--root", project, "--command", "txedit"}

			broken := "{\n  \"" + cs.key + "\": {\n    \"a\": {}\n    \"b\": {}\n  }\n}\n"
			os.WriteFile(path, []byte(broken), 0o600)
			for _, verb := range []string{"install", "uninstall"} {
				a := append([]string{"mcp", verb}, args...)
				if verb == "uninstall" {
					a = a[:len(a)-2]
				}
				r := runCLI(a...)
				if r.code != 1 || !strings.Contains(r.stderr, path+" is not valid JSON (line 4, column 5:") || !strings.Contains(r.stderr, "left unchanged") {
					t.Errorf("%s into a malformed file: %+v", verb, r)
				}
				r = runCLI(append(a, "--json")...)
				if r.code != 1 || !strings.Contains(r.stdout, `"code": "invalid_config"`) {
					t.Errorf("%s --json into a malformed file: %+v", verb, r)
				}
			}
			if data, _ := os.ReadFile(path); string(data) != broken {
				t.Error("a malformed file was changed")
			}

			if runtime.GOOS == "windows" {
				return
			}
			orig := "{\"" + cs.key + "\": {}}\n"
			os.WriteFile(path, []byte(orig), 0o444)
			os.Chmod(path, 0o444)
			r := runCLI(append([]string{"mcp", "install"}, args...)...)
			if r.code != 1 || !strings.Contains(r.stderr, path+" is read-only; it was left unchanged") {
				t.Errorf("install into a read-only file: %+v", r)
			}
			r = runCLI(append([]string{"mcp", "install", "--json"}, args...)...)
			if r.code != 1 || !strings.Contains(r.stdout, `"code": "denied"`) {
				t.Errorf("install --json into a read-only file: %+v", r)
			}
			if data, _ := os.ReadFile(path); string(data) != orig {
				t.Error("a read-only file was changed")
			}
		})
	}
}

func TestInstallPassesServerFlagsOn(t *testing.T) {
	_, project := installEnv(t)
	r := runCLI("mcp", "install", "--client", "cursor", "--root", project, "--command", "/bin/txedit", "--toolset", "deepagents",
		"--read-only", "--allow-git", "--deny-read", ".env", "--deny-read", "secrets/**", "--deny-write", "*.lock", "--name", "tx-ro", "--json")
	if r.code != 0 {
		t.Fatalf("%+v", r)
	}
	var out struct {
		Action, Path, Command string
		Args                  []string
	}
	json.Unmarshal([]byte(r.stdout), &out)
	want := []string{"mcp", "--toolset", "deepagents", "--root", "${workspaceFolder}", "--allow-git", "--deny-read", ".env", "--deny-read", "secrets/**", "--deny-write", "*.lock", "--read-only"}
	if out.Action != "added" || out.Command != "/bin/txedit" || strings.Join(out.Args, "\x00") != strings.Join(want, "\x00") {
		t.Errorf("--json: %+v, want args %q", out, want)
	}
	data, _ := os.ReadFile(filepath.Join(project, ".cursor", "mcp.json"))
	if !bytes.Contains(data, []byte(`"tx-ro": {`)) || !bytes.Contains(data, []byte(`"secrets/**"`)) {
		t.Errorf("file:\n%s", data)
	}
	// Every flag of txedit mcp is a flag of txedit mcp install.
	serve, inst := mcpCmd(), mcpInstallCmd()
	for _, name := range commandFlagNames(serve) {
		if !hasString(commandFlagNames(inst), name) {
			t.Errorf("txedit mcp --%s is not accepted by txedit mcp install", name)
		}
	}
}

func hasString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestInstallUsage(t *testing.T) {
	_, project := installEnv(t)
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no client", []string{"mcp", "install"}, 2, "which client?"},
		{"unknown client", []string{"mcp", "install", "--client", "emacs"}, 2, `unknown client "emacs"`},
		{"no project scope", []string{"mcp", "install", "--client", "claude-desktop", "--scope", "project"}, 2, "Claude Desktop has no project scope"},
		{"unknown scope", []string{"mcp", "uninstall", "--client", "cursor", "--scope", "global"}, 2, "Cursor has no global scope"},
		{"unknown toolset", []string{"mcp", "install", "--client", "cursor", "--toolset", "emacs", "--command", "x"}, 2, `unknown toolset "emacs"`},
		{"an argument", []string{"mcp", "install", "cursor"}, 2, "takes no arguments"},
		{"unknown flag", []string{"mcp", "uninstall", "--client", "cursor", "--read-only"}, 2, "flag provided but not defined: -read-only"},
		{"empty name", []string{"mcp", "install", "--client", "cursor", "--name", ""}, 2, "--name must not be empty"},
		{"root is not a directory", []string{"mcp", "install", "--client", "cursor", "--root", filepath.Join(project, "nope")}, 1, "is not a directory"},
	}
	for _, tc := range tests {
		args := append(tc.args, "--root", project)
		if tc.name == "root is not a directory" {
			args = tc.args // its own --root
		}
		r := runCLI(args...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.msg) {
			t.Errorf("%s: %+v, want exit %d and %q", tc.name, r, tc.code, tc.msg)
		}
	}
	if _, err := os.Stat(filepath.Join(project, ".cursor")); !os.IsNotExist(err) {
		t.Error("a usage error wrote a file")
	}
}

// Without --command a user's entry runs this very binary, unless it is a
// temporary build that will be gone (go run, go test); a project's entry
// runs txedit as found on PATH (the file is shared).
func TestInstallCommandDefault(t *testing.T) {
	_, project := installEnv(t)
	if r := runCLI("mcp", "install", "--client", "cursor", "--root", project, "--dry-run"); r.code != 0 ||
		!strings.Contains(r.stdout, `+      "command": "txedit",`) || !strings.Contains(r.stdout, `"${workspaceFolder}"`) {
		t.Errorf("project scope: %+v", r)
	}
	exe, _ := os.Executable()
	r := runCLI("mcp", "install", "--client", "cursor", "--scope", "user", "--root", project, "--dry-run")
	if strings.Contains(filepath.ToSlash(exe), "/go-build") {
		if r.code != 1 || !strings.Contains(r.stderr, "is a temporary build (go run)") || !strings.Contains(r.stderr, "go install") {
			t.Errorf("a go-build binary: %+v", r)
		}
		return
	}
	if r.code != 0 || !strings.Contains(r.stdout, `+      "command": "`+exe+`",`) {
		t.Errorf("default command: %+v, want %s", r, exe)
	}
}

// TestExecuteWithDenyFlagsIsRefused: a shell ignores deny flags, so a
// server offering commands cannot keep them: txedit mcp refuses the
// combination at start, and mcp install will not write an entry naming it.
func TestExecuteWithDenyFlagsIsRefused(t *testing.T) {
	_, project := installEnv(t)
	for _, args := range [][]string{
		{"mcp", "--root", project, "--toolset", "deepagents", "--allow-execute", "--deny-read", ".env"},
		{"mcp", "--root", project, "--toolset", "deepagents", "--allow-execute", "--deny-write", "*.lock"},
		{"mcp", "install", "--client", "cursor", "--root", project, "--command", "/bin/txedit", "--allow-execute", "--deny-read", ".env"},
	} {
		r := runCLI(args...)
		if r.code != 2 || !strings.Contains(r.stderr, "--allow-execute cannot be combined with --deny-read or --deny-write") {
			t.Errorf("%q: %+v", args, r)
		}
	}
	if _, err := os.Stat(filepath.Join(project, ".cursor", "mcp.json")); err == nil {
		t.Error("install wrote an entry for a server that refuses to start")
	}
}
