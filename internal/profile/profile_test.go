package profile

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestTrace: with TXEDIT_TRACE set, the command runs under the execution
// trace, which is written whole (its header, then events) to the file
// when the command returns; its exit code comes back.
func TestTrace(t *testing.T) {
	out := filepath.Join(t.TempDir(), "trace.out")
	t.Setenv("TXEDIT_TRACE", out)
	if code := Run(func() int {
		s := 0
		for i := range 1 << 16 {
			s += i
		}
		if s == 0 {
			return 0
		}
		return 3
	}); code != 3 {
		t.Fatalf("Run returned %d, want the command's 3", code)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(data, []byte("go 1.")) || len(data) < 64 {
		t.Fatalf("trace file is not a Go execution trace: %d bytes, starting %q", len(data), data[:min(len(data), 16)])
	}
}
