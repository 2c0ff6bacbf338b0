package fdtable

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// fdSize is the process's descriptor table's size (/proc/self/status).
func fdSize(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc:", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "FDSize:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no FDSize in /proc/self/status")
	return 0
}

// Reserve grows the table to Slots in one step, leaves no descriptor
// open, and does it once.
func TestReserve(t *testing.T) {
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil || lim.Cur < Slots {
		t.Skip("RLIMIT_NOFILE below", Slots)
	}
	if got := fdSize(t); got >= Slots {
		t.Fatalf("FDSize %d before Reserve", got)
	}
	fds := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Fatal(err)
		}
		return len(ents)
	}
	open := fds()
	Reserve()
	<-done
	Reserve() // once: done is not closed twice
	if got := fdSize(t); got != Slots {
		t.Errorf("FDSize %d after Reserve, want %d", got, Slots)
	}
	if got := fds(); got != open {
		t.Errorf("%d descriptors open after Reserve, %d before", got, open)
	}
}
