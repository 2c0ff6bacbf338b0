package tools

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/txedit/txedit/plan"
)

// TestToolResultJSON: ToolResult's own encoder writes what encoding/json
// writes (without HTML escaping) for every field, empty or not, and for
// content with escapes, HTML characters, U+2028 and invalid UTF-8.
func TestToolResultJSON(t *testing.T) {
	for i, r := range []ToolResult{
		{},
		{Success: true, Content: "a\tb\n\"q\" \\ <&> \u2028 \xff\xfe é"},
		{Success: false, Content: "", ShortResult: "short", Error: "Error: x", FilePath: "a/b.go", Code: plan.CodeNotFound},
		{Success: true, Content: strings.Repeat("line of text: 42\n", 1000), Images: []toolImage{{Data: "aGVsbG8=", MediaType: "image/png"}, {Data: "", MediaType: "image/gif"}}},
	} {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
		if got, want := string(r.AppendJSON(nil)), strings.TrimSuffix(buf.String(), "\n"); got != want {
			t.Errorf("result %d:\n got %s\nwant %s", i, got, want)
		}
	}
}
