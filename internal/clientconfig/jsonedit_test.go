package clientconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestParseAcceptsWhatEncodingJSONAccepts(t *testing.T) {
	valid := []string{
		`{}`, `[]`, `"s"`, `0`, `-0.5e+10`, `true`, `null`,
		`{"a": [1, 2, {"b": null}], "c": "\u00e9\n\"", "d": -12.5E3}`,
		"\xef\xbb\xbf{\"bom\": true}",
		" \t\r\n{ } \n",
	}
	for _, s := range valid {
		if _, err := parse([]byte(s), false); err != nil {
			t.Errorf("parse(%q): %v", s, err)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		src       string
		jsonc     bool
		line, col int
		msg       string
	}{
		{"", false, 1, 1, "no JSON value"},
		{"{\n  \"a\": 1,\n}", false, 3, 1, "trailing comma"},
		{"{\n  \"a\": 1\n  \"b\": 2\n}", false, 3, 3, `expecting ',' or '}' after the value of "a"`},
		{"{\"a\" 1}", false, 1, 6, "expecting ':'"},
		{"{a: 1}", false, 1, 2, "expecting a quoted key"},
		{"{\"a\": 01}", false, 1, 8, "expecting ',' or '}'"},
		{"{\"a\": tru}", false, 1, 7, "expecting a value"},
		{"{\"a\": \"x\ny\"}", false, 1, 9, "control character"},
		{"{\"a\": \"\\x\"}", false, 1, 8, "invalid escape"},
		{"{\"a\": \"\\u12\"}", false, 1, 8, `invalid \u escape`},
		{"{\"a\": \"open", false, 1, 12, "never closed"},
		{"{} {}", false, 1, 4, "after the end of the top-level value"},
		{"{\"a\": 1} // note", false, 1, 10, "comments are not JSON"},
		{"{\n  // servers\n}", false, 2, 3, "comments are not JSON"},
		{"{ /* never closed }", true, 1, 3, "comment that is never closed"},
		{"[1,]", false, 1, 4, "trailing comma"},
		{"{\"a\": [1 2]}", false, 1, 10, "expecting ',' or ']'"},
		{"{\"a\": 1", false, 1, 8, "expecting ',' or '}'"},
		{strings.Repeat("[", maxDepth+2), false, 1, maxDepth + 2, "nested more than"},
	}
	for _, tc := range tests {
		_, err := parse([]byte(tc.src), tc.jsonc)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("parse(%q) = %v, want a syntax error", tc.src, err)
			continue
		}
		if se.Line != tc.line || se.Column != tc.col || !strings.Contains(se.Msg, tc.msg) {
			t.Errorf("parse(%q) = %v, want line %d, column %d, %q", tc.src, err, tc.line, tc.col, tc.msg)
		}
		// What we refuse, encoding/json refuses too (it has no JSONC).
		if !tc.jsonc && json.Valid([]byte(tc.src)) {
			t.Errorf("parse refuses %q, which encoding/json accepts", tc.src)
		}
	}
}

func TestParseJSONC(t *testing.T) {
	src := "{\n  // a line comment\n  \"servers\": { /* inline */ \"a\": {\"command\": \"x\",}, },\n  \"inputs\": [1, 2,],\n}\n"
	if _, err := parse([]byte(src), false); err == nil {
		t.Error("strict JSON accepted comments and trailing commas")
	}
	d, err := parse([]byte(src), true)
	if err != nil {
		t.Fatal(err)
	}
	m, _, _, err := d.walk([]string{"servers", "a", "command"})
	if err != nil || m == nil || !d.equal(m.val, "x") {
		t.Fatalf("walk: %v %v", m, err)
	}
}

