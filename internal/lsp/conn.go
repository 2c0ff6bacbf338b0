// Package lsp is a small client of the Language Server Protocol: it
// starts a language server, speaks JSON-RPC 2.0 to it over stdio with
// LSP's Content-Length framing, answers the requests a server sends its
// client, and shuts the server down and reaps it. It knows nothing of
// txedit's engine: the rename command (tools/rename.go) drives it and
// commits what the server answers (docs/lsp.md).
package lsp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// maxMessage bounds one message a server may send (a WorkspaceEdit of a
// large rename is a few MiB).
const maxMessage = 256 << 20

// message is a JSON-RPC 2.0 message: a request (ID and Method), a
// notification (Method alone) or a response (ID, Result or Error).
type message struct {
	JSONRPC string           `json:"jsonrpc"`
	ID      *json.RawMessage `json:"id,omitempty"`
	Method  string           `json:"method,omitempty"`
	Params  json.RawMessage  `json:"params,omitempty"`
	Result  json.RawMessage  `json:"result,omitempty"`
	Error   *ResponseError   `json:"error,omitempty"`
}

// ResponseError is the error a server answered a request with.
type ResponseError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *ResponseError) Error() string { return e.Message }

// JSON-RPC's and LSP's error codes that the client sends.
const (
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
)

// writeMessage writes m with its Content-Length header.
func writeMessage(w io.Writer, m *message) error {
	m.JSONRPC = "2.0"
	body, err := json.Marshal(m)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n", len(body))
	b.Write(body)
	_, err = w.Write(b.Bytes())
	return err
}

// errFraming is a message the server framed wrongly.
var errFraming = errors.New("malformed message from the language server")

// readMessage reads one framed message: header lines up to an empty one
// (Content-Length required, Content-Type ignored), then the body.
func readMessage(r *bufio.Reader) (*message, error) {
	length := -1
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			if err == io.EOF && line == "" && length < 0 {
				return nil, io.EOF
			}
			return nil, fmt.Errorf("%w: reading its header: %v", errFraming, err)
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("%w: header line %q", errFraming, clip(line))
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil || n < 0 || n > maxMessage {
				return nil, fmt.Errorf("%w: Content-Length %q", errFraming, clip(value))
			}
			length = n
		}
	}
	if length < 0 {
		return nil, fmt.Errorf("%w: no Content-Length", errFraming)
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, fmt.Errorf("%w: its body ended early: %v", errFraming, err)
	}
	var m message
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, fmt.Errorf("%w: %v: %s", errFraming, err, clip(string(body)))
	}
	return &m, nil
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}
