package patch

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/txedit/txedit/plan"
)

// Tree is what compiling a WorkspaceEdit asks of the workspace: a
// WorkspaceEdit's later operations name paths as the earlier ones left
// them, and a rename or delete may name a directory, so the compiler
// follows the edit through the tree as it is (engine.Workspace implements
// it).
type Tree interface {
	// Resolve returns the root-relative, slash-separated name of the
	// absolute path p as a write resolves it, or why it may not be
	// written (outside_root, denied).
	Resolve(p string) (string, error)
	// Stat says whether the root-relative rel exists, and whether it is a
	// directory.
	Stat(rel string) (exists, dir bool, err error)
	// List returns the regular files and the directories under the
	// directory rel, relative to it, the directories parents first ("",
	// rel itself, first); anything else in it is refused.
	List(rel string) (files, dirs []string, err error)
	// Spell returns how a request names the root-relative rel.
	Spell(rel string) string
	// IsLink reports whether the absolute path p is itself a symlink.
	IsLink(p string) bool
}

// LSPOptions is what compiling a WorkspaceEdit takes beside the edit.
type LSPOptions struct {
	Tree Tree
	// Encoding is the position encoding of the edit's ranges (utf-16 if
	// empty, the protocol's default).
	Encoding plan.PositionEncoding
	// Confirm confirms the changes whose annotation needs confirmation;
	// DryRun previews them (a preview needs no confirmation: it is how
	// one decides).
	Confirm, DryRun bool
	// Hashes, by root-relative path, are the content hashes of the files
	// the edit was computed against: each becomes its file's
	// content_hash, so the commit refuses a file changed since.
	Hashes map[string]string
	// Versions, by root-relative path, are the versions of the documents
	// the caller sent a language server: a TextDocumentEdit naming
	// another version of one is refused (conflict). Without it a version
	// cannot be checked (txedit has no editor buffers) and only warns.
	Versions map[string]int
}

// node is one file followed through the edit.
type node struct {
	origin   string // its path before the edit; "" for a file the edit creates
	path     string // where it is now
	gone     bool   // deleted (or replaced by a rename over it)
	truncate bool   // a create emptied it (or made it)
	groups   []int  // the text edits, as indexes into the edit's changes
}

// dirState is what the compiler knows of a directory path.
type dirState int

const (
	dirUnknown dirState = iota // as the tree says
	dirGone                    // removed or moved away by the edit
	dirNew                     // made by the edit: everything in it is known
	dirThere                   // exists in the tree (its content: the tree's, as changed)
)

// sim follows a WorkspaceEdit's changes through the tree.
type sim struct {
	we      *WorkspaceEdit
	o       LSPOptions
	nodes   []*node
	files   map[string]*node    // path → the file there now
	absent  map[string]bool     // paths known to hold nothing now
	dirs    map[string]dirState // paths known to be directories, or to be gone
	dirFrom map[string]string   // a directory made by a rename → its old path, for its mode
	make    []plan.DirMake
	remove  []string
	at      int // the change being followed
}

// step records what change did, for the preview grouped by annotation
// (lsp_group.go): the file a TextDocumentEdit applied to (node, at path),
// the file a CreateFile made or emptied (truncate).
type step struct {
	change        int
	node          *node
	path, newPath string
	truncate      bool
}

// CompileLSP parses a WorkspaceEdit and compiles it into a write request.
func CompileLSP(input []byte, o LSPOptions) (*plan.Request, *WorkspaceEdit, error) {
	we, err := ParseWorkspaceEdit(input)
	if err != nil {
		return nil, nil, err
	}
	req, err := we.Request(o)
	return req, we, err
}

