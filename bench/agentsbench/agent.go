package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/txedit/txedit/bench/internal/delta"
)

// A server is what one agent talks to: a process per agent, of one kind.
type server struct {
	name    string // the row's name
	toolset string // claude or filesystem: which tools the agent calls
	argv    func(dir string) []string
}

// servers returns the kinds measured for a toolset: txedit's, and the
// peer's when it is installed.
func (c *config) servers(toolset string) []server {
	tx := server{name: "txedit mcp --toolset " + toolset, toolset: toolset,
		argv: func(dir string) []string { return []string{c.txedit, "mcp", "--root", dir, "--toolset", toolset} }}
	out := []server{tx}
	switch toolset {
	case "claude":
		if p := filepath.Join(c.peers, "node_modules/.bin/claude"); c.peers != "" && exists(p) {
			out = append(out, server{name: "claude mcp serve (Claude Code " + c.claudeVersion + ")", toolset: toolset,
				argv: func(string) []string { return []string{p, "mcp", "serve"} }})
		}
	case "filesystem":
		if p := filepath.Join(c.peers, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"); c.peers != "" && exists(p) {
			out = append(out, server{name: "server-filesystem " + c.fsVersion, toolset: toolset,
				argv: func(dir string) []string { return []string{"node", p, dir} }})
		}
	}
	return out
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// readArgs and editArgs are the calls of the toolset's read and edit tools.
func readCall(toolset, path string) (string, map[string]any) {
	if toolset == "claude" {
		return "Read", map[string]any{"file_path": path}
	}
	return "read_text_file", map[string]any{"path": path}
}

func editCall(toolset, path, old, new string) (string, map[string]any) {
	if toolset == "claude" {
		return "Edit", map[string]any{"file_path": path, "old_string": old, "new_string": new}
	}
	return "edit_file", map[string]any{"path": path, "edits": []map[string]any{{"oldText": old, "newText": new}}}
}

var numberedLine = regexp.MustCompile(`^ *([0-9]+)\t(.*)$`)

// fileText is the file's text as a read answer shows it: Claude Code's
// JSON ({"file": {"content"}}), Read's numbered lines, or the text.
func fileText(toolset, text string) string {
	if toolset != "claude" {
		return text
	}
	var cc struct {
		File struct {
			Content string `json:"content"`
		} `json:"file"`
	}
	if strings.HasPrefix(text, "{") && json.Unmarshal([]byte(text), &cc) == nil && cc.File.Content != "" {
		return cc.File.Content
	}
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		if m := numberedLine.FindStringSubmatch(l); m != nil {
			lines = append(lines, m[2])
		}
	}
	// Read numbers the empty string after a final newline too.
	return strings.Join(lines, "\n")
}

// lineWith finds the line of text starting with prefix ("" if none).
func lineWith(text, prefix string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}

// replaceLine replaces the line of text starting with prefix by line.
func replaceLine(text, prefix, line string) string {
	ls := strings.Split(text, "\n")
	for i, l := range ls {
		if strings.HasPrefix(l, prefix) {
			ls[i] = line
			break
		}
	}
	return strings.Join(ls, "\n")
}

// codeOf classifies a refusal: txedit's code ("[stale_hash] …", or in
// _meta), or the peer's words.
func codeOf(r *result) string {
	if r.code != "" {
		return r.code
	}
	t := r.text
	if strings.HasPrefix(t, "[") {
		if i := strings.Index(t, "]"); i > 0 && !strings.Contains(t[1:i], " ") {
			return t[1:i]
		}
	}
	switch {
	case strings.Contains(t, "modified since read"):
		return "stale (modified since read)"
	case strings.Contains(t, "has not been read"):
		return "not_read"
	case strings.Contains(t, "not found"), strings.Contains(t, "Could not find"):
		return "not_found"
	case strings.Contains(t, "symlink resolution changed"):
		return "path changed"
	}
	return "error"
}

// noteStart is where txedit's note begins in an answer.
const noteStart = delta.NoteStart

// plainAnswer is an answer without txedit's note of a rebase: what the
// tool says with nothing changed behind the agent.
func plainAnswer(text string) string {
	if i := strings.Index(text, noteStart); i >= 0 {
		return strings.TrimRight(text[:i], "\n")
	}
	return text
}

// An edit is one edit an agent made, and what became of it.
type edit struct {
	agent, n       int
	token          string // what the file holds once it landed
	landed         bool
	sent, answered time.Time
}

// agentStats is what one agent counted.
type agentStats struct {
	edits      []*edit
	reads      int
	chars      int // characters of every answer the agent read
	firstRead  int
	plain      int // characters of its landed edits' answers without txedit's note
	refusals   map[string]int
	withRegion int // refusals that showed the agent's line as it is now
	gaveUp     int
	rebased    int
	err        error
}

