package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

// findWorkspace finds the workspace a command started in dir works on, as
// git finds its repository: the nearest directory at or above dir that
// holds a .txedit journal, else the nearest that holds .git, else dir
// itself. found says what was found there ("" when root is dir).
func findWorkspace(dir string) (root, found string) {
	for _, marker := range []string{".txedit", ".git"} {
		for d := dir; ; {
			if fi, err := os.Lstat(filepath.Join(d, marker)); err == nil && (fi.IsDir() || marker == ".git") {
				if d == dir {
					return dir, ""
				}
				return d, marker
			}
			up := filepath.Dir(d)
			if up == d {
				break
			}
			d = up
		}
	}
	return dir, ""
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
	root, found := findWorkspace(cwd)
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
// it is not the current directory.
func (e *env) noteRoot() {
	if e.found == "" || e.noted {
		return
	}
	e.noted = true
	fmt.Fprintf(e.stderr, e.pfx()+"workspace %s (the nearest directory above with %s)\n", e.root, e.found)
}
