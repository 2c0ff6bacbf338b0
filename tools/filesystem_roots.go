package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/txedit/txedit/engine"
	"github.com/txedit/txedit/plan"
)

// Root is one allowed directory of a server: the directory as it was
// given (absolute) and the agent's session on its workspace, which keeps
// its own journal.
type Root struct {
	Dir string
	S   *engine.Session
}

// Roots are the allowed directories of one connection: the server's
// roots (several --root, or positional directories), replaced by the
// client's MCP roots when it offers them. Safe for concurrent use.
type Roots struct {
	mu   sync.RWMutex
	list []Root
}

// NewRoots returns the allowed directories list.
func NewRoots(list []Root) *Roots { return &Roots{list: append([]Root(nil), list...)} }

// Set replaces the allowed directories.
func (r *Roots) Set(list []Root) {
	r.mu.Lock()
	r.list = append([]Root(nil), list...)
	r.mu.Unlock()
}

// List returns the allowed directories, in order.
func (r *Roots) List() []Root {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return append([]Root(nil), r.list...)
}

// rootsOf returns env's allowed directories: its Roots, or its one
// workspace.
func rootsOf(env *Env) []Root {
	if env.Roots != nil {
		if l := env.Roots.List(); len(l) > 0 {
			return l
		}
	}
	if env.W == nil {
		return nil
	}
	return []Root{{Dir: env.W.Root(), S: env.W}}
}

// AllowedDirs lists the allowed directories as the official filesystem
// server does: each as given and, when a symlink leads to it, as
// resolved too.
func AllowedDirs(roots []Root) []string {
	var out []string
	for _, r := range roots {
		dir := filepath.Clean(r.Dir)
		out = append(out, dir)
		if real := r.S.RealRoot(); real != "" && filepath.Clean(real) != dir {
			out = append(out, filepath.Clean(real))
		}
	}
	return out
}

// fsPath is a path of a filesystem-toolset call, resolved as the official
// server resolves it (validatePath): the root it falls under and its
// absolute spelling.
type fsPath struct {
	named   string // as the call gave it
	abs     string // absolute, cleaned
	root    *Root
	allowed []string // every allowed directory, for messages
}

