package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/txedit/txedit/internal/testlong"
)

// The audit's finding on the server, through the real binary: a message
// that is not JSON, arguments nested 1,001 deep and a 20 MB write_file each
// made txedit mcp exit without an answer; 8 parallel reads of a 20 MiB file
// took it to 1,041 MiB.

// rawMCP is txedit mcp on pipes, spoken to line by line.
type rawMCP struct {
	t   *testing.T
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func startRawMCP(t *testing.T, dir string) *rawMCP {
	t.Helper()
	cmd := exec.Command(txeditBinary(t), "mcp", "--toolset", "filesystem", "--no-read-check", dir)
	in, _ := cmd.StdinPipe()
	outp, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); cmd.Process.Kill(); cmd.Wait() })
	m := &rawMCP{t: t, cmd: cmd, in: in, out: bufio.NewReaderSize(outp, 1<<20)}
	m.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	m.recv()
	m.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return m
}

func (m *rawMCP) send(line string) {
	m.t.Helper()
	if _, err := io.WriteString(m.in, line+"\n"); err != nil {
		m.t.Fatalf("the server stopped reading: %v", err)
	}
}

func (m *rawMCP) recv() map[string]any {
	m.t.Helper()
	type got struct {
		line string
		err  error
	}
	ch := make(chan got, 1)
	go func() { l, err := m.out.ReadString('\n'); ch <- got{l, err} }()
	select {
	case g := <-ch:
		if g.err != nil {
			m.t.Fatalf("the server exited without an answer: %v", g.err)
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(g.line), &v); err != nil {
			m.t.Fatalf("not a JSON answer: %.200q", g.line)
		}
		return v
	case <-time.After(2 * time.Minute):
		m.t.Fatalf("no answer in two minutes")
	}
	return nil
}

func (m *rawMCP) alive(after string) {
	m.t.Helper()
	m.send(`{"jsonrpc":"2.0","id":"ping","method":"ping"}`)
	if v := m.recv(); v["id"] != "ping" {
		m.t.Fatalf("after %s the next answer is %.200v, want the ping's", after, v)
	}
}

// TestServerAnswersBadInput: each of the audit's messages gets an answer
// and the server goes on: a JSON-RPC error for the line that is not JSON
// (-32700) and for the arguments nested 1,001 deep (-32600, naming the
// limit of 128); the 20 MB write_file is written; a 100 MB one, over the
// 96 MiB message limit, is refused by its id, saying so (in the long run).
func TestServerAnswersBadInput(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	m := startRawMCP(t, dir)
	code := func(v map[string]any) float64 {
		e, _ := v["error"].(map[string]any)
		c, _ := e["code"].(float64)
		return c
	}
	m.send("this is not json")
	if v := m.recv(); code(v) != -32700 {
		t.Errorf("a line that is not JSON: %v", v)
	}
	m.alive("a line that is not JSON")
	m.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"x","deep":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `}}}`)
	if v := m.recv(); code(v) != -32600 || v["id"] != 1.0 || !strings.Contains(fmt.Sprint(v["error"]), "128") {
		t.Errorf("arguments nested 1,001 deep: %v", v)
	}
	m.alive("arguments nested 1,001 deep")
	content := strings.Repeat("0123456789abcdef\n", 20_000_000/17)
	args, _ := json.Marshal(map[string]any{"path": filepath.Join(dir, "big.txt"), "content": content})
	m.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write_file","arguments":` + string(args) + `}}`)
	if v := m.recv(); v["id"] != 2.0 || v["result"] == nil || v["result"].(map[string]any)["isError"] == true {
		t.Errorf("a 20 MB write: %.300v", v)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "big.txt")); err != nil || len(b) != len(content) {
		t.Errorf("big.txt: %d bytes, %v; want %d", len(b), err, len(content))
	}
	m.alive("a 20 MB write")
	if !testlong.Long() {
		// The message over the limit is tools/mcpserver's
		// TestBadMessagesAreAnswered in the quick run (a 64 KiB limit).
		return
	}
	huge := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"` + filepath.Join(dir, "huge.txt") + `","content":"` + strings.Repeat("x", 100<<20) + `"}}}`
	m.send(huge)
	if v := m.recv(); code(v) != -32600 || v["id"] != 3.0 || !strings.Contains(fmt.Sprint(v["error"]), "96.0 MiB") {
		t.Errorf("a 100 MB message: %.300v", v)
	}
	if _, err := os.Stat(filepath.Join(dir, "huge.txt")); err == nil {
		t.Errorf("the refused write was written")
	}
	m.alive("a 100 MB message")
}

// TestServerMemoryBound: 8 parallel read_text_file calls of a 20 MiB file
// leave the server's peak resident memory (VmHWM) under 512 MiB: the file
// budget (32 MiB of file contents, held until each answer is written)
// lets one such read run at a time. Before, the server reached 1,041 MiB.
func TestServerMemoryBound(t *testing.T) {
	testlong.Skip(t, "8 parallel reads of a 20 MiB file through txedit mcp, peak memory")
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	big := filepath.Join(dir, "big.txt")
	os.WriteFile(big, []byte(strings.Repeat(strings.Repeat("0123456789abcdef", 4)+"\n", 20<<20/65)), 0o644)
	m := startRawMCP(t, dir)
	args, _ := json.Marshal(map[string]any{"path": big})
	for i := 0; i < 8; i++ {
		m.send(`{"jsonrpc":"2.0","id":` + strconv.Itoa(10+i) + `,"method":"tools/call","params":{"name":"read_text_file","arguments":` + string(args) + `}}`)
	}
	for i := 0; i < 8; i++ {
		if v := m.recv(); v["result"] == nil {
			t.Fatalf("read: %.200v", v)
		}
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", m.cmd.Process.Pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	var hwm int64
	for _, l := range strings.Split(string(status), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			hwm, _ = strconv.ParseInt(f[1], 10, 64)
		}
	}
	t.Logf("peak resident memory after 8 parallel reads of a 20 MiB file: %d MiB", hwm>>10)
	if hwm<<10 > 512<<20 {
		t.Errorf("peak resident memory %d MiB, over 512 MiB", hwm>>10)
	}
}
