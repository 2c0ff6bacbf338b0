package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// From an installed binary to a working server: txedit mcp install writes
// an entry into each client's file, and the command and arguments of that
// entry, started as the client starts them, serve MCP on the root and
// report the binary's version in serverInfo.
func TestInstallThenServe(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "bin", "txedit")
	// Installed as go install ./cmd/... does: txedit and txedit-mcp.
	if out, err := exec.Command("go", "build", "-o", filepath.Dir(bin)+"/", ".", "../txedit-mcp").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	version, err := exec.Command(bin, "version", "--json").Output()
	if err != nil {
		t.Fatal(err)
	}
	var info struct{ Version string }
	json.Unmarshal(version, &info)

	for _, cs := range clientScopes {
		t.Run(cs.client+"/"+cs.scope, func(t *testing.T) {
			home, project := installEnv(t)
			os.WriteFile(filepath.Join(project, "hello.txt"), []byte("hello\n"), 0o644)
			// As a user would run it: no --command, from the project.
			install := exec.Command(bin, "mcp", "install", "--client", cs.client, "--scope", cs.scope, "--toolset", "claude")
			install.Dir = project
			install.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
			if out, err := install.CombinedOutput(); err != nil {
				t.Fatalf("txedit mcp install: %v\n%s", err, out)
			}
			data, err := os.ReadFile(configFile(cs.client, cs.scope, home, project))
			if err != nil {
				t.Fatal(err)
			}
			var cfg map[string]map[string]struct {
				Command string
				Args    []string
			}
			if err := json.Unmarshal(data, &cfg); err != nil {
				t.Fatal(err)
			}
			e := cfg[cs.key]["txedit"]
			// A user's entry names the installed binary and the
			// project's path; a project's (committed, shared) names
			// the txedit on PATH by its absolute path and the project
			// by the client's variable, which the client expands.
			cmd := exec.Command(e.Command, e.Args...)
			if cs.scope == "user" {
				if e.Command != bin {
					t.Errorf("command %q, want the installed binary %s", e.Command, bin)
				}
				cmd.Dir = os.TempDir() // started from elsewhere
			} else {
				if e.Command != bin {
					t.Errorf("command %q, want %s (on PATH, by its absolute path)", e.Command, bin)
				}
				// As the clients do: VS Code and Cursor expand
				// ${workspaceFolder}; Claude Code expands ${VAR:-default}
				// from its environment and starts the server in the
				// project.
				args := slices.Clone(e.Args)
				for i, a := range args {
					a = strings.ReplaceAll(a, "${workspaceFolder}", project)
					args[i] = strings.ReplaceAll(a, "${CLAUDE_PROJECT_DIR:-.}", ".")
				}
				cmd = exec.Command(bin, args...)
				cmd.Dir = project
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			session, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				t.Fatalf("connecting to %s %v: %v", e.Command, e.Args, err)
			}
			defer session.Close()
			if v := session.InitializeResult().ServerInfo.Version; v != info.Version {
				t.Errorf("serverInfo.version %q, want %q", v, info.Version)
			}
			res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "Read", Arguments: map[string]any{"file_path": "hello.txt"}})
			var got strings.Builder
			if err == nil {
				for _, c := range res.Content {
					if tc, ok := c.(*mcp.TextContent); ok {
						got.WriteString(tc.Text)
					}
				}
			}
			if err != nil || res.IsError || !strings.Contains(got.String(), "hello") {
				t.Errorf("Read hello.txt through the installed entry: %v %+v %s", err, res, got.String())
			}
		})
	}
}
