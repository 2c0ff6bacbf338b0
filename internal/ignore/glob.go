package ignore

import (
	"fmt"
	"path"
	"strings"

	"github.com/gobwas/glob"
)

// Glob is a pattern as txedit's tools take them (deny lists, -g, glob,
// find, pattern_replace's file_pattern): "*" and "?" within one path
// segment, "**" across directories, "{a,b}" alternatives, "[…]" classes.
// A pattern without "/" matches the base name at any depth (as fd and
// ripgrep's -g do); one with "/" matches the whole path below the
// directory it applies to ("**/" matches zero or more whole segments).
// Matching is case-sensitive. Gitignore files are matched by [List], with
// git's own rules, not by Glob.
type Glob struct {
	src      string
	g        *glob.Pattern
	anchored bool
}

// compiler makes "**/" match zero or more whole segments, as gitignore
// and bash's globstar do.
var compiler = glob.Compiler{Separators: []rune{'/'}, Globstar: true}

// CompileGlob compiles pattern; a leading "./" or "/" anchors it at the
// directory without meaning anything else.
func CompileGlob(pattern string) (*Glob, error) {
	p := strings.TrimPrefix(pattern, "./")
	g := &Glob{src: pattern, anchored: strings.Contains(p, "/")}
	p = strings.TrimPrefix(p, "/")
	if p == "" {
		return nil, fmt.Errorf("bad glob %q: empty", pattern)
	}
	var err error
	if g.g, err = compiler.Compile(p); err != nil {
		return nil, fmt.Errorf("bad glob %q: %w", pattern, err)
	}
	return g, nil
}

// Match reports whether rel (relative to the directory the glob applies
// to, "/"-separated) matches.
func (g *Glob) Match(rel string) bool {
	if !g.anchored {
		return g.g.Match(path.Base(rel))
	}
	return g.g.Match(rel)
}

// Anchored reports whether the glob matches whole paths rather than base
// names.
func (g *Glob) Anchored() bool { return g.anchored }

func (g *Glob) String() string { return g.src }

// CompileGlobs compiles every pattern.
func CompileGlobs(patterns []string) ([]*Glob, error) {
	out := make([]*Glob, 0, len(patterns))
	for _, p := range patterns {
		g, err := CompileGlob(p)
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, nil
}

// AnyMatch reports whether any of globs matches rel.
func AnyMatch(globs []*Glob, rel string) bool {
	for _, g := range globs {
		if g.Match(rel) {
			return true
		}
	}
	return false
}

// Overrides are ripgrep's -g globs: gitignore-like with the sense turned
// round ("pat" includes, "!pat" excludes), a trailing "/" for directories
// only, the last matching glob deciding; when any glob includes, a file no
// glob matches is left out. They decide before the ignore files do.
type Overrides struct {
	globs    []override
	includes bool
}

type override struct {
	g       *Glob
	exclude bool
	dirOnly bool
}

// ParseOverrides compiles -g globs.
func ParseOverrides(globs []string) (*Overrides, error) {
	o := &Overrides{}
	for _, s := range globs {
		var ov override
		if rest, ok := strings.CutPrefix(s, "!"); ok {
			ov.exclude, s = true, rest
		} else {
			o.includes = true
		}
		if strings.HasSuffix(s, "/") {
			ov.dirOnly, s = true, strings.TrimRight(s, "/")
		}
		g, err := CompileGlob(s)
		if err != nil {
			return nil, err
		}
		ov.g = g
		o.globs = append(o.globs, ov)
	}
	return o, nil
}

// Decide is the override decision for rel (below the searched directory):
// the last matching glob decides (an include beats .gitignore, an exclude
// prunes); a file no glob matches is ignored when there are include globs;
// otherwise decided is false and the ignore files decide.
func (o *Overrides) Decide(rel string, isDir bool) (ignored, decided bool) {
	for i := len(o.globs) - 1; i >= 0; i-- {
		ov := &o.globs[i]
		if ov.dirOnly && !isDir {
			continue
		}
		if ov.g.Match(rel) {
			return ov.exclude, true
		}
	}
	if o.includes && !isDir {
		return true, true
	}
	return false, false
}

// Empty reports whether there are no globs.
func (o *Overrides) Empty() bool { return len(o.globs) == 0 }

// Types is a file-type filter: ripgrep's type names ("go", "py", …).
type Types struct {
	globs []*Glob
}

// ParseTypes compiles a list of type names separated by commas or spaces;
// an empty list keeps every file.
func ParseTypes(list string) (*Types, error) {
	t := &Types{}
	for _, name := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' }) {
		defs, ok := fileTypes()[name]
		if !ok {
			return nil, fmt.Errorf("unknown type %q (known: %s)", name, strings.Join(TypeNames(), ", "))
		}
		for _, d := range defs {
			g, err := CompileGlob(d)
			if err != nil {
				return nil, err
			}
			t.globs = append(t.globs, g)
		}
	}
	return t, nil
}

// Keep reports whether a file of this base name passes the filter.
func (t *Types) Keep(name string) bool {
	return len(t.globs) == 0 || AnyMatch(t.globs, name)
}
