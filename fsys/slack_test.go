package fsys

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestTimestampSlack checks the assumption pattern_replace's racy-file
// rule rests on: a file written after time.Now() never carries a ctime
// earlier than that by more than TimestampSlack.
func TestTimestampSlack(t *testing.T) {
	dir := t.TempDir()
	slack := TimestampSlack(dir)
	t.Logf("slack of %s: %v", dir, slack)
	if got := TimestampSlack(filepath.Join(dir, "missing")); got != 3*time.Second {
		t.Errorf("unknown file system: %v, want 3s", got)
	}
	name := filepath.Join(dir, "f")
	worst := time.Duration(0)
	for i := 0; i < 500; i++ {
		before := time.Now()
		if err := os.WriteFile(name, []byte{byte(i)}, 0o644); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Lstat(name)
		if err != nil {
			t.Fatal(err)
		}
		if lag := before.Sub(time.Unix(0, IdentityOf(fi).Ctime)); lag > worst {
			worst = lag
		}
	}
	t.Logf("ctime lagged the clock by at most %v", worst)
	if worst > slack {
		t.Errorf("a ctime was %v behind the clock, more than the slack %v", worst, slack)
	}
}
