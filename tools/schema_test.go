package tools

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// validArg is a value that satisfies s (the first enum value, required
// properties filled, arrays of minItems valid items).
func validArg(s *argSchema) any {
	if s.enum != nil {
		return s.enum[0]
	}
	switch s.typ {
	case "string", "":
		return "a"
	case "integer":
		return 1.0
	case "number":
		return 2.0 // an integer is a number
	case "boolean":
		return true
	case "null":
		return nil
	case "array":
		a := []any{}
		if s.items != nil {
			for range max(s.minItems, 1) {
				a = append(a, validArg(s.items))
			}
		}
		return a
	}
	o := map[string]any{}
	for _, name := range s.required {
		if p := s.props[name]; p != nil {
			o[name] = validArg(p)
		} else {
			o[name] = "a"
		}
	}
	return o
}

// wrongArgs are values that break s in one way each.
func wrongArgs(s *argSchema) []any {
	var out []any
	switch s.typ {
	case "string":
		out = append(out, 5.0, true, []any{"a"}, map[string]any{"k": "v"})
	case "integer":
		out = append(out, "7", 1.5, 1e21)
	case "number":
		out = append(out, "7", false)
	case "boolean":
		out = append(out, "true", 0.0)
	case "array":
		out = append(out, "a", map[string]any{})
		if s.minItems > 0 {
			out = append(out, []any{})
		}
	case "object":
		out = append(out, "a", []any{})
	}
	if s.enum != nil {
		out = append(out, "no-such-value")
	}
	return out
}

// variants are arguments for the object schema s with one thing wrong,
// at the top level and one level down (an array's item, an object's
// property), plus the valid one.
func variants(s *argSchema) []any {
	base := validArg(s).(map[string]any)
	clone := func() map[string]any {
		var c map[string]any
		b, _ := json.Marshal(base)
		_ = json.Unmarshal(b, &c)
		return c
	}
	out := []any{base, map[string]any{}, "not an object", 3.0, []any{}}
	for _, name := range s.required {
		c := clone()
		delete(c, name)
		out = append(out, c)
	}
	for _, name := range s.names {
		p := s.props[name]
		ok := clone() // an optional argument given, well
		ok[name] = validArg(p)
		out = append(out, ok)
		for _, w := range wrongArgs(p) {
			c := clone()
			c[name] = w
			out = append(out, c)
		}
		// One level down: each item's or property's own breakage.
		sub := p
		wrap := func(v any) any { return v }
		if p.typ == "array" && p.items != nil {
			sub = p.items
			wrap = func(v any) any { return []any{v} }
		}
		if sub.typ != "object" {
			continue
		}
		subBase := validArg(sub).(map[string]any)
		for _, req := range sub.required {
			c := clone()
			m := map[string]any{}
			for k, v := range subBase {
				if k != req {
					m[k] = v
				}
			}
			c[name] = wrap(m)
			out = append(out, c)
		}
		for _, sn := range sub.names {
			for _, w := range wrongArgs(sub.props[sn]) {
				c := clone()
				m := map[string]any{}
				for k, v := range subBase {
					m[k] = v
				}
				m[sn] = w
				c[name] = wrap(m)
				out = append(out, c)
			}
		}
	}
	return out
}

