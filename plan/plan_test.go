package plan

import (
	"errors"
	"strings"
	"testing"
)

func TestParseStrict(t *testing.T) {
	tests := []struct {
		name, in string
		wantErr  string
	}{
		{"single form", `{"command":"str_replace","path":"a","old_str":"x","new_str":"y"}`, ""},
		{"batch form", `{"command":"create","fileEdits":[{"path":"a","edits":[{"command":"create","file_text":"t"}]}]}`, ""},
		{"snake_case batch", `{"file_edits":[{"path":"a","edits":[{"command":"delete"}]}]}`, ""},
		{"both spellings", `{"fileEdits":[],"file_edits":[]}`, "both fileEdits and file_edits"},
		{"unknown top field", `{"command":"create","path":"a","file_text":"t","clobber":true}`, `unknown field "clobber"`},
		{"unknown edit field", `{"fileEdits":[{"path":"a","edits":[{"command":"str_replace","old_string":"x"}]}]}`, `unknown field "old_string"`},
		{"wrong type", `{"command":"insert","path":"a","insert_line":"3","new_str":"x"}`, "cannot unmarshal"},
		{"trailing data", `{"command":"delete","path":"a"} {}`, "trailing data"},
		{"not an object", `[1]`, "cannot unmarshal"},
		{"empty", `  `, "empty request"},
		{"syntax error offset", `{"command": }`, "at byte"},
	}
	for _, tc := range tests {
		_, err := Parse([]byte(tc.in))
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%s: unexpected error %v", tc.name, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.wantErr)
		case err != nil && CodeOf(err) != CodeInvalidRequest:
			t.Errorf("%s: code %s, want invalid_request", tc.name, CodeOf(err))
		}
	}
}

func compileJSON(t *testing.T, js string) (*Plan, error) {
	t.Helper()
	r, err := Parse([]byte(js))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return Compile(r)
}

func TestCompileRequestErrors(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"no command", `{"path":"a"}`, "missing command"},
		{"unknown command", `{"command":"rewrite","path":"a"}`, `unknown command "rewrite"`},
		{"single without path", `{"command":"create","file_text":"x"}`, "needs path"},
		{"both forms", `{"path":"a","fileEdits":[{"path":"b","edits":[{"command":"delete"}]}]}`, "not both"},
		{"pattern without sed", `{"command":"pattern_replace","directory":".","file_pattern":"*"}`, "needs sed_pattern"},
		{"pattern with path", `{"command":"pattern_replace","path":"a","sed_pattern":"s/a/b/","file_pattern":"*"}`, "not path"},
	}
	for _, tc := range tests {
		_, err := compileJSON(t, tc.in)
		var pe *Error
		if !errors.As(err, &pe) || pe.Code != CodeInvalidRequest || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want invalid_request containing %q", tc.name, err, tc.want)
		}
	}
}

func TestCompileEditValidation(t *testing.T) {
	p, err := compileJSON(t, `{"fileEdits":[{"path":"f","edits":[
		{"command":"str_replace","old_str":"","new_str":"x"},
		{"command":"insert","insert_line":-1,"new_str":"x"},
		{"command":"replace_lines","start_line":5,"end_line":2,"new_str":"x"},
		{"command":"str_replace","old_str":"a","new_str":"b","insert_line":3},
		{"command":"create","file_text":"a"},
		{"command":"create","file_text":"b"},
		{"command":"move"},
		{"command":"insert","insert_line":1,"new_str":"x","content_hash":"nothex"},
		{"command":"frob"},
		{"command":"append","new_str":"fine"}
	]}]}`)
	if err != nil {
		t.Fatal(err)
	}
	f := p.Files[0]
	wantIdx := []int{0, 1, 2, 3, 5, 6, 7, 8}
	if len(f.Invalid) != len(wantIdx) {
		t.Fatalf("invalid = %v", f.Invalid)
	}
	for i, e := range f.Invalid {
		if e.Index != wantIdx[i] || e.Code != CodeInvalidRequest || e.Path != "f" {
			t.Errorf("invalid[%d] = %+v, want index %d", i, e, wantIdx[i])
		}
	}
	if !strings.Contains(f.Invalid[3].Msg, "does not take insert_line") {
		t.Errorf("mixed fields: %s", f.Invalid[3].Msg)
	}
	if f.Create == nil || f.Create.Index != 4 || len(f.Appends) != 1 {
		t.Errorf("valid edits were not kept: create=%v appends=%v", f.Create, f.Appends)
	}
}

func TestCompileLineOrderAndOverlap(t *testing.T) {
	p, err := compileJSON(t, `{"fileEdits":[{"path":"f","edits":[
		{"command":"replace_lines","start_line":10,"end_line":12,"new_str":"a"},
		{"command":"insert","insert_line":3,"new_str":"b"},
		{"command":"replace_lines","start_line":4,"end_line":5,"new_str":"c"},
		{"command":"insert","insert_line":3,"new_str":"d"},
		{"command":"replace_lines","start_line":12,"end_line":14,"new_str":"overlaps"},
		{"command":"insert","insert_line":11,"new_str":"inside"},
		{"command":"insert","insert_line":12,"new_str":"at edge"}
	]}]}`)
	if err != nil {
		t.Fatal(err)
	}
	f := p.Files[0]
	var order []int
	for _, op := range f.LineEdits {
		order = append(order, op.Index)
	}
	want := []int{1, 3, 2, 0, 6}
	if len(order) != len(want) {
		t.Fatalf("order %v, want %v", order, want)
	}
	for i := range want {
		if order[i] != want[i] {
			t.Fatalf("order %v, want %v", order, want)
		}
	}
	if len(f.Invalid) != 2 || f.Invalid[0].Index != 4 || f.Invalid[1].Index != 5 ||
		f.Invalid[0].Code != CodeOverlappingEdits || !strings.Contains(f.Invalid[0].Msg, "edit 0") {
		t.Errorf("overlaps: %v", f.Invalid)
	}
}

func TestErrorText(t *testing.T) {
	e := &Error{Code: CodeNotFound, Path: "src/a.go", Index: 2, Command: "str_replace", Msg: "old_str not found"}
	if got := e.Error(); got != "not_found: src/a.go: edit 2 (str_replace): old_str not found" {
		t.Errorf("Error() = %q", got)
	}
	if CodeOf(errors.New("x")) != CodeIOError || CodeOf(nil) != "" {
		t.Error("CodeOf of a plain error")
	}
}