// Request compiles the edit into one write request, against the tree as
// it is now: the changes apply in order, each to the paths the ones
// before left; every file's text edits become text_edits edits of its
// entry, in order, and its fate (moved, deleted) the entry's last edit;
// directories renamed or deleted become the request's Dirs. What the edit
// cannot do (a missing file, a rename onto an existing file without
// overwrite, a non-empty directory deleted without recursive, an
// annotation that needs confirmation and has none) is refused here, with
// the change named; what depends on the files' content (positions,
// overlaps) is checked when the engine applies it.
func (we *WorkspaceEdit) Request(o LSPOptions) (*plan.Request, error) {
	if o.Tree == nil {
		return nil, plan.Errorf(plan.CodeInvalidRequest, "", "an LSP WorkspaceEdit compiles against a workspace: give LSPOptions.Tree")
	}
	if o.Encoding == "" {
		o.Encoding = plan.EncodingUTF16
	}
	if err := we.checkAnnotations(o); err != nil {
		return nil, err
	}
	s := &sim{we: we, o: o, files: map[string]*node{}, absent: map[string]bool{}, dirs: map[string]dirState{}, dirFrom: map[string]string{}}
	we.steps, we.encoding = nil, o.Encoding
	for i := range we.Changes {
		if err := s.apply(i); err != nil {
			return nil, err
		}
	}
	return s.request()
}

// checkAnnotations refuses unknown annotation ids, and changes whose
// annotation needs confirmation unless confirmed (or previewed).
func (we *WorkspaceEdit) checkAnnotations(o LSPOptions) error {
	need := map[string]bool{}
	check := func(where, id string) error {
		if id == "" {
			return nil
		}
		a, ok := we.Annotations[id]
		if !ok {
			return lspErr(where, "annotation %q is not in changeAnnotations", id)
		}
		if a.NeedsConfirmation {
			need[id] = true
		}
		return nil
	}
	for _, c := range we.Changes {
		if err := check(c.Where, c.Annotation); err != nil {
			return err
		}
		for i, id := range c.EditAnnotations {
			if err := check(c.Edits[i].Where, id); err != nil {
				return err
			}
		}
	}
	if len(need) == 0 || o.Confirm || o.DryRun {
		return nil
	}
	var labels []string
	for _, id := range we.AnnotationOrder {
		if need[id] {
			labels = append(labels, fmt.Sprintf("%q", we.Annotations[id].Label))
		}
	}
	return plan.Errorf(plan.CodeNeedsConfirmation, "", "the WorkspaceEdit's changes labelled %s need confirmation: preview them (--dry-run, dry_run), then confirm (--confirm on the command line, confirm: true in a tool call)", strings.Join(labels, ", "))
}

// apply follows change i.
func (s *sim) apply(i int) error {
	s.at = i
	c := &s.we.Changes[i]
	rel, err := s.resolve(c.Where, c.Path)
	if err != nil {
		return err
	}
	switch c.Kind {
	case ChangeEdit:
		return s.edit(i, c, rel)
	case ChangeCreate:
		return s.create(c, rel)
	case ChangeRename, ChangeDelete:
		if s.o.Tree.IsLink(c.Path) {
			// A write resolves the link: it would move or delete the
			// file it points to and leave the link.
			return plan.Errorf(plan.CodeNotRegular, s.o.Tree.Spell(rel), "%s: %s is a symlink: txedit does not %s a link through a WorkspaceEdit", c.Where, c.Path, c.Kind)
		}
	}
	switch c.Kind {
	case ChangeRename:
		to, err := s.resolve(c.Where, c.NewPath)
		if err != nil {
			return err
		}
		s.we.steps = append(s.we.steps, step{change: i, path: rel, newPath: to})
		return s.rename(c, rel, to)
	}
	s.we.steps = append(s.we.steps, step{change: i, path: rel})
	return s.delete(c, rel)
}

func (s *sim) resolve(where, p string) (string, error) {
	rel, err := s.o.Tree.Resolve(p)
	if err != nil {
		e := *plan.As(err)
		e.Msg = where + ": " + e.Msg
		return "", &e
	}
	if rel == "." || rel == "" {
		return "", lspErr(where, "%s is the workspace root: a WorkspaceEdit cannot create, rename or delete it", p)
	}
	return rel, nil
}

