package apply

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/txedit/txedit/plan"
)

// $ go test -fuzz=FuzzEdit ./apply
// Edit never panics on any content and any valid edit list, and a single
// successful str_replace equals replacing the one occurrence.
func FuzzEdit(f *testing.F) {
	f.Add([]byte("a\r\nb\nc"), `[{"command":"replace_lines","start_line":1,"end_line":2,"new_str":"x"},{"command":"insert","insert_line":3,"new_str":"y"},{"command":"append","new_str":"z"}]`)
	f.Add([]byte("\ufeffx\x00y"), `[{"command":"str_replace","old_str":"x","new_str":"q"}]`)
	f.Add([]byte("one two"), `[{"command":"str_replace","old_str":"two","new_str":"2"}]`)
	f.Fuzz(func(t *testing.T, content []byte, editsJSON string) {
		var edits []plan.Edit
		if json.Unmarshal([]byte(editsJSON), &edits) != nil || len(edits) == 0 {
			return
		}
		p, err := plan.Compile(&plan.Request{FileEdits: []plan.FileEdit{{Path: "f", Edits: edits}}})
		if err != nil {
			return
		}
		fo := p.Files[0]
		out := Edit(fo, content, true)
		again := Edit(fo, content, true)
		if !bytes.Equal(out.Content, again.Content) {
			t.Fatal("Edit is not deterministic")
		}
		if len(edits) == 1 && len(fo.StrReplaces) == 1 && out.OK() && !detect(content).crlf {
			op := fo.StrReplaces[0]
			if want := bytes.Replace(content, []byte(op.Old), []byte(op.Text), -1); !op.All && !bytes.Equal(out.Content, want) {
				t.Fatalf("str_replace %q→%q on %q = %q, want %q", op.Old, op.Text, content, out.Content, want)
			}
		}
	})
}

// $ go test -fuzz=FuzzUnified ./apply
// Applying the rendered diff to the old text gives the new text.
func FuzzUnified(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nB\nc")
	f.Add("", "x\r\n")
	f.Add("x\ny\nx\ny\n", "y\nx\n")
	f.Fuzz(func(t *testing.T, a, b string) {
		d := Unified(Change{OldPath: "f", NewPath: "f", Old: []byte(a), New: []byte(b)})
		if IsBinary([]byte(a)) || IsBinary([]byte(b)) || a == b {
			return
		}
		if got := patchText(t, a, d); got != b {
			t.Fatalf("patched %q = %q, want %q\n%s", a, got, b, d)
		}
	})
}

// $ go test -fuzz=FuzzLineEditsCompose ./apply
// A plan's line edits, all numbered against the file as read, give the
// same result as applying them one at a time from the bottom up (which
// keeps every earlier line number valid). Choices drive the edits.
func FuzzLineEditsCompose(f *testing.F) {
	f.Add([]byte("a\nb\nc\nd\ne\n"), []byte{1, 0, 5, 0, 1, 2, 2, 0, 9})
	f.Add([]byte("one\r\ntwo\r\nthree"), []byte{0, 1, 0, 1, 0, 3})
	f.Add([]byte("\ufeffx\ny"), []byte{0, 0, 1, 1, 1, 1})
	f.Fuzz(func(t *testing.T, content, choices []byte) {
		// Line endings are detected per request by majority, so in a file
		// that mixes them (or ends in a bare CR, which terminating the
		// last line turns into CRLF) a separate edit may see another
		// style. That is detection, not the composition tested here: the
		// file must use one style.
		crlf := bytes.Count(content, []byte("\r\n"))
		if IsBinary(content) || bytes.Count(content, []byte("\r")) != crlf || (crlf > 0 && bytes.Count(content, []byte("\n")) != crlf) {
			return
		}
		n := len(lineStarts(content)) - 1
		var edits []plan.Edit
		pos := 0 // boundary: after line pos
		for k := 0; k+2 < len(choices) && len(edits) < 8; k += 3 {
			pos += int(choices[k] % 3)
			if pos > n {
				break
			}
			text := fmt.Sprintf("new %d", choices[k+2])
			if choices[k+2]%4 == 0 {
				text += "\nsecond line"
			}
			if choices[k+1]%2 == 0 {
				line := pos
				edits = append(edits, plan.Edit{Command: "insert", InsertLine: &line, NewStr: &text})
				pos++ // the next edit starts strictly below
				continue
			}
			start, end := pos+1, pos+1+int(choices[k+2]%3)
			if end > n {
				break
			}
			edits = append(edits, plan.Edit{Command: "replace_lines", StartLine: &start, EndLine: &end, NewStr: &text})
			pos = end + 1
		}
		if len(edits) == 0 {
			return
		}
		p, err := plan.Compile(&plan.Request{FileEdits: []plan.FileEdit{{Path: "f", Edits: edits}}})
		if err != nil {
			t.Fatal(err)
		}
		all := Edit(p.Files[0], content, true)
		if !all.OK() {
			t.Fatalf("the generated edits failed: %v", all.Failed)
		}
		cur := content
		for i := len(edits) - 1; i >= 0; i-- { // generated top-down: apply bottom-up
			q, _ := plan.Compile(&plan.Request{FileEdits: []plan.FileEdit{{Path: "f", Edits: []plan.Edit{edits[i]}}}})
			one := Edit(q.Files[0], cur, true)
			if !one.OK() {
				t.Fatalf("edit %d alone failed: %v", i, one.Failed)
			}
			cur = one.Content
		}
		if !bytes.Equal(all.Content, cur) {
			t.Fatalf("all at once %q != one at a time %q (content %q)", all.Content, cur, content)
		}
	})
}
