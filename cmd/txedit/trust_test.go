package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
)

// The fourth red-team audit of ce975ef (its findings 1, 2, 5, 6 and 7),
// each reproduced through the real binary: a repository that ships a
// journal, a journal planted in a shared parent, shared trees, wedged
// journals. docs/design.md, "What makes a journal trusted", says what the
// fix is; docs/testing.md lists these tests.

// mcpCalls starts bin mcp (args) with env, sends initialize and the tool
// calls (name, arguments) one at a time, each once the one before is
// answered, then closes its input, and returns the texts of the answers.
func mcpCalls(t *testing.T, bin string, env []string, args []string, calls ...[2]any) []string {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"mcp"}, args...)...)
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outp, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(outp)
	sc.Buffer(nil, 1<<24)
	enc := json.NewEncoder(in)
	answer := func(id int) string {
		for sc.Scan() {
			var msg struct {
				ID     *int `json:"id"`
				Result struct {
					Content []struct{ Text string } `json:"content"`
				} `json:"result"`
				Error *struct{ Message string } `json:"error"`
			}
			if json.Unmarshal(sc.Bytes(), &msg) != nil || msg.ID == nil || *msg.ID != id {
				continue
			}
			var b strings.Builder
			for _, c := range msg.Result.Content {
				b.WriteString(c.Text)
			}
			if msg.Error != nil {
				b.WriteString("error: " + msg.Error.Message)
			}
			return b.String()
		}
		return ""
	}
	enc.Encode(map[string]any{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "trust-test", "version": "1"}}})
	answer(0)
	enc.Encode(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	texts := make([]string, len(calls))
	for i, c := range calls {
		enc.Encode(map[string]any{"jsonrpc": "2.0", "id": i + 1, "method": "tools/call", "params": map[string]any{"name": c[0], "arguments": c[1]}})
		texts[i] = answer(i + 1)
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("txedit mcp %v: %v\n%s", args, err, stderr.Bytes())
	}
	return texts
}

// gitIn runs git in dir, failing the test if it fails.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.email=t@example.com", "-c", "user.name=t", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// envWith is the environment with XDG_STATE_HOME (whose key store) and
// HOME set.
func envWith(state, home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "XDG_STATE_HOME=") && !strings.HasPrefix(kv, "HOME=") {
			env = append(env, kv)
		}
	}
	return append(env, "XDG_STATE_HOME="+state, "HOME="+home)
}

const payload = "#!/bin/sh\necho PWNED\n"

// forgeJournal makes, in dir (a git repository with a.txt "hello"), what
// an attacker's txedit journal holds: a transaction, signed with the
// attacker's own key, that deleted PREFIX.git/hooks/pre-commit and
// PREFIX"setup.sh" (their payload in its before-images) and edited
// PREFIX"a.txt". pending turns it into one a crash interrupted (prepared,
// not committed), with a.txt put back, so that a recovery rolls it back
// and writes the payload; otherwise it stays committed, so that an undo
// does. It returns the transaction's id.
func forgeJournal(t *testing.T, bin, dir, prefix, state string, pending bool) string {
	t.Helper()
	for _, p := range []string{".git/hooks/pre-commit", "setup.sh"} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, prefix+p)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, prefix+p), []byte(payload), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	req := map[string]any{"fileEdits": []any{
		map[string]any{"path": prefix + ".git/hooks/pre-commit", "edits": []any{map[string]any{"command": "delete"}}},
		map[string]any{"path": prefix + "setup.sh", "edits": []any{map[string]any{"command": "delete"}}},
		map[string]any{"path": prefix + "a.txt", "edits": []any{map[string]any{"command": "str_replace", "old_str": "hello", "new_str": "bye"}}},
	}}
	out := mcpCalls(t, bin, envWith(state, filepath.Join(state, "home")), []string{"--root", dir, "--allow-git", "--no-read-check"}, [2]any{"fs_write", req})
	txns := filepath.Join(dir, ".txedit", "txns")
	ents, _ := os.ReadDir(txns)
	id := ""
	for _, e := range ents {
		if !strings.Contains(e.Name(), ".") {
			id = e.Name()
		}
	}
	if id == "" || !strings.Contains(out[0], id) {
		t.Fatalf("the attacker's commit: %q (transactions: %v)", out, ents)
	}
	if pending {
		os.Remove(filepath.Join(txns, id+".committed"))
		os.WriteFile(filepath.Join(txns, id+".prepared"), nil, 0o600)
		os.MkdirAll(filepath.Join(dir, ".txedit", "pending"), 0o700)
		os.WriteFile(filepath.Join(dir, ".txedit", "pending", id), nil, 0o600)
		os.Remove(filepath.Join(dir, ".txedit", "index"))
		os.WriteFile(filepath.Join(dir, prefix+"a.txt"), []byte("hello\n"), 0o644)
	}
	return id
}