var windowsPath = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z]:([\\/]|$)`) })

// within reports whether abs is dir or below it.
func within(abs, dir string) bool {
	return abs == dir || dir == "/" || strings.HasPrefix(abs, strings.TrimSuffix(dir, "/")+"/")
}

// fsResolve resolves a path argument: ~ expanded, a relative path taken
// against the allowed directories (the first under which it stays, as
// the official server does), refused outside all of them. The root is the
// deepest allowed directory holding it; the engine then confines every
// access to that root (symlinks included).
func fsResolve(roots []Root, p string) (*fsPath, error) {
	allowed := AllowedDirs(roots)
	name := p
	if name == "~" || strings.HasPrefix(name, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			name = filepath.Join(home, name[1:])
		}
	}
	if windowsPath().MatchString(name) {
		return nil, plain(plan.CodeOutsideRoot, "Access denied - Windows-style path received on a POSIX host: "+p)
	}
	var abs string
	if filepath.IsAbs(name) {
		abs = filepath.Clean(name)
	} else {
		for _, d := range allowed {
			if c := filepath.Join(d, name); withinAny(c, allowed) {
				abs = c
				break
			}
		}
		if abs == "" {
			if len(allowed) > 0 {
				abs = filepath.Join(allowed[0], name)
			} else {
				abs, _ = filepath.Abs(name)
			}
		}
	}
	if !withinAny(abs, allowed) {
		return nil, plain(plan.CodeOutsideRoot, fmt.Sprintf("Access denied - path outside allowed directories: %s not in %s", abs, strings.Join(allowed, ", ")))
	}
	var best *Root
	bestLen := -1
	for i := range roots {
		r := &roots[i]
		for _, d := range []string{filepath.Clean(r.Dir), filepath.Clean(r.S.RealRoot())} {
			if within(abs, d) && len(d) > bestLen {
				best, bestLen = r, len(d)
			}
		}
	}
	return &fsPath{named: p, abs: abs, root: best, allowed: allowed}, nil
}

func withinAny(abs string, dirs []string) bool {
	for _, d := range dirs {
		if within(abs, d) {
			return true
		}
	}
	return false
}

// shown is the path as the official server names it in its messages: its
// existing part with symlinks resolved, the rest as asked.
func (p *fsPath) shown() string {
	if p.root == nil || !p.root.S.OnDisk() {
		return p.abs
	}
	dir, rest := p.abs, ""
	for {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, rest)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return p.abs
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
}

// fsPlainErr is a failure whose message is the official server's own
// text (or txedit's, with its code in front where the official server has
// none): the toolset sends it as it is.
type fsPlainErr struct {
	code plan.Code
	msg  string
}

func (e *fsPlainErr) Error() string { return e.msg }

func plain(code plan.Code, msg string) error { return &fsPlainErr{code, msg} }

// nodeError spells an error as Node's fs module does ("ENOENT: no such
// file or directory, open '/x'"), which is what the official server's
// answers carry.
func nodeError(code plan.Code, errno, op string, paths ...string) error {
	what := map[string]string{
		"ENOENT":  "no such file or directory",
		"EISDIR":  "illegal operation on a directory",
		"ENOTDIR": "not a directory",
		"EEXIST":  "file already exists",
		"EINVAL":  "invalid argument",
	}[errno]
	msg := errno + ": " + what + ", " + op
	for i, p := range paths {
		if i == 0 {
			msg += " '" + p + "'"
		} else {
			msg += " -> '" + p + "'"
		}
	}
	return plain(code, msg)
}

// fsError turns an engine error about p into the toolset's answer: the
// Node error the official server would give where there is one (op is
// the call it would have failed in), else txedit's message with its code
// in front.
func fsError(err error, p *fsPath, op string) error {
	var pe *fsPlainErr
	if errors.As(err, &pe) {
		return err
	}
	e := plan.As(err)
	switch e.Code {
	case plan.CodeFileNotFound:
		if strings.Contains(e.Msg, "is not a directory") {
			return nodeError(e.Code, "ENOTDIR", op, p.shown())
		}
		return nodeError(e.Code, "ENOENT", op, p.shown())
	case plan.CodeNotRegular:
		if strings.HasSuffix(e.Msg, "is a directory") && op == "open" {
			return plain(e.Code, "EISDIR: illegal operation on a directory, read")
		}
	case plan.CodeOutsideRoot:
		// A link out of every allowed directory gets the official
		// words; one that txedit refuses though the official server
		// follows it (an absolute link, a link into another allowed
		// directory) gets txedit's, with its code.
		if p.root != nil && p.root.S.OnDisk() {
			real, rerr := filepath.EvalSymlinks(p.abs)
			switch {
			case rerr != nil || real == p.abs:
			case !withinAny(real, p.allowed):
				return plain(e.Code, fmt.Sprintf("Access denied - symlink target outside allowed directories: %s not in %s", real, strings.Join(p.allowed, ", ")))
			case !within(real, p.root.Dir) && !within(real, p.root.S.RealRoot()):
				return plain(e.Code, fmt.Sprintf("[outside_root] %s is a symlink into another allowed directory (%s): txedit keeps each allowed directory to itself; use that path instead", p.named, real))
			}
		}
	}
	return plain(e.Code, "["+string(e.Code)+"] "+strings.TrimPrefix(e.Error(), string(e.Code)+": "))
}

// isNotExist reports whether a path does not exist in its root.
func isNotExist(err error) bool {
	return plan.CodeOf(err) == plan.CodeFileNotFound || errors.Is(err, fs.ErrNotExist)
}
