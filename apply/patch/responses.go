package patch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/txedit/txedit/plan"
)

// responseItem is an apply_patch_call item of the OpenAI Responses API, or
// a bare operation: unknown fields (id, call_id, status, …) are ignored.
type responseItem struct {
	Type      string      `json:"type"`
	Operation *responseOp `json:"operation"`
	Path      string      `json:"path"`
	Diff      *string     `json:"diff"`
}

type responseOp struct {
	Type string  `json:"type"`
	Path string  `json:"path"`
	Diff *string `json:"diff"`
}

// parseResponses parses apply_patch_call items or bare operations: one
// object, or an array of them. create_file's diff is "+" lines (the whole
// content, each line ending with a newline, as an apply_patch Add File);
// update_file's diff is V4A hunks, as an apply_patch Update File body;
// delete_file has none.
func parseResponses(input []byte) ([]*File, error) {
	input = bytes.TrimSpace(bytes.TrimPrefix(input, []byte("\ufeff")))
	var raws []json.RawMessage
	if len(input) > 0 && input[0] == '[' {
		if err := json.Unmarshal(input, &raws); err != nil {
			return nil, plan.Wrapf(plan.CodeInvalidRequest, "", err, "invalid JSON: %v", err)
		}
	} else {
		raws = []json.RawMessage{input}
	}
	var files []*File
	for n, raw := range raws {
		var it responseItem
		if err := json.Unmarshal(raw, &it); err != nil {
			return nil, plan.Wrapf(plan.CodeInvalidRequest, "", err, "item %d: invalid JSON: %v", n, err)
		}
		op := &responseOp{Type: it.Type, Path: it.Path, Diff: it.Diff}
		switch it.Type {
		case "apply_patch_call":
			if it.Operation == nil {
				return nil, plan.Errorf(plan.CodeInvalidRequest, "", "item %d: apply_patch_call without an operation", n)
			}
			op = it.Operation
		case "create_file", "update_file", "delete_file":
		default:
			return nil, plan.Errorf(plan.CodeInvalidRequest, "", "item %d: type %q is neither apply_patch_call nor create_file, update_file or delete_file", n, it.Type)
		}
		f, err := responseFile(n, op)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		return nil, plan.Errorf(plan.CodeInvalidRequest, "", "no operations")
	}
	return files, nil
}

func responseFile(n int, op *responseOp) (*File, error) {
	path := strings.TrimSpace(op.Path)
	if path == "" {
		return nil, plan.Errorf(plan.CodeInvalidRequest, "", "operation %d (%s) has no path", n, op.Type)
	}
	fail := func(err *plan.Error) error {
		err.Msg = fmt.Sprintf("operation %d (%s): diff %s", n, op.Type, err.Msg)
		return err
	}
	switch op.Type {
	case "delete_file":
		return &File{Op: OpDelete, Path: path}, nil
	case "create_file", "update_file":
		if op.Diff == nil {
			return nil, plan.Errorf(plan.CodeInvalidRequest, path, "operation %d (%s) has no diff", n, op.Type)
		}
	default:
		return nil, plan.Errorf(plan.CodeInvalidRequest, path, "operation %d: type %q is not create_file, update_file or delete_file", n, op.Type)
	}
	ls := lines([]byte(*op.Diff))
	p := &v4a{lines: ls, end: len(ls)}
	if op.Type == "create_file" {
		content := p.addLines()
		if p.i < p.end {
			return nil, fail(errAt(p.i+1, path, "%q: every line of a create_file diff starts with '+'", clip(ls[p.i])))
		}
		return &File{Op: OpAdd, Path: path, Content: content, Overwrite: true}, nil
	}
	hunks, err := p.hunks(path)
	if err != nil {
		return nil, fail(err.(*plan.Error))
	}
	if p.i < p.end {
		return nil, fail(errAt(p.i+1, path, "%q: an update_file diff holds only hunks", clip(ls[p.i])))
	}
	if len(hunks) == 0 {
		return nil, plan.Errorf(plan.CodeInvalidRequest, path, "operation %d (update_file): the diff has no hunks", n)
	}
	return &File{Op: OpUpdate, Path: path, Hunks: hunks}, nil
}

// isResponses reports whether JSON input holds apply_patch_call items or
// operations.
func isResponses(input []byte) bool {
	input = bytes.TrimSpace(input)
	var it responseItem
	if len(input) > 0 && input[0] == '[' {
		var raws []json.RawMessage
		if json.Unmarshal(input, &raws) != nil || len(raws) == 0 {
			return false
		}
		input = raws[0]
	}
	if json.Unmarshal(input, &it) != nil {
		return false
	}
	switch it.Type {
	case "apply_patch_call", "create_file", "update_file", "delete_file":
		return true
	}
	return false
}