// shippedClone is a fresh clone of a repository that ships a journal (see
// forgeJournal), made with the attacker's key store.
func shippedClone(t *testing.T, bin string, pending bool) string {
	t.Helper()
	base, _ := filepath.EvalSymlinks(t.TempDir())
	src := filepath.Join(base, "src")
	os.MkdirAll(src, 0o755)
	gitIn(t, src, "init", "-q", ".")
	os.WriteFile(filepath.Join(src, "a.txt"), []byte("hello\n"), 0o644)
	forgeJournal(t, bin, src, "", filepath.Join(base, "attacker"), pending)
	gitIn(t, src, "add", "-f", "a.txt", ".txedit")
	gitIn(t, src, "commit", "-q", "-m", "a repository that ships a journal")
	gitIn(t, base, "clone", "-q", "src", "clone")
	return filepath.Join(base, "clone")
}

// unchanged fails the test if anything in the clone changed: the payload
// was written, a.txt edited, or git sees any change (the shipped journal
// is tracked: a write into it shows).
func unchanged(t *testing.T, clone, after string, aTxt string) {
	t.Helper()
	for _, p := range []string{".git/hooks/pre-commit", "setup.sh"} {
		if _, err := os.Lstat(filepath.Join(clone, p)); err == nil {
			t.Errorf("after %s: %s was written", after, p)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(clone, "a.txt")); string(b) != aTxt {
		t.Errorf("after %s: a.txt = %q", after, b)
	}
	if st := gitIn(t, clone, "status", "--porcelain", "--ignored"); st != "" {
		t.Errorf("after %s: the clone changed:\n%s", after, st)
	}
}

// TestShippedJournalIsNeverActedOn (finding 1): a clone that ships a
// .txedit (its own key, a signed pending transaction) made the first
// txedit command in it — apply, a read tool, txedit mcp starting with its
// input closed — "roll back" that transaction: it wrote
// .git/hooks/pre-commit (mode 755), which the next git commit runs; txedit
// undo in a fresh clone "undid" a shipped transaction and made an
// executable setup.sh. Now nothing in such a journal is recovered, undone,
// redone or shown as trusted, on any surface, and writes beside it are
// refused, naming txedit journal adopt and remove.
func TestShippedJournalIsNeverActedOn(t *testing.T) {
	bin := txeditBinary(t)
	for _, pending := range []bool{true, false} {
		clone := shippedClone(t, bin, pending)
		aTxt := "bye\n"
		if pending {
			aTxt = "hello\n"
		}
		victim := t.TempDir()
		env := envWith(filepath.Join(victim, "state"), victim)
		surfaces := []struct {
			stdin string
			args  []string
			fails bool
		}{
			{"", []string{"grep", "e"}, false},
			{`{"file_path":"a.txt"}`, []string{"tool", "--toolset", "claude", "Read"}, false},
			{`{"mode":"Line","path":"a.txt"}`, []string{"read", "-"}, false},
			{"", []string{"log"}, false},
			{"", []string{"show"}, true},
			{"", []string{"undo"}, true},
			{"", []string{"redo"}, true},
			{"", []string{"recover"}, true},
			{"", []string{"gc"}, true},
			{`{"command":"create","path":"new.txt","file_text":"x\n"}`, []string{"apply", "-"}, true},
			{`{"file_path":"new.txt","content":"x\n"}`, []string{"tool", "--toolset", "claude", "Write"}, true},
			{"", []string{"mcp"}, false}, // started with its input closed
		}
		for _, s := range surfaces {
			cmd := exec.Command(bin, s.args...)
			cmd.Dir, cmd.Env, cmd.Stdin = clone, env, strings.NewReader(s.stdin)
			out, err := cmd.CombinedOutput()
			if (err != nil) != s.fails {
				t.Errorf("pending %v: txedit %v: %v\n%s", pending, s.args, err, out)
			}
			if s.fails && strings.Contains(strings.Join(s.args, " "), "apply") && !strings.Contains(string(out), "txedit journal adopt") {
				t.Errorf("pending %v: txedit %v does not say what to run: %s", pending, s.args, out)
			}
			unchanged(t, clone, fmt.Sprint(s.args), aTxt)
		}
		// txedit mcp, a read and an undo through it.
		texts := mcpCalls(t, bin, env, []string{"--root", clone}, [2]any{"fs_read", map[string]any{"mode": "Line", "path": "a.txt"}}, [2]any{"undo", map[string]any{}})
		if !strings.Contains(texts[0], strings.TrimSpace(aTxt)) || strings.Contains(texts[1], `"success": true`) || strings.Contains(texts[1], `"success":true`) {
			t.Errorf("pending %v: over MCP: %q", pending, texts)
		}
		unchanged(t, clone, "txedit mcp", aTxt)
	}
}

// TestShippedJournalThroughTheLibrary: the same clone opened with the Go
// library (this process's key store is not the attacker's): Open recovers
// nothing, Apply and Undo refuse.
func TestShippedJournalThroughTheLibrary(t *testing.T) {
	bin := txeditBinary(t)
	clone := shippedClone(t, bin, true)
	r := runStdin(`{"command":"create","path":"new.txt","file_text":"x\n"}`, "apply", "--root", clone, "-")
	if r.code == 0 || !strings.Contains(r.stdout+r.stderr, "untrusted_journal") && !strings.Contains(r.stdout+r.stderr, "not trusted") && !strings.Contains(r.stdout+r.stderr, "journal adopt") {
		t.Errorf("apply through the library: %+v", r)
	}
	if r := runCLI("undo", "--root", clone); r.code == 0 {
		t.Errorf("undo through the library: %+v", r)
	}
	unchanged(t, clone, "the library", "hello\n")
}

// asUser runs bin as uid (with group 100, users, besides its own) with
// its own key store, and returns its output and error.
func asUser(t *testing.T, uid int, dir, stdin, bin string, args ...string) (string, error) {
	t.Helper()
	// One key store per user and test, as a user has one.
	state := filepath.Join(os.TempDir(), fmt.Sprintf("txedit-trust-state-%d-%s", uid, strings.ReplaceAll(t.Name(), "/", "_")))
	if _, err := os.Stat(state); err != nil {
		os.MkdirAll(state, 0o700)
		os.Chown(state, uid, uid)
		t.Cleanup(func() { os.RemoveAll(state) })
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Env = envWith(filepath.Join(state, "s"), state)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid), Groups: []uint32{100}}}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// usersTree is a directory every user may enter, with bin copied into it
// (the built binary's directory is root's alone).
func usersTree(t *testing.T) (base, bin string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("skipped: runs txedit as other users (nobody, uid 1000), which needs root")
	}
	base, _ = filepath.EvalSymlinks(t.TempDir())
	os.Chmod(filepath.Dir(base), 0o755)
	os.Chmod(base, 0o755)
	built := txeditBinary(t)
	os.MkdirAll(filepath.Join(base, "bin"), 0o755)
	for _, name := range []string{"txedit", "txedit-mcp"} {
		data, err := os.ReadFile(filepath.Join(filepath.Dir(built), name))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(base, "bin", name), data, 0o755)
	}
	return base, filepath.Join(base, "bin", "txedit")
}

