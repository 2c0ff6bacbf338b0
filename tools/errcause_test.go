package tools

import (
	"encoding/json"
	"errors"
	"testing"
)

// TestBadArgumentsKeepTheirCause: arguments that do not decode are an
// invalid_request whose chain holds the decoder's error.
func TestBadArgumentsKeepTheirCause(t *testing.T) {
	var v struct{ N int }
	err := decode(json.RawMessage(`{"N":`), &v)
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		t.Errorf("syntax: %v; want a *json.SyntaxError in its chain", err)
	}
	err = decode(json.RawMessage(`{"N":"x"}`), &v)
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) || te.Field != "N" {
		t.Errorf("type: %v; want a *json.UnmarshalTypeError about N in its chain", err)
	}
	if want := "invalid_request: bad arguments: cannot unmarshal string into Go struct field .N of type int"; err.Error() != want {
		t.Errorf("message %q, want %q", err.Error(), want)
	}
	if _, err := decodeWrite(json.RawMessage(`[`)); !errors.As(err, &se) {
		t.Errorf("fs_write: %v; want a *json.SyntaxError in its chain", err)
	}
}