// kind is what stands at rel now: a file (its node), a directory, or
// nothing.
func (s *sim) kind(rel string) (n *node, dir bool, err error) {
	if n := s.files[rel]; n != nil {
		return n, false, nil
	}
	switch s.dirs[rel] {
	case dirNew, dirThere:
		return nil, true, nil
	case dirGone:
		return nil, false, nil
	}
	if !s.original(rel) {
		return nil, false, nil
	}
	exists, isDir, err := s.o.Tree.Stat(rel)
	switch {
	case err != nil:
		return nil, false, err
	case !exists:
		s.absent[rel] = true
		return nil, false, nil
	case isDir:
		s.dirs[rel] = dirThere
		return nil, true, nil
	}
	n = &node{origin: rel, path: rel}
	s.nodes = append(s.nodes, n)
	s.files[rel] = n
	return n, false, nil
}

// underChanged reports whether an ancestor of rel is known to hold
// nothing, a file, or a directory the edit made (whose whole content is
// known): then rel, not known itself, is absent.
func (s *sim) underChanged(rel string) bool {
	for d := path.Dir(rel); d != "."; d = path.Dir(d) {
		if s.files[d] != nil || s.absent[d] {
			return true
		}
		switch s.dirs[d] {
		case dirGone, dirNew:
			return true
		case dirThere:
			return false
		}
	}
	return false
}

func (s *sim) edit(i int, c *Change, rel string) error {
	n, dir, err := s.kind(rel)
	switch {
	case err != nil:
		return err
	case dir:
		return plan.Errorf(plan.CodeNotRegular, s.o.Tree.Spell(rel), "%s: is a directory: a TextDocumentEdit edits a file", c.Where)
	case n == nil:
		return plan.Errorf(plan.CodeFileNotFound, s.o.Tree.Spell(rel), "%s: no such file%s", c.Where, s.atThisPoint(i))
	}
	if err := s.checkVersion(c, n); err != nil {
		return err
	}
	n.groups = append(n.groups, i)
	s.we.steps = append(s.we.steps, step{change: i, node: n, path: rel})
	return nil
}

// atThisPoint explains a missing file when earlier changes moved things.
func (s *sim) atThisPoint(i int) string {
	for _, c := range s.we.Changes[:i] {
		if c.Kind != ChangeEdit {
			return " at this point of the edit (the operations before it may have renamed or deleted it)"
		}
	}
	return ""
}

// checkVersion checks a TextDocumentEdit's version against what the
// caller sent, or warns that it cannot be checked.
func (s *sim) checkVersion(c *Change, n *node) error {
	if c.Version == nil {
		return nil
	}
	key := n.origin
	if key == "" {
		key = n.path
	}
	if s.o.Versions != nil {
		if sent, ok := s.o.Versions[key]; ok {
			if sent != *c.Version {
				return plan.Errorf(plan.CodeConflict, s.o.Tree.Spell(key), "%s: the edit is for version %d of the document, but version %d was sent: it was computed against other content; nothing was written", c.Where, *c.Version, sent)
			}
			return nil
		}
	}
	if *c.Version != 0 {
		s.we.Warnings = append(s.we.Warnings, fmt.Sprintf("%s: version %d of %s cannot be checked (txedit has no editor buffers): the edit applies to the file as it is on disk", c.Where, *c.Version, s.o.Tree.Spell(key)))
	}
	return nil
}

