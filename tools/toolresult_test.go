package tools

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/txedit/txedit/internal/jsonenc"
	"github.com/txedit/txedit/plan"
)

// TestToolResultJSON: ToolResult's own encoder, indented as the command
// line prints it (jsonenc.WriteIndent), gives what encoding/json gives
// (indented, without HTML escaping) for every field, empty or not, and
// for content with escapes, HTML characters, U+2028 and invalid UTF-8.
func TestToolResultJSON(t *testing.T) {
	for i, r := range []ToolResult{
		{},
		{Success: true, Content: "a\tb\n\"q\" \\ <&> \u2028 \xff\xfe é"},
		{Success: false, Content: "", ShortResult: "short", Error: "Error: x", FilePath: "a/b.go", Code: plan.CodeNotFound},
		{Success: true, Content: strings.Repeat("line of text: 42\n", 1000), Images: []toolImage{{Data: "aGVsbG8=", MediaType: "image/png"}, {Data: "", MediaType: "image/gif"}}},
		{Content: strings.Repeat("é", 40000) + strings.Repeat("\x80", 70000) + strings.Repeat("€\xe2\x82", 20000) + "\u2028<"},
		{Content: strings.Repeat("x", 32<<10-1) + "€" + strings.Repeat("\xff", 3)},
	} {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		err := jsonenc.WriteIndent(&got, r.AppendJSON(nil), "  ")
		if got.WriteByte('\n'); err != nil || got.String() != buf.String() {
			t.Errorf("result %d: %v\n got %.400s\nwant %.400s", i, err, got.String(), buf.String())
		}
	}
}
