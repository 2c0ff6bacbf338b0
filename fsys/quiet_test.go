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
	// Another process's sync (a benchmark's syncfs, say) may write our
	// data back before Quiet looks: write it again, a few times, and ask
	// that Quiet saw it unwritten once.
	buf := make([]byte, 1<<20)
	for i := range buf {
		buf[i] = byte(i)
	}
	var f *os.File
	noisy := false
	for try := 0; try < 5 && !noisy; try++ {
		var err error
		f, err = os.Create(filepath.Join(t.TempDir(), "dirty"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		for i := 0; i < 64; i++ {
			if _, err := f.Write(buf); err != nil {
				t.Fatal(err)
			}
		}
		noisy = !Quiet()
	}
	if !noisy {
		t.Errorf("quiet with 64 MiB unwritten, five times in a row")
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	t.Logf("quiet after fsync: %v", Quiet())
}