const victim, attacker = 65534, 1000 // nobody, and another user

// listing is every name under dir with its size, for "nothing changed".
func listing(t *testing.T, dir string) string {
	t.Helper()
	var out []string
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil {
			out = append(out, fmt.Sprintf("%s %d %v", p, fi.Size(), fi.Mode()))
		}
		return nil
	})
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// TestPlantedParentJournal (finding 2): discovery took the nearest
// .txedit above, so another user's .txedit in a shared parent (a /tmp)
// captured a user's apply inside her own git repository: her
// before-images went into the other user's directory, recovery of the
// other user's forged transaction made her .git/hooks/pre-commit, undo in
// one repository reverted another's change, a 0700 .txedit there blocked
// her writes, and mcp install wrote the attacker's .mcp.json in the
// parent. Discovery now stops where git stops.
func TestPlantedParentJournal(t *testing.T) {
	base, bin := usersTree(t)
	shared := filepath.Join(base, "tmp")
	os.Mkdir(shared, 0o755)
	os.Chmod(shared, 0o777|os.ModeSticky)

	// The attacker forges a pending transaction in a tree of its own
	// shaped like the victim's repository, and plants that journal in
	// the shared parent, open to all.
	mirror := filepath.Join(base, "mirror")
	os.MkdirAll(filepath.Join(mirror, "v/.git"), 0o755)
	os.WriteFile(filepath.Join(mirror, "v/a.txt"), []byte("hello\n"), 0o644)
	astate := filepath.Join(base, "attacker-state")
	forgeJournal(t, bin, mirror, "v/", astate, true)
	for _, p := range []string{mirror, astate} {
		exec.Command("chown", "-R", fmt.Sprint(attacker), p).Run()
	}
	if out, err := asUser(t, attacker, base, "", "/bin/cp", "-a", filepath.Join(mirror, ".txedit"), filepath.Join(shared, ".txedit")); err != nil {
		t.Fatalf("planting: %v %s", err, out)
	}
	exec.Command("chmod", "-R", "a+rwX", filepath.Join(shared, ".txedit")).Run()
	planted := listing(t, filepath.Join(shared, ".txedit"))

	// The victim's repositories under the shared parent.
	for _, r := range []string{"v", "v2"} {
		os.MkdirAll(filepath.Join(shared, r, "sub"), 0o755)
		os.WriteFile(filepath.Join(shared, r, "a.txt"), []byte("hello\n"), 0o644)
		os.WriteFile(filepath.Join(shared, r, "sub/f.txt"), []byte("one\n"), 0o644)
		gitIn(t, filepath.Join(shared, r), "init", "-q", ".")
	}
	os.MkdirAll(filepath.Join(shared, "w"), 0o755)
	exec.Command("chown", "-R", fmt.Sprint(victim), filepath.Join(shared, "v"), filepath.Join(shared, "v2"), filepath.Join(shared, "w")).Run()

	edit := `{"command":"str_replace","path":"f.txt","old_str":"one","new_str":"two"}`
	if out, err := asUser(t, victim, filepath.Join(shared, "v/sub"), edit, bin, "apply", "-"); err != nil {
		t.Errorf("apply in her repository: %v\n%s", err, out)
	}
	if _, err := os.Lstat(filepath.Join(shared, "v/.git/hooks/pre-commit")); err == nil {
		t.Error("the planted journal's transaction wrote her .git/hooks/pre-commit")
	}
	if _, err := os.Stat(filepath.Join(shared, "v/.txedit")); err != nil {
		t.Errorf("her repository has no journal of its own: %v", err)
	}
	// Undo in her other repository touches nothing of the first.
	if out, err := asUser(t, victim, filepath.Join(shared, "v2/sub"), "", bin, "undo"); err == nil {
		t.Errorf("undo in v2 undid something: %s", out)
	}
	if b, _ := os.ReadFile(filepath.Join(shared, "v/sub/f.txt")); string(b) != "two\n" {
		t.Errorf("v/sub/f.txt = %q after an undo in v2", b)
	}
	// Outside any repository: the current directory, and it says why.
	out, err := asUser(t, victim, filepath.Join(shared, "w"), `{"command":"create","path":"n.txt","file_text":"x\n"}`, bin, "apply", "-")
	if err != nil || !strings.Contains(out, "ignoring "+filepath.Join(shared, ".txedit")) {
		t.Errorf("apply in w: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(shared, "w/n.txt")); err != nil {
		t.Error(err)
	}
	// mcp install writes where the workspace is, never in the parent.
	for _, d := range []string{"w", "v/sub"} {
		if out, err := asUser(t, victim, filepath.Join(shared, d), "", bin, "mcp", "install", "--client", "cursor", "--command", bin); err != nil {
			t.Errorf("mcp install in %s: %v\n%s", d, err, out)
		}
	}
	for _, p := range []string{"w/.cursor/mcp.json", "v/.cursor/mcp.json"} {
		if _, err := os.Stat(filepath.Join(shared, p)); err != nil {
			t.Errorf("mcp install: %v", err)
		}
	}
	if _, err := os.Stat(filepath.Join(shared, ".cursor")); err == nil {
		t.Error("mcp install wrote in the shared parent")
	}
	if now := listing(t, filepath.Join(shared, ".txedit")); now != planted {
		t.Errorf("the planted journal changed:\n%s\nwas:\n%s", now, planted)
	}

	// A 0700 .txedit of another user's, or its lock held, blocks nothing.
	exec.Command("chmod", "-R", "go-rwx", filepath.Join(shared, ".txedit")).Run()
	hold := exec.Command("flock", "-x", filepath.Join(shared, ".txedit", "LOCK"), "sleep", "60")
	hold.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: attacker, Gid: attacker}}
	if err := hold.Start(); err == nil {
		defer func() { hold.Process.Kill(); hold.Wait() }()
	}
	edit = `{"command":"str_replace","path":"f.txt","old_str":"two","new_str":"three"}`
	if out, err := asUser(t, victim, filepath.Join(shared, "v/sub"), edit, bin, "apply", "-"); err != nil {
		t.Errorf("apply beside a 0700, locked planted journal: %v\n%s", err, out)
	}
}

