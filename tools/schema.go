package tools

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
)

// The toolsets' argument schemas use a small part of JSON Schema: type
// (one name), enum, properties, required, items and minItems, plus the
// annotations description, default, title, examples and $schema. The
// validator below checks exactly that part, in the order and with the
// messages of the JSON Schema validator txedit used before
// (github.com/google/jsonschema-go, which schemaMessage's texts follow;
// TestSchemaAgainstJSONSchemaGo compares the two on every tool), and it
// refuses a schema that uses any other keyword, so a tool cannot ask for a
// check that would silently not run. It replaced that library because its
// package initialisation (and log/slog's) was a tenth of every command's
// start, and `txedit tool` needs the validator (docs/design.md, "Process
// start").
//
// Two deliberate differences: properties are checked in name order (the
// library's map order varied, so with two bad arguments its message named
// either), and JSON null is printed as null where the library printed
// "<invalid reflect.Value>".

// argSchema is one compiled (sub)schema.
type argSchema struct {
	path     string // "root", or the JSON Pointer from the root schema
	typ      string // "" if any
	enum     []any  // nil if no enum
	items    *argSchema
	minItems int // -1 if none
	props    map[string]*argSchema
	names    []string // props' names, sorted
	required []string
}

// schemaError is a failed check: the schema's path and what failed, in
// the library's words ("validating PATH: MSG").
type schemaError struct{ path, msg string }

func (e *schemaError) Error() string { return "validating " + e.path + ": " + e.msg }

// compileSchema compiles a tool's schema, given as Go values (what a
// toolset writes) or as decoded JSON.
func compileSchema(schema any) (*argSchema, error) {
	v, ok := asJSON(schema)
	if !ok { // a type asJSON does not know: what encoding/json makes of it
		data, err := json.Marshal(schema)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(data, &v); err != nil {
			return nil, err
		}
	}
	return compileNode(v, "root", "")
}

// asJSON is v as json.Unmarshal would give it back, for the Go types the
// toolsets write schemas with (a round trip through JSON cost a tool call
// more than its validation), or false for any other.
func asJSON(v any) (any, bool) {
	switch x := v.(type) {
	case nil, string, bool, float64:
		return x, true
	case int:
		return float64(x), true
	case []string:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = e
		}
		return out, true
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			var ok bool
			if out[i], ok = asJSON(e); !ok {
				return nil, false
			}
		}
		return out, true
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			j, ok := asJSON(e)
			if !ok {
				return nil, false
			}
			out[k] = j
		}
		return out, true
	}
	return nil, false
}

// compileNode compiles the schema v found at pointer (the root's is "";
// its path in messages is "root").
func compileNode(v any, path, pointer string) (*argSchema, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("schema at %s is not an object", path)
	}
	s := &argSchema{path: path, minItems: -1}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		val := m[k]
		bad := func() error { return fmt.Errorf("schema at %s: bad %s: %v", path, k, val) }
		switch k {
		case "type":
			t, ok := val.(string)
			if !ok || !slices.Contains([]string{"null", "boolean", "object", "array", "number", "string", "integer"}, t) {
				return nil, bad()
			}
			s.typ = t
		case "enum":
			e, ok := val.([]any)
			if !ok {
				return nil, bad()
			}
			s.enum = e
		case "minItems":
			n, ok := val.(float64)
			if !ok || n < 0 || n != math.Trunc(n) {
				return nil, bad()
			}
			s.minItems = int(n)
		case "required":
			r, ok := val.([]any)
			if !ok {
				return nil, bad()
			}
			for _, x := range r {
				name, ok := x.(string)
				if !ok {
					return nil, bad()
				}
				s.required = append(s.required, name)
			}
		case "items":
			p := pointer + "/items"
			items, err := compileNode(val, p, p)
			if err != nil {
				return nil, err
			}
			s.items = items
		case "properties":
			props, ok := val.(map[string]any)
			if !ok {
				return nil, bad()
			}
			s.props = map[string]*argSchema{}
			for name, pv := range props {
				p := pointer + "/properties/" + name
				ps, err := compileNode(pv, p, p)
				if err != nil {
					return nil, err
				}
				s.props[name] = ps
				s.names = append(s.names, name)
			}
			slices.Sort(s.names)
		case "$schema", "description", "default", "title", "examples": // annotations: they check nothing
		default:
			return nil, fmt.Errorf("schema at %s: keyword %q is not supported by txedit's validator (tools/schema.go)", path, k)
		}
	}
	return s, nil
}

// check validates v (decoded JSON) against s: type, enum, then an
// array's items and minItems, then an object's properties and required,
// as the library did; the first failure is returned.
func (s *argSchema) check(v any) *schemaError {
	if s.typ != "" {
		if got := jsonTypeOf(v); got != s.typ && !(got == "integer" && s.typ == "number") {
			return s.fail(fmt.Sprintf("type: %s has type %q, want %q", showValue(v), got, s.typ))
		}
	}
	if s.enum != nil && !slices.ContainsFunc(s.enum, func(e any) bool { return reflect.DeepEqual(e, v) }) {
		return s.fail(fmt.Sprintf("enum: %s does not equal any of: %v", showValue(v), s.enum))
	}
	switch x := v.(type) {
	case []any:
		if s.items != nil {
			for _, item := range x {
				if err := s.items.check(item); err != nil {
					return err
				}
			}
		}
		if s.minItems >= 0 && len(x) < s.minItems {
			return s.fail(fmt.Sprintf("minItems: array length %d is less than %d", len(x), s.minItems))
		}
	case map[string]any:
		for _, name := range s.names {
			if val, ok := x[name]; ok {
				if err := s.props[name].check(val); err != nil {
					return err
				}
			}
		}
		var missing []string
		for _, name := range s.required {
			if _, ok := x[name]; !ok {
				missing = append(missing, name)
			}
		}
		if len(missing) > 0 {
			return s.fail(fmt.Sprintf("required: missing properties: %q", missing))
		}
	}
	return nil
}

func (s *argSchema) fail(msg string) *schemaError { return &schemaError{path: s.path, msg: msg} }

// jsonTypeOf is the JSON Schema type of a decoded JSON value; a number
// without a fractional part is an integer.
func jsonTypeOf(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case float64:
		if _, frac := math.Modf(x); frac == 0 {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "unknown"
}

// showValue prints a value in a message as the library did (Go's %v),
// null as null.
func showValue(v any) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprint(v)
}
