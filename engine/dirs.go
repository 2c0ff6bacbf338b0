package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/hash"
	"github.com/txedit/txedit/journal"
	"github.com/txedit/txedit/plan"
)

// Directories as journaled operations. A directory created (MakeDir) is a
// transaction of its own, which undo reverts (the directory goes again if
// it is empty). A directory moved (Move) is compiled into what the journal
// already knows: the move of every file inside it, the creation of every
// directory under the destination (an empty one too, with its source's
// mode) and the removal of every directory under the source, all one
// transaction; undo moves the files back and brings the directories back
// with the modes recorded. The journal's crash tests cover both shapes
// (journal TestPowerLoss, workloads mkdir-only and move-directory).

// dirPlan is what a write asks of the journal besides its files (see
// [journal.Manifest]): directories to make, directories to remove if
// they end up empty, their modes, and whether the directories the
// transaction's deletes empty are kept, as rename(2) keeps them.
type dirPlan struct {
	make, remove []string
	states       []journal.DirState
	keepParents  bool
	// noReadCheck: a move changes no bytes, so it needs no prior read
	// (the files are still verified under the lock against what was
	// planned).
	noReadCheck bool
}

// shape puts the plan into a manifest.
func (d *dirPlan) shape(m *journal.Manifest) {
	if d == nil {
		return
	}
	m.MakeDirs = append(m.MakeDirs, d.make...)
	m.Rmdirs = append(m.Rmdirs, d.remove...)
	m.Dirs = append(m.Dirs, d.states...)
	m.KeepParents = m.KeepParents || d.keepParents
}

// changesDirs reports whether the plan alone makes a transaction.
func (d *dirPlan) changesDirs() bool { return d != nil && len(d.make)+len(d.remove) > 0 }

// undoDirs shapes an undo of tm: the directories tm removed come back
// (those absent, with the modes tm recorded), and the directories the
// undo's deletes empty stay, unless tm made them (they are in the undo's
// Rmdirs already): a directory that was there before tm is there after
// its undo.
func (o *op) undoDirs(tm, m *journal.Manifest) {
	m.KeepParents = true
	for _, d := range tm.Rmdirs {
		if _, err := o.fsy.Lstat(d); errors.Is(err, fs.ErrNotExist) {
			m.MakeDirs = append(m.MakeDirs, d)
		}
	}
}

// RealRoot returns the root with its symlinks resolved (the directory
// every path is confined to).
func (w *Workspace) RealRoot() string { return w.rootReal }

// MakeDir creates directory p and every parent it lacks, as one
// transaction that undo reverts. A directory that exists already is
// success without a transaction (the result has no TransactionID); a file
// in the way is a conflict.
func (w *Workspace) MakeDir(ctx context.Context, p string) (*plan.Result, error) {
	o := w.begin()
	defer o.end()
	return o.makeDir(ctx, p, &caller{agent: w.opts.Agent})
}

// MakeDir is [Workspace.MakeDir] recorded as the session's.
func (s *Session) MakeDir(ctx context.Context, p string) (*plan.Result, error) {
	o := s.w.begin()
	defer o.end()
	return o.makeDir(ctx, p, &caller{agent: s.agent, session: s})
}

func (o *op) makeDir(ctx context.Context, p string, c *caller) (*plan.Result, error) {
	res := &plan.Result{Files: []*plan.FileResult{}}
	if err := o.w.readOnly("creating a directory"); err != nil {
		return failResult(res, err)
	}
	rel, dangling, err := o.resolveLinks(p)
	if err == nil && dangling {
		err = plan.Errorf(plan.CodeDenied, p, "is a dangling symlink; refusing to create through it")
	}
	if err == nil && rel != "." {
		err = o.w.checkPolicy(p, rel, true)
	}
	if err != nil {
		return failResult(res, err)
	}
	fr := &plan.FileResult{Path: p, Success: true}
	res.Files = append(res.Files, fr)
	if rel == "." {
		res.Success = true
		return res, nil
	}
	l, err := o.w.lockJournal(o.j)
	if err != nil {
		return failResult(res, err)
	}
	defer l.Unlock()
	missing, err := o.missingDirs(p, rel)
	if err != nil {
		fr.Success, fr.Code, fr.Error = false, plan.CodeOf(err), err.Error()
		return failResult(res, err)
	}
	if !missing {
		res.Success = true
		return res, nil
	}
	m := &journal.Manifest{Command: "mkdir", Summary: "create directory " + rel, Agent: c.agentName(""), Session: c.sessionID(), MakeDirs: []string{rel}}
	warning, err := o.commitWith(ctx, l, m, nil, true)
	if err != nil {
		fr.Success = false
		return failResult(res, err)
	}
	if warning != "" {
		res.Warnings = append(res.Warnings, warning)
		noteDurability(res, warning)
	}
	fr.Status = plan.StatusCreated
	res.Success, res.FilesModified = true, 1
	res.TransactionID, res.Summary = m.ID, m.Summary
	return res, nil
}

