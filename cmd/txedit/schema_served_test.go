package main

import (
	"context"
	"encoding/json"
	"os/exec"
	"reflect"
	"sort"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/txedit/txedit/tools"
)

// TestSchemaEqualsServedTools: for every toolset and every combination of
// --read-only and --allow-execute, `txedit schema` prints exactly the
// tools a `txedit mcp` process with the same flags serves over
// tools/list: the same names, descriptions, input schemas and
// annotations (and titles and output schemas where a toolset has them). (The order is not compared: schema keeps the toolset's,
// the SDK serves tools sorted by name.)
func TestSchemaEqualsServedTools(t *testing.T) {
	bin := txeditBinary(t)
	ctx := context.Background()
	for _, toolset := range tools.Names() {
		for _, flags := range [][]string{nil, {"--read-only"}, {"--allow-execute"}, {"--read-only", "--allow-execute"}} {
			root := t.TempDir()
			var defs []map[string]any
			if err := json.Unmarshal([]byte(txeditCLI(t, append([]string{"schema", "--toolset", toolset, "--root", root}, flags...)...)), &defs); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin, append([]string{"mcp", "--toolset", toolset, "--root", root}, flags...)...)
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "schema-test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				t.Fatalf("%s %v: %v", toolset, flags, err)
			}
			list, err := cs.ListTools(ctx, nil)
			cs.Close()
			if err != nil {
				t.Fatal(err)
			}
			var served []map[string]any
			for _, tl := range list.Tools {
				b, _ := json.Marshal(tl)
				var m map[string]any
				json.Unmarshal(b, &m)
				ann, _ := m["annotations"].(map[string]any)
				delete(ann, "title") // the server titles each tool; schema has no title
				def := map[string]any{"name": m["name"], "description": m["description"], "inputSchema": m["inputSchema"], "annotations": ann}
				for _, k := range []string{"title", "outputSchema"} { // a toolset that copies a real server's (filesystem)
					if v, ok := m[k]; ok {
						def[k] = v
					}
				}
				served = append(served, def)
			}
			sort.Slice(defs, func(i, j int) bool { return defs[i]["name"].(string) < defs[j]["name"].(string) })
			sort.Slice(served, func(i, j int) bool { return served[i]["name"].(string) < served[j]["name"].(string) })
			// Both through JSON, so that equal means equal on the wire.
			var want, got any
			b, _ := json.Marshal(defs)
			json.Unmarshal(b, &want)
			b, _ = json.Marshal(served)
			json.Unmarshal(b, &got)
			if len(defs) == 0 || !reflect.DeepEqual(want, got) {
				wb, _ := json.MarshalIndent(want, "", " ")
				gb, _ := json.MarshalIndent(got, "", " ")
				t.Errorf("%s %v: txedit schema:\n%s\nserved:\n%s", toolset, flags, wb, gb)
			}
		}
	}
}
