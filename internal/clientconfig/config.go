package clientconfig

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/txedit/txedit/apply"
)

// DefaultName is the key of txedit's entry unless told otherwise.
const DefaultName = "txedit"

// Server is the entry for a stdio MCP server: the command the client
// starts and its arguments.
type Server struct {
	Command string
	Args    []string
}

// entry is the JSON of s in c's configuration, keys in the order the
// clients' own documentation writes them.
func (c *Client) entry(s Server) object {
	var e object
	if c.Type {
		e = append(e, field{"type", "stdio"})
	}
	args := s.Args
	if args == nil {
		args = []string{}
	}
	return append(e, field{"command", s.Command}, field{"args", args})
}

// Options says which file to change and how.
type Options struct {
	Client  *Client
	Scope   Scope  // "" for the client's default scope
	Project string // the project directory (absolute), for project scope
	Name    string // the entry's key; "" for DefaultName
	Server  Server // what Install writes
	File    string // a file to edit instead of the client's documented one
	DryRun  bool   // compute the change, write nothing
	Env     *Env   // where user-scope files are; nil for HostEnv()
}

// Action is what a change did (or, in a dry run, would do).
type Action string

const (
	Added     Action = "added"     // the entry is new
	Updated   Action = "updated"   // an entry of that name was changed
	Unchanged Action = "unchanged" // the entry was already as asked
	Removed   Action = "removed"   // the entry was removed
	Absent    Action = "absent"    // there was no entry to remove
)

// Change is the outcome of Install or Uninstall.
type Change struct {
	Client  *Client
	Scope   Scope
	Name    string
	Path    string // the configuration file
	Target  string // the file holding the bytes: Path, or where its symbolic link points
	Action  Action
	Old     []byte // the file's content before; nil if it did not exist
	New     []byte // the content after (equal to Old when nothing changes)
	Written bool   // the file was replaced (false in a dry run or without a change)
}

// Diff renders the change as a unified diff of the file; "" if nothing
// changes.
func (c *Change) Diff() string {
	from := c.Path
	if c.Old == nil {
		from = "/dev/null"
	}
	return apply.Plain(from, c.Path, c.Old, c.New)
}

// MalformedError is a configuration file that txedit cannot edit safely:
// it does not parse, or its shape is not the client's. The file is left
// as it was.
type MalformedError struct {
	Path string
	Err  error
}

func (e *MalformedError) Error() string {
	var se *SyntaxError
	if errors.As(e.Err, &se) {
		return fmt.Sprintf("%s is not valid JSON (%v); it was left unchanged: fix it, or move it aside, and run again", e.Path, e.Err)
	}
	return fmt.Sprintf("%s cannot take the entry: %v; it was left unchanged", e.Path, e.Err)
}

func (e *MalformedError) Unwrap() error { return e.Err }

// ReadOnlyError is a configuration file (or the directory it would be
// created in) that is not writable. Nothing was changed.
type ReadOnlyError struct {
	Path string
	Dir  bool
}

func (e *ReadOnlyError) Error() string {
	if e.Dir {
		return fmt.Sprintf("the directory %s is read-only, so the configuration file cannot be written there; nothing was changed", e.Path)
	}
	return fmt.Sprintf("%s is read-only; it was left unchanged (make it writable, or add the entry by hand)", e.Path)
}

// Install adds the server entry to the client's configuration, or updates
// an entry of the same name: its "type", "command" and "args" are set and
// every other key of it (env, disabled, …) is kept.
func Install(o Options) (*Change, error) {
	unlock, err := lockFor(o)
	if err != nil {
		return nil, err
	}
	defer unlock()
	ch, f, err := start(o)
	if err != nil {
		return nil, err
	}
	ch.New, ch.Action, err = installBytes(f.data, f.exists, o.Client, ch.Name, o.Server)
	if err != nil {
		return nil, &MalformedError{Path: ch.Path, Err: err}
	}
	return finish(o, ch, f)
}

// Uninstall removes the entry; Action is Absent if there was none (and
// the file is not touched).
func Uninstall(o Options) (*Change, error) {
	unlock, err := lockFor(o)
	if err != nil {
		return nil, err
	}
	defer unlock()
	ch, f, err := start(o)
	if err != nil {
		return nil, err
	}
	ch.New, ch.Action, err = uninstallBytes(f.data, f.exists, o.Client, ch.Name)
	if err != nil {
		return nil, &MalformedError{Path: ch.Path, Err: err}
	}
	return finish(o, ch, f)
}

