package main

import (
	"regexp"
	"strings"
	"testing"
)

// Every command has help with an example, and every help is of a command.
func TestHelpCoversEveryCommand(t *testing.T) {
	table := commandTable()
	for name := range table {
		h, ok := helps()[name]
		if !ok {
			t.Errorf("command %q has no help", name)
			continue
		}
		if h.synopsis == "" || h.summary == "" || len(h.examples) == 0 {
			t.Errorf("help of %q: a synopsis, a summary and at least one example, please: %+v", name, h)
		}
		if !strings.HasPrefix(h.synopsis, name) {
			t.Errorf("help of %q: synopsis %q", name, h.synopsis)
		}
		// The top-level usage names every command.
		if !regexp.MustCompile(`(^|[ \n])` + regexp.QuoteMeta(name) + `([ ,\n]|$)`).MatchString(usage) {
			t.Errorf("the usage text does not mention txedit %s", name)
		}
	}
	for name := range helps() {
		if _, ok := table[name]; !ok {
			t.Errorf("help for %q, which is not a command", name)
		}
	}
}

// Every example is a command line the CLI parses: no example names a flag
// or a command that is not there.
func TestHelpExamplesParse(t *testing.T) {
	for name, h := range helps() {
		n := 0
		for _, ex := range h.examples {
			if strings.HasPrefix(ex, "#") {
				continue
			}
			words := exampleWords(ex)
			if len(words) == 0 {
				t.Errorf("help of %q: example %q does not run txedit", name, ex)
				continue
			}
			n++
			if words[0] == "--version" {
				continue
			}
			cmd := words[0]
			rest := words[1:]
			if cmd == "mcp" && len(rest) > 0 && (rest[0] == "install" || rest[0] == "uninstall") {
				cmd, rest = "mcp "+rest[0], rest[1:]
			}
			mk, ok := commandTable()[cmd]
			if !ok {
				t.Errorf("help of %q: example %q: no command %q", name, ex, cmd)
				continue
			}
			if _, err := parseInterleaved(commandFlags(mk()), rest); err != nil {
				t.Errorf("help of %q: example %q: %v", name, ex, err)
			}
		}
		if n == 0 {
			t.Errorf("help of %q: no example runs txedit", name)
		}
	}
}

// exampleWords returns the words after "txedit" in a shell line, up to a
// pipe, redirection, closing parenthesis or comment.
func exampleWords(line string) []string {
	i := strings.Index(line, "txedit ")
	if i < 0 {
		return nil
	}
	var words []string
	var cur strings.Builder
	inWord := false
	quote := byte(0)
	flush := func() {
		if inWord {
			words = append(words, cur.String())
			cur.Reset()
			inWord = false
		}
	}
	s := line[i+len("txedit "):]
	for j := 0; j < len(s); j++ {
		c := s[j]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, inWord = c, true
		case c == ' ' || c == '\t':
			flush()
		case c == '|' || c == '>' || c == ')' || c == '#' && !inWord:
			flush()
			return words
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	flush()
	return words
}

func TestHelpCommand(t *testing.T) {
	for name := range commandTable() {
		args := append([]string{"help"}, strings.Fields(name)...)
		r := runCLI(args...)
		if r.code != 0 {
			t.Errorf("txedit help %s: %+v", name, r)
			continue
		}
		h := helps()[name]
		if !strings.HasPrefix(r.stdout, wrap("usage: txedit "+h.synopsis, "       ", helpWidth)+"\n") || !strings.Contains(r.stdout, "\nExamples:\n  ") {
			t.Errorf("txedit help %s:\n%s", name, r.stdout)
		}
		// Within 80 columns, but for the examples (commands to copy whole).
		text, _, _ := strings.Cut(r.stdout, "\nExamples:\n")
		for _, l := range strings.Split(text, "\n") {
			if len(l) > helpWidth {
				t.Errorf("txedit help %s: a line of %d columns: %q", name, len(l), l)
			}
		}
		for _, f := range commandFlagNames(commandTable()[name]()) {
			if !strings.Contains(r.stdout, "  -"+f+" ") && !strings.Contains(r.stdout, "  --"+f+" ") {
				t.Errorf("txedit help %s does not list the flag %s", name, f)
			}
		}
		// COMMAND --help (and -h) say the same, on stdout, and succeed.
		for _, flag := range []string{"--help", "-h"} {
			r2 := runCLI(append(strings.Fields(name), flag)...)
			if r2.code != 0 || r2.stdout != r.stdout || r2.stderr != "" {
				t.Errorf("txedit %s %s: exit %d, stderr %q, stdout differs from txedit help: %v", name, flag, r2.code, r2.stderr, r2.stdout != r.stdout)
			}
		}
	}

	if r := runCLI("help"); r.code != 0 || r.stdout != usage {
		t.Errorf("txedit help: %+v", r)
	}
	if r := runCLI("--help"); r.code != 0 || r.stdout != usage {
		t.Errorf("txedit --help: %+v", r)
	}
	if r := runCLI(); r.code != 2 || r.stdout != usage {
		t.Errorf("txedit: %+v", r)
	}
	if r := runCLI("help", "frobnicate"); r.code != 2 || !strings.Contains(r.stderr, `unknown command "frobnicate"`) {
		t.Errorf("txedit help frobnicate: %+v", r)
	}
	// A bad flag: one line, the command's prefix, the error and where to
	// look.
	r := runCLI("apply", "--nope")
	if r.code != 2 || r.stderr != "txedit: apply: flag provided but not defined: -nope; run 'txedit help apply' for its flags and examples\n" {
		t.Errorf("txedit apply --nope: %+v", r)
	}
	// The top-level usage, within 80 columns; an unknown command, in one
	// line with the nearest command.
	for _, l := range strings.Split(usage, "\n") {
		if len(l) > helpWidth {
			t.Errorf("usage: a line of %d columns: %q", len(l), l)
		}
	}
	if r := runCLI("aply"); r.code != 2 || r.stderr != "txedit: unknown command \"aply\" (did you mean \"apply\"?); run 'txedit help' for the list\n" {
		t.Errorf("txedit aply: %+v", r)
	}
}
