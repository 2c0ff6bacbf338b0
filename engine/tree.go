package engine

import (
	"context"
	"errors"
	"io/fs"
	"path"
	"path/filepath"
	"syscall"

	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/journal"
	"github.com/txedit/txedit/plan"
)

// Tree is a view of the workspace for a format that compiles against the
// tree as it is (an LSP WorkspaceEdit, whose operations name paths as the
// earlier ones left them and may name directories; apply/patch.Tree):
// names resolved as writes resolve them, what stands at a path, and what a
// directory holds. It reads only; the request it helps compile is checked
// again when it is applied.
type Tree struct{ w *Workspace }

// Tree returns the workspace's [Tree].
func (w *Workspace) Tree() *Tree { return &Tree{w: w} }

// Resolve returns the root-relative, slash-separated name of p (a
// request path: relative to the root, or absolute inside it) as a write
// resolves it: symlinks inside the root followed, outside_root for a path
// outside it, denied for one the policy refuses to write.
func (t *Tree) Resolve(p string) (string, error) {
	o := t.w.direct()
	rel, dangling, err := o.resolveLinks(p)
	switch {
	case err != nil:
		return "", err
	case rel == ".":
		return rel, nil
	case dangling:
		return "", plan.Errorf(plan.CodeDenied, p, "is a dangling symlink (its target %s does not exist); refusing to write through it", rel)
	}
	if err := t.w.checkPolicy(p, rel, true); err != nil {
		return "", err
	}
	return rel, nil
}

// IsLink reports whether p (a request path) is itself a symlink: what a
// rename or delete of p would have to move or remove is the link, which
// a write, resolving it, cannot do.
func (t *Tree) IsLink(p string) bool {
	o := t.w.direct()
	name, _, err := o.spelled(p)
	if err != nil {
		return false
	}
	fi, err := o.fsy.Lstat(path.Clean(filepath.ToSlash(name)))
	return err == nil && fi.Mode()&fs.ModeSymlink != 0
}

// Stat says whether the root-relative rel exists, and whether it is a
// directory (a symlink is not followed: it is what stands there).
func (t *Tree) Stat(rel string) (exists, dir bool, err error) {
	fi, err := t.w.direct().fsy.Lstat(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return false, false, nil
	case err != nil:
		return false, false, ioErr(rel, err)
	}
	return true, fi.IsDir(), nil
}

// List returns the regular files and the directories under the directory
// rel, relative to it, directories parents first ("" first): what moving
// or deleting it whole moves or deletes. A symlink, a FIFO, a file with
// several links or a journal in it is refused, as [Workspace.Move]
// refuses it.
func (t *Tree) List(rel string) (files, dirs []string, err error) {
	o := t.w.direct()
	fl, ds, err := o.treeOf(context.Background(), rel, rel)
	if err != nil {
		return nil, nil, err
	}
	for _, d := range ds {
		dirs = append(dirs, d.path)
	}
	return fl, dirs, nil
}

// Spell returns how a request names the root-relative rel: relative to
// the directory relative paths start from (Options.Dir).
func (t *Tree) Spell(rel string) string {
	d := t.w.opts.Dir
	if d == "" || d == "." {
		return rel
	}
	r, err := filepath.Rel(filepath.FromSlash(d), filepath.FromSlash(rel))
	if err != nil {
		return filepath.Join(t.w.rootReal, rel)
	}
	return filepath.ToSlash(r)
}

// requestDirs is the directory part of a request (plan.DirChanges) as the
// journal takes it: every directory passes the policy, and one made in
// place of another gets its mode and owner.
func (o *op) requestDirs(dc *plan.DirChanges) (*dirPlan, error) {
	d := &dirPlan{keepParents: dc.KeepParents}
	for _, mk := range dc.Make {
		p := path.Clean(mk.Path)
		if err := localDir(mk.Path, p); err != nil {
			return nil, err
		}
		if err := o.w.checkPolicy(mk.Path, p, true); err != nil {
			return nil, err
		}
		d.make = append(d.make, p)
		if mk.ModeOf == "" {
			continue
		}
		fi, err := o.fsy.Lstat(path.Clean(mk.ModeOf))
		if err != nil || !fi.IsDir() {
			continue // made with the default mode
		}
		id := fsys.IdentityOf(fi)
		d.states = append(d.states, journal.DirState{Path: p, Mode: fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky), Uid: id.Uid, Gid: id.Gid})
	}
	for _, r := range dc.Remove {
		p := path.Clean(r)
		if err := localDir(r, p); err != nil {
			return nil, err
		}
		if err := o.w.checkPolicy(r, p, true); err != nil {
			return nil, err
		}
		d.remove = append(d.remove, p)
	}
	return d, nil
}

// localDir refuses a directory of a request's Dirs that is not a name
// below the root (they are root-relative, resolved already).
func localDir(named, p string) error {
	if p == "." {
		return plan.Errorf(plan.CodeInvalidRequest, named, "is the workspace root: a request's directories lie below it")
	}
	if !filepath.IsLocal(p) {
		return plan.Errorf(plan.CodeOutsideRoot, named, "is not a path below the workspace root")
	}
	return nil
}
