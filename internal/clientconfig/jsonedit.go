package clientconfig

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// This file is a small JSON editor that changes a document by splicing
// bytes: it parses the text once, keeping the offsets of every value, and
// an edit replaces, inserts or removes exactly the bytes of one object
// member. Everything else — key order, indentation, blank lines, number
// spellings, escapes, and in JSONC files comments and trailing commas —
// stays byte for byte. New members take the indentation of their
// neighbours.

// SyntaxError is where and why a configuration file failed to parse.
type SyntaxError struct {
	Line, Column int // 1-based; the column counts bytes
	Msg          string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// maxDepth bounds nesting so that a hostile file cannot exhaust the stack.
const maxDepth = 1000

var bom = []byte("\xef\xbb\xbf")

type node struct {
	kind       byte // '{', '[', '"', '0' (number), 't', 'f', 'n'
	start, end int  // the value's bytes are src[start:end]
	members    []*member
	elems      []*node
}

type member struct {
	key      string
	keyStart int
	val      *node
	comma    int // offset of the comma after the value, or -1
}

// doc is a parsed JSON or JSONC text.
type doc struct {
	src   []byte
	jsonc bool
	root  *node
}

// parse parses src as one JSON value; with jsonc, comments (// and /* */)
// and trailing commas are allowed as VS Code allows them. A UTF-8 byte
// order mark at the start is skipped (and kept).
func parse(src []byte, jsonc bool) (*doc, error) {
	p := &parser{src: src, jsonc: jsonc}
	if bytes.HasPrefix(src, bom) {
		p.pos = len(bom)
	}
	if err := p.space(); err != nil {
		return nil, err
	}
	if p.pos == len(src) {
		return nil, p.errorf("the file has no JSON value")
	}
	root, err := p.value(0)
	if err != nil {
		return nil, err
	}
	if err := p.space(); err != nil {
		return nil, err
	}
	if p.pos != len(src) {
		return nil, p.errorf("unexpected %s after the end of the top-level value", p.describe())
	}
	return &doc{src: src, jsonc: jsonc, root: root}, nil
}

type parser struct {
	src   []byte
	pos   int
	jsonc bool
}

func (p *parser) errorf(format string, args ...any) error {
	line, col := 1, 1
	for _, c := range p.src[:min(p.pos, len(p.src))] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return &SyntaxError{Line: line, Column: col, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) describe() string {
	if p.pos >= len(p.src) {
		return "end of file"
	}
	return fmt.Sprintf("%q", p.src[p.pos])
}

// space skips white space and, in JSONC, comments.
func (p *parser) space() error {
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		case '/':
			if !p.jsonc {
				return p.errorf("a comment: comments are not JSON, and this client reads plain JSON")
			}
			switch {
			case p.pos+1 < len(p.src) && p.src[p.pos+1] == '/':
				if i := bytes.IndexByte(p.src[p.pos:], '\n'); i >= 0 {
					p.pos += i
				} else {
					p.pos = len(p.src)
				}
			case p.pos+1 < len(p.src) && p.src[p.pos+1] == '*':
				i := bytes.Index(p.src[p.pos+2:], []byte("*/"))
				if i < 0 {
					return p.errorf("a comment that is never closed")
				}
				p.pos += 2 + i + 2
			default:
				return p.errorf("unexpected '/'")
			}
		default:
			return nil
		}
	}
	return nil
}

