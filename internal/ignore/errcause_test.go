package ignore

import (
	"errors"
	"testing"
)

// TestBadGlobKeepsItsCause: the glob compiler's error stays in the chain,
// and the message is ours followed by its own.
func TestBadGlobKeepsItsCause(t *testing.T) {
	_, err := CompileGlob("a[b")
	cause := errors.Unwrap(err)
	if err == nil || cause == nil {
		t.Fatalf("CompileGlob(a[b): %v; want an error that wraps the compiler's", err)
	}
	if want := `bad glob "a[b": ` + cause.Error(); err.Error() != want {
		t.Errorf("message %q, want %q", err.Error(), want)
	}
}
