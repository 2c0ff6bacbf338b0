package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/txedit/txedit/hash"
)

func hashOf(b []byte) string { return hash.Of(b).String() }

var txeditMark = regexp.MustCompile(`soak t([0-9]{7})`)

// txeditMarks returns the ids of the txedit markers in content.
func txeditMarks(content string) map[int]bool {
	m := map[int]bool{}
	for _, sub := range txeditMark.FindAllStringSubmatch(content, -1) {
		id, _ := strconv.Atoi(sub[1])
		m[id] = true
	}
	return m
}

var (
	errDead    = errors.New("the server died")
	errTimeout = errors.New("no answer")
)

// A session is one MCP client: a `txedit mcp` process spoken to over
// stdio, newline-delimited JSON-RPC written by hand.
type session struct {
	s   *soak
	n   int
	rng *rand.Rand
	// toolset is the server's toolset (txedit; claude for an agent:
	// agent.go).
	toolset string
	name    string

	mu    sync.Mutex
	cmd   *exec.Cmd
	alive bool
	stdin io.WriteCloser
	lines chan []byte
	id    int
}

// clientName is the session's name: its clientInfo.name is "soak-"
// and it, the agent its transactions record.
func (ss *session) clientName() string {
	if ss.toolset == "" {
		return fmt.Sprintf("mcp%d", ss.n)
	}
	return ss.name
}

func (ss *session) start() error {
	s := ss.s
	toolset, name := ss.toolset, ss.clientName()
	if toolset == "" {
		toolset = "txedit"
	}
	cmd := exec.Command(s.c.txedit, "mcp", "--root", s.tree, "--toolset", toolset)
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	logf, err := os.OpenFile(filepath.Join(s.c.dir, name+".stderr"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd.Stderr = logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return err
	}
	logf.Close()
	lines := make(chan []byte, 16)
	go func() {
		r := bufio.NewReaderSize(out, 1<<20)
		for {
			line, err := r.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				lines <- line
			}
			if err != nil {
				close(lines)
				return
			}
		}
	}()
	ss.mu.Lock()
	ss.cmd, ss.alive, ss.stdin, ss.lines = cmd, true, in, lines
	ss.mu.Unlock()
	if _, err := ss.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "soak-" + name, "version": "1"}}); err != nil {
		return err
	}
	return ss.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
}

func (ss *session) send(msg any) error {
	b, _ := json.Marshal(msg)
	_, err := ss.stdin.Write(append(b, '\n'))
	if err != nil {
		return errDead
	}
	return nil
}