// missingDirs walks rel's components: a file on the way is a conflict;
// it reports whether any directory is missing.
func (o *op) missingDirs(named, rel string) (bool, error) {
	parts := strings.Split(rel, "/")
	for i := range parts {
		cur := strings.Join(parts[:i+1], "/")
		fi, err := o.fsy.Lstat(cur)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return true, nil
		case err != nil:
			return false, ioErr(named, err)
		case !fi.IsDir():
			return false, plan.Errorf(plan.CodeConflict, named, "%s exists and is not a directory", cur)
		}
	}
	return false, nil
}

// Move moves a file, or a directory with everything in it, to dst, which
// must not exist, as one transaction that undo reverts. A move changes no
// bytes, so it needs no prior read; the files are verified under the lock
// against what was planned, as every write's are. The directories the
// move empties stay (as rename(2) leaves them). A directory is moved as
// its files and its directories (the empty ones too, with their modes):
// it may hold only regular files and directories (a symlink, a FIFO, a
// file with several hard links, another workspace's journal are refused,
// naming the entry), and .git inside it is refused unless AllowGit. The
// files' bytes are journaled, so moving a large tree costs what copying
// it does.
func (w *Workspace) Move(ctx context.Context, src, dst string) (*plan.Result, error) {
	o := w.begin()
	defer o.end()
	return o.move(ctx, src, dst, &caller{agent: w.opts.Agent})
}

// Move is [Workspace.Move] recorded as the session's. What the session
// had seen of a moved file it has seen at its new name; a file it had not
// read still needs a read before it is changed.
func (s *Session) Move(ctx context.Context, src, dst string) (*plan.Result, error) {
	o := s.w.begin()
	defer o.end()
	return o.move(ctx, src, dst, &caller{agent: s.agent, session: s})
}

func (o *op) move(ctx context.Context, src, dst string, c *caller) (*plan.Result, error) {
	res := &plan.Result{Files: []*plan.FileResult{}}
	if err := o.w.readOnly("moving"); err != nil {
		return failResult(res, err)
	}
	srcRel, err := o.resolve(src)
	if err != nil {
		return failResult(res, err)
	}
	if srcRel == "." {
		return failResult(res, plan.Errorf(plan.CodeInvalidRequest, src, "is the workspace root: it cannot be moved"))
	}
	if err := o.w.checkPolicy(src, srcRel, true); err != nil {
		return failResult(res, err)
	}
	fi, err := o.fsy.Lstat(srcRel)
	if errors.Is(err, fs.ErrNotExist) {
		return failResult(res, plan.Errorf(plan.CodeFileNotFound, src, "no such file or directory"))
	} else if err != nil {
		return failResult(res, ioErr(src, err))
	}
	c = &caller{agent: c.agent, session: c.session, dirs: &dirPlan{keepParents: true, noReadCheck: true}}
	if !fi.IsDir() {
		req := &plan.Request{Path: src, Edit: plan.Edit{Command: string(plan.Move), NewPath: dst}}
		return o.movedFiles(ctx, req, c, []string{srcRel}, func(string) string { return "" })
	}
	dstRel, dangling, err := o.resolveLinks(dst)
	switch {
	case err != nil:
	case dangling:
		err = plan.Errorf(plan.CodeDenied, dst, "is a dangling symlink; refusing to write through it")
	case dstRel == ".":
		err = plan.Errorf(plan.CodeConflict, dst, "already exists: move does not overwrite")
	case dstRel == srcRel || strings.HasPrefix(dstRel, srcRel+"/"):
		err = plan.Errorf(plan.CodeInvalidRequest, dst, "is inside %s: a directory cannot be moved into itself", src)
	default:
		err = o.w.checkPolicy(dst, dstRel, true)
	}
	if err == nil {
		if _, lerr := o.fsy.Lstat(dstRel); lerr == nil {
			err = plan.Errorf(plan.CodeConflict, dst, "already exists: move does not overwrite")
		}
	}
	if err != nil {
		return failResult(res, err)
	}
	files, dirs, err := o.treeOf(ctx, src, srcRel)
	if err != nil {
		return failResult(res, err)
	}
	d := c.dirs
	for _, sub := range dirs {
		to := joinRel(dstRel, sub.path)
		if err := o.w.checkPolicy(dst, to, true); err != nil {
			return failResult(res, err)
		}
		d.make = append(d.make, to)
		d.remove = append(d.remove, joinRel(srcRel, sub.path))
		d.states = append(d.states, journal.DirState{Path: to, Mode: sub.mode, Uid: sub.uid, Gid: sub.gid})
	}
	summary := fmt.Sprintf("move directory %s to %s", srcRel, dstRel)
	if len(files) == 0 {
		return o.commitDirs(ctx, res, summary, c)
	}
	req := &plan.Request{Summary: summary}
	var srcs []string
	for _, f := range files {
		s := joinRel(srcRel, f)
		srcs = append(srcs, s)
		req.FileEdits = append(req.FileEdits, plan.FileEdit{Path: s, Edits: []plan.Edit{{Command: string(plan.Move), NewPath: joinRel(dstRel, f)}}})
	}
	return o.movedFiles(ctx, req, c, srcs, func(s string) string { return joinRel(dstRel, strings.TrimPrefix(s, srcRel+"/")) })
}

