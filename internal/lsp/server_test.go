package lsp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The tests run this test binary as the language server: with
// TXEDIT_FAKE_LSP set, TestMain serves instead of testing.
func TestMain(m *testing.M) {
	if mode := os.Getenv("TXEDIT_FAKE_LSP"); mode != "" {
		fakeServer(mode)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// fakeServer answers requests on stdin/stdout. ping first asks its
// client three things (workspace/configuration with two items,
// window/workDoneProgress/create, a method no client knows) and answers
// with the client's answers; fail answers with an error; hang never
// answers; crash exits; child starts a sleeping child and records its pid
// on stderr. In mode stubborn it ignores shutdown and exit.
func fakeServer(mode string) {
	r := bufio.NewReader(os.Stdin)
	w := os.Stdout
	nextID := 100
	ask := func(method string, params any) *message {
		nextID++
		p, _ := json.Marshal(params)
		id := json.RawMessage(strconv.Itoa(nextID))
		writeMessage(w, &message{ID: &id, Method: method, Params: p})
		for {
			m, err := readMessage(r)
			if err != nil {
				os.Exit(3)
			}
			if m.Method == "" && m.ID != nil && string(*m.ID) == string(id) {
				return m
			}
		}
	}
	for {
		m, err := readMessage(r)
		if err != nil {
			return
		}
		reply := func(result any, rerr *ResponseError) {
			b, _ := json.Marshal(result)
			writeMessage(w, &message{ID: m.ID, Result: b, Error: rerr})
		}
		switch {
		case m.Method == "exit" && mode != "stubborn":
			return
		case m.ID == nil:
			continue
		case m.Method == "shutdown" && mode != "stubborn":
			reply(nil, nil)
		case m.Method == "ping" && mode == "fail":
			reply(nil, &ResponseError{Code: -32803, Message: "the new name conflicts with x"})
		case m.Method == "ping" && mode == "hang":
		case m.Method == "ping" && mode == "crash":
			fmt.Fprintln(os.Stderr, "panic: the fake server broke")
			os.Exit(2)
		case m.Method == "ping":
			cfg := ask("workspace/configuration", map[string]any{"items": []any{map[string]any{"section": "gopls"}, map[string]any{}}})
			prog := ask("window/workDoneProgress/create", map[string]any{"token": 1})
			unknown := ask("frob/nicate", nil)
			folders := ask("workspace/workspaceFolders", nil)
			writeMessage(w, &message{Method: "window/logMessage", Params: json.RawMessage(`{"type":3,"message":"hello"}`)})
			reply(map[string]any{"params": m.Params, "configuration": cfg.Result, "progress": prog.Result, "unknown": unknown.Error, "folders": folders.Result}, nil)
		case m.Method == "big":
			reply(strings.Repeat("x", 3<<20), nil)
		case m.Method == "child":
			c := exec.Command("sleep", "300")
			c.Start()
			fmt.Fprintf(os.Stderr, "child %d\n", c.Process.Pid)
			reply(c.Process.Pid, nil)
		}
	}
}

func startFake(t *testing.T, mode string) *Server {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("TXEDIT_FAKE_LSP", mode)
	s, err := Start([]string{exe}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(time.Second) })
	return s
}

func TestCallAnswersTheServersRequests(t *testing.T) {
	s := startFake(t, "ping")
	s.Folders = []WorkspaceFolder{{URI: "file:///w", Name: "w"}}
	var got struct {
		Params        map[string]int
		Configuration []any
		Progress      any
		Unknown       *ResponseError
		Folders       []WorkspaceFolder
	}
	if err := s.Call(context.Background(), "ping", map[string]int{"n": 7}, &got); err != nil {
		t.Fatal(err)
	}
	if got.Params["n"] != 7 || len(got.Configuration) != 2 || got.Configuration[0] != nil || got.Progress != nil ||
		got.Unknown == nil || got.Unknown.Code != codeMethodNotFound || len(got.Folders) != 1 || got.Folders[0].URI != "file:///w" {
		t.Errorf("got %+v", got)
	}
	var big string
	if err := s.Call(context.Background(), "big", nil, &big); err != nil || len(big) != 3<<20 {
		t.Errorf("a 3 MiB answer: %d bytes, %v", len(big), err)
	}
}

func TestCallErrors(t *testing.T) {
	var rerr *ResponseError
	if err := startFake(t, "fail").Call(context.Background(), "ping", nil, nil); !errors.As(err, &rerr) || rerr.Message != "the new name conflicts with x" {
		t.Errorf("a server's error: got %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if err := startFake(t, "hang").Call(ctx, "ping", nil, nil); !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "did not answer ping in time") {
		t.Errorf("a server that does not answer: got %v", err)
	}
	s := startFake(t, "crash")
	err := s.Call(context.Background(), "ping", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "exited") || !strings.Contains(err.Error(), "panic: the fake server broke") {
		t.Errorf("a server that crashes: got %v", err)
	}
	if err := s.Call(context.Background(), "ping", nil, nil); err == nil {
		t.Error("a call to a dead server succeeded")
	}
	if _, err := Start([]string{"txedit-no-such-server"}, t.TempDir()); !errors.Is(err, ErrNotFound) {
		t.Errorf("a missing server: got %v", err)
	}
}

// TestCloseReapsAStubbornServer: a server that ignores shutdown and exit
// is killed after the grace, its children with it, and reaped.
func TestCloseReapsAStubbornServer(t *testing.T) {
	s := startFake(t, "stubborn")
	var child int
	if err := s.Call(context.Background(), "child", nil, &child); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	s.Close(300 * time.Millisecond)
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Errorf("closed after %v: the grace was not given", d)
	}
	select {
	case <-s.exited:
	default:
		t.Fatal("Close returned before the server was reaped")
	}
	// The child is killed with the group (it may linger as a zombie of
	// init for a moment: wait for it to go).
	for i := 0; i < 100; i++ {
		if syscall.Kill(child, 0) != nil || isZombie(child) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("the server's child %d outlived it", child)
}

func isZombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	return len(f) > 0 && f[0] == "Z"
}

func TestFraming(t *testing.T) {
	body := `{"jsonrpc":"2.0","id":1,"result":"é"}`
	in := "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
	m, err := readMessage(bufio.NewReader(strings.NewReader(in)))
	if err != nil || string(*m.ID) != "1" || string(m.Result) != `"é"` {
		t.Errorf("got %+v, %v", m, err)
	}
	for _, bad := range []string{"Content-Length: x\r\n\r\n{}", "\r\n{}", "Content-Length: 10\r\n\r\n{}", "Content-Length: 2\r\n\r\n[]x", "Content-Length: 999999999999\r\n\r\n"} {
		if _, err := readMessage(bufio.NewReader(strings.NewReader(bad))); !errors.Is(err, errFraming) {
			t.Errorf("%q: got %v, want a framing error", bad, err)
		}
	}
	var b bytes.Buffer
	writeMessage(&b, &message{Method: "m", Params: json.RawMessage(`{"a":"ü"}`)})
	if body := `{"jsonrpc":"2.0","method":"m","params":{"a":"ü"}}`; b.String() != "Content-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"+body {
		t.Errorf("wrote %q", b.String())
	}
	if got := FileURI("/a b/c#d?e.go"); got != "file:///a%20b/c%23d%3Fe.go" {
		t.Errorf("FileURI = %s", got)
	}
}