// run is one agent: read the file once, then make its edits; an edit
// refused is retried, from the line a refusal shows as it is now, or else
// after reading the file again.
func (r *runState) agent(a int, srv server) *agentStats {
	st := &agentStats{refusals: map[string]int{}}
	name := fmt.Sprintf("agent%d", a)
	c, err := start(srv.argv(r.dir), r.dir, name, filepath.Join(r.logs, fmt.Sprintf("%s.stderr", name)), r.c.timeout)
	if err != nil {
		st.err = err
		return st
	}
	defer c.close()
	read := func() (string, error) {
		tool, args := readCall(srv.toolset, r.path)
		res, err := c.tool(tool, args)
		if err != nil {
			return "", err
		}
		st.reads++
		st.chars += len(res.text)
		if res.isError {
			// A read refused (Claude Code refuses one whose file another
			// process replaced meanwhile): counted, and read as nothing,
			// so the agent reads again.
			st.refusals["read: "+codeOf(res)]++
			if os.Getenv("AGENTSBENCH_DEBUG") != "" {
				fmt.Fprintf(os.Stderr, "agent%d read refused:\n%s\n\n", a, res.text)
			}
			return "", nil
		}
		return fileText(srv.toolset, res.text), nil
	}
	// The first read too is made again if it met an outside save half
	// done.
	text, err := read()
	for try := 0; err == nil && try < r.c.retries && lineWith(text, r.sc.prefix(a, 0)) == ""; try++ {
		time.Sleep(time.Millisecond)
		text, err = read()
	}
	r.ready.Done()
	if err != nil {
		st.err = err
		return st
	}
	st.firstRead = st.chars
	r.ready.Wait() // every agent has read the file: all edit at once
	rng := rand.New(rand.NewPCG(r.c.seed, uint64(a)))
	for k := 0; k < r.c.edits; k++ {
		e := &edit{agent: a, n: k}
		prefix := r.sc.prefix(a, k)
		line := lineWith(text, prefix)
		for try := 0; ; try++ {
			if line == "" || try == r.c.retries {
				if os.Getenv("AGENTSBENCH_DEBUG") != "" {
					fmt.Fprintf(os.Stderr, "agent%d edit %d: gave up after %d tries (line %q)\n%s\n", a, k, try, line, text)
				}
				st.gaveUp++
				break
			}
			old, new, token := r.sc.change(a, k, line)
			tool, args := editCall(srv.toolset, r.path, old+"\n", new+"\n")
			e.sent = time.Now()
			res, err := c.tool(tool, args)
			e.answered = time.Now()
			if err != nil {
				st.err = err
				return st
			}
			st.chars += len(res.text)
			if !res.isError {
				e.landed, e.token = true, token
				st.plain += len(plainAnswer(res.text))
				if strings.Contains(res.text, noteStart) {
					st.rebased++
					// The note's change brings the agent's view up to
					// date. One too large to show names the lines to read
					// again before editing near them: this agent edits
					// its own lines only, which it knows.
					if t, ok := delta.Apply(text, res.text); ok {
						text = t
					}
				}
				text = replaceLine(text, prefix, new)
				if os.Getenv("AGENTSBENCH_DEBUG") != "" && strings.Contains(res.text, noteStart) {
					fmt.Fprintf(os.Stderr, "agent%d edit %d rebased:\n%s\n\n", a, k, res.text)
				}
				break
			}
			st.refusals[codeOf(res)]++
			if os.Getenv("AGENTSBENCH_DEBUG") != "" {
				fmt.Fprintf(os.Stderr, "agent%d edit %d try %d: old %q\n%s\n\n", a, k, try, old, res.text)
			}
			if l := delta.RegionLine(res.text, r.sc.linePrefix(a, k)); l != "" {
				st.withRegion++
				if t, ok := delta.Apply(text, res.text); ok {
					text = t
				}
				line = l
				text = replaceLine(text, prefix, l)
				continue
			}
			if text, err = r.reread(read, prefix); err != nil {
				st.err = err
				return st
			}
			line = lineWith(text, prefix)
		}
		st.edits = append(st.edits, e)
		if r.c.think > 0 {
			time.Sleep(time.Duration(rng.Int64N(2 * int64(r.c.think))))
		}
	}
	return st
}

// reread reads the file again until it holds the line starting with
// prefix (a read that meets an outside writer's save half done is read
// again).
func (r *runState) reread(read func() (string, error), prefix string) (string, error) {
	var text string
	var err error
	for try := 0; try < r.c.retries; try++ {
		if text, err = read(); err != nil || lineWith(text, prefix) != "" {
			return text, err
		}
		time.Sleep(time.Millisecond)
	}
	return text, nil
}

// outsideWriter saves the file as an editor does (read it, change its own
// line, write it back: in place, or with a rename), n times, every
// `every`; each save's window (read to write) is recorded.
type outsideWriter struct {
	mu    sync.Mutex
	saves []saveWindow
}

type saveWindow struct {
	token       string
	read, wrote time.Time
}

func (r *runState) outside(w *outsideWriter, n int, every time.Duration, done <-chan struct{}) {
	for i := 0; i < n; i++ {
		select {
		case <-done:
			return
		case <-time.After(every):
		}
		t0 := time.Now()
		data, err := os.ReadFile(r.path)
		if err != nil {
			continue
		}
		tok := fmt.Sprintf(" o%d", i)
		text := string(data)
		l := lineWith(text, outsidePrefix)
		if l == "" {
			continue
		}
		text = strings.Replace(text, l+"\n", l+tok+"\n", 1)
		if i%2 == 0 {
			os.WriteFile(r.path, []byte(text), 0o644) // in place
		} else {
			tmp := r.path + ".swp"
			os.WriteFile(tmp, []byte(text), 0o644)
			os.Rename(tmp, r.path) // as editors save
		}
		w.mu.Lock()
		w.saves = append(w.saves, saveWindow{token: tok, read: t0, wrote: time.Now()})
		w.mu.Unlock()
	}
}
