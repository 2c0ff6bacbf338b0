package fsys

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestQuiet: with 64 MiB just written and not synced the system is not
// quiet (a syncfs would flush all of it); once synced it is quiet again,
// unless something else on the machine keeps writing.
func TestQuiet(t *testing.T) {
	if runtime.GOOS != "linux" {
		if Quiet() {
			t.Fatal("Quiet is true where /proc/meminfo is not read")
		}
		return
	}
	name := filepath.Join(t.TempDir(), "dirty")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	for i := range buf {
		buf[i] = byte(i)
	}
	for i := 0; i < 64; i++ {
		if _, err := f.Write(buf); err != nil {
			t.Fatal(err)
		}
	}
	if Quiet() {
		t.Errorf("quiet with 64 MiB unwritten")
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	t.Logf("quiet after fsync: %v", Quiet())
}
