// Package goplstest builds, for the tests, the gopls that
// internal/tools/gopls's module pins: once per test binary, into a
// temporary directory (Go's build cache makes every build after the first
// a link). The txedit binaries never link gopls; users bring their own
// (docs/lsp.md).
package goplstest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// Version is the gopls release the tests pin.
const Version = "v0.23.0"

var (
	once  sync.Once
	bin   string
	fault string
)

// ToolsModule returns the directory of the module that pins gopls.
func ToolsModule() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "tools", "gopls")
}

// Path returns the pinned gopls, building it the first time; a build that
// fails fails the test, saying how to fill the module cache.
func Path(t testing.TB) string {
	t.Helper()
	once.Do(build)
	if fault != "" {
		t.Fatal(fault)
	}
	return bin
}

func build() {
	dir, err := os.MkdirTemp("", "txedit-gopls-")
	if err != nil {
		fault = err.Error()
		return
	}
	out := filepath.Join(dir, "gopls")
	cmd := exec.Command("go", "build", "-o", out, "golang.org/x/tools/gopls")
	cmd.Dir = ToolsModule()
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly")
	if msg, err := cmd.CombinedOutput(); err != nil {
		fault = "building gopls " + Version + " for the tests (go build golang.org/x/tools/gopls in " + cmd.Dir + "): " + err.Error() + "\n" + string(msg) +
			"\nThe first build needs the module cache filled: run `go -C internal/tools/gopls mod download` once with the module proxy reachable."
		os.RemoveAll(dir)
		return
	}
	v, err := exec.Command(out, "version").Output()
	if err != nil || !strings.Contains(string(v), Version) {
		fault = "the gopls built for the tests says " + strings.TrimSpace(string(v)) + ", not " + Version
		os.RemoveAll(dir)
		return
	}
	bin = out
}

// Cleanup removes the binary Path built (a TestMain calls it after the
// tests ran).
func Cleanup() {
	if bin != "" {
		os.RemoveAll(filepath.Dir(bin))
	}
}
