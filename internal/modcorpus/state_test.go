package modcorpus_test

import (
	"os"
	"testing"

	"github.com/txedit/txedit/internal/teststate"
)

// TestMain gives the tests a key store of their own (internal/teststate):
// no test writes into the real home directory.
func TestMain(m *testing.M) {
	cleanup := teststate.Isolate()
	code := m.Run()
	cleanup()
	os.Exit(code)
}