func (s *sim) create(c *Change, rel string) error {
	n, dir, err := s.kind(rel)
	switch {
	case err != nil:
		return err
	case dir && c.IgnoreIfExists && !c.Overwrite:
		return nil
	case dir:
		return plan.Errorf(plan.CodeConflict, s.o.Tree.Spell(rel), "%s: a directory stands there: CreateFile makes a file", c.Where)
	case n != nil && c.Overwrite:
		n.truncate, n.groups = true, nil
		s.we.steps = append(s.we.steps, step{change: s.at, node: n, path: rel, truncate: true})
		return nil
	case n != nil && c.IgnoreIfExists:
		return nil
	case n != nil:
		return plan.Errorf(plan.CodeConflict, s.o.Tree.Spell(rel), "%s: the file exists, and the CreateFile has neither overwrite nor ignoreIfExists", c.Where)
	}
	if err := s.parents(c, rel); err != nil {
		return err
	}
	n = &node{truncate: true}
	s.nodes = append(s.nodes, n)
	s.place(n, rel)
	s.we.steps = append(s.we.steps, step{change: s.at, node: n, path: rel, truncate: true})
	return nil
}

// place puts n at rel, which holds nothing now.
func (s *sim) place(n *node, rel string) {
	n.path = rel
	s.files[rel] = n
	delete(s.absent, rel)
	if s.dirs[rel] == dirGone {
		delete(s.dirs, rel)
	}
}

// parents makes sure rel's directories exist once something is put there:
// a file on the way is a conflict; missing ones the edit makes.
func (s *sim) parents(c *Change, rel string) error {
	var missing []string
	for d := path.Dir(rel); d != "."; d = path.Dir(d) {
		n, dir, err := s.kind(d)
		if err != nil {
			return err
		}
		if n != nil {
			return plan.Errorf(plan.CodeConflict, s.o.Tree.Spell(rel), "%s: %s is a file, not a directory", c.Where, s.o.Tree.Spell(d))
		}
		if dir {
			break
		}
		missing = append(missing, d)
	}
	for _, d := range missing {
		s.dirs[d] = dirNew
		delete(s.absent, d)
	}
	return nil
}

func (s *sim) rename(c *Change, from, to string) error {
	n, dir, err := s.kind(from)
	switch {
	case err != nil:
		return err
	case n == nil && !dir:
		return plan.Errorf(plan.CodeFileNotFound, s.o.Tree.Spell(from), "%s: nothing to rename: no such file or directory", c.Where)
	case from == to:
		return nil
	case strings.HasPrefix(to, from+"/"):
		return lspErr(c.Where, "%s cannot be renamed into itself (%s)", s.o.Tree.Spell(from), s.o.Tree.Spell(to))
	}
	tn, tdir, err := s.kind(to)
	if err != nil {
		return err
	}
	if tn != nil || tdir {
		switch {
		case c.Overwrite && tdir:
			return plan.Errorf(plan.CodeConflict, s.o.Tree.Spell(to), "%s: a directory stands there: txedit does not replace a directory by a rename", c.Where)
		case c.Overwrite && dir:
			return plan.Errorf(plan.CodeConflict, s.o.Tree.Spell(to), "%s: a file stands there: txedit does not replace a file by a directory", c.Where)
		case c.Overwrite:
			tn.gone = true // replaced: its bytes are journaled
			delete(s.files, to)
		case c.IgnoreIfExists:
			return nil
		default:
			return plan.Errorf(plan.CodeConflict, s.o.Tree.Spell(to), "%s: the target exists, and the RenameFile has neither overwrite nor ignoreIfExists", c.Where)
		}
	}
	if err := s.parents(c, to); err != nil {
		return err
	}
	if !dir {
		s.vacate(from)
		s.place(n, to)
		return nil
	}
	return s.renameDir(from, to)
}

// vacate marks rel as holding nothing now.
func (s *sim) vacate(rel string) {
	delete(s.files, rel)
	s.absent[rel] = true
}

