package patch

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/txedit/txedit/plan"
)

// TestBadJSONKeepsItsCause: a Responses input that is not JSON is an
// invalid_request that still holds the decoder's *json.SyntaxError (with
// its offset) for a caller that wants it; the message is unchanged.
func TestBadJSONKeepsItsCause(t *testing.T) {
	for _, in := range []string{`[{"type":`, `[1`, `{"type": "apply_patch_call",}`} {
		_, _, err := Compile(FormatResponses, []byte(in))
		var se *json.SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("%s: %v; want a *json.SyntaxError in its chain", in, err)
			continue
		}
		if plan.CodeOf(err) != plan.CodeInvalidRequest {
			t.Errorf("%s: code %s, want %s", in, plan.CodeOf(err), plan.CodeInvalidRequest)
		}
		want := "invalid_request: invalid JSON: " + se.Error()
		if in[0] == '{' {
			want = "invalid_request: item 0: invalid JSON: " + se.Error()
		}
		if err.Error() != want {
			t.Errorf("%s: message %q, want %q", in, err.Error(), want)
		}
	}
}
