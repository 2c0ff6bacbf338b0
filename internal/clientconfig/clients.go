// Package clientconfig adds, updates and removes an MCP server entry in the
// configuration file of an MCP client — Claude Desktop, Claude Code, Cursor
// or VS Code — at the location and under the key each client documents.
//
// The file is edited, not rewritten: every other key, server, comment and
// the formatting stay byte for byte, and a new entry takes the file's
// indentation (see jsonedit.go). The new content replaces the file
// atomically with its permissions (github.com/google/renameio/v2), so a
// crash leaves the old file or the new one, never half of one. A file that
// does not parse is reported and left alone, and so is a read-only one. A
// symbolic link (a dotfile manager's) is written through: its target gets
// the new content and the link stays.
package clientconfig

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
)

// Scope is where an entry applies: for the user (every project) or for one
// project (a file in the project, often committed with it).
type Scope string

const (
	User    Scope = "user"
	Project Scope = "project"
)

// Client is one MCP client and the shape of its configuration.
type Client struct {
	Name  string // the --client name: claude-desktop, claude-code, cursor, vscode
	Title string // Claude Desktop, …
	Key   string // the object that maps server names to entries
	Type  bool   // entries say "type": "stdio"
	JSONC bool   // the client reads comments and trailing commas
	// Scopes the client has; the first is the default.
	Scopes []Scope
	// Next tells the user how the client picks the change up.
	Next map[Scope]string
	// ProjectRoot is how a project-scope entry names the project's
	// directory so that the file works on every machine it is committed
	// to: the client's own variable for the workspace folder where it
	// documents one (VS Code and Cursor expand ${workspaceFolder}); for
	// Claude Code, which expands ${VAR:-default} and starts servers in
	// the project, CLAUDE_PROJECT_DIR if set, else the directory the
	// server is started in.
	ProjectRoot string

	user    func(Env) (string, error)
	project func(dir string) string
}

// Env is what the location of a user-scope file depends on. Tests pass
// their own; HostEnv is the running system's.
type Env struct {
	GOOS   string              // runtime.GOOS
	Home   string              // the home directory
	Getenv func(string) string // the environment
}

// HostEnv is the environment of the running process.
func HostEnv() Env {
	home, _ := os.UserHomeDir()
	return Env{GOOS: runtime.GOOS, Home: home, Getenv: os.Getenv}
}

func (e Env) getenv(k string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(k)
}

func (e Env) home() (string, error) {
	if e.Home == "" {
		return "", errors.New("cannot tell the home directory ($HOME, or %USERPROFILE% on Windows, is not set)")
	}
	return e.Home, nil
}

// appData is Windows' roaming application data directory.
func (e Env) appData() (string, error) {
	if d := e.getenv("APPDATA"); d != "" {
		return d, nil
	}
	h, err := e.home()
	return filepath.Join(h, "AppData", "Roaming"), err
}

// xdgConfig is $XDG_CONFIG_HOME, or ~/.config when it is unset or not
// absolute (the XDG Base Directory specification ignores relative paths).
func (e Env) xdgConfig() (string, error) {
	if d := e.getenv("XDG_CONFIG_HOME"); d != "" && filepath.IsAbs(d) {
		return d, nil
	}
	h, err := e.home()
	return filepath.Join(h, ".config"), err
}

// appConfig is where desktop applications keep their settings:
// ~/Library/Application Support on macOS, %APPDATA% on Windows, the XDG
// configuration directory elsewhere (Linux, the BSDs).
func (e Env) appConfig() (string, error) {
	switch e.GOOS {
	case "darwin":
		h, err := e.home()
		return filepath.Join(h, "Library", "Application Support"), err
	case "windows":
		return e.appData()
	default:
		return e.xdgConfig()
	}
}