// TestForeignOwnedJournalIsRefused: a .txedit of another user's in the
// workspace itself is never used; a write says whose it is and what to do.
func TestForeignOwnedJournalIsRefused(t *testing.T) {
	base, bin := usersTree(t)
	w := filepath.Join(base, "w")
	os.MkdirAll(w, 0o755)
	os.WriteFile(filepath.Join(w, "a.txt"), []byte("one\n"), 0o666)
	os.Chmod(w, 0o777)
	if out, err := asUser(t, attacker, w, "", "/bin/mkdir", "-m", "777", ".txedit"); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	out, err := asUser(t, victim, w, `{"command":"str_replace","path":"a.txt","old_str":"one","new_str":"two"}`, bin, "apply", "-")
	if err == nil || !strings.Contains(out, "another user") || !strings.Contains(out, "--root") {
		t.Errorf("a write beside another user's journal: %v\n%s", err, out)
	}
	if ents, _ := os.ReadDir(filepath.Join(w, ".txedit")); len(ents) != 0 {
		t.Errorf("something was written into another user's journal: %v", ents)
	}
}

// TestSharedTree (finding 5): in a group-writable directory, one user's
// edit of another's group-writable file changed its group (the owner lost
// write access), and the first user's write made .txedit 0700, so every
// other user's txedit write there failed. Now the journal is shared (each
// user's part their own) and an edit keeps the file's group and mode.
func TestSharedTree(t *testing.T) {
	base, bin := usersTree(t)
	w := filepath.Join(base, "team")
	os.MkdirAll(w, 0o775)
	os.Chown(w, 0, 100)
	os.Chmod(w, 0o775) // group-writable, not setgid: the group is kept by txedit, not by the directory
	f := filepath.Join(w, "a.txt")
	os.WriteFile(f, []byte("one\n"), 0o664)
	os.Chown(f, attacker, 100)
	os.Chmod(f, 0o664)
	step := func(uid int, from, to string) {
		t.Helper()
		req := fmt.Sprintf(`{"command":"str_replace","path":"a.txt","old_str":%q,"new_str":%q}`, from, to)
		if out, err := asUser(t, uid, w, req, bin, "apply", "-"); err != nil {
			t.Fatalf("uid %d's edit: %v\n%s", uid, err, out)
		}
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if st := fi.Sys().(*syscall.Stat_t); st.Gid != 100 || fi.Mode().Perm() != 0o664 {
			t.Errorf("after uid %d's edit: group %d mode %v, want 100 (users) 0664", uid, st.Gid, fi.Mode().Perm())
		}
	}
	step(victim, "one", "two")     // another user's file: its group stays
	step(attacker, "two", "three") // the first user's journal does not stop the second
	step(victim, "three", "four")
	if b, _ := os.ReadFile(f); string(b) != "four\n" {
		t.Errorf("a.txt = %q", b)
	}
	// Each user's undo takes back that user's own last edit.
	if out, err := asUser(t, victim, w, "", bin, "undo"); err != nil {
		t.Errorf("undo: %v\n%s", err, out)
	}
	if b, _ := os.ReadFile(f); string(b) != "three\n" {
		t.Errorf("after nobody's undo: %q", b)
	}
}

