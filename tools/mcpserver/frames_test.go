package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/internal/testlong"
	"github.com/txedit/txedit/tools"
)

// rawServer serves the filesystem toolset on dir through the guarded
// transport, with the given message limit, over pipes the test writes
// lines to and reads lines from.
type rawServer struct {
	t    *testing.T
	in   *io.PipeWriter
	out  *bufio.Reader
	done chan error
}

func startRaw(t *testing.T, dir string, maxMessage int) *rawServer {
	return startRawWith(t, dir, maxMessage, Options{})
}

func startRawWith(t *testing.T, dir string, maxMessage int, o Options) *rawServer {
	t.Helper()
	w, err := engine.Open(dir, &engine.Options{Durability: engine.NotDurable})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	ts, _ := tools.Get("filesystem")
	o.Version, o.NoReadCheck, o.Env = "test", true, tools.Env{Mode: tools.ModeAcceptEdits}
	server := New(ts, w, o)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	g := &guardedTransport{in: inR, out: outW, maxMessage: maxMessage, maxDepth: MaxDepth}
	r := &rawServer{t: t, in: inW, out: bufio.NewReaderSize(outR, 1<<20), done: make(chan error, 1)}
	go func() { r.done <- server.Run(context.Background(), g); outW.Close() }()
	t.Cleanup(func() { inW.Close() })
	r.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if m := r.recv(); m["id"] != "init" {
		t.Fatalf("initialize: %v", m)
	}
	r.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return r
}

func (r *rawServer) send(line string) {
	r.t.Helper()
	if _, err := io.WriteString(r.in, line+"\n"); err != nil {
		r.t.Fatalf("write: %v", err)
	}
}

// recv reads the next message, failing after a while without one (the
// server stopped).
func (r *rawServer) recv() map[string]any {
	r.t.Helper()
	return r.recvWithin(30 * time.Second)
}

// recvWithin is recv with a bound of its own: for an answer the race
// detector makes slow to compute.
func (r *rawServer) recvWithin(bound time.Duration) map[string]any {
	r.t.Helper()
	type got struct {
		line string
		err  error
	}
	ch := make(chan got, 1)
	go func() { l, err := r.out.ReadString('\n'); ch <- got{l, err} }()
	select {
	case g := <-ch:
		if g.err != nil {
			r.t.Fatalf("the server stopped: %v", g.err)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(g.line), &m); err != nil {
			var batch []map[string]any
			if json.Unmarshal([]byte(g.line), &batch) == nil {
				return map[string]any{"batch": batch}
			}
			r.t.Fatalf("not JSON from the server: %q", g.line)
		}
		return m
	case <-time.After(bound):
		r.t.Fatalf("no answer in %v", bound)
	}
	return nil
}

// alive checks that the server still answers.
func (r *rawServer) alive(after string) {
	r.t.Helper()
	r.send(`{"jsonrpc":"2.0","id":"ping","method":"ping"}`)
	if m := r.recv(); m["id"] != "ping" {
		r.t.Fatalf("after %s: the next answer is %v, want the ping's", after, m)
	}
}

func errCode(m map[string]any) (float64, string) {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(float64)
	msg, _ := e["message"].(string)
	return c, msg
}

