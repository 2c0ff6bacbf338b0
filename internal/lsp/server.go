package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ErrNotFound is returned by Start when the server's program is not
// found (exec.ErrNotFound, as exec.LookPath says).
var ErrNotFound = exec.ErrNotFound

// Server is a running language server.
type Server struct {
	// Name is the server's program, for messages.
	Name string
	// Folders are the workspace folders answered to
	// workspace/workspaceFolders (set before Initialize).
	Folders []WorkspaceFolder

	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *tail

	wmu sync.Mutex // one writer at a time

	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan *message
	readErr error         // why the reader stopped
	done    chan struct{} // closed when the reader stops
	exited  chan struct{} // closed when the process was waited for
	waitErr error
	closed  bool
}

// WorkspaceFolder is an LSP workspace folder.
type WorkspaceFolder struct {
	URI  string `json:"uri"`
	Name string `json:"name"`
}

// Start starts the server argv (argv[0] is looked up on PATH) in dir, in
// a process group of its own (a server's children go with it). Its
// stderr is kept (the last 64 KiB) for messages about it.
func Start(argv []string, dir string) (*Server, error) {
	if len(argv) == 0 {
		return nil, errors.New("no language server command")
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(path, argv[1:]...)
	cmd.Dir = dir
	cmd.Env = os.Environ()
	setProcessGroup(cmd)
	s := &Server{Name: argv[0], cmd: cmd, stderr: &tail{max: 64 << 10}, pending: map[int64]chan *message{}, done: make(chan struct{}), exited: make(chan struct{})}
	cmd.Stderr = s.stderr
	if s.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go s.read(bufio.NewReaderSize(out, 64<<10))
	go func() {
		s.waitErr = cmd.Wait()
		close(s.exited)
	}()
	return s, nil
}

// read dispatches the server's messages until its stdout ends.
func (s *Server) read(r *bufio.Reader) {
	var err error
	for {
		var m *message
		if m, err = readMessage(r); err != nil {
			break
		}
		switch {
		case m.ID != nil && m.Method != "":
			go s.answer(m)
		case m.ID != nil:
			s.deliver(m)
		}
		// Notifications (logs, diagnostics, progress) are not needed.
	}
	s.mu.Lock()
	if err == io.EOF {
		err = errors.New("it closed its output")
	}
	s.readErr = err
	for id, ch := range s.pending {
		close(ch)
		delete(s.pending, id)
	}
	s.mu.Unlock()
	close(s.done)
}

// deliver hands a response to the call waiting for it.
func (s *Server) deliver(m *message) {
	id, err := strconv.ParseInt(string(*m.ID), 10, 64)
	if err != nil {
		return // not an id this client sent
	}
	s.mu.Lock()
	ch := s.pending[id]
	delete(s.pending, id)
	s.mu.Unlock()
	if ch != nil {
		ch <- m
	}
}

// answer answers a request the server sent its client: what txedit does
// not do it declines, as the protocol lets a client.
func (s *Server) answer(m *message) {
	var result any
	var rerr *ResponseError
	switch m.Method {
	case "workspace/configuration":
		// One null per item: the server's defaults.
		var p struct {
			Items []json.RawMessage `json:"items"`
		}
		json.Unmarshal(m.Params, &p)
		result = make([]any, len(p.Items))
	case "workspace/workspaceFolders":
		result = s.Folders
	case "window/workDoneProgress/create", "client/registerCapability", "client/unregisterCapability",
		"window/showMessageRequest", "workspace/semanticTokens/refresh", "workspace/codeLens/refresh",
		"workspace/inlayHint/refresh", "workspace/inlineValue/refresh", "workspace/diagnostic/refresh", "window/showDocument":
		result = nil
	case "workspace/applyEdit":
		// txedit applies the edit it asked for, as one transaction; an
		// edit pushed meanwhile is not applied behind its back.
		result = map[string]any{"applied": false, "failureReason": "txedit applies only the WorkspaceEdit it asked for, as one transaction"}
	default:
		rerr = &ResponseError{Code: codeMethodNotFound, Message: "txedit does not handle " + m.Method}
	}
	resp := &message{ID: m.ID, Error: rerr}
	if rerr == nil {
		b, _ := json.Marshal(result)
		resp.Result = b
	}
	s.write(resp)
}

func (s *Server) write(m *message) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return writeMessage(s.stdin, m)
}

