package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// script writes the completion script for shell into a temporary file.
func script(t *testing.T, shell string) string {
	t.Helper()
	r := runCLI("completion", shell)
	if r.code != 0 || r.stdout == "" {
		t.Fatalf("txedit completion %s: %+v", shell, r)
	}
	path := filepath.Join(t.TempDir(), "txedit."+shell)
	if err := os.WriteFile(path, []byte(r.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func needShell(t *testing.T, shell string) string {
	t.Helper()
	p, err := exec.LookPath(shell)
	if err != nil {
		t.Skipf("%s is not installed: its completion script is generated but not checked here (apt-get install %s)", shell, shell)
	}
	return p
}

// Every command of the table, and every flag of every command, is in each
// script: they are generated from the table, so they cannot drift.
func TestCompletionListsEveryCommandAndFlag(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish"} {
		out := runCLI("completion", shell).stdout
		for name, mk := range commandTable() {
			c := mk()
			words := strings.Fields(name)
			cmdWord := words[len(words)-1]
			if !strings.Contains(out, cmdWord) {
				t.Errorf("%s: command %q missing", shell, name)
			}
			for _, f := range commandFlagNames(c) {
				spelled := "--" + f
				switch {
				case shell == "fish" && len(f) == 1:
					spelled = "-s " + f
				case shell == "fish":
					spelled = "-l " + f
				case len(f) == 1:
					spelled = "-" + f
				}
				if !strings.Contains(out, spelled) {
					t.Errorf("%s: flag %s of %q missing", shell, spelled, name)
				}
			}
		}
	}
	if r := runCLI("completion", "powershell"); r.code != 2 || !strings.Contains(r.stderr, "unknown shell") {
		t.Errorf("unknown shell: %+v", r)
	}
	if r := runCLI("completion"); r.code != 2 {
		t.Errorf("no shell: %+v", r)
	}
}

func TestCompletionBash(t *testing.T) {
	bash := needShell(t, "bash")
	path := script(t, "bash")
	if out, err := exec.Command(bash, "-n", path).CombinedOutput(); err != nil {
		t.Fatalf("bash -n: %v\n%s", err, out)
	}
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "subdir"), 0o755)
	os.WriteFile(filepath.Join(dir, "request.json"), nil, 0o644)
	tests := []struct {
		words string // the command line; the last word is being completed
		want  string // COMPREPLY, sorted
	}{
		{"txedit ap", "apply"},
		{"txedit m", "mcp"},
		{"txedit --v", "--version"},
		{"txedit apply --d", "--dry-run"},
		{"txedit apply req", "request.json"},
		{"txedit apply --root sub", "subdir"},
		{"txedit mcp ''", "install uninstall"},
		{"txedit mcp --re", "--read-only"},
		{"txedit mcp install --client ''", "claude-code claude-desktop cursor vscode"},
		{"txedit mcp install --client cl", "claude-code claude-desktop"},
		{"txedit mcp install --scope ''", "project user"},
		{"txedit mcp install --toolset cl", "claude"},
		{"txedit mcp install --read-only --dry", "--dry-run"},
		{"txedit mcp uninstall --sc", "--scope"},
		{"txedit mcp uninstall --re", ""}, // not a flag of uninstall
		{"txedit completion ''", "bash fish zsh"},
		{"txedit help mc", "mcp"},
		{"txedit grep --h", "--head-limit --hidden"},
		{"txedit grep -C", "-C"},
		{"txedit schema --format o", "openai"},
		{"txedit undo ''", ""},
	}
	for _, tc := range tests {
		prog := `source "$1"; cd "$2"; COMP_WORDS=(` + tc.words + `); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _txedit; printf '%s\n' "${COMPREPLY[@]}"`
		out, err := exec.Command(bash, "-c", prog, "bash", path, dir).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", tc.words, err, out)
		}
		got := strings.Fields(string(out))
		sort.Strings(got)
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%s<TAB>: %q, want %q", tc.words, got, tc.want)
		}
	}
	// The registration itself.
	out, err := exec.Command(bash, "-c", `source "$1"; complete -p txedit`, "bash", path).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "-F _txedit txedit") {
		t.Errorf("complete -p txedit: %v %s", err, out)
	}
}