// TestBadMessagesAreAnswered: every message the SDK cannot take — the
// audit's line that is not JSON and its arguments nested 1,001 deep, and
// what else ended the connection (a value that is not an object, a wrong
// "jsonrpc", an id or a method of the wrong type, a response without its
// id, result or error, a batch on a protocol that has none, a message over
// the size limit) — gets a JSON-RPC error with the request's id where it
// has one (parse error -32700 for what is not JSON, invalid request
// -32600 for the rest, the limit named), and the server answers the next
// message. A notification that is refused gets no answer.
func TestBadMessagesAreAnswered(t *testing.T) {
	dir := t.TempDir()
	r := startRaw(t, dir, 64<<10)
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	big := `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"write_file","arguments":{"path":"x","content":"` + strings.Repeat("x", 100<<10) + `"}},"id":"late-id"}`
	for _, c := range []struct {
		line string
		id   any
		code float64
		says string
	}{
		{"this is not json", nil, -32700, "not JSON"},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call"`, nil, -32700, "not JSON"},
		{"5", nil, -32600, "JSON object"},
		{`"tools/list"`, nil, -32600, "JSON object"},
		{`{"jsonrpc":"1.0","id":2,"method":"tools/list"}`, 2.0, -32600, `"jsonrpc" must be "2.0"`},
		{`{"id":3,"method":"tools/list"}`, 3.0, -32600, `"jsonrpc" must be "2.0"`},
		{`{"jsonrpc":"2.0","id":true,"method":"tools/list"}`, nil, -32600, `"id" must be`},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`, nil, -32600, `"id" must be`},
		{`{"jsonrpc":"2.0","\u0069d":[1],"method":"tools/list"}`, nil, -32600, `"id" must be`},
		{`{"jsonrpc":"2.0","id":4,"method":5}`, 4.0, -32600, `"method" must be a string`},
		{`{"jsonrpc":"2.0","id":5}`, 5.0, -32600, `needs "result" or "error"`},
		{`{"jsonrpc":"2.0","result":{}}`, nil, -32600, `needs that request's "id"`},
		{`{"jsonrpc":"2.0","id":6,"error":5}`, 6.0, -32600, `"error" must be an object`},
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"x","deep":` + deep(1001) + `}}}`, 7.0, -32600, "nested more than 128 levels deep"},
		{`{"jsonrpc":"2.0","id":"s8","method":"tools/call","params":` + deep(200) + `}`, "s8", -32600, "the limit is 128"},
		{`[]`, nil, -32600, "empty batch"},
		{big, "late-id", -32600, "over the limit of 64.0 KiB"},
		{`{"id":"early","jsonrpc":"2.0","method":"tools/call","params":{"arguments":{"content":"` + strings.Repeat("y", 100<<10) + `"}}}`, "early", -32600, "refused unread"},
	} {
		r.send(c.line)
		m := r.recv()
		code, msg := errCode(m)
		if m["id"] != c.id || code != c.code || !strings.Contains(msg, c.says) {
			t.Errorf("%.80s: answered %v, want id %v, code %v, saying %q", c.line, m, c.id, c.code, c.says)
		}
		r.alive(c.line[:min(len(c.line), 40)])
	}
	// A batch: each request in it is answered, in a batch.
	r.send(`[{"jsonrpc":"2.0","id":"b1","method":"tools/list"},{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":"b2","method":"ping"}]`)
	if m := r.recv(); len(m["batch"].([]map[string]any)) != 2 {
		t.Errorf("batch answered %v", m)
	}
	r.alive("a batch")
	// Refused notifications get no answer: the next answer is the ping's.
	r.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":` + deep(500) + `}`)
	r.alive("a deep notification")
	r.send(`{"jsonrpc":"2.0","method":"notifications/x","params":{"big":"` + strings.Repeat("z", 100<<10) + `"}}`)
	r.alive("a notification over the limit")
	// Blank lines and CRLF endings are fine; a message at the limit of
	// depth is the SDK's to answer.
	r.send("")
	r.send(`{"jsonrpc":"2.0","id":"crlf","method":"ping"}` + "\r")
	if m := r.recv(); m["id"] != "crlf" {
		t.Errorf("CRLF line: %v", m)
	}
	r.send(`{"jsonrpc":"2.0","id":"d","method":"tools/call","params":{"name":"list_allowed_directories","arguments":{"x":` + deep(124) + `}}}`)
	if m := r.recv(); m["id"] != "d" || m["error"] != nil {
		t.Errorf("a call nested 128 deep: %v", m)
	}
}

// TestLargeWriteWithinTheLimits: a 20 MB write_file (the audit's, under
// the 64 MiB file limit) is taken and written; one over the message limit
// is refused, named by its id, and the server goes on.
func TestLargeWriteWithinTheLimits(t *testing.T) {
	testlong.Skip(t, "a 20 MB write_file through the guard (the quick run has it through the real binary: cmd/txedit TestServerAnswersBadInput)")
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	r := startRaw(t, dir, MaxMessage)
	content := strings.Repeat("0123456789abcdef\n", 20_000_000/17)
	args, _ := json.Marshal(map[string]any{"path": filepath.Join(dir, "big.txt"), "content": content})
	r.send(`{"jsonrpc":"2.0","id":"w","method":"tools/call","params":{"name":"write_file","arguments":` + string(args) + `}}`)
	m := r.recvWithin(10 * time.Minute)
	if res, _ := m["result"].(map[string]any); m["id"] != "w" || res == nil || res["isError"] == true {
		t.Fatalf("20 MB write: %.300v", m)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "big.txt")); err != nil || string(b) != content {
		t.Fatalf("big.txt: %d bytes, %v", len(b), err)
	}
	r.alive("a 20 MB write")
}