// Call sends a request and decodes its result into result (nil: ignore
// it). The error is the server's *ResponseError when it answered with
// one; ctx's when it ended first; otherwise the server's end, with what
// it said on stderr.
func (s *Server) Call(ctx context.Context, method string, params, result any) error {
	p, err := json.Marshal(params)
	if err != nil {
		return err
	}
	ch := make(chan *message, 1)
	s.mu.Lock()
	if s.readErr != nil {
		s.mu.Unlock()
		return s.deadErr()
	}
	s.nextID++
	id := s.nextID
	s.pending[id] = ch
	s.mu.Unlock()
	raw := json.RawMessage(strconv.FormatInt(id, 10))
	if err := s.write(&message{ID: &raw, Method: method, Params: p}); err != nil {
		s.forget(id)
		return s.deadErr()
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return s.deadErr()
		}
		if m.Error != nil {
			return m.Error
		}
		if result != nil && len(m.Result) > 0 {
			if err := json.Unmarshal(m.Result, result); err != nil {
				return fmt.Errorf("%s answered %s with %v", s.Name, method, err)
			}
		}
		return nil
	case <-ctx.Done():
		s.forget(id)
		s.write(&message{Method: "$/cancelRequest", Params: json.RawMessage(`{"id":` + string(raw) + `}`)})
		return fmt.Errorf("%s did not answer %s in time: %w", s.Name, method, ctx.Err())
	}
}

func (s *Server) forget(id int64) {
	s.mu.Lock()
	delete(s.pending, id)
	s.mu.Unlock()
}

// Notify sends a notification.
func (s *Server) Notify(method string, params any) error {
	p, err := json.Marshal(params)
	if err != nil {
		return err
	}
	if err := s.write(&message{Method: method, Params: p}); err != nil {
		return s.deadErr()
	}
	return nil
}

// deadErr says why the server stopped answering.
func (s *Server) deadErr() error {
	select {
	case <-s.exited:
	case <-time.After(time.Second):
	}
	s.mu.Lock()
	why := s.readErr
	s.mu.Unlock()
	msg := fmt.Sprintf("%s stopped answering", s.Name)
	select {
	case <-s.exited:
		if s.waitErr != nil {
			msg = fmt.Sprintf("%s exited (%v)", s.Name, s.waitErr)
		} else {
			msg = s.Name + " exited"
		}
	default:
		if why != nil {
			msg += ": " + why.Error()
		}
	}
	if t := strings.TrimSpace(s.stderr.String()); t != "" {
		msg += "; it said: " + t
	}
	return errors.New(msg)
}

// Stderr returns the last of what the server wrote on stderr.
func (s *Server) Stderr() string { return s.stderr.String() }

// Close shuts the server down: shutdown, then exit, then it gets grace
// to end by itself before its process group is killed; the process is
// reaped either way. Close is safe to call more than once.
func (s *Server) Close(grace time.Duration) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		<-s.exited
		return nil
	}
	s.closed = true
	alive := s.readErr == nil
	s.mu.Unlock()
	if alive {
		ctx, cancel := context.WithTimeout(context.Background(), grace)
		if s.Call(ctx, "shutdown", nil, nil) == nil {
			s.Notify("exit", nil)
		}
		cancel()
	}
	s.stdin.Close()
	select {
	case <-s.exited:
	case <-time.After(grace):
		killProcessGroup(s.cmd)
		<-s.exited
	}
	killProcessGroup(s.cmd) // its children, if any outlived it
	return nil
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append([]byte(nil), t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