func TestCompletionZsh(t *testing.T) {
	zsh := needShell(t, "zsh")
	path := script(t, "zsh")
	if out, err := exec.Command(zsh, "-n", path).CombinedOutput(); err != nil {
		t.Fatalf("zsh -n: %v\n%s", err, out)
	}
	// Completion proper needs a terminal; this checks the registration
	// and the dispatch: what _txedit hands to _describe and _arguments.
	out, err := exec.Command(zsh, "-f", "-c", `autoload -U compinit && compinit -u -D && source "$1" && print -r -- $_comps[txedit]`, "zsh", path).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "_txedit" {
		t.Errorf("compdef after compinit: %v %q", err, out)
	}
	prog := `compdef() { print -r -- "registered: $*" }
source "$1"
_describe() { print -rl -- "${(@P)4}" }
_arguments() { print -rl -- "$@" }
words=(${=2}); words+=(''); CURRENT=${#words}; _txedit`
	tests := []struct {
		words string
		want  []string
		not   []string
	}{
		{"txedit", []string{"apply:run a write request as one all-or-nothing transaction", "mcp:serve the toolset over MCP on stdin and stdout"}, nil},
		{"txedit mcp install --client", []string{`--client=[the MCP client\: claude-desktop, claude-code, cursor, vscode]:client:(claude-desktop claude-code cursor vscode)`, "--scope=", "--read-only[", "--dry-run["}, []string{"1:argument"}},
		{"txedit mcp", []string{"1:argument:(install uninstall)", "*--deny-read="}, []string{"--client"}},
		{"txedit mcp uninstall", []string{"--client=", "--scope="}, []string{"--read-only"}},
		{"txedit completion", []string{"1:argument:(bash zsh fish)"}, nil},
		{"txedit apply", []string{"--dry-run[", "--root=[workspace root directory]:root:_files -/", "*:file:_files"}, nil},
		{"txedit grep", []string{"-A+[lines of context after each match]:A: ", "-i[case-insensitive]", "*-g+["}, nil},
	}
	for _, tc := range tests {
		out, err := exec.Command(zsh, "-f", "-c", prog, "zsh", path, tc.words).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", tc.words, err, out)
		}
		lines := strings.Split(string(out), "\n")
		if lines[0] != "registered: _txedit txedit" {
			t.Errorf("compdef: %q", lines[0])
		}
		for _, w := range tc.want {
			found := false
			for _, l := range lines {
				found = found || strings.HasPrefix(l, w)
			}
			if !found {
				t.Errorf("%s<TAB>: no line starting %q in\n%s", tc.words, w, out)
			}
		}
		for _, w := range tc.not {
			if strings.Contains(string(out), w) {
				t.Errorf("%s<TAB>: %q should not be offered:\n%s", tc.words, w, out)
			}
		}
	}
}

func TestCompletionFish(t *testing.T) {
	fish := needShell(t, "fish")
	path := script(t, "fish")
	if out, err := exec.Command(fish, "--no-execute", path).CombinedOutput(); err != nil {
		t.Fatalf("fish --no-execute: %v\n%s", err, out)
	}
	tests := []struct{ line, want string }{
		{"txedit ap", "apply"},
		{"txedit mcp ", "install uninstall"},
		{"txedit mcp install --client ", "claude-code claude-desktop cursor vscode"},
		{"txedit mcp install --sc", "--scope"},
		{"txedit mcp install --scope ", "project user"},
		{"txedit mcp uninstall --re", ""},
		{"txedit completion ", "bash fish zsh"},
		{"txedit completion bash ", ""},
		{"txedit apply --dr", "--dry-run"},
		{"txedit grep -", "--agent --head-limit --hidden --json --no-ignore --root -A -B -C -F -N -U -c -g -i -l -n -t"},
	}
	for _, tc := range tests {
		out, err := exec.Command(fish, "--no-config", "-c", `source $argv[1]; complete --do-complete=$argv[2]`, path, tc.line).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", tc.line, err, out)
		}
		var got []string
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if w, _, _ := strings.Cut(l, "\t"); w != "" {
				got = append(got, w)
			}
		}
		sort.Strings(got)
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%s<TAB>: %q, want %q", tc.line, got, tc.want)
		}
	}
}