type rpcResponse struct {
	ID     *int            `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// call sends one request and waits for its answer.
func (ss *session) call(method string, params any) (json.RawMessage, error) {
	ss.id++
	id := ss.id
	if err := ss.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		return nil, err
	}
	timer := time.NewTimer(ss.s.c.timeout)
	defer timer.Stop()
	for {
		select {
		case line, ok := <-ss.lines:
			if !ok {
				return nil, errDead
			}
			var r rpcResponse
			if json.Unmarshal(line, &r) != nil || r.ID == nil || *r.ID != id {
				continue // a notification, or not JSON-RPC
			}
			if r.Error != nil {
				return nil, fmt.Errorf("%s: JSON-RPC error %d: %s", method, r.Error.Code, r.Error.Message)
			}
			return r.Result, nil
		case <-timer.C:
			return nil, errTimeout
		}
	}
}

// killNow sends SIGKILL to the server, if it runs.
func (ss *session) killNow() bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if !ss.alive || ss.cmd == nil {
		return false
	}
	return ss.cmd.Process.Kill() == nil
}

// restart waits for the dead (or killed) server, runs txedit recover, and
// starts a new server (again, if it is killed while it starts).
func (ss *session) restart() error {
	for tries := 0; ; tries++ {
		ss.mu.Lock()
		ss.alive = false
		cmd := ss.cmd
		ss.mu.Unlock()
		cmd.Process.Kill()
		cmd.Wait()
		if out, err := ss.s.recover(); err != nil {
			return fmt.Errorf("txedit recover: %v: %s", err, out)
		}
		err := ss.start()
		if err != errDead || tries == 10 {
			return err
		}
	}
}

func (ss *session) stopServer() {
	ss.mu.Lock()
	ss.alive = false
	cmd, in := ss.cmd, ss.stdin
	ss.mu.Unlock()
	if cmd == nil {
		return
	}
	in.Close()
	done := make(chan struct{})
	var werr error
	go func() { werr = cmd.Wait(); close(done) }()
	select {
	case <-done:
		// A server the killer killed after its session's last call
		// (an agent's, between its last edit and now) is followed by
		// txedit recover, as every kill is.
		if exitCode(werr) == -1 {
			ss.s.recover()
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
	}
}

type toolResult struct {
	Content []struct {
		Text string `json:"text"`
	} `json:"content"`
	Structured map[string]any `json:"structuredContent"`
	IsError    bool           `json:"isError"`
}

func (ss *session) tool(name string, args any) (*toolResult, error) {
	raw, err := ss.call("tools/call", map[string]any{"name": name, "arguments": args})
	if err != nil {
		return nil, err
	}
	var r toolResult
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("%s: %v: %s", name, err, raw)
	}
	return &r, nil
}

// code is a failed tool result's error code.
func (r *toolResult) code() string {
	if c, ok := r.Structured["code"].(string); ok && c != "" {
		return c
	}
	if len(r.Content) > 0 && strings.HasPrefix(r.Content[0].Text, "[") {
		if i := strings.Index(r.Content[0].Text, "]"); i > 0 {
			return r.Content[0].Text[1:i]
		}
	}
	return "unknown"
}

func (ss *session) loop() {
	s := ss.s
	ss.rng = rand.New(rand.NewPCG(s.c.seed, uint64(ss.n)))
	err := ss.start()
	if err == errDead {
		err = ss.restart()
	}
	if err != nil {
		s.fail("mcp%d: start: %v", ss.n, err)
		return
	}
	defer ss.stopServer()
	for !s.stop.Load() {
		err := ss.one()
		if err == nil {
			pause(ss.rng, s.c.agentThink)
			continue
		}
		if err == errTimeout {
			s.fail("timeout: mcp%d: a call unanswered for %v", ss.n, s.c.timeout)
			return
		}
		if err != errDead {
			s.fail("mcp%d: %v", ss.n, err)
			return
		}
		if err := ss.restart(); err != nil {
			s.fail("mcp%d: restart: %v", ss.n, err)
			return
		}
	}
}

// one reads the files of one request and sends the edit.
func (ss *session) one() error {
	s := ss.s
	files := s.pick(ss.rng)
	e := &edit{who: "mcp", agent: "soak-" + ss.clientName(), files: files}
	var contents []string
	for _, f := range files {
		r, err := ss.tool("fs_read", map[string]any{"mode": "Line", "path": f})
		if err != nil {
			return err
		}
		if r.IsError || len(r.Content) == 0 {
			s.fail("mcp%d: fs_read %s: [%s] %v", ss.n, f, r.code(), r.Content)
			return nil
		}
		h, _ := r.Structured["content_hash"].(string)
		contents = append(contents, r.Content[0].Text)
		e.base = append(e.base, h)
		e.partial = append(e.partial, s.isTransient(f, h))
	}
	var marker string
	e.id, marker = s.txeditMarker()
	var args map[string]any
	// A third of the requests carry no hash: the session's memory of
	// what it read is then the check (docs/toolsets.md, read before
	// write). The single-file form is one of those: its content_hash is
	// the edit's own, which str_replace and append do not take.
	withHash := ss.rng.IntN(3) != 0
	if len(files) == 1 && !withHash && ss.rng.IntN(2) == 0 {
		fe := fileEdit(files[0], contents[0], e.base[0], marker, false)
		args = fe["edits"].([]any)[0].(map[string]any)
		args["path"] = files[0]
		e.form = "single"
	} else {
		var fes []any
		for i, f := range files {
			fes = append(fes, fileEdit(f, contents[i], e.base[i], marker, withHash))
		}
		args = map[string]any{"fileEdits": fes}
		e.form = "fileEdits"
	}
	if !withHash {
		e.form += ", no hash"
	}
	e.ts = time.Now()
	r, err := ss.tool("fs_write", args)
	e.tr = time.Now()
	switch {
	case err == errDead || err == errTimeout:
		e.outcome = "unknown"
	case err != nil:
		return err
	case r.IsError:
		e.outcome, e.code = "refused", r.code()
		if len(r.Content) > 0 {
			e.msg = r.Content[0].Text
		}
	case r.Structured["success"] == true:
		e.outcome = "ok"
	default:
		return fmt.Errorf("fs_write answered neither success nor an error: %v", r.Structured)
	}
	s.addEdit(e)
	return err
}

// cliLoop edits as a script would: txedit read --json, then txedit apply
// --json - with the hashes it returned.
func (s *soak) cliLoop(n int) {
	rng := rand.New(rand.NewPCG(s.c.seed, uint64(500+n)))
	for !s.stop.Load() {
		files := s.pick(rng)
		req, _ := json.Marshal(map[string]any{"mode": "Line", "paths": files})
		cmd := exec.Command(s.c.txedit, "read", "--root", s.tree, "--json")
		cmd.Stdin = bytes.NewReader(req)
		out, err := cmd.Output()
		if err != nil {
			s.fail("cli%d: txedit read: %v: %s", n, err, out)
			return
		}
		var reads []struct {
			Path        string `json:"path"`
			Success     bool   `json:"success"`
			Content     string `json:"content"`
			ContentHash string `json:"content_hash"`
			Code        string `json:"code"`
		}
		if err := json.Unmarshal(out, &reads); err != nil || len(reads) != len(files) {
			s.fail("cli%d: txedit read: %v: %s", n, err, out)
			return
		}
		agent := fmt.Sprintf("soak-cli%d", n)
		e := &edit{who: "cli", agent: agent, files: files, form: "fileEdits"}
		var marker string
		e.id, marker = s.txeditMarker()
		var fes []any
		bad := false
		for i, r := range reads {
			if !r.Success {
				s.fail("cli%d: txedit read %s: [%s]", n, r.Path, r.Code)
				bad = true
				break
			}
			e.base = append(e.base, r.ContentHash)
			e.partial = append(e.partial, s.isTransient(files[i], r.ContentHash))
			fes = append(fes, fileEdit(files[i], r.Content, r.ContentHash, marker, true))
		}
		if bad {
			continue
		}
		req, _ = json.Marshal(map[string]any{"fileEdits": fes})
		cmd = exec.Command(s.c.txedit, "apply", "--root", s.tree, "--json", "--agent", agent, "-")
		cmd.Stdin = bytes.NewReader(req)
		e.ts = time.Now()
		out, err = cmd.Output()
		e.tr = time.Now()
		var res struct {
			Success bool   `json:"success"`
			Code    string `json:"code"`
			Error   string `json:"error"`
		}
		jerr := json.Unmarshal(out, &res)
		switch rc := exitCode(err); {
		case jerr != nil:
			s.fail("cli%d: txedit apply exited %d: %v: %s", n, rc, jerr, out)
			return
		case (rc == 0 || rc == 3) && res.Success:
			e.outcome = "ok"
		case (rc == 1 || rc == 2) && !res.Success:
			e.outcome, e.code, e.msg = "refused", res.Code, res.Error
		default:
			s.fail("cli%d: txedit apply exited %d with success %v", n, rc, res.Success)
			return
		}
		s.addEdit(e)
		pause(rng, s.c.agentThink)
	}
}
