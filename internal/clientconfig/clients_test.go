package clientconfig

import (
	"errors"
	"path/filepath"
	"testing"
)

func TestPaths(t *testing.T) {
	home := filepath.FromSlash("/home/u")
	proj := filepath.FromSlash("/src/app")
	j := filepath.Join
	env := func(goos string, vars ...string) Env {
		m := map[string]string{}
		for i := 0; i+1 < len(vars); i += 2 {
			m[vars[i]] = vars[i+1]
		}
		return Env{GOOS: goos, Home: home, Getenv: func(k string) string { return m[k] }}
	}
	appData := filepath.FromSlash("/w/AppData/Roaming")
	tests := []struct {
		client string
		scope  Scope
		env    Env
		want   string
	}{
		// Claude Desktop: user scope only.
		{"claude-desktop", "", env("darwin"), j(home, "Library", "Application Support", "Claude", "claude_desktop_config.json")},
		{"claude-desktop", User, env("windows", "APPDATA", appData), j(appData, "Claude", "claude_desktop_config.json")},
		{"claude-desktop", User, env("windows"), j(home, "AppData", "Roaming", "Claude", "claude_desktop_config.json")},
		{"claude-desktop", User, env("linux"), j(home, ".config", "Claude", "claude_desktop_config.json")},
		{"claude-desktop", User, env("linux", "XDG_CONFIG_HOME", filepath.FromSlash("/xdg")), j(filepath.FromSlash("/xdg"), "Claude", "claude_desktop_config.json")},
		{"claude-desktop", User, env("linux", "XDG_CONFIG_HOME", "relative"), j(home, ".config", "Claude", "claude_desktop_config.json")},
		{"claude-desktop", User, env("freebsd"), j(home, ".config", "Claude", "claude_desktop_config.json")},
		// Claude Code: .mcp.json in the project; ~/.claude.json.
		{"claude-code", "", env("linux"), j(proj, ".mcp.json")},
		{"claude-code", Project, env("windows"), j(proj, ".mcp.json")},
		{"claude-code", User, env("darwin"), j(home, ".claude.json")},
		{"claude-code", User, env("windows"), j(home, ".claude.json")},
		{"claude-code", User, env("linux", "CLAUDE_CONFIG_DIR", filepath.FromSlash("/cc")), j(filepath.FromSlash("/cc"), ".claude.json")},
		// Cursor: .cursor/mcp.json in the project and in the home directory.
		{"cursor", "", env("darwin"), j(proj, ".cursor", "mcp.json")},
		{"cursor", User, env("linux"), j(home, ".cursor", "mcp.json")},
		{"cursor", User, env("windows"), j(home, ".cursor", "mcp.json")},
		// VS Code: .vscode/mcp.json; the default profile's mcp.json.
		{"vscode", "", env("linux"), j(proj, ".vscode", "mcp.json")},
		{"vscode", User, env("darwin"), j(home, "Library", "Application Support", "Code", "User", "mcp.json")},
		{"vscode", User, env("windows", "APPDATA", appData), j(appData, "Code", "User", "mcp.json")},
		{"vscode", User, env("linux"), j(home, ".config", "Code", "User", "mcp.json")},
		{"vscode", User, env("linux", "XDG_CONFIG_HOME", filepath.FromSlash("/xdg")), j(filepath.FromSlash("/xdg"), "Code", "User", "mcp.json")},
		{"vscode", User, env("linux", "VSCODE_APPDATA", filepath.FromSlash("/va")), j(filepath.FromSlash("/va"), "Code", "User", "mcp.json")},
		{"vscode", User, env("darwin", "VSCODE_PORTABLE", filepath.FromSlash("/port")), j(filepath.FromSlash("/port"), "user-data", "User", "mcp.json")},
	}
	for _, tc := range tests {
		c, err := Lookup(tc.client)
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.Path(tc.scope, proj, tc.env)
		if err != nil || got != tc.want {
			t.Errorf("%s %q on %s: %q, %v; want %q", tc.client, tc.scope, tc.env.GOOS, got, err, tc.want)
		}
	}
}

func TestPathErrors(t *testing.T) {
	var ue *UsageError
	if _, err := Lookup("emacs"); !errors.As(err, &ue) {
		t.Errorf("unknown client: %v", err)
	}
	cd, _ := Lookup("claude-desktop")
	if _, err := cd.Path(Project, "/p", Env{GOOS: "linux", Home: "/h"}); !errors.As(err, &ue) {
		t.Errorf("Claude Desktop project scope: %v", err)
	}
	cc, _ := Lookup("claude-code")
	if _, err := cc.Path(User, "/p", Env{GOOS: "linux"}); err == nil {
		t.Error("no home directory: no error")
	}
	if _, err := cc.Path(Project, "rel", Env{GOOS: "linux", Home: "/h"}); err == nil {
		t.Error("relative project directory: no error")
	}
	if _, err := cc.Path("global", "/p", Env{GOOS: "linux", Home: "/h"}); !errors.As(err, &ue) {
		t.Errorf("unknown scope: %v", err)
	}
}

func TestClientTable(t *testing.T) {
	want := map[string]struct {
		key         string
		typ, jsonc  bool
		defaultScop Scope
	}{
		"claude-desktop": {"mcpServers", false, false, User},
		"claude-code":    {"mcpServers", true, false, Project},
		"cursor":         {"mcpServers", false, false, Project},
		"vscode":         {"servers", true, true, Project},
	}
	if len(Clients()) != len(want) {
		t.Fatalf("%d clients, want %d", len(Clients()), len(want))
	}
	for _, c := range Clients() {
		w, ok := want[c.Name]
		if !ok || c.Key != w.key || c.Type != w.typ || c.JSONC != w.jsonc || c.Scopes[0] != w.defaultScop {
			t.Errorf("client %s = key %s type %v jsonc %v default %s", c.Name, c.Key, c.Type, c.JSONC, c.Scopes[0])
		}
		for _, s := range c.Scopes {
			if c.Next[s] == "" {
				t.Errorf("%s %s: no hint on how the client picks the change up", c.Name, s)
			}
		}
	}
}
