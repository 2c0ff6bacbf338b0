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
			out = append(out, map[string]any{"name": t.Name, "description": t.Description, "inputSchema": t.Schema, "annotations": Annotations(t)})
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

// Annotations are a tool's MCP hints: read tools are read-only and
// idempotent; writes are destructive; nothing reaches outside the
// workspace except execute.
func Annotations(t *Tool) map[string]any {
	return map[string]any{
		"readOnlyHint":    t.ReadOnly,
		"destructiveHint": !t.ReadOnly,
		"idempotentHint":  t.ReadOnly,
		"openWorldHint":   t.Execute,
	}
}