// TestWedgedJournalIsRepaired (finding 6): .txedit as a symbolic link or
// a regular file, and a key that is garbage, empty or a directory, made
// every write fail, and txedit recover did not repair them. The journal
// directory's wedges are repaired by txedit recover (moved aside, never
// followed); a key inside the tree is an older txedit's and is never read
// by writes; a damaged entry in the user's key store gets a new key.
func TestWedgedJournalIsRepaired(t *testing.T) {
	create := func(dir, name string) cliResult {
		return runStdin(`{"command":"create","path":"`+name+`","file_text":"x\n"}`, "apply", "--root", dir, "-")
	}
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "keep.txt"), []byte("keep\n"), 0o644)
	wedges := map[string]func(dir string){
		"symlink": func(dir string) { os.Symlink(outside, filepath.Join(dir, ".txedit")) },
		"file":    func(dir string) { os.WriteFile(filepath.Join(dir, ".txedit"), []byte("not a journal\n"), 0o644) },
		"garbage key": func(dir string) {
			create(dir, "first")
			os.WriteFile(filepath.Join(dir, ".txedit/key"), []byte("garbage\n"), 0o600)
		},
		"empty key": func(dir string) { create(dir, "first"); os.WriteFile(filepath.Join(dir, ".txedit/key"), nil, 0o600) },
		"key dir": func(dir string) {
			create(dir, "first")
			os.Remove(filepath.Join(dir, ".txedit/key"))
			os.Mkdir(filepath.Join(dir, ".txedit/key"), 0o700)
		},
	}
	for name, wedge := range wedges {
		dir := t.TempDir()
		wedge(dir)
		create(dir, "before-recover") // may be refused; it must not write through the wedge
		if r := runCLI("recover", "--root", dir); r.code != 0 {
			t.Errorf("%s: recover: %+v", name, r)
		}
		if r := create(dir, "after-recover"); r.code != 0 {
			t.Errorf("%s: a write after recover: %+v", name, r)
		}
		if ents, _ := os.ReadDir(outside); len(ents) != 1 {
			t.Errorf("%s: something was written through the link: %v", name, ents)
		}
	}
}

