package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/plan"
)

// TestSchemasAndExamples compiles every tool's schema as JSON Schema and
// validates every example call against it, in every toolset.
func TestSchemasAndExamples(t *testing.T) {
	for _, name := range Names() {
		ts, err := Get(name)
		if err != nil {
			t.Fatal(err)
		}
		if len(ts.Tools) == 0 {
			t.Errorf("toolset %s has no tools", name)
		}
		for _, tool := range ts.Tools {
			data, _ := json.Marshal(tool.Schema)
			var s jsonschema.Schema
			if err := json.Unmarshal(data, &s); err != nil {
				t.Fatalf("%s.%s: schema does not parse: %v", name, tool.Name, err)
			}
			if s.Type != "object" {
				t.Errorf("%s.%s: schema type %q, want object", name, tool.Name, s.Type)
			}
			rs, err := s.Resolve(nil)
			if err != nil {
				t.Fatalf("%s.%s: schema does not resolve: %v", name, tool.Name, err)
			}
			if len(tool.Examples) == 0 {
				t.Errorf("%s.%s has no example", name, tool.Name)
			}
			for _, ex := range tool.Examples {
				var v any
				if err := json.Unmarshal([]byte(ex), &v); err != nil {
					t.Fatalf("%s.%s: example %s is not JSON: %v", name, tool.Name, ex, err)
				}
				if err := rs.Validate(v); err != nil {
					t.Errorf("%s.%s: example %s fails its schema: %v", name, tool.Name, ex, err)
				}
			}
			// A schema must refuse what it should: a missing required field.
			if req := s.Required; len(req) > 0 {
				if err := rs.Validate(map[string]any{}); err == nil {
					t.Errorf("%s.%s: an empty call passes a schema that requires %v", name, tool.Name, req)
				}
			}
			if tool.Description == "" || tool.Compact == nil {
				t.Errorf("%s.%s: missing description or compact rendering", name, tool.Name)
			}
			var args map[string]any
			json.Unmarshal([]byte(tool.Examples[0]), &args)
			if c := tool.Compact(args); strings.Contains(c, "\n") {
				t.Errorf("%s.%s: compact rendering spans lines: %q", name, tool.Name, c)
			}
		}
		for _, f := range Formats {
			defs, err := Export(ts, f, nil)
			if err != nil || len(defs) != len(ts.Tools) {
				t.Errorf("%s in %s: %v", name, f, err)
			}
		}
	}
	if _, err := Get("nope"); plan.CodeOf(err) != plan.CodeInvalidRequest {
		t.Errorf("unknown toolset: %v", err)
	}
}

func setup(t *testing.T, files map[string]string, opts *engine.Options) (*Env, string) {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(data), 0o644)
	}
	return setupAt(t, dir, opts)
}

// setupAt opens the workspace at dir (made before) for a test's calls.
func setupAt(t *testing.T, dir string, opts *engine.Options) (*Env, string) {
	t.Helper()
	w, err := engine.Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return &Env{W: w.NewSession(engine.SessionOptions{Agent: "test", NoReadCheck: true})}, dir
}

func call(t *testing.T, env *Env, toolset, tool, args string) Result {
	t.Helper()
	ts, err := Get(toolset)
	if err != nil {
		t.Fatal(err)
	}
	tl := ts.Tool(tool)
	if tl == nil {
		t.Fatalf("no tool %s.%s", toolset, tool)
	}
	return Call(context.Background(), env, tl, json.RawMessage(args))
}

func read(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return "<missing>"
	}
	return string(b)
}

func jsonOf(v any) string { b, _ := json.Marshal(v); return string(b) }

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }
