package clientconfig

import (
	"encoding/json"
	"fmt"
	"testing"
)

// TestFilesystemEntry: the ways configurations start the official
// filesystem server are recognised, with their directories; other
// servers are not.
func TestFilesystemEntry(t *testing.T) {
	cases := []struct {
		entry       string
		found       bool
		replaceable bool
		dirs        string
	}{
		{`{"command":"npx","args":["-y","@modelcontextprotocol/server-filesystem","/a","/b"]}`, true, true, "[/a /b]"},
		{`{"command":"npx","args":["-y","@modelcontextprotocol/server-filesystem@2026.8.31","~/src"]}`, true, true, "[~/src]"},
		{`{"command":"cmd","args":["/c","npx","-y","@modelcontextprotocol/server-filesystem","C:\\src"]}`, true, true, `[C:\src]`},
		{`{"command":"pnpm","args":["dlx","@modelcontextprotocol/server-filesystem"]}`, true, true, "[]"},
		{`{"command":"/usr/local/bin/mcp-server-filesystem","args":["/srv"]}`, true, true, "[/srv]"},
		{`{"command":"node","args":["/opt/servers/src/filesystem/node_modules/@x/server-filesystem/dist/index.js","/w"]}`, true, true, "[/w]"},
		{`{"type":"stdio","command":"bunx","args":["@modelcontextprotocol/server-filesystem","."]}`, true, true, "[.]"},
		{`{"command":"docker","args":["run","-i","--rm","mcp/filesystem","/projects"]}`, true, false, "[]"},
		{`{"command":"npx","args":["-y","@modelcontextprotocol/server-github"]}`, false, false, "[]"},
		{`{"command":"txedit","args":["mcp","--toolset","filesystem","/a"]}`, false, false, "[]"},
		{`{"url":"https://example.com/mcp"}`, false, false, "[]"},
	}
	for _, c := range cases {
		var e map[string]any
		if err := json.Unmarshal([]byte(c.entry), &e); err != nil {
			t.Fatal(err)
		}
		fe, ok := filesystemEntry("fs", e)
		if ok != c.found || fe.Replaceable != c.replaceable || fmt.Sprint(append([]string{}, fe.Dirs...)) != c.dirs {
			t.Errorf("%s: found %v replaceable %v dirs %v, want %v %v %s", c.entry, ok, fe.Replaceable, fe.Dirs, c.found, c.replaceable, c.dirs)
		}
	}
}