// movedFiles applies a request of moves. Afterwards the session knows the
// moved files at their new names only as well as it knew them before
// (a move needs no read, and is not one).
func (o *op) movedFiles(ctx context.Context, req *plan.Request, c *caller, srcs []string, dstOf func(string) string) (*plan.Result, error) {
	s := c.session
	seen := map[string]bool{}
	if s != nil {
		s.mu.Lock()
		for _, p := range srcs {
			seen[p] = s.seen[p] != nil
		}
		s.mu.Unlock()
	}
	res, err := o.apply(ctx, req, c)
	if s != nil && res.Success && !res.DryRun {
		for _, f := range res.Files {
			src, err := o.resolve(f.Path)
			if err == nil && !seen[src] {
				dst := dstOf(src)
				if dst == "" && f.NewPath != "" {
					dst, _ = o.resolve(f.NewPath)
				}
				if dst != "" {
					s.noteResolved(dst, "")
				}
			}
		}
	}
	return res, err
}

// commitDirs commits a transaction of directories only.
func (o *op) commitDirs(ctx context.Context, res *plan.Result, summary string, c *caller) (*plan.Result, error) {
	m := &journal.Manifest{Command: "apply", Summary: summary, Agent: c.agentName(""), Session: c.sessionID()}
	c.dirs.shape(m)
	warning, err := o.commitWith(ctx, nil, m, nil, true)
	if err != nil {
		return failResult(res, err)
	}
	if warning != "" {
		res.Warnings = append(res.Warnings, warning)
		noteDurability(res, warning)
	}
	res.Success = true
	res.TransactionID, res.Summary = m.ID, m.Summary
	return res, nil
}

// subdir is a directory of a moved tree: its path below the tree's top
// ("" for the top) and its mode and owner.
type subdir struct {
	path     string
	mode     fs.FileMode
	uid, gid int
}

