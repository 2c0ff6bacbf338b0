package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// findWorkspace finds the workspace a command started in dir works on, as
// git finds its repository, and stops where git stops (docs/cli.md,
// "Which workspace"): the nearest directory at or above dir that holds a
// .txedit journal or a .git, whichever comes first, so never above the
// repository's own .git (a journal above a repository is not its
// workspace). It never crosses into a directory another user owns (root's
// are crossed by everyone else: /home, /tmp), and never takes a .txedit
// or .git another user owns (git's safe.directory rule, CVE-2022-24765):
// one planted in a shared parent such as /tmp is ignored, and ignored says
// so. Else the workspace is dir itself. found says what was found at root
// ("" when root is dir).
func findWorkspace(dir string) (root, found, ignored string) {
	me := os.Geteuid()
	for d := dir; ; {
		for _, marker := range []string{".txedit", ".git"} {
			fi, err := os.Lstat(filepath.Join(d, marker))
			if err != nil {
				continue
			}
			if uid, ok := owner(fi); ok && uid != me {
				if d == dir {
					return dir, "", ""
				}
				return dir, "", fmt.Sprintf("%s (owned by uid %d, not by you)", filepath.Join(d, marker), uid)
			}
			if d == dir {
				return dir, "", ""
			}
			return d, marker, ""
		}
		up := filepath.Dir(d)
		if up == d {
			return dir, "", ""
		}
		fi, err := os.Lstat(up)
		if err != nil {
			return dir, "", ""
		}
		if uid, ok := owner(fi); ok && uid != me && uid != 0 {
			return dir, "", "" // another user's directory: not looked into
		}
		d = up
	}
}

// owner returns the uid that owns fi.
func owner(fi os.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

// discoverRoot sets the command's workspace when --root was not given:
// the root found above the current directory, and the directory relative
// paths start from (engine.Options.Dir), so that "a.go" in a subdirectory
// is that subdirectory's a.go. txedit mcp serves the directory it is
// started in (or its --root): that is what the client asked for.
func (e *env) discoverRoot(fs *flag.FlagSet, cmd string) {
	if fs.Lookup("root") == nil || cmd == "mcp" {
		return
	}
	explicit := false
	fs.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "root" })
	if explicit {
		return
	}
	cwd, err := os.Getwd()
	if err != nil {
		return
	}
	root, found, ignored := findWorkspace(cwd)
	e.ignored = ignored
	if found == "" {
		return
	}
	rel, err := filepath.Rel(root, cwd)
	if err != nil {
		return
	}
	e.root, e.dir, e.found = root, filepath.ToSlash(rel), found
}

// noteRoot tells, once, on stderr, which workspace a command acts on when
// it is not the current directory, or what it did not take for one.
func (e *env) noteRoot() {
	if e.noted {
		return
	}
	e.noted = true
	if e.ignored != "" {
		fmt.Fprintf(e.stderr, e.pfx()+"ignoring %s: working in the current directory (pass --root to choose)\n", e.ignored)
	}
	if e.found != "" {
		fmt.Fprintf(e.stderr, e.pfx()+"workspace %s (the nearest directory above with %s)\n", e.root, e.found)
	}
}