// TestSchemaAgainstJSONSchemaGo: txedit's validator accepts and refuses
// what github.com/google/jsonschema-go (the validator it replaced, and
// the one the MCP SDK uses) does, with the same message, for every tool
// of every toolset and arguments broken one way at a time (a missing
// required argument, a wrong type, a value outside an enum, too few
// items, at the top level and inside an array's items).
func TestSchemaAgainstJSONSchemaGo(t *testing.T) {
	cases := 0
	for _, name := range Names() {
		ts, err := Get(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range ts.Tools {
			mine, err := compileSchema(tool.Schema)
			if err != nil {
				t.Fatalf("%s/%s: %v", name, tool.Name, err)
			}
			data, _ := json.Marshal(tool.Schema)
			var js jsonschema.Schema
			if err := json.Unmarshal(data, &js); err != nil {
				t.Fatal(err)
			}
			theirs, err := js.Resolve(nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range variants(mine) {
				cases++
				b, _ := json.Marshal(v)
				var arg any
				_ = json.Unmarshal(b, &arg)
				want := ""
				if err := theirs.Validate(arg); err != nil {
					want = schemaMessage(err)
				}
				got := ""
				if err := mine.check(arg); err != nil {
					got = schemaMessage(err)
				}
				if got != want {
					t.Errorf("%s/%s %s:\n got %q\nwant %q", name, tool.Name, b, got, want)
				}
			}
		}
	}
	if cases < 500 {
		t.Errorf("only %d cases: the generator lost its reach", cases)
	}
	t.Logf("%d cases", cases)
}

// TestSchemaRefusesWhatItCannotCheck: a schema keyword the validator does
// not implement is an error when the tool is first called, not a check
// silently skipped.
func TestSchemaRefusesWhatItCannotCheck(t *testing.T) {
	for _, s := range []map[string]any{
		{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer", "minimum": 1}}},
		{"type": "object", "additionalProperties": false},
		{"type": []string{"string", "null"}},
		{"anyOf": []any{map[string]any{"type": "string"}}},
	} {
		if _, err := compileSchema(s); err == nil || !strings.Contains(err.Error(), "schema at") {
			t.Errorf("%v: compiled (%v)", s, err)
		}
	}
	tool := &Tool{Name: "t", Schema: map[string]any{"type": "object", "properties": map[string]any{"p": map[string]any{"type": "string", "pattern": "^a"}}}}
	err := tool.validate(json.RawMessage(`{"p":"b"}`))
	if err == nil || !strings.Contains(err.Error(), "does not compile") {
		t.Fatalf("got %v", err)
	}
}

// TestSchemaMessages: what an agent reads for each kind of bad argument,
// null included (printed as null).
func TestSchemaMessages(t *testing.T) {
	tool := &Tool{Name: "t", Schema: map[string]any{
		"type":     "object",
		"required": []string{"path", "edits"},
		"properties": map[string]any{
			"path": map[string]any{"type": "string"},
			"mode": map[string]any{"type": "string", "enum": []string{"a", "b"}},
			"edits": map[string]any{"type": "array", "minItems": 1, "items": map[string]any{
				"type": "object", "required": []string{"old", "new"},
				"properties": map[string]any{"old": map[string]any{"type": "string"}, "new": map[string]any{"type": "string"}},
			}},
		},
	}}
	for _, c := range []struct{ args, want string }{
		{`{}`, `missing required argument "path" "edits"`},
		{`{"path":null,"edits":[{"old":"x","new":"y"}]}`, `argument path: null has type "null", want "string"`},
		{`{"path":"p","edits":[]}`, `argument edits: minItems: array length 0 is less than 1`},
		{`{"path":"p","edits":[{"old":"x"}]}`, `edits[]: missing required argument "new"`},
		{`{"path":"p","edits":[{"old":"x","new":3}]}`, `argument new: 3 has type "integer", want "string"`},
		{`{"path":"p","edits":[{"old":"x","new":"y"}],"mode":"c"}`, `argument mode: c does not equal any of: [a b]`},
		{`{"path":"p","edits":[{"old":"x","new":"y"}],"mode":"a","extra":1}`, ``},
	} {
		got := ""
		if err := tool.validate(json.RawMessage(c.args)); err != nil {
			got = err.Error()
		}
		if !strings.HasSuffix(got, c.want) || (c.want == "") != (got == "") {
			t.Errorf("%s: got %q, want …%q", c.args, got, c.want)
		}
	}
}

// TestSchemaAsJSON: every toolset's schemas take the quick path (no
// round trip through JSON), and what it gives is what the round trip
// gives.
func TestSchemaAsJSON(t *testing.T) {
	for _, name := range Names() {
		ts, err := Get(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range ts.Tools {
			got, ok := asJSON(tool.Schema)
			if !ok {
				t.Errorf("%s/%s: the schema has a type asJSON does not know", name, tool.Name)
				continue
			}
			data, _ := json.Marshal(tool.Schema)
			var want any
			_ = json.Unmarshal(data, &want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s/%s: asJSON differs from a JSON round trip", name, tool.Name)
			}
		}
	}
}
