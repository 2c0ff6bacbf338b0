package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/txedit/txedit/internal/buildinfo"
)

func TestVersionCommand(t *testing.T) {
	var out1, out2, errb bytes.Buffer
	if code := run([]string{"version"}, nil, &out1, &errb); code != 0 {
		t.Fatalf("version: exit %d, stderr %s", code, errb.String())
	}
	if code := run([]string{"--version"}, nil, &out2, &errb); code != 0 {
		t.Fatalf("--version: exit %d, stderr %s", code, errb.String())
	}
	line := strings.TrimSpace(out1.String())
	if out1.String() != out2.String() {
		t.Errorf("version and --version differ:\n%s\n%s", out1.String(), out2.String())
	}
	want := buildinfo.Read()
	if !strings.HasPrefix(line, "txedit "+want.Version) || !strings.HasSuffix(line, runtime.Version()+" "+runtime.GOOS+"/"+runtime.GOARCH) {
		t.Errorf("version printed %q", line)
	}

	var js bytes.Buffer
	if code := run([]string{"version", "--json"}, nil, &js, &errb); code != 0 {
		t.Fatalf("version --json: exit %d", code)
	}
	var got buildinfo.Info
	if err := json.Unmarshal(js.Bytes(), &got); err != nil {
		t.Fatalf("version --json: %v\n%s", err, js.String())
	}
	if got != want {
		t.Errorf("version --json = %+v, want %+v", got, want)
	}

	if code := run([]string{"version", "extra"}, nil, &js, &errb); code != 2 {
		t.Errorf("version extra: exit %d, want 2", code)
	}
}

// A binary built in the git clone carries the commit it was built from.
func TestVersionBuildStampsRevision(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	dirs, err := exec.Command(git, "rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir").Output()
	if err != nil {
		t.Skipf("not in a git checkout: %v", err)
	}
	if d := strings.Fields(string(dirs)); len(d) != 2 || d[0] != d[1] {
		// The go command looks for a .git directory; a linked worktree
		// has a .git file, so its builds carry no VCS information.
		t.Skip("a linked git worktree: go build stamps no VCS information there (golang/go#58218)")
	}
	head, err := exec.Command(git, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "txedit")
	build := exec.Command("go", "build", "-buildvcs=true", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version", "--json").Output()
	if err != nil {
		t.Fatalf("txedit version: %v", err)
	}
	var in buildinfo.Info
	if err := json.Unmarshal(out, &in); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if in.Revision != strings.TrimSpace(string(head)) {
		t.Errorf("revision %q, want HEAD %s", in.Revision, head)
	}
	if in.Module != "github.com/txedit/txedit" || in.Version == buildinfo.Devel || in.Time == "" {
		t.Errorf("version --json = %+v: want the module, a (pseudo-)version and the commit time", in)
	}
	if in.Modified != strings.HasSuffix(in.Version, "+dirty") {
		t.Errorf("modified %v but version %q", in.Modified, in.Version)
	}
	line, err := exec.Command(bin, "--version").Output()
	if err != nil || len(in.Revision) < 12 || !strings.Contains(string(line), "revision "+in.Revision[:12]) {
		t.Errorf("txedit --version = %q (%v)", line, err)
	}
}

// TestProfiles: a txedit built with -tags txedit_pprof writes the CPU and
// allocation profiles TXEDIT_CPUPROFILE and TXEDIT_MEMPROFILE ask for, and
// the execution trace TXEDIT_TRACE asks for; the
// default build (which leaves the profiler out: docs/design.md, "Process
// start") says it cannot, instead of leaving the files missing in silence.
func TestProfiles(t *testing.T) {
	dir := t.TempDir()
	tagged := filepath.Join(dir, "txedit-pprof")
	if out, err := exec.Command("go", "build", "-tags", "txedit_pprof", "-o", tagged, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build -tags txedit_pprof: %v\n%s", err, out)
	}
	for _, c := range []struct {
		bin  string
		want bool
	}{{tagged, true}, {txeditBinary(t), false}} {
		cpu, mem, trace := filepath.Join(dir, "cpu.prof"), filepath.Join(dir, "mem.prof"), filepath.Join(dir, "trace.out")
		os.Remove(cpu)
		os.Remove(mem)
		os.Remove(trace)
		cmd := exec.Command(c.bin, "version")
		cmd.Env = append(os.Environ(), "TXEDIT_CPUPROFILE="+cpu, "TXEDIT_MEMPROFILE="+mem, "TXEDIT_TRACE="+trace)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s version: %v\n%s", c.bin, err, stderr.String())
		}
		for _, f := range []string{cpu, mem, trace} {
			fi, err := os.Stat(f)
			if got := err == nil && fi.Size() > 0; got != c.want {
				t.Errorf("%s: profile %s written: %v, want %v", filepath.Base(c.bin), filepath.Base(f), got, c.want)
			}
		}
		if warned := strings.Contains(stderr.String(), "-tags txedit_pprof"); warned == c.want {
			t.Errorf("%s: stderr %q", filepath.Base(c.bin), stderr.String())
		}
	}
}
