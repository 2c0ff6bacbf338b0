package apply

import (
	"bytes"
	"encoding/json"
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