// TestDamagedKeyEntryIsRepaired: this user's key store entry for a
// journal, garbage, empty or a directory, stops writes with the command
// that repairs it; txedit recover gives the journal a new key.
func TestDamagedKeyEntryIsRepaired(t *testing.T) {
	for _, damage := range []string{"garbage", "empty", "directory"} {
		dir := t.TempDir()
		if r := runStdin(`{"command":"create","path":"a","file_text":"x\n"}`, "apply", "--root", dir, "-"); r.code != 0 {
			t.Fatal(r)
		}
		id, err := os.ReadFile(filepath.Join(dir, ".txedit/id"))
		if err != nil {
			t.Fatal(err)
		}
		entry := filepath.Join(os.Getenv("XDG_STATE_HOME"), "txedit", "journals", strings.TrimSpace(string(id)))
		os.Remove(entry)
		switch damage {
		case "garbage":
			os.WriteFile(entry, []byte("garbage"), 0o600)
		case "empty":
			os.WriteFile(entry, nil, 0o600)
		case "directory":
			os.Mkdir(entry, 0o700)
		}
		r := runStdin(`{"command":"create","path":"b","file_text":"x\n"}`, "apply", "--root", dir, "-")
		if r.code == 0 || !strings.Contains(r.stderr, "txedit recover") {
			t.Errorf("%s: a write with the entry damaged: %+v", damage, r)
		}
		if r := runCLI("recover", "--root", dir); r.code != 0 || !strings.Contains(r.stdout, "new key") {
			t.Errorf("%s: recover: %+v", damage, r)
		}
		if r := runStdin(`{"command":"create","path":"b","file_text":"x\n"}`, "apply", "--root", dir, "-"); r.code != 0 {
			t.Errorf("%s: a write after recover: %+v", damage, r)
		}
	}
}