func (p *parser) value(depth int) (*node, error) {
	if depth > maxDepth {
		return nil, p.errorf("values nested more than %d deep", maxDepth)
	}
	if p.pos >= len(p.src) {
		return nil, p.errorf("unexpected end of file, expecting a value")
	}
	n := &node{start: p.pos}
	switch c := p.src[p.pos]; {
	case c == '{':
		n.kind = '{'
		if err := p.object(n, depth); err != nil {
			return nil, err
		}
	case c == '[':
		n.kind = '['
		if err := p.array(n, depth); err != nil {
			return nil, err
		}
	case c == '"':
		n.kind = '"'
		if err := p.str(); err != nil {
			return nil, err
		}
	case c == '-' || c >= '0' && c <= '9':
		n.kind = '0'
		if err := p.number(); err != nil {
			return nil, err
		}
	case c == 't' || c == 'f' || c == 'n':
		word := map[byte]string{'t': "true", 'f': "false", 'n': "null"}[c]
		if !bytes.HasPrefix(p.src[p.pos:], []byte(word)) {
			return nil, p.errorf("unexpected %s, expecting a value", p.describe())
		}
		n.kind = c
		p.pos += len(word)
	default:
		return nil, p.errorf("unexpected %s, expecting a value", p.describe())
	}
	n.end = p.pos
	return n, nil
}

func (p *parser) object(n *node, depth int) error {
	p.pos++ // {
	for {
		if err := p.space(); err != nil {
			return err
		}
		if p.pos < len(p.src) && p.src[p.pos] == '}' {
			if len(n.members) > 0 && !p.jsonc {
				return p.errorf("a trailing comma before '}'")
			}
			p.pos++
			return nil
		}
		if p.pos >= len(p.src) || p.src[p.pos] != '"' {
			return p.errorf("unexpected %s, expecting a quoted key", p.describe())
		}
		m := &member{keyStart: p.pos, comma: -1}
		if err := p.str(); err != nil {
			return err
		}
		if err := json.Unmarshal(p.src[m.keyStart:p.pos], &m.key); err != nil {
			return p.errorf("a key that is not a valid string: %v", err)
		}
		if err := p.space(); err != nil {
			return err
		}
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return p.errorf("unexpected %s, expecting ':' after the key %q", p.describe(), m.key)
		}
		p.pos++
		if err := p.space(); err != nil {
			return err
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return err
		}
		m.val = v
		n.members = append(n.members, m)
		if err := p.space(); err != nil {
			return err
		}
		switch {
		case p.pos < len(p.src) && p.src[p.pos] == ',':
			m.comma = p.pos
			p.pos++
		case p.pos < len(p.src) && p.src[p.pos] == '}':
			p.pos++
			return nil
		default:
			return p.errorf("unexpected %s, expecting ',' or '}' after the value of %q", p.describe(), m.key)
		}
	}
}

func (p *parser) array(n *node, depth int) error {
	p.pos++ // [
	for {
		if err := p.space(); err != nil {
			return err
		}
		if p.pos < len(p.src) && p.src[p.pos] == ']' {
			if len(n.elems) > 0 && !p.jsonc {
				return p.errorf("a trailing comma before ']'")
			}
			p.pos++
			return nil
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return err
		}
		n.elems = append(n.elems, v)
		if err := p.space(); err != nil {
			return err
		}
		switch {
		case p.pos < len(p.src) && p.src[p.pos] == ',':
			p.pos++
		case p.pos < len(p.src) && p.src[p.pos] == ']':
			p.pos++
			return nil
		default:
			return p.errorf("unexpected %s, expecting ',' or ']'", p.describe())
		}
	}
}

func (p *parser) str() error {
	p.pos++ // "
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case c == '"':
			p.pos++
			return nil
		case c == '\\':
			if p.pos+1 >= len(p.src) {
				return p.errorf("a string that is never closed")
			}
			switch p.src[p.pos+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.pos += 2
			case 'u':
				if p.pos+6 > len(p.src) || !isHex(p.src[p.pos+2:p.pos+6]) {
					return p.errorf(`an invalid \u escape`)
				}
				p.pos += 6
			default:
				return p.errorf("an invalid escape \\%c", p.src[p.pos+1])
			}
		case c < 0x20:
			return p.errorf("a control character in a string (write it as an escape)")
		default:
			p.pos++
		}
	}
	return p.errorf("a string that is never closed")
}

