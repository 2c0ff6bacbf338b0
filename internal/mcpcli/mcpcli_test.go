package mcpcli

import (
	"fmt"
	"strings"
	"testing"
)

// TestRecoveredMessage: what a command says of a transaction recovery
// ended when it opened the workspace tells a rollback from a transaction
// finished forward (journal/forward.go), which is committed.
func TestRecoveredMessage(t *testing.T) {
	for _, tc := range []struct {
		finished  bool
		conflicts int
		damaged   string
		want      []string
		not       string
	}{
		{false, 0, "", []string{"rolled back transaction T1", "before its commit point"}, "committed"},
		{true, 0, "", []string{"finished transaction T1", "it is committed"}, "rolled back"},
		{true, 2, "", []string{"finished transaction T1", "2 file(s) changed by others were left alone", "txedit show T1"}, "rolled back"},
		{false, 0, "bad mac", []string{"damaged manifest (bad mac)"}, "finished"},
	} {
		got := RecoveredMessage("T1", tc.finished, tc.conflicts, tc.damaged)
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%+v: %q does not say %q", tc, got, w)
			}
		}
		if strings.Contains(got, tc.not) {
			t.Errorf("%+v: %q says %q", tc, got, tc.not)
		}
	}
}

// TestConfigRoundTrip: what txedit mcp passes txedit-mcp (Args) parses
// back to the same configuration, the language server too.
func TestConfigRoundTrip(t *testing.T) {
	c := &Config{Toolset: "txedit", Dirs: []string{"/a", "b"}, ReadOnly: true, AllowGit: true, NoReadCheck: true,
		DenyRead: []string{"*.key"}, DenyWrite: []string{"vendor/**"}, Agent: "me", Server: "rust-analyzer --log x"}
	got, err := Parse(c.Args())
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", c) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, c)
	}
}
