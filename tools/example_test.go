package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/tools"
)

// An agent framework embeds txedit by calling a toolset's tools with the
// JSON arguments its model produced, through one session per agent: the
// session remembers what the agent read, so an edit of a file it has not
// read (or that changed since) is refused.
func ExampleCall() {
	dir, _ := os.MkdirTemp("", "txedit-tools")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() { old() }\n"), 0o644)

	w, _ := engine.Open(dir, nil)
	defer w.Close()
	ts, _ := tools.Get("claude")
	env := &tools.Env{W: w.NewSession(engine.SessionOptions{Agent: "my-agent"})}
	ctx := context.Background()
	edit, read := ts.Tool("Edit"), ts.Tool("Read")
	args := json.RawMessage(`{"file_path": "main.go", "old_string": "old()", "new_string": "renamed()"}`)

	res := tools.Call(ctx, env, edit, args)
	fmt.Println(res.OK, res.Code)

	tools.Call(ctx, env, read, json.RawMessage(`{"file_path": "main.go"}`))
	res = tools.Call(ctx, env, edit, args)
	fmt.Println(res.OK, res.Value.(tools.ToolResult).ShortResult)

	res = tools.Call(ctx, env, read, json.RawMessage(`{"file_path": "main.go", "offset": 3}`))
	fmt.Println(res.TextOf())
	// Output:
	// false not_read
	// true Updated main.go (+1 -1)
	// 3	func main() { renamed() }
	// 4
}