// clients is built on first use (a package-level literal is built at
// every process start: docs/design.md, "Process start").
var clients = sync.OnceValue(func() []*Client {
	return []*Client{
		{
			// https://modelcontextprotocol.io/quickstart/user: macOS and
			// Windows. Claude Desktop has no official Linux build; the
			// community builds (aaddrick/claude-desktop-debian) read
			// ~/.config/Claude, i.e. the XDG configuration directory.
			Name: "claude-desktop", Title: "Claude Desktop", Key: "mcpServers",
			Scopes: []Scope{User},
			Next:   map[Scope]string{User: "Quit Claude Desktop completely and start it again to load the server."},
			user: func(e Env) (string, error) {
				d, err := e.appConfig()
				return filepath.Join(d, "Claude", "claude_desktop_config.json"), err
			},
		},
		{
			// Claude Code's MCP documentation (code.claude.com/docs/en/mcp)
			// and anthropics/claude-code#4193: project scope is .mcp.json in
			// the project root, user scope the top-level mcpServers of
			// ~/.claude.json ($CLAUDE_CONFIG_DIR/.claude.json when that is
			// set). `claude mcp add` writes "type": "stdio".
			Name: "claude-code", Title: "Claude Code", Key: "mcpServers", Type: true, ProjectRoot: "${CLAUDE_PROJECT_DIR:-.}",
			Scopes: []Scope{Project, User},
			Next: map[Scope]string{
				Project: "Claude Code asks to approve the servers of .mcp.json when it next starts in the project; /mcp lists them.",
				User:    "Start a new Claude Code session; /mcp lists the server.",
			},
			user: func(e Env) (string, error) {
				if d := e.getenv("CLAUDE_CONFIG_DIR"); d != "" {
					return filepath.Join(d, ".claude.json"), nil
				}
				h, err := e.home()
				return filepath.Join(h, ".claude.json"), err
			},
			project: func(dir string) string { return filepath.Join(dir, ".mcp.json") },
		},
		{
			// Cursor's MCP documentation (cursor.com/docs/mcp): ~/.cursor/mcp.json
			// for every project, .cursor/mcp.json in a project.
			Name: "cursor", Title: "Cursor", Key: "mcpServers", ProjectRoot: "${workspaceFolder}",
			Scopes: []Scope{Project, User},
			Next: map[Scope]string{
				Project: "Cursor loads the server when it next opens the project; check that it is enabled in Cursor's MCP settings.",
				User:    "Cursor loads the server on its next start; check that it is enabled in Cursor's MCP settings.",
			},
			user: func(e Env) (string, error) {
				h, err := e.home()
				return filepath.Join(h, ".cursor", "mcp.json"), err
			},
			project: func(dir string) string { return filepath.Join(dir, ".cursor", "mcp.json") },
		},
		{
			// VS Code's MCP configuration reference
			// (code.visualstudio.com/docs/copilot/reference/mcp-configuration):
			// .vscode/mcp.json in the workspace, mcp.json in the user profile,
			// a top-level "servers" object, "type" required. The default
			// profile lives in the user data directory's User folder
			// (microsoft/vscode src/vs/platform/environment/node/userDataPath.ts:
			// $VSCODE_PORTABLE/user-data, $VSCODE_APPDATA/Code, else the
			// platform's application data directory). Its files are JSONC.
			Name: "vscode", Title: "VS Code", Key: "servers", Type: true, JSONC: true, ProjectRoot: "${workspaceFolder}",
			Scopes: []Scope{Project, User},
			Next: map[Scope]string{
				Project: "In VS Code, run \"MCP: List Servers\" from the Command Palette to start it.",
				User:    "In VS Code, run \"MCP: List Servers\" from the Command Palette to start it.",
			},
			user: func(e Env) (string, error) {
				if d := e.getenv("VSCODE_PORTABLE"); d != "" {
					return filepath.Join(d, "user-data", "User", "mcp.json"), nil
				}
				base := ""
				if d := e.getenv("VSCODE_APPDATA"); d != "" {
					base = d
				} else {
					d, err := e.appConfig()
					if err != nil {
						return "", err
					}
					base = d
				}
				return filepath.Join(base, "Code", "User", "mcp.json"), nil
			},
			project: func(dir string) string { return filepath.Join(dir, ".vscode", "mcp.json") },
		},
	}
})

// Clients lists the supported clients.
func Clients() []*Client { return clients() }

// Names are the supported clients' names.
func Names() []string {
	var n []string
	for _, c := range clients() {
		n = append(n, c.Name)
	}
	return n
}

// Lookup returns the client called name.
func Lookup(name string) (*Client, error) {
	for _, c := range clients() {
		if c.Name == name {
			return c, nil
		}
	}
	return nil, &UsageError{fmt.Sprintf("unknown client %q (choose one of %s)", name, strings.Join(Names(), ", "))}
}

// Has reports whether the client has scope s.
func (c *Client) Has(s Scope) bool {
	for _, x := range c.Scopes {
		if x == s {
			return true
		}
	}
	return false
}

// Path is the configuration file of scope s ("" for the client's default);
// project is the project's directory, used for project scope.
func (c *Client) Path(s Scope, project string, env Env) (string, error) {
	if s == "" {
		s = c.Scopes[0]
	}
	if !c.Has(s) {
		var have []string
		for _, x := range c.Scopes {
			have = append(have, string(x))
		}
		return "", &UsageError{fmt.Sprintf("%s has no %s scope (it has: %s)", c.Title, s, strings.Join(have, ", "))}
	}
	if s == Project {
		if !filepath.IsAbs(project) {
			return "", fmt.Errorf("the project directory %q is not absolute", project)
		}
		return c.project(project), nil
	}
	return c.user(env)
}

// UsageError is a request txedit cannot carry out as asked: an unknown
// client or a scope the client does not have.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }
