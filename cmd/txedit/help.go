package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
)

// helpText is what `txedit help COMMAND` (and `txedit COMMAND --help`)
// says about a command, beside its flags, which come from the command's
// own flag set.
type helpText struct {
	synopsis string   // the command line, after "txedit "
	summary  string   // a line or two: what it does
	args     []string // what its positional arguments complete to: nil files, empty nothing
	examples []string // lines; "# …" lines explain the next
}

var helps = sync.OnceValue(func() map[string]helpText {
	return map[string]helpText{
		"apply": {
			synopsis: "apply [--dry-run] [--json] [--format F] [--position-encoding E] [--confirm] [FILE|-]",
			summary: "Run a write request as one all-or-nothing transaction.\n" +
				"The request is the fs_write JSON of the batch-operations RFC, or an agent's own format: a Codex apply_patch\n" +
				"envelope, an OpenAI apply_patch_call, a unified or git diff, SEARCH/REPLACE blocks, or an LSP WorkspaceEdit\n" +
				"(detected unless --format; its positions are UTF-16 unless --position-encoding says otherwise; docs/lsp.md).",
			examples: []string{
				"# preview a multi-file refactor: the combined diff, nothing written",
				"txedit apply --dry-run request.json",
				`echo '{"command": "str_replace", "path": "a.go", "old_str": "Foo()", "new_str": "Bar()"}' | txedit apply`,
				"# a git diff, applied by content even where its line numbers are off",
				"git diff main > change.diff && txedit apply change.diff",
				"# a language server's WorkspaceEdit: preview, then confirm what its annotations ask to confirm",
				"txedit apply --dry-run edit.json && txedit apply --confirm edit.json",
			},
		},
		"rename": {
			synopsis: "rename [--dry-run] [--json] [--server CMD] [--confirm] [--timeout D] FILE:LINE:COL NEWNAME",
			summary: "Rename a symbol everywhere, as its language server computes it, as one transaction (txedit undo reverts it).\n" +
				"LINE and COL are 1-based, COL in bytes, as gopls rename takes them. The server is gopls for Go files (found on\n" +
				"PATH; `go install golang.org/x/tools/gopls@latest`), or --server. txedit sends it the files' current content\n" +
				"and commits its edit only if none changed meanwhile; a rename the server refuses writes nothing (docs/lsp.md).",
			examples: []string{
				"txedit rename --dry-run internal/server/handler.go:42:6 ServeUser",
				"txedit rename internal/server/handler.go:42:6 ServeUser",
				"txedit rename --server 'rust-analyzer' src/lib.rs:10:8 parse_all",
			},
		},
		"undo": {
			synopsis: "undo [TXID] [--force] [--dry-run]",
			summary:  "Revert the newest transaction still in effect (or TXID), as a new transaction. Repeat to walk back.",
			args:     []string{},
			examples: []string{"txedit undo", "txedit undo --dry-run 20261121-0817"},
		},
		"redo": {
			synopsis: "redo [--force] [--dry-run]",
			summary:  "Re-apply what the last undo reverted.",
			args:     []string{},
			examples: []string{"txedit redo"},
		},
		"replace": {
			synopsis: "replace [--dry-run] [--glob G] [--exclude G]... [--literal] [--hidden] [--no-ignore] 's/RE/REP/FLAGS' [DIR]",
			summary:  "sed s/// across a tree (RE2, leftmost-longest, as sed -E) as one undoable transaction.",
			examples: []string{
				"txedit replace --dry-run --glob '*.go' 's/errors\\.New\\(/fmt.Errorf(/g' src",
				"txedit replace --literal 's/a.b(c)/x/'",
			},
		},
		"read": {
			synopsis: "read [--json] [FILE|-]",
			summary:  "Run a read request (fs_read JSON: Line, Directory, Search, Image); stdin if no FILE.",
			examples: []string{`echo '{"mode": "Line", "path": "src/a.go", "start_line": 40, "end_line": 60}' | txedit read --json`},
		},
		"grep": {
			synopsis: "grep [-i -n -A N -B N -C N -l -c -g GLOB -t TYPE -U -F --hidden --no-ignore] PATTERN [PATH]",
			summary:  "Search file contents like ripgrep (RE2 syntax, .gitignore honoured).\nExits 1 when nothing matched.",
			examples: []string{"txedit grep -n -C2 'errors\\.New\\(' src", "txedit grep -c -t go --hidden TODO"},
		},
		"glob": {
			synopsis: "glob [--hidden] [--no-ignore] [--limit N] PATTERN [PATH]",
			summary:  "List files matching a glob, like fd.\nA pattern without / matches base names at any depth.",
			examples: []string{"txedit glob '**/*.{go,md}'"},
		},
		"tool": {
			synopsis: "tool NAME [--toolset T] [--allow-execute] [--server CMD]",
			summary:  "Run one agent tool: JSON arguments on stdin, the dialect's result JSON on stdout.",
			args:     []string{},
			examples: []string{`echo '{"file_path": "src/a.go", "old_string": "Foo()", "new_string": "Bar()"}' | txedit tool Edit --toolset claude`},
		},
		"schema": {
			synopsis: "schema [--toolset T] [--format mcp|openai|anthropic]",
			summary:  "Print the toolset's tool definitions (valid JSON Schema), to give to an agent.",
			args:     []string{},
			examples: []string{"txedit schema --toolset claude --format anthropic"},
		},
		"mcp": {
			synopsis: "mcp [--toolset T] [--read-only] [--allow-execute] [--deny-read G] [--deny-write G] [--server CMD] [--root DIR]... [DIR...]",
			summary: "Serve the toolset over MCP on stdin and stdout.\n" +
				"An MCP client starts this; `txedit mcp install` adds it to a client's configuration.\n" +
				"The filesystem toolset (a drop-in for @modelcontextprotocol/server-filesystem) serves several\n" +
				"directories, each with its own journal: --root repeated, or the directories as arguments as the\n" +
				"official server takes them; the client's MCP roots, when it offers them, replace them\n" +
				"(docs/filesystem.md).",
			args: []string{"install", "uninstall"},
			examples: []string{
				"txedit mcp --toolset claude --root /path/to/project",
				"# in place of npx -y @modelcontextprotocol/server-filesystem ~/src/app ~/notes",
				"txedit mcp --toolset filesystem ~/src/app ~/notes",
				"# add it to Claude Desktop (see txedit help mcp install)",
				"txedit mcp install --client claude-desktop --root /path/to/project",
			},
		},
		"mcp install": {
			synopsis: "mcp install --client claude-desktop|claude-code|cursor|vscode [--scope user|project] [--toolset T] [--root DIR] [--read-only] [--dry-run] [mcp flags]",
			summary: "Add txedit to an MCP client's configuration (or update its entry).\n" +
				"The file is the client's documented one, the key its documented key; every other server\n" +
				"and setting of the file stays as it was, byte for byte.\n" +
				"The entry runs txedit by its absolute path, never a bare name a client could find in the\n" +
				"repository (the txedit first on PATH, else this one; --command to change) as\n" +
				"`txedit mcp --toolset T --root DIR` plus any other txedit mcp flag given here. DIR is\n" +
				"--root made absolute (default: the workspace, found as every command finds it); for\n" +
				"project scope the file goes into that directory too, never a parent beyond it.\n" +
				"Scope defaults to project, or user for Claude Desktop.",
			args: []string{},
			examples: []string{
				"txedit mcp install --client claude-desktop --root ~/src/app",
				"# Cursor, VS Code: a file in the project (.cursor/mcp.json, .vscode/mcp.json)",
				"cd ~/src/app && txedit mcp install --client cursor",
				"txedit mcp install --client vscode --scope user --toolset claude --read-only",
				"# Claude Code: .mcp.json in the project",
				"txedit mcp install --client claude-code --dry-run",
			},
		},
		"mcp uninstall": {
			synopsis: "mcp uninstall --client C [--scope user|project] [--root DIR] [--name N] [--dry-run]",
			summary:  "Remove txedit's entry from an MCP client's configuration.\nThe rest of the file stays as it was.",
			args:     []string{},
			examples: []string{"txedit mcp uninstall --client cursor", "txedit mcp uninstall --client claude-desktop --dry-run"},
		},
		"log": {
			synopsis: "log [-n N] [--json]",
			summary:  "List transactions, newest first.",
			args:     []string{},
			examples: []string{"txedit log -n 5"},
		},
		"show": {
			synopsis: "show [TXID] [--json]",
			summary:  "Print a transaction (any unique id prefix) and its diff.",
			args:     []string{},
			examples: []string{"txedit show 20261121-0817"},
		},
		"recover": {
			synopsis: "recover [--json]",
			summary:  "Roll back transactions interrupted by a crash; repair a journal that stops writes.\nThe next write rolls back too, automatically. A .txedit that is a link or a file is\nmoved aside (never followed); a journal whose key entry is damaged gets a new key.\nA journal that is not yours is left alone (see txedit journal).",
			args:     []string{},
			examples: []string{"txedit recover"},
		},
		"journal": {
			synopsis: "journal [status|adopt|remove|prune [--remove]] [--json]",
			summary: "Say whose the workspace's journal is; adopt one you made, or remove it.\n" +
				"A journal is trusted only if you made it here: its key is in your own key store\n" +
				"($XDG_STATE_HOME/txedit/journals), never in the tree. One that came with a clone or a\n" +
				"copy, an older txedit's, or another user's is foreign: nothing in it is recovered, undone\n" +
				"or redone, and writes beside it are refused (untrusted_journal).\n" +
				"adopt: trust it as the txedit that wrote it did (its own keys' signatures), with a new\n" +
				"key of yours; only for a journal you made. remove: delete it, with its undo history.\n" +
				"prune: list your key store's entries whose recorded root no longer holds their journal\n" +
				"(deleted workspaces); --remove removes them. Entries younger than 10 minutes and roots\n" +
				"that cannot be looked at are kept. A journal moved elsewhere loses its trust (undo there\n" +
				"is refused, untrusted_journal): run txedit journal there first, or adopt it after.",
			args:     []string{"status", "adopt", "remove", "prune"},
			examples: []string{"txedit journal", "txedit journal adopt   # a journal an older txedit made here", "txedit journal remove  # one that came with a clone", "txedit journal prune   # list the entries of deleted workspaces", "txedit journal prune --remove"},
		},
		"gc": {
			synopsis: "gc [--json]",
			summary:  "Apply journal retention: keep the newest 200 transactions within 1 GiB of before-images.",
			args:     []string{},
			examples: []string{"txedit gc"},
		},
		"version": {
			synopsis: "version [--json]",
			summary:  "Print the version, VCS revision, Go version and platform.\nAlso: txedit --version.",
			args:     []string{},
			examples: []string{"txedit version", "txedit --version"},
		},
		"completion": {
			synopsis: "completion bash|zsh|fish",
			summary:  "Print a shell completion script for txedit's commands and flags.",
			args:     []string{"bash", "zsh", "fish"},
			examples: []string{
				"source <(txedit completion bash)                               # in ~/.bashrc",
				"txedit completion zsh > \"${fpath[1]}/_txedit\"                  # then restart zsh",
				"txedit completion fish > ~/.config/fish/completions/txedit.fish",
			},
		},
		"help": {
			synopsis: "help [COMMAND]",
			summary:  "Print the commands, or one command's usage, flags and examples.\nAlso: txedit COMMAND --help.",
			examples: []string{"txedit help apply", "txedit help mcp install"},
		},
	}
})

func helpCmd() *command {
	return &command{
		name:  "help",
		plain: true,
		run: func(ctx context.Context, e *env, args []string) int {
			if len(args) == 0 {
				fmt.Fprint(e.stdout, usage)
				return 0
			}
			name := strings.Join(args, " ")
			if _, ok := commandTable()[name]; !ok {
				return e.usageErr("help: unknown command %q (commands: %s)", name, strings.Join(commandNames(), ", "))
			}
			writeHelp(e.stdout, name)
			return 0
		},
	}
}

// commandNames are the names of every command, sorted ("mcp install"
// among them).
func commandNames() []string {
	var names []string
	for n := range commandTable() {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// commandFlags is the full flag set of a command: the common flags and
// its own, as run builds it.
func commandFlags(c *command) *flag.FlagSet {
	fs := flag.NewFlagSet("txedit "+c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if c.flags != nil {
		c.flags(fs)
	}
	(&env{}).commonFlags(fs)
	return fs
}

func commandFlagNames(c *command) []string {
	var names []string
	commandFlags(c).VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return names
}

// flagName is how help and the completions spell a flag: -x for a single
// letter (grep's), --name otherwise.
func flagName(f *flag.Flag) string {
	if len(f.Name) == 1 {
		return "-" + f.Name
	}
	return "--" + f.Name
}

// placeholders name the values of flags in help, where the flag's type
// would say less.
var placeholders = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"root": "DIR", "agent": "NAME", "client": "CLIENT", "scope": "SCOPE", "toolset": "T", "format": "FORMAT", "name": "NAME",
		"file": "FILE", "command": "PATH", "deny-read": "GLOB", "deny-write": "GLOB", "exclude": "GLOB", "glob": "GLOB",
		"g": "GLOB", "t": "TYPE", "n": "N", "A": "N", "B": "N", "C": "N", "limit": "N", "head-limit": "N",
	}
})