// renameDir moves everything under the directory from to to.
func (s *sim) renameDir(from, to string) error {
	files, dirs, err := s.list(from)
	if err != nil {
		return err
	}
	for _, d := range dirs {
		old, nw := path.Join(from, d), path.Join(to, d)
		s.dirs[nw] = dirNew
		delete(s.absent, nw)
		origin := s.dirFrom[old]
		if origin == "" && s.dirs[old] != dirNew {
			origin = old
		}
		s.dirFrom[nw] = origin
		s.make = append(s.make, plan.DirMake{Path: nw, ModeOf: origin})
	}
	for _, f := range files {
		n := s.files[path.Join(from, f)]
		s.vacate(n.path)
		s.place(n, path.Join(to, f))
	}
	s.goneDirs(from, dirs)
	return nil
}

// goneDirs marks the directories dirs (relative to top) as gone: those
// that exist before the edit are removed by it, those it made (renamed
// there earlier) are not made after all.
func (s *sim) goneDirs(top string, dirs []string) {
	for i := len(dirs) - 1; i >= 0; i-- {
		d := path.Join(top, dirs[i])
		if s.dirs[d] == dirNew {
			s.make = slices.DeleteFunc(s.make, func(m plan.DirMake) bool { return m.Path == d })
		} else {
			s.remove = append(s.remove, d)
		}
		s.dirs[d] = dirGone
	}
}

// list returns what the directory rel holds now: its files (each given
// a node) and directories, relative to it, parents first ("" first).
func (s *sim) list(rel string) (files, dirs []string, err error) {
	seen := map[string]bool{}
	if s.dirs[rel] != dirNew {
		tf, td, err := s.o.Tree.List(rel)
		if err != nil {
			return nil, nil, err
		}
		for _, d := range td {
			p := path.Join(rel, d)
			if d != "" && s.dirs[p] == dirUnknown && s.original(p) {
				s.dirs[p] = dirThere
			}
		}
		for _, f := range tf {
			if p := path.Join(rel, f); s.files[p] == nil && s.dirs[p] == dirUnknown && s.original(p) {
				n := &node{origin: p, path: p}
				s.nodes = append(s.nodes, n)
				s.files[p] = n
			}
		}
	}
	for p := range s.files {
		if f, ok := strings.CutPrefix(p, rel+"/"); ok && !seen[f] {
			files, seen[f] = append(files, f), true
		}
	}
	dirs = []string{""}
	for p, st := range s.dirs {
		if d, ok := strings.CutPrefix(p, rel+"/"); ok && (st == dirNew || st == dirThere) {
			dirs = append(dirs, d)
		}
	}
	sort.Strings(files)
	depth := func(d string) int {
		if d == "" {
			return -1
		}
		return strings.Count(d, "/")
	}
	sort.Slice(dirs, func(i, j int) bool {
		if a, b := depth(dirs[i]), depth(dirs[j]); a != b {
			return a < b
		}
		return dirs[i] < dirs[j]
	})
	return files, dirs, nil
}

// original reports whether rel, not known to the compiler, is still what
// the tree holds there (nothing the edit did stands above it).
func (s *sim) original(rel string) bool { return !s.absent[rel] && !s.underChanged(rel) }

func (s *sim) delete(c *Change, rel string) error {
	n, dir, err := s.kind(rel)
	switch {
	case err != nil:
		return err
	case n == nil && !dir && c.IgnoreIfNotExists:
		return nil
	case n == nil && !dir:
		return plan.Errorf(plan.CodeFileNotFound, s.o.Tree.Spell(rel), "%s: nothing to delete: no such file or directory (the DeleteFile has no ignoreIfNotExists)", c.Where)
	case n != nil:
		n.gone = true
		s.vacate(rel)
		return nil
	}
	files, dirs, err := s.list(rel)
	if err != nil {
		return err
	}
	if (len(files) > 0 || len(dirs) > 1) && !c.Recursive {
		return plan.Errorf(plan.CodeConflict, s.o.Tree.Spell(rel), "%s: the directory is not empty (%d files, %d directories in it), and the DeleteFile is not recursive", c.Where, len(files), len(dirs)-1)
	}
	for _, f := range files {
		p := path.Join(rel, f)
		s.files[p].gone = true
		s.vacate(p)
	}
	s.goneDirs(rel, dirs)
	return nil
}