// lockFor serialises txedit's writers of o's configuration file: an
// install reads the file, edits it and replaces it, so two at once each
// kept only its own entry (of 8 concurrent installs 2 to 6 entries
// survived). The lock is an flock of the file's directory
// (or its nearest existing ancestor, when the directory is yet to be
// made): directories are not replaced, so every writer locks the same
// inode, and no lock file is left in the user's configuration directory.
// Clients that rewrite their own files take no such lock; the check
// before the replace catches them.
func lockFor(o Options) (func(), error) {
	if o.Client == nil || o.DryRun {
		return func() {}, nil
	}
	env := o.Env
	if env == nil {
		h := HostEnv()
		env = &h
	}
	path, err := o.Client.Path(o.Scope, o.Project, *env)
	if o.File != "" {
		path, err = filepath.Abs(o.File)
	}
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(path)
	for {
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			break
		}
		up := filepath.Dir(dir)
		if up == dir {
			break
		}
		dir = up
	}
	return lockDir(dir)
}

func start(o Options) (*Change, *file, error) {
	if o.Client == nil {
		return nil, nil, &UsageError{"no client given"}
	}
	ch := &Change{Client: o.Client, Scope: o.Scope, Name: o.Name}
	if ch.Scope == "" {
		ch.Scope = o.Client.Scopes[0]
	}
	if ch.Name == "" {
		ch.Name = DefaultName
	}
	env := o.Env
	if env == nil {
		h := HostEnv()
		env = &h
	}
	path, err := o.Client.Path(ch.Scope, o.Project, *env)
	if err != nil {
		return nil, nil, err
	}
	if o.File != "" {
		if path, err = filepath.Abs(o.File); err != nil {
			return nil, nil, err
		}
	}
	ch.Path = path
	f, err := readConfig(path)
	if err != nil {
		return nil, nil, err
	}
	ch.Target = f.target
	if f.exists {
		ch.Old = f.data
	}
	return ch, f, nil
}

func finish(o Options, ch *Change, f *file) (*Change, error) {
	if ch.Action == Unchanged || ch.Action == Absent {
		ch.New = ch.Old
		return ch, nil
	}
	if err := f.checkWritable(); err != nil {
		return nil, err
	}
	if o.DryRun {
		return ch, nil
	}
	filePerm, dirPerm := fs.FileMode(0o600), fs.FileMode(0o700) // may hold secrets (env)
	if ch.Scope == Project {
		filePerm, dirPerm = 0o644, 0o755 // shared with the project
	}
	if !f.exists {
		if err := os.MkdirAll(filepath.Dir(f.target), dirPerm); err != nil {
			return nil, fmt.Errorf("creating the directory for %s: %w", ch.Path, err)
		}
	}
	// A client may have rewritten its file meanwhile (Claude Code rewrites
	// ~/.claude.json as it runs): replacing it would lose that change.
	if testHookBeforeWrite != nil {
		testHookBeforeWrite()
	}
	cur, err := os.ReadFile(f.target)
	if f.exists && (err != nil || !bytes.Equal(cur, f.data)) || !f.exists && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s changed while txedit was editing it; it was left as it is now: run the command again", ch.Path)
	}
	if err := writeAtomic(f.target, ch.New, filePerm, f.info); err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return nil, &ReadOnlyError{Path: filepath.Dir(f.target), Dir: true}
		}
		return nil, fmt.Errorf("writing %s: %w (the file was left as it was)", ch.Path, err)
	}
	ch.Written = true
	return ch, nil
}

// testHookBeforeWrite runs just before the file is checked for changes and
// replaced (tests change the file there).
var testHookBeforeWrite func()

