package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGrepOutputLikeRipgrep compares txedit grep's text output with
// rg --no-heading --sort path on the same files and flags.
func TestGrepOutputLikeRipgrep(t *testing.T) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("rg is not installed; .ci/run installs it")
		}
		t.Skip("rg not installed")
	}
	dir := t.TempDir()
	files := map[string]string{
		"a.txt":     "one\nfoo two\nthree\nfour\nfive\nfoo six\nseven\neight\nnine\nten\nfoo eleven\n",
		"b/b.txt":   "foo\nfoo\nbar\n",
		"c.txt":     "no match here\n",
		"d.txt":     "x\nstart\nmiddle\nend\ny\n",
		".hidden/h": "foo\n",
	}
	for name, data := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(data), 0o644)
	}
	cases := [][]string{
		{"-n", "foo"},
		{"-n", "-C", "2", "foo"},
		{"-n", "-A", "1", "foo"},
		{"-n", "-B", "3", "foo"},
		{"-c", "foo"},
		{"-l", "-i", "FOO"},
		{"-n", "-U", `start\nmiddle`},
		{"-n", "--hidden", "foo"},
	}
	for _, args := range cases {
		var out, errb bytes.Buffer
		code := run(append([]string{"grep", "--root", dir}, args...), strings.NewReader(""), &out, &errb)
		if code != 0 {
			t.Fatalf("txedit grep %v: exit %d: %s", args, code, errb.String())
		}
		cmd := exec.Command(rg, append([]string{"--no-config", "--no-heading", "--sort", "path"}, args...)...)
		cmd.Dir = dir
		want, err := cmd.Output()
		if err != nil {
			t.Fatalf("rg %v: %v", args, err)
		}
		if out.String() != string(want) {
			t.Errorf("txedit grep %v:\n%s\nrg:\n%s", args, out.String(), want)
		}
	}
}
