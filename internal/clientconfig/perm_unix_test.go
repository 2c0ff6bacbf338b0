//go:build !windows

package clientconfig

import (
	"io/fs"
	"os"
	"syscall"
	"testing"
)

func umask() fs.FileMode {
	old := syscall.Umask(0)
	syscall.Umask(old)
	return fs.FileMode(old)
}

func TestOwnerIsKeptWhenRunAsRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	c, _ := Lookup("claude-code")
	f := newFixture(t)
	path, _ := c.Path(User, "", *f.env)
	os.WriteFile(path, []byte(existing(c)), 0o600)
	if err := os.Chown(path, 4321, 4321); err != nil {
		t.Skip(err)
	}
	if _, err := Install(f.opts(c, User)); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(path)
	if st := fi.Sys().(*syscall.Stat_t); st.Uid != 4321 || st.Gid != 4321 {
		t.Errorf("owner %d:%d, want 4321:4321", st.Uid, st.Gid)
	}
}