// writeHelp prints a command's usage, summary, flags and examples.
func writeHelp(w io.Writer, name string) {
	h := helps()[name]
	fmt.Fprintf(w, "%s\n\n", wrap("usage: txedit "+h.synopsis, "       ", helpWidth))
	for _, para := range strings.Split(h.summary, "\n\n") {
		fmt.Fprintln(w, wrap(strings.Join(strings.Fields(para), " "), "", helpWidth))
	}
	fs := commandFlags(commandTable()[name]())
	var rows [][2]string
	width := 0
	fs.VisitAll(func(f *flag.Flag) {
		left := flagName(f)
		if !isBool(f) {
			arg := placeholders()[f.Name]
			if arg == "" {
				arg, _ = flag.UnquoteUsage(f)
				arg = strings.ToUpper(arg)
			}
			left += " " + arg
		}
		usage := f.Usage
		switch {
		case f.Name == "root":
			if name != "mcp" {
				usage += " (default: the nearest directory above with .txedit/ or .git that is yours, else the current one)"
			}
		case !isBool(f) && f.DefValue != "" && f.DefValue != "0" && f.DefValue != "[]":
			usage += fmt.Sprintf(" (default %q)", f.DefValue)
		}
		rows = append(rows, [2]string{left, usage})
		width = max(width, len(left))
	})
	if len(rows) > 0 {
		fmt.Fprintln(w, "\nFlags:")
		indent := strings.Repeat(" ", width+4)
		for _, r := range rows {
			fmt.Fprintln(w, wrap(fmt.Sprintf("  %-*s  %s", width, r[0], r[1]), indent, helpWidth))
		}
	}
	fmt.Fprintln(w, "\nExamples:")
	for _, ex := range h.examples {
		fmt.Fprintf(w, "  %s\n", ex)
	}
}

// helpWidth is the width help text is wrapped to (examples are left
// whole: they are commands to copy).
const helpWidth = 80

// wrap breaks s at spaces so that no line is longer than width (a word
// longer than that stands alone), starting continuation lines with indent.
func wrap(s, indent string, width int) string {
	var b strings.Builder
	line := 0
	for i, word := range strings.Split(s, " ") {
		switch {
		case i == 0:
		case line+1+len(word) > width && line > len(indent):
			b.WriteString("\n" + indent)
			line = len(indent)
			if word == "" {
				continue
			}
		default:
			b.WriteByte(' ')
			line++
		}
		b.WriteString(word)
		line += len(word)
	}
	return b.String()
}
