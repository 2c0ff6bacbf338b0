package grep

import (
	"errors"
	"regexp/syntax"
	"testing"

	"github.com/txedit/txedit/plan"
)

// TestBadPatternKeepsItsCause: a bad pattern is an invalid_request whose
// message names the parser's complaint, and whose chain holds the
// parser's *syntax.Error for a caller that wants its code.
func TestBadPatternKeepsItsCause(t *testing.T) {
	_, err := Compile("a(b", Options{})
	var se *syntax.Error
	if !errors.As(err, &se) || se.Code != syntax.ErrMissingParen {
		t.Fatalf("Compile(a(b): %v; want a *syntax.Error with %q in its chain", err, syntax.ErrMissingParen)
	}
	if plan.CodeOf(err) != plan.CodeInvalidRequest {
		t.Errorf("code %s, want %s", plan.CodeOf(err), plan.CodeInvalidRequest)
	}
	if want := "invalid_request: bad regular expression: error parsing regexp: missing closing ): `a(b`"; err.Error() != want {
		t.Errorf("message %q, want %q", err.Error(), want)
	}
}