func TestDuplicateKeysAreRefused(t *testing.T) {
	d, err := parse([]byte(`{"mcpServers": {"txedit": {}, "txedit": {}}}`), false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.set([]string{"mcpServers", "txedit"}, 1); err == nil || !strings.Contains(err.Error(), "occurs twice") {
		t.Errorf("set on a duplicate key: %v", err)
	}
}

var testEntry = object{{"command", "/bin/txedit"}, {"args", []string{"mcp", "--root", "/p"}}}

const entry2 = `{
    "command": "/bin/txedit",
    "args": [
      "mcp",
      "--root",
      "/p"
    ]
  }`

// indent re-indents entry2 (written for members at two spaces, unit two)
// for members at the given indentation and unit.
func indent(s, member, unit string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines[1:] {
		n := len(l) - len(strings.TrimLeft(l, " "))
		lines[i+1] = strings.Repeat(unit, n/2-1) + member + l[n:]
	}
	return strings.Join(lines, "\n")
}

func TestSetAndRemove(t *testing.T) {
	tests := []struct {
		name  string
		jsonc bool
		src   string
		want  string
		// undo: removing the entry again gives src back byte for byte
		undo bool
	}{
		{"empty object", false, "{}",
			"{\n  \"mcpServers\": {\n    \"txedit\": " + indent(entry2, "    ", "  ") + "\n  }\n}", false},
		{"other servers, two spaces", false,
			"{\n  \"mcpServers\": {\n    \"other\": {\n      \"command\": \"x\"\n    }\n  }\n}\n",
			"{\n  \"mcpServers\": {\n    \"other\": {\n      \"command\": \"x\"\n    },\n    \"txedit\": " + indent(entry2, "    ", "  ") + "\n  }\n}\n", true},
		{"tabs", false,
			"{\n\t\"mcpServers\": {\n\t\t\"other\": {\"command\": \"x\"}\n\t}\n}",
			"{\n\t\"mcpServers\": {\n\t\t\"other\": {\"command\": \"x\"},\n\t\t\"txedit\": " + indent(entry2, "\t\t", "\t") + "\n\t}\n}", true},
		{"four spaces, no servers key", false,
			"{\n    \"theme\": \"dark\"\n}\n",
			"{\n    \"theme\": \"dark\",\n    \"mcpServers\": {\n        \"txedit\": " + indent(entry2, "        ", "    ") + "\n    }\n}\n", false},
		{"one line", false,
			`{"numStartups": 3, "mcpServers": {"other": {"command": "x"}}}`,
			`{"numStartups": 3, "mcpServers": {"other": {"command": "x"}, "txedit": {"command":"/bin/txedit","args":["mcp","--root","/p"]}}}`, true},
		{"empty servers object before another key", false,
			"{\n  \"mcpServers\": {},\n  \"b\": 1\n}\n",
			"{\n  \"mcpServers\": {\n    \"txedit\": " + indent(entry2, "    ", "  ") + "\n  },\n  \"b\": 1\n}\n", true},
		{"CRLF", false,
			"{\r\n  \"mcpServers\": {\r\n    \"other\": {}\r\n  }\r\n}\r\n",
			"{\r\n  \"mcpServers\": {\r\n    \"other\": {},\r\n    \"txedit\": " + strings.ReplaceAll(indent(entry2, "    ", "  "), "\n", "\r\n") + "\r\n  }\r\n}\r\n", true},
		{"JSONC: comments and trailing commas kept", true,
			"{\n  // my servers\n  \"mcpServers\": {\n    \"a\": {\"command\": \"a\"}, // first\n  },\n}\n",
			"{\n  // my servers\n  \"mcpServers\": {\n    \"a\": {\"command\": \"a\"}, // first\n    \"txedit\": " + indent(entry2, "    ", "  ") + ",\n  },\n}\n", true},
		{"JSONC: a line comment stays with its value", true,
			"{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"a\"} // first\n  }\n}\n",
			"{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"a\"}, // first\n    \"txedit\": " + indent(entry2, "    ", "  ") + "\n  }\n}\n", true},
		{"JSONC: only a comment inside", true,
			"{\n  \"mcpServers\": {\n    // nothing yet\n  }\n}\n",
			"{\n  \"mcpServers\": {\n    \"txedit\": " + indent(entry2, "    ", "  ") + "\n    // nothing yet\n  }\n}\n", true},
		{"replace a value that is not an object", false,
			"{\"mcpServers\": {\"txedit\": \"old\"}}",
			`{"mcpServers": {"txedit": {"command":"/bin/txedit","args":["mcp","--root","/p"]}}}`, false},
	}
	path := []string{"mcpServers", "txedit"}
	for _, tc := range tests {
		d, err := parse([]byte(tc.src), tc.jsonc)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		out, err := d.set(path, testEntry)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if string(out) != tc.want {
			t.Errorf("%s: got\n%s\nwant\n%s", tc.name, out, tc.want)
			continue
		}
		if !tc.jsonc && !json.Valid(out) {
			t.Errorf("%s: the result is not valid JSON", tc.name)
		}
		d2, err := parse(out, tc.jsonc)
		if err != nil {
			t.Fatalf("%s: the result does not parse: %v", tc.name, err)
		}
		back, ok, err := d2.remove(path)
		if err != nil || !ok {
			t.Fatalf("%s: remove: %v %v", tc.name, ok, err)
		}
		if tc.undo && string(back) != tc.src {
			t.Errorf("%s: removing the entry again gave\n%q\nnot the original\n%q", tc.name, back, tc.src)
		}
		if _, err := parse(back, tc.jsonc); err != nil {
			t.Errorf("%s: after remove: %v\n%s", tc.name, err, back)
		}
	}
}

func TestRemove(t *testing.T) {
	tests := []struct {
		name, src, want string
		jsonc           bool
	}{
		{"the only member", "{\n  \"mcpServers\": {\n    \"txedit\": {\"command\": \"t\"}\n  }\n}\n", "{\n  \"mcpServers\": {}\n}\n", false},
		{"first of two", "{\n  \"mcpServers\": {\n    \"txedit\": {},\n    \"b\": {}\n  }\n}", "{\n  \"mcpServers\": {\n    \"b\": {}\n  }\n}", false},
		{"middle, one line", `{"mcpServers": {"a": 1, "txedit": {}, "b": 2}}`, `{"mcpServers": {"a": 1, "b": 2}}`, false},
		{"last, one line", `{"mcpServers": {"a": 1, "txedit": {}}}`, `{"mcpServers": {"a": 1}}`, false},
		{"first, one line", `{"mcpServers": {"txedit": {}, "a": 1}}`, `{"mcpServers": {"a": 1}}`, false},
		{"a comment on its line stays", "{\"mcpServers\": {\n  \"a\": 1,\n  \"txedit\": {}, // mine\n  \"b\": 2\n}}", "{\"mcpServers\": {\n  \"a\": 1,\n  // mine\n  \"b\": 2\n}}", true},
		{"with a comment inside", "{\"mcpServers\": {\n  // keep\n  \"txedit\": {}\n}}", "{\"mcpServers\": {\n  // keep\n}}", true},
	}
	for _, tc := range tests {
		d, err := parse([]byte(tc.src), tc.jsonc)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		out, ok, err := d.remove([]string{"mcpServers", "txedit"})
		if err != nil || !ok {
			t.Fatalf("%s: %v %v", tc.name, ok, err)
		}
		if string(out) != tc.want {
			t.Errorf("%s: got\n%q\nwant\n%q", tc.name, out, tc.want)
		}
	}
	d, _ := parse([]byte(`{"mcpServers": {"a": 1}}`), false)
	if out, ok, err := d.remove([]string{"mcpServers", "txedit"}); ok || err != nil || string(out) != `{"mcpServers": {"a": 1}}` {
		t.Errorf("removing an absent entry: %q %v %v", out, ok, err)
	}
	d, _ = parse([]byte(`{"mcpServers": [1]}`), false)
	if _, _, err := d.remove([]string{"mcpServers", "txedit"}); err == nil || !strings.Contains(err.Error(), `"mcpServers" is not an object`) {
		t.Errorf("removing from an array: %v", err)
	}
}

// FuzzSetRemove: on any document that parses, adding an entry gives a
// document that parses and holds it with every other top-level key
// intact, and removing it again gives a document that parses without it.
func FuzzSetRemove(f *testing.F) {
	for _, s := range []string{
		"{}", `{"mcpServers": {}}`, "{\n  \"mcpServers\": {\n    \"a\": {}\n  }\n}\n",
		"{\n\t\"x\": [1, 2],\n\t\"mcpServers\": {\"a\": 1,}\n}", "{ // c\n \"mcpServers\": { /* d */ }\n}",
		`{"mcpServers": {"txedit": {"env": {"A": "1"}, "command": "old"}}}`, "[]", `{"mcpServers": 3}`,
		"\xef\xbb\xbf{\"a\": 1}",
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	path := []string{"mcpServers", "txedit"}
	f.Fuzz(func(t *testing.T, src []byte, jsonc bool) {
		d, err := parse(src, jsonc)
		valid := json.Valid(bytes.TrimPrefix(src, bom)) // a BOM is skipped
		if err != nil {
			if !jsonc && valid {
				t.Fatalf("parse refused valid JSON %q: %v", src, err)
			}
			return
		}
		if !jsonc && !valid {
			t.Fatalf("parse accepted invalid JSON %q", src)
		}
		out, err := d.set(path, testEntry)
		if err != nil {
			return // not an object on the way, or a duplicate key
		}
		d2, err := parse(out, jsonc)
		if err != nil {
			t.Fatalf("set produced a broken document from %q:\n%s\n%v", src, out, err)
		}
		m, _, _, err := d2.walk(path)
		if err != nil || m == nil || !d2.equal(m.val, testEntry) {
			t.Fatalf("set did not store the entry in %q:\n%s", src, out)
		}
		before, after := d.decode(d.root).(map[string]any), d2.decode(d2.root).(map[string]any)
		for k, v := range before {
			if k != "mcpServers" && !jsonEqual(v, after[k]) {
				t.Fatalf("set changed the key %q of %q:\n%s", k, src, out)
			}
		}
		back, ok, err := d2.remove(path)
		if err != nil || !ok {
			t.Fatalf("remove after set: %v %v", ok, err)
		}
		d3, err := parse(back, jsonc)
		if err != nil {
			t.Fatalf("remove produced a broken document from %q:\n%s\n%v", out, back, err)
		}
		if m, _, _, _ := d3.walk(path); m != nil {
			t.Fatalf("remove left the entry in %q", back)
		}
	})
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
