package engine

import (
	"errors"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/plan"
)

// Symbolic links as entries (docs/patch-formats.md, "Symbolic links"): a
// git diff's mode 120000, or an edit with mode "120000", is about the link
// at its path, whose content is its target: created, retargeted, deleted,
// moved or replaced by a file as an entry, through the journal like any
// file, and undoable. Elsewhere a link is followed, as before.

// linkMode is the mode a link's journal state has.
const linkMode = fs.ModeSymlink | 0o777

// entryOps reports whether a task's path names the entry itself (a link
// there is not followed): FileOps.NoFollow, which a link's mode implies.
func entryOps(fo *plan.FileOps) bool { return fo.NoFollow || fo.IsLink() }

// resolveEntry resolves a request path as an entry: the directories on
// the way are followed, as everywhere, and the last component is not, so
// that a symbolic link there is the entry the edits are about.
func (o *op) resolveEntry(p string) (string, error) {
	clean := path.Clean(filepath.ToSlash(p))
	if strings.HasSuffix(p, "/") || strings.HasSuffix(p, "/.") {
		return "", plan.Errorf(plan.CodeNotRegular, p, "names a directory")
	}
	dir, base := path.Split(clean)
	if base == "" || base == "." || base == ".." {
		return "", plan.Errorf(plan.CodeInvalidRequest, p, "names no file")
	}
	dir = strings.TrimSuffix(dir, "/")
	if dir == "" {
		dir = "."
	}
	rel, _, err := o.resolveLinks(dir)
	if err != nil {
		return "", err
	}
	if rel == "." {
		return base, nil
	}
	return rel + "/" + base, nil
}

// readEntry reads rel as readFile does, except that a symbolic link there
// is read as its target (link set), not followed. links false is
// readFile.
func (o *op) readEntry(named, rel string, links bool) (*fileInfo, error) {
	if !links {
		return o.readFile(named, rel, true)
	}
	readAt := time.Now()
	fi, err := o.fsy.Lstat(rel)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return o.readFileStat(named, rel, true, readAt, fi, err)
	}
	target, err := o.fsy.Readlink(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return o.readFile(named, rel, true) // gone meanwhile: as it is now
	}
	if err != nil {
		return nil, ioErr(named, err)
	}
	return &fileInfo{exists: true, data: []byte(target), ident: fsys.IdentityOf(fi), mode: linkMode, link: true}, nil
}

// newIsLink says whether a task leaves a symbolic link: its mode says so,
// or, without a mode, the entry is one and stays one (a move, a rename).
func newIsLink(fo *plan.FileOps, cur *fileInfo) bool {
	if fo.Mode != nil {
		return fo.IsLink()
	}
	return cur != nil && cur.link
}

// checkEntry refuses what a task cannot do to an entry: hunks for a
// regular file applied to a link (the diff's section says no mode 120000,
// so it was made against a file), and a link whose target leads outside
// the workspace root, which txedit never creates.
func (o *op) checkEntry(t *task, cur *fileInfo, newData []byte) error {
	fo := t.fo
	if cur.link && fo.Mode == nil && len(fo.Patches) > 0 {
		return plan.Errorf(plan.CodeConflict, fo.Path, "is a symbolic link (to %s), but the diff changes it as a regular file: its section has no mode 120000", cur.data)
	}
	if fo.Final != nil && fo.Final.Command == plan.Delete || !newIsLink(fo, cur) {
		return nil
	}
	at := t.src
	if t.dst != "" {
		at = t.dst
	}
	return o.checkLinkTarget(fo.Path, at, string(newData))
}

// checkLinkTarget refuses a symbolic link at rel whose target leads
// outside the workspace root: an absolute target, one whose ".."s climb
// out, or one that leads through another link out of the root. A link to
// a path inside that does not exist (yet) is allowed, as git allows it.
func (o *op) checkLinkTarget(named, rel, target string) error {
	refuse := func(why string) error {
		return plan.Errorf(plan.CodeOutsideRoot, named, "is a symbolic link to %q, which %s: txedit creates links only to paths inside the workspace root", target, why)
	}
	switch {
	case target == "":
		return plan.Errorf(plan.CodeInvalidRequest, named, "a symbolic link needs a target")
	case strings.ContainsRune(target, 0):
		return plan.Errorf(plan.CodeInvalidRequest, named, "a symbolic link's target contains a NUL byte")
	case path.IsAbs(target):
		return refuse("is an absolute path")
	}
	to := path.Join(path.Dir(rel), target)
	if to == ".." || strings.HasPrefix(to, "../") {
		return refuse("leads outside the root")
	}
	if _, _, err := o.resolveLinks(filepath.Join(o.w.root, filepath.FromSlash(to))); plan.CodeOf(err) == plan.CodeOutsideRoot {
		return refuse("leads outside the root through another link")
	}
	return nil
}