func isHex(b []byte) bool {
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func (p *parser) number() error {
	digits := func() int {
		n := 0
		for p.pos < len(p.src) && p.src[p.pos] >= '0' && p.src[p.pos] <= '9' {
			p.pos++
			n++
		}
		return n
	}
	if p.src[p.pos] == '-' {
		p.pos++
	}
	switch {
	case p.pos < len(p.src) && p.src[p.pos] == '0':
		p.pos++
	case digits() == 0:
		return p.errorf("an invalid number")
	}
	if p.pos < len(p.src) && p.src[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return p.errorf("an invalid number")
		}
	}
	if p.pos < len(p.src) && (p.src[p.pos] == 'e' || p.src[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.src) && (p.src[p.pos] == '+' || p.src[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return p.errorf("an invalid number")
		}
	}
	return nil
}

// lookup returns the member named key of object n, or nil. A key that
// occurs twice is an error: clients disagree on which one counts, so
// txedit does not guess.
func (d *doc) lookup(n *node, key string) (*member, error) {
	var found *member
	for _, m := range n.members {
		if m.key == key {
			if found != nil {
				return nil, fmt.Errorf("the key %q occurs twice in one object", key)
			}
			found = m
		}
	}
	return found, nil
}

// duplicateKey returns a key that occurs twice in object n ("" if none).
func duplicateKey(n *node) string {
	seen := make(map[string]bool, len(n.members))
	for _, m := range n.members {
		if seen[m.key] {
			return m.key
		}
		seen[m.key] = true
	}
	return ""
}

// objectName names the object at path for a message.
func objectName(path []string) string {
	if len(path) == 0 {
		return "the top-level object"
	}
	return fmt.Sprintf("%q", strings.Join(path, "."))
}

// walk follows path from the root through objects. It returns the member
// at the end of path, or nil and the deepest object reached with the
// index of the first key missing from it.
func (d *doc) walk(path []string) (m *member, parent *node, missing int, err error) {
	n := d.root
	for i, key := range path {
		if n.kind != '{' {
			where := "the top-level value"
			if i > 0 {
				where = fmt.Sprintf("%q", strings.Join(path[:i], "."))
			}
			return nil, nil, 0, fmt.Errorf("%s is not an object", where)
		}
		// Any key twice in an object on the way is refused, not only
		// the one looked up (a duplicate server in mcpServers used to be
		// accepted).
		if dup := duplicateKey(n); dup != "" {
			return nil, nil, 0, fmt.Errorf("the key %q occurs twice in one object (%s)", dup, objectName(path[:i]))
		}
		m, err := d.lookup(n, key)
		if err != nil {
			return nil, nil, 0, err
		}
		if m == nil {
			return nil, n, i, nil
		}
		if i == len(path)-1 {
			return m, n, 0, nil
		}
		n = m.val
	}
	return nil, n, len(path), nil
}

// decode returns the value of n as encoding/json would decode it (objects
// as map[string]any, numbers as float64), for comparing values.
func (d *doc) decode(n *node) any {
	switch n.kind {
	case '{':
		m := make(map[string]any, len(n.members))
		for _, mem := range n.members {
			m[mem.key] = d.decode(mem.val)
		}
		return m
	case '[':
		a := make([]any, len(n.elems))
		for i, e := range n.elems {
			a[i] = d.decode(e)
		}
		return a
	default:
		var v any
		json.Unmarshal(d.src[n.start:n.end], &v)
		return v
	}
}

// equal reports whether n holds the JSON value v.
func (d *doc) equal(n *node, v any) bool {
	b, err := json.Marshal(v)
	if err != nil {
		return false
	}
	var want any
	if json.Unmarshal(b, &want) != nil {
		return false
	}
	return reflect.DeepEqual(d.decode(n), want)
}

// set makes path hold v: the last key's value is replaced if it exists,
// else the member is added (with any missing objects on the way) at the
// end of the deepest existing object.
func (d *doc) set(path []string, v any) ([]byte, error) {
	m, parent, missing, err := d.walk(path)
	if err != nil {
		return nil, err
	}
	if m != nil {
		indent := d.lineIndent(m.keyStart)
		return d.splice(edit{m.val.start, m.val.end, d.render(v, indent, d.multiline(parent))}), nil
	}
	for i := len(path) - 1; i > missing; i-- {
		v = object{{path[i], v}}
	}
	return d.insert(parent, path[missing], v), nil
}

// remove deletes the member at path with its comma and, when it stood on
// lines of its own, those lines. It reports false if there was none.
func (d *doc) remove(path []string) ([]byte, bool, error) {
	m, parent, _, err := d.walk(path)
	if err != nil || m == nil {
		return d.src, false, err
	}
	idx := 0
	for i, x := range parent.members {
		if x == m {
			idx = i
		}
	}
	after := m.val.end
	if m.comma >= 0 {
		after = m.comma + 1
	}
	if len(parent.members) == 1 && d.blank(parent.start+1, m.keyStart) && d.blank(after, parent.end-1) {
		// The only member, nothing else inside: the object becomes {}.
		return d.splice(edit{parent.start + 1, parent.end - 1, ""}), true, nil
	}
	if m.comma < 0 && idx > 0 {
		// The last member: the comma after the one before it goes, and
		// the member with its line; comments in between stay.
		comma := parent.members[idx-1].comma
		start := m.keyStart
		if ls := lineStart(d.src, start); d.blank(ls, start) && ls > comma+1 {
			start = ls - 1 // the newline before it
			if start > comma+1 && d.src[start-1] == '\r' {
				start--
			}
		} else {
			for start > comma+1 && (d.src[start-1] == ' ' || d.src[start-1] == '\t') {
				start--
			}
		}
		return d.splice(edit{comma, comma + 1, ""}, edit{start, m.val.end, ""}), true, nil
	}
	start, end := m.keyStart, after
	ls, le := lineStart(d.src, start), lineEnd(d.src, end)
	if d.blank(ls, start) && d.blank(end, le) {
		// On lines of its own: those lines go.
		start, end = ls, min(le+1, len(d.src))
	} else {
		for end < len(d.src) && (d.src[end] == ' ' || d.src[end] == '\t') {
			end++
		}
	}
	return d.splice(edit{start, end, ""}), true, nil
}

// insert adds the member key: v at the end of object obj.
func (d *doc) insert(obj *node, key string, v any) []byte {
	k, _ := marshal(key, "", "")
	ml := d.multiline(obj)
	unit := d.indentUnit()
	if len(obj.members) == 0 {
		base := d.lineIndent(obj.start)
		indent := base + unit
		if !ml {
			return d.splice(edit{obj.start + 1, obj.start + 1, k + ": " + d.render(v, "", false)})
		}
		text := "\n" + indent + k + ": " + d.render(v, indent, true)
		if d.blank(obj.start+1, obj.end-1) {
			return d.splice(edit{obj.start + 1, obj.end - 1, text + "\n" + base})
		}
		// Only comments inside: the member goes first, the comments stay.
		return d.splice(edit{obj.start + 1, obj.start + 1, text})
	}
	last := obj.members[len(obj.members)-1]
	if !ml {
		text := k + ": " + d.render(v, "", false)
		if last.comma >= 0 {
			return d.splice(edit{last.comma + 1, last.comma + 1, " " + text + ","})
		}
		return d.splice(edit{last.val.end, last.val.end, ", " + text})
	}
	indent := d.lineIndent(obj.members[0].keyStart)
	text := "\n" + indent + k + ": " + d.render(v, indent, true)
	if last.comma >= 0 { // a trailing comma (JSONC): keep the style
		at := d.afterLineComment(last.comma + 1)
		return d.splice(edit{at, at, text + ","})
	}
	// A line comment after the last value stays with that value.
	at := d.afterLineComment(last.val.end)
	if at == last.val.end {
		return d.splice(edit{at, at, "," + text})
	}
	return d.splice(edit{last.val.end, last.val.end, ","}, edit{at, at, text})
}

// afterLineComment returns the end of a // comment that follows pos on
// the same line (before its newline), or pos.
func (d *doc) afterLineComment(pos int) int {
	i := pos
	for i < len(d.src) && (d.src[i] == ' ' || d.src[i] == '\t') {
		i++
	}
	if d.jsonc && bytes.HasPrefix(d.src[i:], []byte("//")) {
		e := lineEnd(d.src, i)
		if e > 0 && d.src[e-1] == '\r' {
			e--
		}
		return e
	}
	return pos
}

// multiline reports whether obj is laid out one member per line: it
// spans lines; or it is empty and it is the top-level object or the
// top-level object spans lines.
func (d *doc) multiline(obj *node) bool {
	if len(obj.members) == 0 {
		return obj == d.root || bytes.IndexByte(d.src[d.root.start:d.root.end], '\n') >= 0
	}
	return bytes.IndexByte(d.src[obj.start:obj.members[0].keyStart], '\n') >= 0
}

// indentUnit is one level of the document's indentation: the leading
// white space of its first indented line, "  " if none is.
func (d *doc) indentUnit() string {
	for i := 0; i < len(d.src); i++ {
		if d.src[i] != '\n' {
			continue
		}
		j := i + 1
		for j < len(d.src) && (d.src[j] == ' ' || d.src[j] == '\t') {
			j++
		}
		if j > i+1 && j < len(d.src) && d.src[j] != '\n' && d.src[j] != '\r' {
			if d.src[i+1] == '\t' {
				return "\t"
			}
			return string(d.src[i+1 : j])
		}
	}
	return "  "
}

// lineIndent is the white space at the start of the line holding pos.
func (d *doc) lineIndent(pos int) string {
	s := lineStart(d.src, pos)
	e := s
	for e < pos && (d.src[e] == ' ' || d.src[e] == '\t') {
		e++
	}
	return string(d.src[s:e])
}

// blank reports whether src[from:to] is only white space.
func (d *doc) blank(from, to int) bool {
	return from <= to && len(bytes.TrimSpace(d.src[from:to])) == 0
}

func lineStart(src []byte, pos int) int {
	return bytes.LastIndexByte(src[:pos], '\n') + 1
}

// lineEnd is the offset of the newline ending the line holding pos, or
// len(src).
func lineEnd(src []byte, pos int) int {
	if i := bytes.IndexByte(src[pos:], '\n'); i >= 0 {
		return pos + i
	}
	return len(src)
}

func (d *doc) render(v any, indent string, multiline bool) string {
	if !multiline {
		s, _ := marshal(v, "", "")
		return s
	}
	s, _ := marshal(v, indent, d.indentUnit())
	return s
}

type edit struct {
	from, to int
	text     string
}

// splice applies non-overlapping edits, given in order, to a copy of src.
// In a document with CRLF line ends, the new text gets them too.
func (d *doc) splice(edits ...edit) []byte {
	crlf := bytes.Contains(d.src, []byte("\r\n"))
	var b bytes.Buffer
	at := 0
	for _, e := range edits {
		b.Write(d.src[at:e.from])
		if crlf {
			e.text = strings.ReplaceAll(e.text, "\n", "\r\n")
		}
		b.WriteString(e.text)
		at = e.to
	}
	b.Write(d.src[at:])
	return b.Bytes()
}

// marshal renders v without HTML escaping, indented when unit is set
// (prefix starts every line but the first).
func marshal(v any, prefix, unit string) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if unit != "" {
		enc.SetIndent(prefix, unit)
	}
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// object is a JSON object that keeps its keys in order.
type object []field

type field struct {
	key   string
	value any
}

func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := marshal(f.key, "", "")
		if err != nil {
			return nil, err
		}
		v, err := marshal(f.value, "", "")
		if err != nil {
			return nil, err
		}
		b.WriteString(k + ":" + v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