// TestBudgetHeldUntilTheAnswerIsWritten: what a call read stays charged to
// the server's file budget until its answer has been written, not only
// until its handler returns (the SDK encodes and writes the answer after
// that: for a big file, most of the call's memory). With a budget of
// 8,000 bytes and two calls that read 6,000 each, the second waits while
// the first's answer is unread; once it is read, the second runs.
func TestBudgetHeldUntilTheAnswerIsWritten(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	for _, n := range []string{"a.txt", "b.txt"} {
		os.WriteFile(filepath.Join(dir, n), []byte(strings.Repeat("x", 6000)), 0o644)
	}
	files := engine.NewBudget(8000)
	r := startRawWith(t, dir, MaxMessage, Options{Files: files})
	for i, n := range []string{"a.txt", "b.txt"} {
		args, _ := json.Marshal(map[string]any{"path": filepath.Join(dir, n)})
		r.send(`{"jsonrpc":"2.0","id":` + string(rune('1'+i)) + `,"method":"tools/call","params":{"name":"read_text_file","arguments":` + string(args) + `}}`)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !(files.InUse() == 6000 && files.Waiting() == 1) {
		if time.Now().After(deadline) {
			t.Fatalf("with the first answer unread: %d bytes in use, %d calls waiting; want 6000 and the second call", files.InUse(), files.Waiting())
		}
		time.Sleep(time.Millisecond)
	}
	// And it stays so while the answer is unread (the handler has long
	// returned).
	time.Sleep(300 * time.Millisecond)
	if files.InUse() != 6000 || files.Waiting() != 1 {
		t.Fatalf("with the first answer unread, later: %d bytes in use, %d calls waiting; want 6000 and the second call", files.InUse(), files.Waiting())
	}
	for i := 0; i < 2; i++ {
		if m := r.recv(); m["result"] == nil {
			t.Fatalf("answer: %.200v", m)
		}
	}
	for files.InUse() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d bytes still charged after both answers", files.InUse())
		}
		time.Sleep(time.Millisecond)
	}
}

// TestCallMark: the mark the guard adds to a tools/call request (so that
// its budgets are given back when its answer is written) keeps the message
// the same JSON-RPC message, with the client's _meta kept, whatever shape
// params has; a mark the client sent itself is not the one read.
func TestCallMark(t *testing.T) {
	for _, in := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{ "_meta" : { } , "name":"x"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":7,"txedit/call":"forged"}}}`,
		`{"params":{"_meta":{"a":{"b":[1,{"c":"}"}]}}},"jsonrpc":"2.0","method":"tools/call","id":"s"}`,
	} {
		g := &guardedTransport{marks: &callMarks{byID: map[string][]string{}}, maxDepth: MaxDepth}
		reply, why, s := g.check([]byte(in))
		if reply != nil || why != "" {
			t.Fatalf("%s refused: %s", in, why)
		}
		var out strings.Builder
		if err := g.pass(&out, []byte(in), s); err != nil {
			t.Fatal(err)
		}
		var before, after map[string]any
		json.Unmarshal([]byte(in), &before)
		if err := json.Unmarshal([]byte(out.String()), &after); err != nil {
			t.Fatalf("%s became %s: %v", in, out.String(), err)
		}
		meta, _ := after["params"].(map[string]any)["_meta"].(map[string]any)
		mark, _ := meta[markKey].(string)
		if !strings.HasPrefix(mark, "c") {
			t.Errorf("%s: mark %q in %s", in, mark, out.String())
		}
		// Everything else is as it was.
		delete(meta, markKey)
		if bm, ok := before["params"].(map[string]any)["_meta"].(map[string]any); ok {
			delete(bm, markKey)
		} else if len(meta) == 0 {
			delete(after["params"].(map[string]any), "_meta")
		}
		if a, b := jsonText(after), jsonText(before); a != b {
			t.Errorf("%s became %s", b, a)
		}
		if key, _ := canonicalID(s.id()); g.marks.pop(key) != mark {
			t.Errorf("%s: the mark is not kept under its id", in)
		}
	}
}

func jsonText(v any) string { b, _ := json.Marshal(v); return string(b) }
