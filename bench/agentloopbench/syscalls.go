package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// retained counts the transactions the journal at root retains, as
// `txedit log --json` lists them.
func (b *bench) retained(root string) (int, error) {
	out, err := exec.Command(b.txedit, "log", "--json", "-n", "1000000000", "--root", root).Output()
	if err != nil {
		return 0, fmt.Errorf("txedit log: %v", err)
	}
	var txs []json.RawMessage
	if err := json.Unmarshal(out, &txs); err != nil {
		return 0, fmt.Errorf("txedit log --json: %v", err)
	}
	return len(txs), nil
}

// checkRetained counts and checks the journal after a loop of edits that began with k
// retained transactions: a dry run commits nothing; with k > 0 the loop ran
// with TXEDIT_KEEP=k, so at least k are retained (fewer means the server
// did not honour it) and at most k plus the loop's own; with k = 0 the
// default retention applies.
func (b *bench) checkRetained(root string, k, edits int, dry bool) (int, error) {
	got, err := b.retained(root)
	if err != nil {
		return 0, err
	}
	lo, hi := k, k+edits
	switch {
	case dry:
		hi = k
	case k == 0:
		lo = min(edits, defaultKeep)
	}
	if got < lo || got > hi {
		return got, fmt.Errorf("the journal retains %d transactions after %d edits that began with %d (TXEDIT_KEEP=%d); want %d to %d", got, edits, k, k, lo, hi)
	}
	return got, nil
}

// Where the system call table counts: the CLI process, and each MCP server
// attached after its read.
const (
	scCLI = "CLI edit (txedit apply --json -, the whole process)"
	scMCP = "MCP edit (the server process, attached after the read)"
)

// syscalls counts the system calls of one edit with strace -f -c, at
// every journal size, over min(-strace, -n) edits of
// the one file: per edit, by system call name.
func (b *bench) syscalls(root string) (map[key]map[string]float64, error) {
	m := min(b.straceEdits, b.n)
	edits := b.c.single[:m]
	sizes := b.journals
	out := map[key]map[string]float64{}
	traceFile := filepath.Join(b.dir, "strace.out")
	defer os.Remove(traceFile)
	for _, k := range sizes {
		// The CLI: each process traced from its start to its exit.
		if err := b.fresh(root, k); err != nil {
			return nil, err
		}
		env := os.Environ()
		for name, v := range txeditEnv(k, false) {
			env = append(env, name+"="+v)
		}
		sum := map[string]float64{}
		for _, e := range edits {
			req, err := json.Marshal(map[string]string{"command": "str_replace", "path": e.path, "old_str": e.old, "new_str": e.new})
			if err != nil {
				return nil, err
			}
			cmd := exec.Command(b.strace, "-f", "-c", "-o", traceFile, "--", b.txedit, "apply", "--json", "--root", root, "-")
			cmd.Stdin = bytes.NewReader(req)
			cmd.Env = env
			if out, err := cmd.CombinedOutput(); err != nil {
				return nil, fmt.Errorf("strace txedit apply: %v: %s", err, lastLines(string(out), 10))
			}
			counts, err := parseStrace(traceFile)
			if err != nil {
				return nil, err
			}
			for name, n := range counts {
				sum[name] += float64(n)
			}
		}
		if err := b.verify(root, k, edits, false); err != nil {
			return nil, err
		}
		out[key{scCLI, k, txedit}] = perEdit(sum, m)

		// Each MCP server, attached after the read.
		sides := []string{txedit, txeditFS}
		if b.official != "" {
			sides = append(sides, official)
		}
		for _, side := range sides {
			if err := b.fresh(root, k); err != nil {
				return nil, err
			}
			var calls []call
			for _, e := range edits {
				calls = append(calls, editCall(side, root, e, false))
			}
			os.Remove(traceFile)
			if _, err := b.runNode(map[string]any{"kind": "calls", "server": b.server(side, k, root, false),
				"reads": reads(side, root, edits), "calls": calls, "expect": "@@",
				"strace": map[string]string{"bin": b.strace, "out": traceFile}}); err != nil {
				return nil, err
			}
			if err := b.verify(root, k, edits, false); err != nil {
				return nil, err
			}
			counts, err := parseStrace(traceFile)
			if err != nil {
				return nil, err
			}
			sum := map[string]float64{}
			for name, n := range counts {
				sum[name] = float64(n)
			}
			out[key{scMCP, k, side}] = perEdit(sum, m)
		}
	}
	return out, nil
}

func perEdit(sum map[string]float64, n int) map[string]float64 {
	for name := range sum {
		sum[name] /= float64(n)
	}
	return sum
}

// parseStrace reads strace -c's summary: calls by system call name.
//
//	% time     seconds  usecs/call     calls    errors syscall
//	------ ----------- ----------- --------- --------- ----------------
//	 41.10    0.000516          11        46         2 openat
//	...
//	100.00    0.001255           8       140        12 total
func parseStrace(path string) (map[string]int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("strace -c output: %v", err)
	}
	counts := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 5 || f[0] == "%" || strings.HasPrefix(f[0], "-") {
			continue
		}
		name := f[len(f)-1]
		if name == "total" {
			continue
		}
		n, err := strconv.Atoi(f[3])
		if err != nil {
			continue
		}
		counts[name] += n
	}
	if len(counts) == 0 {
		return nil, fmt.Errorf("strace -c output %s holds no counts: %q", path, data)
	}
	return counts, nil
}

// fsCalls are the system calls on files, directories and descriptors
// counted as the file system's (by name: strace -c cannot tell a file's
// read from a pipe's, so the MCP server's reads of requests and writes of
// answers count here too). The rest is the runtime's: futex, nanosleep,
// epoll, signals, mmap, thread and process set-up.
var fsCalls = map[string]bool{}

func init() {
	for _, name := range strings.Fields(`open openat openat2 creat close close_range read pread64 readv preadv preadv2
		write pwrite64 writev pwritev pwritev2 lseek stat fstat lstat newfstatat statx statfs fstatfs
		fsync fdatasync syncfs sync sync_file_range rename renameat renameat2 unlink unlinkat mkdir mkdirat
		rmdir getdents getdents64 fcntl flock ftruncate truncate fallocate link linkat symlink symlinkat
		readlink readlinkat access faccessat faccessat2 chmod fchmod fchmodat chown fchown fchownat lchown
		utimensat futimesat utimes dup dup2 dup3 copy_file_range sendfile fadvise64 getcwd chdir fchdir
		ioctl getxattr fgetxattr lgetxattr setxattr fsetxattr inotify_add_watch name_to_handle_at`) {
		fsCalls[name] = true
	}
}