// request turns the files followed into a write request: one entry per
// file, named by where it was before the edit (a file the edit makes, by
// where it ends).
func (s *sim) request() (*plan.Request, error) {
	ending := map[string]*node{} // final path → the live file there
	for _, n := range s.nodes {
		if !n.gone {
			ending[n.path] = n
		}
	}
	req := &plan.Request{Dirs: &plan.DirChanges{Make: s.make, Remove: s.remove, KeepParents: true}, Summary: s.we.Label}
	for _, n := range s.nodes {
		fe, err := s.entry(n, ending)
		if err != nil {
			return nil, err
		}
		if fe != nil {
			req.FileEdits = append(req.FileEdits, *fe)
		}
	}
	if len(req.FileEdits) == 0 && len(s.make)+len(s.remove) == 0 {
		return nil, lspErr("", "the WorkspaceEdit changes nothing: its operations were ignored or leave every file where it was")
	}
	return req, nil
}

// entry is one file's entry of the request, or nil when the file needs
// none (made by the edit and gone again, left as it was, or replaced by
// another file whose entry says so).
func (s *sim) entry(n *node, ending map[string]*node) (*plan.FileEdit, error) {
	spell := s.o.Tree.Spell
	if n.origin == "" {
		if n.gone {
			return nil, nil
		}
		fe := &plan.FileEdit{Path: spell(n.path)}
		if s.replaces(n.path) {
			// The edit deleted the file that was there and made this
			// one: the entry writes over it.
			fe.ContentHash = s.o.Hashes[n.path]
			fe.Edits = append(fe.Edits, plan.Edit{Command: string(plan.Write), FileText: new(string)})
		} else {
			fe.Edits = append(fe.Edits, plan.Edit{Command: string(plan.Write), FileText: new(string), IfAbsent: true})
		}
		fe.Edits = append(fe.Edits, s.groupEdits(n)...)
		return fe, nil
	}
	if other := ending[n.origin]; other != nil && other != n && !n.gone {
		return nil, plan.Errorf(plan.CodeInvalidRequest, spell(n.origin), "the WorkspaceEdit moves %s away and puts another file at its place: txedit cannot commit that as one transaction (rename in two steps)", spell(n.origin))
	}
	fe := &plan.FileEdit{Path: spell(n.origin), ContentHash: s.o.Hashes[n.origin]}
	if n.gone {
		if other := ending[n.origin]; other != nil {
			return nil, nil // another file ends here, over it: its entry replaces it
		}
		fe.Edits = []plan.Edit{{Command: string(plan.Delete)}}
		return fe, nil
	}
	if n.truncate {
		fe.Edits = append(fe.Edits, plan.Edit{Command: string(plan.Write), FileText: new(string)})
	}
	fe.Edits = append(fe.Edits, s.groupEdits(n)...)
	if n.path != n.origin {
		fe.Edits = append(fe.Edits, plan.Edit{Command: string(plan.Move), NewPath: spell(n.path), Overwrite: s.replaces(n.path)})
	}
	if len(fe.Edits) == 0 {
		return nil, nil
	}
	return fe, nil
}

// replaces reports whether a file was at p before the edit and is gone
// (deleted, or renamed over): a file that ends at p takes its place.
func (s *sim) replaces(p string) bool {
	for _, m := range s.nodes {
		if m.origin == p && m.gone {
			return true
		}
	}
	return false
}

// groupEdits are a file's text_edits edits, one per TextDocumentEdit.
func (s *sim) groupEdits(n *node) []plan.Edit {
	var out []plan.Edit
	for _, i := range n.groups {
		c := &s.we.Changes[i]
		out = append(out, plan.Edit{Command: string(plan.TextEdits), TextEdits: c.Edits, PositionEncoding: string(s.o.Encoding)})
	}
	return out
}