// installBytes returns data with the entry added or updated.
func installBytes(data []byte, exists bool, c *Client, name string, s Server) ([]byte, Action, error) {
	entry := c.entry(s)
	path := []string{c.Key, name}
	if !exists || blank(data) {
		// A missing (or empty) file: a new one with the entry alone.
		out, err := marshal(object{{c.Key, object{{name, entry}}}}, "", "  ")
		return []byte(out + "\n"), Added, err
	}
	d, err := parse(data, c.JSONC)
	if err != nil {
		return nil, "", err
	}
	m, _, _, err := d.walk(path)
	if err != nil {
		return nil, "", err
	}
	action := Added
	out := data
	switch {
	case m == nil:
		out, err = d.set(path, entry)
	case m.val.kind != '{':
		action = Updated
		out, err = d.set(path, entry)
	default:
		// Set the keys txedit owns, one edit at a time, keeping the rest.
		action = Unchanged
		for _, f := range entry {
			d, err := parse(out, c.JSONC)
			if err != nil {
				return nil, "", fmt.Errorf("an edit produced invalid JSON (a bug in txedit): %w", err)
			}
			fp := append(path[:2:2], f.key)
			if cur, _, _, _ := d.walk(fp); cur != nil && d.equal(cur.val, f.value) {
				continue
			}
			if out, err = d.set(fp, f.value); err != nil {
				return nil, "", err
			}
			action = Updated
		}
	}
	if err != nil {
		return nil, "", err
	}
	if err := verify(out, c, path, entry); err != nil {
		return nil, "", err
	}
	return out, action, nil
}

// uninstallBytes returns data without the entry.
func uninstallBytes(data []byte, exists bool, c *Client, name string) ([]byte, Action, error) {
	if !exists || blank(data) {
		return data, Absent, nil
	}
	d, err := parse(data, c.JSONC)
	if err != nil {
		return nil, "", err
	}
	out, ok, err := d.remove([]string{c.Key, name})
	if err != nil {
		return nil, "", err
	}
	if !ok {
		return data, Absent, nil
	}
	after, err := parse(out, c.JSONC)
	if err != nil {
		return nil, "", fmt.Errorf("the edit produced invalid JSON (a bug in txedit): %w", err)
	}
	if m, _, _, _ := after.walk([]string{c.Key, name}); m != nil {
		return nil, "", fmt.Errorf("the entry is still there after removing it (a bug in txedit)")
	}
	return out, Removed, nil
}

// verify parses the edited text again and checks that the entry holds
// what was asked, so that a bug in the editor can never be written.
func verify(out []byte, c *Client, path []string, entry object) error {
	d, err := parse(out, c.JSONC)
	if err != nil {
		return fmt.Errorf("the edit produced invalid JSON (a bug in txedit): %w", err)
	}
	for _, f := range entry {
		m, _, _, err := d.walk(append(path[:2:2], f.key))
		if err != nil || m == nil || !d.equal(m.val, f.value) {
			return fmt.Errorf("the edit did not produce the entry (a bug in txedit)")
		}
	}
	return nil
}

func blank(data []byte) bool {
	return len(bytes.TrimSpace(bytes.TrimPrefix(data, bom))) == 0
}

// file is a configuration file as read.
type file struct {
	path, target string // target: where a symbolic link points, else path
	data         []byte
	exists       bool
	info         fs.FileInfo // of target; nil if it does not exist
}

// readConfig reads the file at path, following symbolic links: txedit
// writes through a link to its target and keeps the link.
func readConfig(path string) (*file, error) {
	f := &file{path: path, target: path}
	li, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return nil, err
	}
	if li.Mode()&fs.ModeSymlink != 0 {
		t, err := filepath.EvalSymlinks(path)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				link, _ := os.Readlink(path)
				return nil, fmt.Errorf("%s is a symbolic link to %s, which does not exist; create that file or remove the link", path, link)
			}
			return nil, err
		}
		f.target = t
	}
	fi, err := os.Stat(f.target)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	data, err := os.ReadFile(f.target)
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return nil, fmt.Errorf("%s cannot be read: %w", path, err)
		}
		return nil, err
	}
	f.data, f.exists, f.info = data, true, fi
	return f, nil
}

// checkWritable refuses a file without write permission (for anyone, or
// for this process) and a directory it cannot create the file in.
func (f *file) checkWritable() error {
	if f.exists {
		if f.info.Mode().Perm()&0o222 == 0 || canWrite(f.target) != nil {
			return &ReadOnlyError{Path: f.path}
		}
	}
	dir := filepath.Dir(f.target)
	for {
		di, err := os.Stat(dir)
		if err == nil {
			if !di.IsDir() {
				return fmt.Errorf("cannot create %s: %s is not a directory", f.path, dir)
			}
			if di.Mode().Perm()&0o222 == 0 || canWrite(dir) != nil {
				return &ReadOnlyError{Path: dir, Dir: true}
			}
			return nil
		}
		parent := filepath.Dir(dir)
		if !errors.Is(err, fs.ErrNotExist) || parent == dir {
			return err
		}
		dir = parent
	}
}
