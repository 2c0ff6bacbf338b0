package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The limits of what the server reads from its client (docs/agents.md,
// "Limits"). A message over them is answered with a JSON-RPC error, and
// the server goes on with the next one.
const (
	// MaxMessage is the size of one JSON-RPC message: a write of a file
	// at the engine's 64 MiB limit fits, unless more than half of its
	// characters are ones JSON must escape.
	MaxMessage = 96 << 20
	// MaxDepth is how deep arrays and objects may nest in one message;
	// the deepest arguments of any tool nest 6 levels.
	MaxDepth = 128
)

// JSON-RPC's error codes for messages the server cannot take.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// GuardedStdio is the server's transport on standard input and output:
// the SDK's newline-delimited JSON, with every message checked before the
// SDK sees it. The SDK ends the connection — and txedit mcp exits — on a
// message it cannot decode (a line that is not JSON, nesting past its
// parser's depth, a line longer than its buffer, a message that is not
// JSON-RPC), so such a message never reaches it: it is answered with a
// JSON-RPC error (parse error -32700 for what is not JSON, invalid request
// -32600 for the rest, naming the limit), logged, and the connection goes
// on.
func GuardedStdio() mcp.Transport {
	return &guardedTransport{in: os.Stdin, out: os.Stdout, maxMessage: MaxMessage, maxDepth: MaxDepth}
}

// guardedTransport is GuardedStdio on any reader and writer (the tests').
type guardedTransport struct {
	in         io.Reader
	out        io.Writer
	maxMessage int
	maxDepth   int
	marks      *callMarks
}

// lockedWriter keeps the SDK's messages and the guard's answers whole:
// each is one Write, and one is written at a time. Once the answer to a
// marked call is written, what the call held of the server's budgets is
// given back (callMarks).
type lockedWriter struct {
	mu    sync.Mutex
	w     io.Writer
	marks *callMarks
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	n, err := l.w.Write(p)
	l.mu.Unlock()
	if l.marks != nil && l.marks.waiting() {
		s := newFrameScan(0)
		s.feed(p[:min(len(p), 512)])
		if _, isCall := s.vals["method"]; !isCall {
			if key, ok := canonicalID(s.id()); ok {
				if mark := l.marks.pop(key); mark != "" {
					finishCall(mark)
				}
			}
		}
	}
	return n, err
}

// A tools/call request the guard passes on is marked: "txedit/call" in
// its params' _meta names it, so that the handler can leave what the call
// holds of the server's budgets (its arguments, the file contents it
// read) to be given back when its answer is written, not when the handler
// returns: the SDK encodes and writes the answer after that, and for a
// big file that is most of the call's memory (docs/design.md, "The
// server's limits").
const markKey = "txedit/call"

var markSeq atomic.Uint64

// pendingCalls maps a call's mark to the function that gives back what it
// holds, from its handler's end to its answer's write.
var pendingCalls sync.Map

// leaveUntilAnswered is the handler's end: with a mark, finish waits for
// the answer's write (or a minute, whichever comes first: an answer the
// guard could not match gives the budget back all the same); without one
// (another transport), it runs now.
func leaveUntilAnswered(mark string, finish func()) {
	if mark == "" {
		finish()
		return
	}
	finish = sync.OnceFunc(finish)
	pendingCalls.Store(mark, finish)
	time.AfterFunc(time.Minute, func() { finishCall(mark) })
}

func finishCall(mark string) {
	if f, ok := pendingCalls.LoadAndDelete(mark); ok {
		f.(func())()
	}
}

// callMarks are the marks of the calls passed on and not yet answered, by
// request id (a list: an id may be reused once answered).
type callMarks struct {
	mu    sync.Mutex
	byID  map[string][]string
	count atomic.Int64
}

func (c *callMarks) add(key, mark string) {
	c.mu.Lock()
	c.byID[key] = append(c.byID[key], mark)
	c.mu.Unlock()
	c.count.Add(1)
}

func (c *callMarks) waiting() bool { return c.count.Load() > 0 }

func (c *callMarks) pop(key string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	l := c.byID[key]
	if len(l) == 0 {
		return ""
	}
	if len(l) == 1 {
		delete(c.byID, key)
	} else {
		c.byID[key] = l[1:]
	}
	c.count.Add(-1)
	return l[0]
}

// canonicalID is a request id as the SDK answers it: a number as the
// integer it becomes, a string as itself.
func canonicalID(id json.RawMessage) (string, bool) {
	if id == nil {
		return "", false
	}
	var v any
	if json.Unmarshal(id, &v) != nil {
		return "", false
	}
	switch v := v.(type) {
	case float64:
		return "n" + strconv.FormatInt(int64(v), 10), true
	case string:
		return "s" + v, true
	}
	return "", false
}

// pass writes a message that passed to the SDK: a tools/call request
// with an id gets its mark in params._meta (added at the end of a _meta
// the client sent, so that a mark the client forged is not the one read).
func (g *guardedTransport) pass(w io.Writer, line []byte, s *frameScan) error {
	m := s.vals["method"]
	key, ok := canonicalID(s.id())
	if m.cut || string(bytes.TrimSpace(m.b)) != `"tools/call"` || !ok || s.paramsOpen < 0 {
		_, err := w.Write(append(line, '\n'))
		return err
	}
	mark := "c" + strconv.FormatUint(markSeq.Add(1), 10)
	field := `"` + markKey + `":"` + mark + `"`
	at, ins := s.paramsOpen, `"_meta":{`+field+`}`
	if s.paramsFull {
		ins += ","
	}
	if s.metaClose >= 0 {
		at, ins = s.metaClose, field
		if s.metaFull {
			ins = "," + field
		}
	}
	g.marks.add(key, mark)
	for _, part := range [][]byte{line[:at], []byte(ins), line[at:], {'\n'}} {
		if _, err := w.Write(part); err != nil {
			return err
		}
	}
	return nil
}

func (l *lockedWriter) Close() error { return nil }

// Connect implements mcp.Transport.
func (g *guardedTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	pr, pw := io.Pipe()
	marks := &callMarks{byID: map[string][]string{}}
	out := &lockedWriter{w: g.out, marks: marks}
	g.marks = marks
	go g.filter(pw, out)
	// The guard bounds each message, so the SDK need not.
	inner := &mcp.IOTransport{Reader: pr, Writer: out, MaxLineLength: -1}
	return inner.Connect(ctx)
}

// filter copies the messages that pass to w, one line each, and answers
// the others on out, until the input ends or w is closed.
func (g *guardedTransport) filter(w *io.PipeWriter, out io.Writer) {
	r := bufio.NewReaderSize(g.in, 64<<10)
	for {
		line, tooLong, err := readLine(r, g.maxMessage)
		if len(line) > 0 || tooLong != nil {
			var reply []byte
			var why string
			if tooLong != nil {
				why = fmt.Sprintf("a message of %s, over the limit of %s (%d bytes)", sizeText(tooLong.size), sizeText(int64(g.maxMessage)), g.maxMessage)
				reply = tooLong.scan.replyTo(codeInvalidRequest, "Invalid Request: "+why+": refused unread")
			} else {
				var scan *frameScan
				if reply, why, scan = g.check(line); reply == nil && why == "" {
					if werr := g.pass(w, line, scan); werr != nil {
						return
					}
				}
			}
			if why != "" {
				log.Printf("txedit mcp: refused a message: %s", why)
			}
			if reply != nil {
				if _, werr := out.Write(reply); werr != nil {
					w.CloseWithError(werr)
					return
				}
			}
		}
		if err != nil {
			w.CloseWithError(err)
			return
		}
	}
}

func sizeText(n int64) string {
	switch {
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
	case n >= 1<<10:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', 1, 64) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// oversized is a line that went past the limit: how long it was, and
// what the scan of it found while it was skipped (its id).
type oversized struct {
	size int64
	scan *frameScan
}

// readLine reads one line (without its "\n" and a "\r" before it). A line
// longer than max is not kept: it is read to its end, scanned for its id,
// and reported as oversized. err is the reader's (io.EOF at the end).
func readLine(r *bufio.Reader, max int) ([]byte, *oversized, error) {
	var line []byte
	var scan *frameScan
	var size int64
	for {
		chunk, err := r.ReadSlice('\n')
		size += int64(len(chunk))
		if scan == nil && len(line)+len(chunk) > max+2 {
			scan = newFrameScan(0)
			scan.feed(line)
			line = nil
		}
		if scan != nil {
			scan.feed(chunk)
		} else {
			line = append(line, chunk...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if scan != nil {
			return nil, &oversized{size: size, scan: scan}, err
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(bytes.TrimSpace(line)) == 0 {
			line = nil
		}
		return line, nil, err
	}
}

// check decides about one message: nil and "" to pass it to the SDK, or
// the answer to send (nil for a notification, which gets none) and why it
// was refused.
func (g *guardedTransport) check(line []byte) (reply []byte, why string, s *frameScan) {
	s = newFrameScan(g.maxDepth)
	s.feed(line)
	if !json.Valid(line) {
		return errorReply(nil, codeParseError, "Parse error: the message is not JSON"), "not JSON", s
	}
	if s.tooDeep {
		msg := fmt.Sprintf("arrays and objects nested more than %d levels deep (the limit is %d)", g.maxDepth, g.maxDepth)
		return s.replyTo(codeInvalidRequest, "Invalid Request: "+msg), msg, s
	}
	switch s.top {
	case '{':
		if msg := s.check(line); msg != "" {
			return s.replyTo(codeInvalidRequest, "Invalid Request: "+msg), msg, s
		}
		return nil, "", s
	case '[':
		// A batch. The SDK takes batches only on protocol versions
		// before 2025-06-18, and ends the connection at one after; no
		// client in use sends them: each request of it is answered with
		// an error, in a batch of answers, and nothing of it runs.
		var msgs []json.RawMessage
		if err := json.Unmarshal(line, &msgs); err != nil || len(msgs) == 0 {
			return errorReply(nil, codeInvalidRequest, "Invalid Request: an empty batch"), "an empty batch", s
		}
		var replies [][]byte
		for _, m := range msgs {
			e := newFrameScan(0)
			e.feed(m)
			if r := e.replyTo(codeInvalidRequest, "Invalid Request: batches are not taken: send each message on a line of its own"); r != nil {
				replies = append(replies, bytes.TrimSuffix(r, []byte("\n")))
			}
		}
		if len(replies) == 0 {
			return nil, "a batch of notifications", s
		}
		return append(append([]byte("["), bytes.Join(replies, []byte(","))...), "]\n"...), "a batch", s
	}
	return errorReply(nil, codeInvalidRequest, "Invalid Request: a message is a JSON object"), "not an object", s
}

// check checks what the SDK's decoder requires of one message (an object,
// JSON already): "jsonrpc" "2.0", an id that is a string, a number or
// null, a method that is a string; a message without a method is a
// response, to an id, with a result or JSON-RPC's error object. It
// returns what is wrong, or "".
func (s *frameScan) check(raw []byte) string {
	if v, ok := s.vals["jsonrpc"]; !ok || string(bytes.TrimSpace(v.b)) != `"2.0"` {
		return `"jsonrpc" must be "2.0"`
	}
	id, hasID := s.vals["id"]
	if hasID && (id.cut || !scalarID(id.b)) {
		return `"id" must be a string, a number or null`
	}
	if m, ok := s.vals["method"]; ok {
		if c := firstByte(m.b); c != '"' {
			return `"method" must be a string`
		}
		return ""
	}
	if !hasID || firstByte(id.b) == 'n' {
		return `a message without "method" is a response to a request, and needs that request's "id"`
	}
	e, hasErr := s.vals["error"]
	_, hasResult := s.vals["result"]
	if !hasErr && !hasResult {
		return `a message without "method" is a response: it needs "result" or "error"`
	}
	if hasErr && firstByte(e.b) != 'n' {
		// A response from the client (to roots/list): small; decoded as
		// the SDK decodes it.
		var m struct {
			Error *struct {
				Code    int64           `json:"code"`
				Message string          `json:"message"`
				Data    json.RawMessage `json:"data"`
			} `json:"error"`
		}
		if json.Unmarshal(raw, &m) != nil {
			return `"error" must be an object with a numeric "code" and a string "message"`
		}
	}
	return ""
}

func firstByte(b []byte) byte {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return 0
	}
	return b[0]
}

func scalarID(v []byte) bool {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return false
	}
	switch c := v[0]; {
	case c == '"':
		var s string
		return json.Unmarshal(v, &s) == nil
	case c == 'n':
		return string(v) == "null"
	case c == '-' || c >= '0' && c <= '9':
		var f float64
		return json.Unmarshal(v, &f) == nil
	}
	return false
}

// errorReply is a JSON-RPC error response to id (null when unknown).
func errorReply(id json.RawMessage, code int, msg string) []byte {
	if len(id) == 0 || !scalarID(id) {
		id = json.RawMessage("null")
	}
	type rpcError struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   rpcError        `json:"error"`
	}{"2.0", id, rpcError{code, msg}})
	return append(b, '\n')
}

// captured is the start of a top-level value: its first bytes, and
// whether there were more.
type captured struct {
	b   []byte
	cut bool
}

// captureLimits are the top-level keys whose values frameScan keeps, and
// how much of each: what check needs (the values of params and result
// can be the size of a file, and are not kept).
var captureLimits = map[string]int{"jsonrpc": 16, "id": 256, "method": 64, "error": 1, "result": 1}

// frameScan reads a message's bytes, in as many pieces as they come,
// without keeping them: how deep arrays and objects nest (past maxDepth,
// if set, it says so), the first byte of the value, the beginnings of the
// top-level object's values that check needs (the last, when a key comes
// twice, as decoders take it), and where the "params" object and the
// "_meta" object in it open and close (for the call's mark, callMark).
// The JSON is not validated: json.Valid does that.
type frameScan struct {
	maxDepth int
	depth    int
	tooDeep  bool
	top      byte
	inStr    bool
	esc      bool
	pos      int // bytes fed so far
	// In the top-level object (level 1) and in its params object (level
	// 2): a key is expected next; a key is being read (its first bytes).
	expectKey [3]bool
	inKey     int // the level of the key being read, or 0
	key       []byte
	// The value of top-level key cur is being kept, up to limit bytes.
	cur   string
	limit int
	val   captured
	vals  map[string]captured
	// params: the offset just after its "{" (-1: no params object), and
	// whether anything follows in it; the same of its "_meta" object, and
	// the offset of the "}" that closes it.
	awaitParams, inParams, paramsFull bool
	paramsOpen                        int
	awaitMeta, inMeta, metaFull       bool
	metaClose                         int
}

func newFrameScan(maxDepth int) *frameScan {
	return &frameScan{maxDepth: maxDepth, vals: map[string]captured{}, paramsOpen: -1, metaClose: -1}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func (s *frameScan) feed(p []byte) {
	for _, c := range p {
		s.pos++
		if s.top == 0 {
			if isSpace(c) {
				continue
			}
			s.top = c
		}
		s.keep(c)
		if !isSpace(c) {
			if s.inParams && s.depth >= 2 && !(s.depth == 2 && c == '}') {
				s.paramsFull = true
			}
			if s.inMeta && s.depth >= 3 && !(s.depth == 3 && c == '}') {
				s.metaFull = true
			}
		}
		if s.inStr {
			s.inString(c)
			continue
		}
		if s.awaitParams && !isSpace(c) {
			s.awaitParams = false
			if c == '{' && s.depth == 1 {
				s.inParams, s.paramsOpen, s.paramsFull = true, s.pos, false
			}
		}
		if s.awaitMeta && !isSpace(c) {
			s.awaitMeta = false
			if c == '{' && s.depth == 2 && s.inParams {
				s.inMeta, s.metaFull, s.metaClose = true, false, -1
			}
		}
		s.structural(c)
	}
}

// keep keeps byte c of the top-level value being captured, and ends the
// capture at the "," or "}" after it.
func (s *frameScan) keep(c byte) {
	if s.cur == "" {
		return
	}
	if s.inStr || (c != ',' && c != '}') || s.depth > 1 {
		if len(s.val.b) == 0 && !s.inStr && isSpace(c) {
			return // space before the value
		}
		if len(s.val.b) < s.limit {
			s.val.b = append(s.val.b, c)
		} else if !isSpace(c) {
			s.val.cut = true
		}
		return
	}
	s.vals[s.cur] = s.val
	s.cur = ""
}

// inString reads byte c of a string (a key's first bytes are kept).
func (s *frameScan) inString(c byte) {
	switch {
	case s.esc:
		s.esc = false
	case c == '\\':
		s.esc = true
	case c == '"':
		s.inStr = false
		s.inKey = 0
	}
	if s.inKey != 0 && len(s.key) < 64 {
		s.key = append(s.key, c)
	}
}

// structural reads byte c outside strings: nesting, keys and their values.
func (s *frameScan) structural(c byte) {
	switch c {
	case '"':
		s.inStr = true
		if l := s.level(); l > 0 && s.expectKey[l] {
			s.inKey, s.expectKey[l], s.key = l, false, s.key[:0]
		}
	case '{', '[':
		s.depth++
		if s.maxDepth > 0 && s.depth > s.maxDepth {
			s.tooDeep = true
		}
		if c == '{' {
			if l := s.level(); l > 0 {
				s.expectKey[l] = true
			}
		}
	case '}', ']':
		if s.inMeta && s.depth == 3 && c == '}' {
			s.inMeta, s.metaClose = false, s.pos-1
		}
		if s.inParams && s.depth == 2 && c == '}' {
			s.inParams = false
		}
		s.depth--
	case ',':
		if l := s.level(); l > 0 {
			s.expectKey[l] = true
		}
	case ':':
		switch l := s.level(); {
		case l == 1:
			k := s.keyName()
			if n, ok := captureLimits[k]; ok {
				s.cur, s.limit, s.val = k, n, captured{}
			}
			if k == "params" {
				s.awaitParams, s.paramsOpen, s.metaClose = true, -1, -1
			}
		case l == 2 && s.keyName() == "_meta":
			s.awaitMeta = true
		}
	}
}

// level is where the scan is: 1 in the top-level object, 2 in its params
// object, else 0 (nowhere keys matter).
func (s *frameScan) level() int {
	switch {
	case s.depth == 1 && s.top == '{':
		return 1
	case s.depth == 2 && s.inParams:
		return 2
	}
	return 0
}

// keyName is the key just read, unescaped.
func (s *frameScan) keyName() string {
	if bytes.IndexByte(s.key, '\\') < 0 {
		return string(s.key)
	}
	var k string
	if json.Unmarshal(append(append([]byte{'"'}, s.key...), '"'), &k) != nil {
		return ""
	}
	return k
}

// id is the top-level "id", or nil.
func (s *frameScan) id() json.RawMessage {
	v, ok := s.vals["id"]
	if !ok && s.cur == "id" {
		v = s.val // an oversized message may end inside it
	}
	id := bytes.TrimSpace(v.b)
	if v.cut || len(id) == 0 || !scalarID(id) {
		return nil
	}
	return json.RawMessage(id)
}

// replyTo answers the scanned message with an error, or says nothing to a
// notification (a method without an id).
func (s *frameScan) replyTo(code int, msg string) []byte {
	_, hasMethod := s.vals["method"]
	_, hasID := s.vals["id"]
	if !hasID && s.cur != "id" && hasMethod {
		return nil
	}
	return errorReply(s.id(), code, msg)
}
