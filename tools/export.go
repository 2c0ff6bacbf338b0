package tools

import "fmt"

// Formats are the tool-definition formats Export writes.
var Formats = []string{"mcp", "openai", "anthropic"}

// Export returns the toolset's definitions in one of Formats: MCP's
// tools/list entries (with annotations), OpenAI's function tools, or
// Anthropic's tools.
func Export(ts *Toolset, format string, tools []*Tool) ([]map[string]any, error) {
	if tools == nil {
		tools = ts.Tools
	}
	var out []map[string]any
	for _, t := range tools {
		switch format {
		case "mcp", "":
			ann := HintsOf(t).JSON()
			if t.Annotations != nil {
				// As the MCP server sends them: the SDK always writes
				// readOnlyHint and idempotentHint (false is the default).
				ann = map[string]any{"readOnlyHint": false, "idempotentHint": false}
				for k, v := range t.Annotations {
					ann[k] = v
				}
			}
			def := map[string]any{"name": t.Name, "description": t.Description, "inputSchema": t.Schema, "annotations": ann}
			if t.Title != "" {
				def["title"] = t.Title
			}
			if t.OutputSchema != nil {
				def["outputSchema"] = t.OutputSchema
			}
			out = append(out, def)
		case "openai":
			out = append(out, map[string]any{"type": "function", "function": map[string]any{"name": t.Name, "description": t.Description, "parameters": t.Schema}})
		case "anthropic":
			out = append(out, map[string]any{"name": t.Name, "description": t.Description, "input_schema": t.Schema})
		default:
			return nil, fmt.Errorf("unknown format %q (want mcp, openai or anthropic)", format)
		}
	}
	return out, nil
}

// Hints are a tool's MCP annotations: read tools are read-only and
// idempotent; writes are destructive; nothing reaches outside the
// workspace except execute.
type Hints struct {
	ReadOnly, Destructive, Idempotent, OpenWorld bool
}

// HintsOf returns t's hints: the one place they are decided.
func HintsOf(t *Tool) Hints {
	return Hints{ReadOnly: t.ReadOnly, Destructive: !t.ReadOnly, Idempotent: t.ReadOnly, OpenWorld: t.Execute}
}

// JSON returns the hints as MCP's annotations object.
func (h Hints) JSON() map[string]any {
	return map[string]any{"readOnlyHint": h.ReadOnly, "destructiveHint": h.Destructive, "idempotentHint": h.Idempotent, "openWorldHint": h.OpenWorld}
}
