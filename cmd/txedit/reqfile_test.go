package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnreadableRequestFile: a request file that cannot be read is not a
// bad request (invalid_request, exit 2): a missing one is file_not_found,
// one that is a directory io_error, both exit 1 (docs/testing.md, the
// reliability audit).
func TestUnreadableRequestFile(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644)
	for _, tc := range []struct {
		name, file, code string
	}{
		{"missing", filepath.Join(dir, "nope.json"), "file_not_found"},
		{"a directory", dir, "io_error"},
	} {
		var out, errb bytes.Buffer
		got := run([]string{"apply", "--json", "--root", dir, tc.file}, strings.NewReader(""), &out, &errb)
		var res struct {
			Code  string `json:"code"`
			Error string `json:"error"`
		}
		json.Unmarshal(out.Bytes(), &res)
		if got != 1 || res.Code != tc.code || !strings.Contains(res.Error, "reading the request") {
			t.Errorf("%s request file: exit %d, %s %q; want exit 1, %s", tc.name, got, res.Code, res.Error, tc.code)
		}
	}
}
