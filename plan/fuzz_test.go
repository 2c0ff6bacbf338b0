package plan

import (
	"os"
	"path/filepath"
	"testing"
)

// $ go test -fuzz=FuzzParseCompile ./plan
// Parse and Compile never panic, and every failure carries a code.
func FuzzParseCompile(f *testing.F) {
	seeds, _ := filepath.Glob("../testdata/*.json")
	for _, s := range seeds {
		if data, err := os.ReadFile(s); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`{"command":"str_replace","path":"a","old_str":"x","new_str":"y"}`))
	f.Add([]byte(`{"fileEdits":[{"path":"a","content_hash":"0000000000000000@1-2","edits":[{"command":"replace_lines","start_line":1,"end_line":2,"new_str":"x"},{"command":"insert","insert_line":1,"new_str":"y"}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Parse(data)
		if err != nil {
			if CodeOf(err) != CodeInvalidRequest {
				t.Fatalf("Parse error without invalid_request: %v", err)
			}
			return
		}
		p, err := Compile(r)
		if err != nil {
			if CodeOf(err) == "" {
				t.Fatalf("Compile error without a code: %v", err)
			}
			return
		}
		for _, fo := range p.Files {
			for _, e := range fo.Invalid {
				if e.Code == "" || e.Path != fo.Path {
					t.Fatalf("invalid edit without code or path: %+v", e)
				}
			}
			prev := -1 << 31
			for _, op := range fo.LineEdits {
				if b := startBoundary(op); b < prev {
					t.Fatalf("line edits out of order: %+v", fo.LineEdits)
				} else {
					prev = b
				}
			}
		}
	})
}