// TestRedoIsAStack (finding 7): a second txedit redo reverted the first
// redo instead of redoing the next undo. Redo redoes the newest undo not
// yet redone, as an editor's redo does.
func TestRedoIsAStack(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"one", "two"} {
		if r := runStdin(`{"command":"create","path":"`+n+`","file_text":"x\n"}`, "apply", "--root", dir, "-"); r.code != 0 {
			t.Fatal(r)
		}
	}
	exists := func(n string) bool { _, err := os.Stat(filepath.Join(dir, n)); return err == nil }
	for i, want := range []struct {
		cmd      string
		one, two bool
	}{{"undo", true, false}, {"undo", false, false}, {"redo", true, false}, {"redo", true, true}} {
		if r := runCLI(want.cmd, "--root", dir); r.code != 0 {
			t.Fatalf("step %d (%s): %+v", i, want.cmd, r)
		}
		if exists("one") != want.one || exists("two") != want.two {
			t.Fatalf("after step %d (%s): one %v two %v, want %v %v", i, want.cmd, exists("one"), exists("two"), want.one, want.two)
		}
	}
	if r := runCLI("redo", "--root", dir); r.code == 0 || !strings.Contains(r.stderr, "nothing to redo") {
		t.Errorf("a third redo: %+v", r)
	}
	// And undo after the redos walks back again, newest first.
	if r := runCLI("undo", "--root", dir); r.code != 0 || exists("two") || !exists("one") {
		t.Errorf("undo after the redos: %+v", r)
	}
}

// TestJournalCommand: txedit journal says whose the journal is; adopt
// trusts a copy of one's own journal (its history stays undoable there);
// remove deletes a foreign one, after which writes make a journal of
// one's own.
func TestJournalCommand(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.Mkdir(a, 0o755)
	if r := runCLI("journal", "--root", a); r.code != 0 || !strings.Contains(r.stdout, "no journal yet") {
		t.Errorf("journal before any write: %+v", r)
	}
	if r := runStdin(`{"command":"create","path":"f","file_text":"x\n"}`, "apply", "--root", a, "-"); r.code != 0 {
		t.Fatal(r)
	}
	if r := runCLI("journal", "--root", a); r.code != 0 || !strings.Contains(r.stdout, "is yours") {
		t.Errorf("journal after a write: %+v", r)
	}
	if out, err := exec.Command("cp", "-a", a, b).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	r := runCLI("journal", "--root", b, "--json")
	if r.code != 0 || !strings.Contains(r.stdout, `"standing": "foreign"`) || !strings.Contains(r.stdout, "copy") {
		t.Errorf("journal of a copy: %+v", r)
	}
	if r := runCLI("undo", "--root", b); r.code == 0 || !strings.Contains(r.stderr, "txedit journal adopt") {
		t.Errorf("undo in the copy before adopting: %+v", r)
	}
	if r := runCLI("journal", "adopt", "--root", b); r.code != 0 || !strings.Contains(r.stdout, "trusted 1 transaction") {
		t.Errorf("adopt: %+v", r)
	}
	if r := runCLI("undo", "--root", b); r.code != 0 {
		t.Errorf("undo in the adopted copy: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(b, "f")); err == nil {
		t.Error("the undo in the copy did not remove f")
	}
	if _, err := os.Stat(filepath.Join(a, "f")); err != nil {
		t.Errorf("the undo in the copy touched the original: %v", err)
	}
	// A shipped journal: removed, and the next write makes one's own.
	clone := shippedClone(t, txeditBinary(t), true)
	if r := runCLI("journal", "remove", "--root", clone); r.code != 0 {
		t.Errorf("remove: %+v", r)
	}
	if r := runStdin(`{"command":"create","path":"n","file_text":"x\n"}`, "apply", "--root", clone, "-"); r.code != 0 {
		t.Errorf("a write after remove: %+v", r)
	}
	if r := runCLI("journal", "--root", clone); !strings.Contains(r.stdout, "is yours") {
		t.Errorf("journal after remove and a write: %+v", r)
	}
	for _, p := range []string{".git/hooks/pre-commit", "setup.sh"} {
		if _, err := os.Lstat(filepath.Join(clone, p)); err == nil {
			t.Errorf("%s was written", p)
		}
	}
}
