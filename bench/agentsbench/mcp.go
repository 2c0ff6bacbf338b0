package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// client is one MCP client: a server process spoken to over stdio,
// newline-delimited JSON-RPC written by hand (no SDK: the servers are
// what is measured, and each agent has its own).
type client struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	lines   chan []byte
	id      int
	timeout time.Duration
}

var errDead = errors.New("the server exited")

// start spawns argv in dir and initializes an MCP session as agent name.
func start(argv []string, dir, name, stderr string, timeout time.Duration) (*client, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	logf, err := os.Create(stderr)
	if err != nil {
		return nil, err
	}
	cmd.Stderr = logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("%s: %w", argv[0], err)
	}
	logf.Close()
	c := &client{cmd: cmd, stdin: in, lines: make(chan []byte, 16), timeout: timeout}
	go func() {
		r := bufio.NewReaderSize(out, 1<<20)
		for {
			line, err := r.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				c.lines <- line
			}
			if err != nil {
				close(c.lines)
				return
			}
		}
	}()
	if _, err := c.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": name, "version": "1"}}); err != nil {
		c.close()
		return nil, fmt.Errorf("%s: initialize: %w (stderr in %s)", argv[0], err, stderr)
	}
	if err := c.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

func (c *client) send(msg any) error {
	b, _ := json.Marshal(msg)
	if _, err := c.stdin.Write(append(b, '\n')); err != nil {
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

func (c *client) call(method string, params any) (json.RawMessage, error) {
	c.id++
	id := c.id
	if err := c.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		return nil, err
	}
	timer := time.NewTimer(c.timeout)
	defer timer.Stop()
	for {
		select {
		case line, ok := <-c.lines:
			if !ok {
				return nil, errDead
			}
			var r rpcResponse
			if json.Unmarshal(line, &r) != nil || r.ID == nil || *r.ID != id {
				continue // a notification, or a request of the server's
			}
			if r.Error != nil {
				return nil, fmt.Errorf("%s: JSON-RPC error %d: %s", method, r.Error.Code, r.Error.Message)
			}
			return r.Result, nil
		case <-timer.C:
			return nil, fmt.Errorf("%s: no answer in %v", method, c.timeout)
		}
	}
}

// result is a tools/call answer: the text the model reads, and whether it
// is an error.
type result struct {
	text    string
	isError bool
	code    string // txedit's error code, when it sends it in _meta
}

func (c *client) tool(name string, args any) (*result, error) {
	raw, err := c.call("tools/call", map[string]any{"name": name, "arguments": args})
	if err != nil {
		return nil, err
	}
	var r struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool           `json:"isError"`
		Meta    map[string]any `json:"_meta"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("%s: %v: %.200s", name, err, raw)
	}
	var parts []string
	for _, b := range r.Content {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	code, _ := r.Meta["txedit/code"].(string)
	return &result{text: strings.Join(parts, "\n"), isError: r.IsError, code: code}, nil
}

func (c *client) close() {
	c.stdin.Close()
	done := make(chan struct{})
	go func() { c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		c.cmd.Process.Kill()
		<-done
	}
}