// treeOf lists what a directory to be moved holds: its files and its
// directories (itself first, parents before children), relative to it.
// Anything but regular files with one link and directories is refused.
func (o *op) treeOf(ctx context.Context, named, top string) ([]string, []subdir, error) {
	var files []string
	var dirs []subdir
	var visit func(rel string, fi fs.FileInfo) error
	visit = func(rel string, fi fs.FileInfo) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		id := fsys.IdentityOf(fi)
		dirs = append(dirs, subdir{path: rel, mode: fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky), uid: id.Uid, gid: id.Gid})
		full := joinRel(top, rel)
		ents, err := o.fsy.ReadDir(full)
		if err != nil {
			return ioErr(named, err)
		}
		sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
		for _, e := range ents {
			sub := joinRel(rel, e.Name())
			if e.Name() == journal.Dir || journal.IsTemp(e.Name()) {
				return plan.Errorf(plan.CodeDenied, named, "%s holds txedit's journal or staging files (%s): it cannot be moved", named, joinRel(top, sub))
			}
			info, err := e.Info()
			if err != nil {
				return ioErr(named, err)
			}
			switch m := info.Mode(); {
			case m.IsDir():
				if err := visit(sub, info); err != nil {
					return err
				}
			case m.IsRegular():
				if fsys.IdentityOf(info).Nlink > 1 {
					return plan.Errorf(plan.CodeDenied, named, "%s has several hard links: moving it would split them, so the directory is not moved", joinRel(top, sub))
				}
				files = append(files, sub)
			default:
				what := "not a regular file"
				if m&fs.ModeSymlink != 0 {
					what = "a symlink"
				}
				return plan.Errorf(plan.CodeNotRegular, named, "%s is %s: txedit moves directories that hold only regular files and directories", joinRel(top, sub), what)
			}
		}
		return nil
	}
	fi, err := o.fsy.Lstat(top)
	if err != nil {
		return nil, nil, ioErr(named, err)
	}
	if err := visit("", fi); err != nil {
		return nil, nil, err
	}
	return files, dirs, nil
}

// FileBytes is a whole file as ReadBytes read it.
type FileBytes struct {
	Path     string // root-relative, symlinks resolved
	Data     []byte
	Hash     string
	Mode     fs.FileMode
	Modified time.Time
}

// ReadBytes reads a whole file as its bytes, whatever they are (binary,
// not UTF-8), up to the workspace's size limit, under the same rules as
// every read (confinement, policy, regular files only).
func (w *Workspace) ReadBytes(ctx context.Context, p string) (*FileBytes, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	o := w.begin()
	defer o.end()
	o.charge = chargeOf(ctx)
	rel, fi, err := o.openForRead(p)
	if err != nil {
		return nil, err
	}
	return &FileBytes{Path: rel, Data: fi.data, Hash: hash.Of(fi.data).String(), Mode: fi.mode, Modified: time.Unix(0, fi.ident.Mtime)}, nil
}

// ReadBytes is [Workspace.ReadBytes] through the session: the file counts
// as read.
func (s *Session) ReadBytes(ctx context.Context, p string) (*FileBytes, error) {
	b, err := s.w.ReadBytes(ctx, p)
	if err == nil {
		s.noteRead(&plan.ReadResult{Path: p, Success: true, FileHash: b.Hash, ContentHash: b.Hash})
		if sum, perr := hash.ParseSum(b.Hash); perr == nil {
			s.noteBytes(b.Path, sum, b.Data)
		}
	}
	return b, err
}

// FileStat is what Stat says of a path.
type FileStat struct {
	Path                        string // root-relative, symlinks resolved
	Size                        int64
	Mode                        fs.FileMode
	Modified, Accessed, Changed time.Time
}

// Stat describes a file or directory, following symlinks inside the root.
func (w *Workspace) Stat(ctx context.Context, p string) (*FileStat, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	o := w.direct()
	rel, _, err := o.readTarget(p)
	if err != nil {
		return nil, err
	}
	if rel == "" {
		rel = "."
	}
	fi, err := o.fsy.Lstat(rel)
	if err != nil {
		return nil, ioErr(p, err)
	}
	id := fsys.IdentityOf(fi)
	return &FileStat{Path: rel, Size: fi.Size(), Mode: fi.Mode(), Modified: fi.ModTime(),
		Accessed: time.Unix(0, id.Atime), Changed: time.Unix(0, id.Ctime)}, nil
}

// joinRel joins root-relative paths ("" is the root or the tree's top).
func joinRel(dir, p string) string { return path.Join(dir, p) }

// CheckRead applies the read-before-write rule, as a write's commit
// would, to a write of p whose current bytes are cur: nil when the
// session has read (or written) p and cur is what it saw, or when the
// rule is off; otherwise not_read or stale_hash. It does not rebase: a
// tool that computes a file's new bytes from its text gives the engine
// that computation instead (plan.Edit.Rewrite), so that a change made
// since the session's read can be merged (docs/design.md, "Concurrency").
func (s *Session) CheckRead(p string, cur []byte) error {
	if !s.check {
		return nil
	}
	rel, err := s.w.direct().resolve(p)
	if err != nil {
		return err
	}
	return s.allows(rel, cur, &plan.FileOps{Path: p, Create: &plan.Op{Command: plan.Create}})
}
