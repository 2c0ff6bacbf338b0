package patch

import (
	"bytes"
	"sort"

	"github.com/txedit/txedit/apply"
	"github.com/txedit/txedit/plan"
)

// Groups returns the edit's changes by change annotation, labels in the
// order they first appear (changes under none last, label ""), for a
// person to read before confirming: each text edit as the lines it
// touches in the document as it saw it (edits of one label on one line
// or neighbouring lines together), each resource operation as itself. It
// needs Request to have run, and read to return a file's bytes before the
// edit (root-relative path). An edit that carries no annotation has no
// groups (nil).
func (we *WorkspaceEdit) Groups(read func(rel string) ([]byte, error)) ([]plan.ChangeGroup, error) {
	if len(we.Annotations) == 0 {
		return nil, nil
	}
	g := &grouper{we: we, read: read, by: map[string]*plan.ChangeGroup{}, content: map[*node][]byte{}}
	for _, st := range we.steps {
		if err := g.step(st); err != nil {
			return nil, err
		}
	}
	var out []plan.ChangeGroup
	for _, id := range g.order {
		out = append(out, *g.by[id])
	}
	if none := g.by[""]; none != nil {
		out = append(out, *none)
	}
	return out, nil
}

type grouper struct {
	we      *WorkspaceEdit
	read    func(string) ([]byte, error)
	by      map[string]*plan.ChangeGroup // by annotation id
	order   []string
	content map[*node][]byte // each file as the changes so far left it
}

// group is the group of annotation id.
func (g *grouper) group(id string) *plan.ChangeGroup {
	if cg := g.by[id]; cg != nil {
		return cg
	}
	a := g.we.Annotations[id]
	cg := &plan.ChangeGroup{Label: a.Label, Description: a.Description, NeedsConfirmation: a.NeedsConfirmation}
	g.by[id] = cg
	if id != "" {
		g.order = append(g.order, id)
	}
	return cg
}

func (g *grouper) step(st step) error {
	c := &g.we.Changes[st.change]
	switch {
	case c.Kind == ChangeRename:
		g.add(c.Annotation, plan.GroupedChange{Op: "rename", Path: st.path, NewPath: st.newPath})
	case c.Kind == ChangeDelete:
		g.add(c.Annotation, plan.GroupedChange{Op: "delete", Path: st.path})
	case st.truncate:
		g.content[st.node] = []byte{}
		if c.Kind == ChangeCreate {
			g.add(c.Annotation, plan.GroupedChange{Op: "create", Path: st.path})
		}
	case c.Kind == ChangeEdit:
		return g.edit(c, st)
	}
	return nil
}

func (g *grouper) add(id string, ch plan.GroupedChange) {
	cg := g.group(id)
	cg.Changes = append(cg.Changes, ch)
}

// edit adds a TextDocumentEdit's edits, by label, and applies it.
func (g *grouper) edit(c *Change, st step) error {
	base, ok := g.content[st.node]
	if !ok {
		var err error
		if base, err = g.read(st.node.origin); err != nil {
			return err
		}
	}
	byID := map[string][]plan.TextEdit{}
	var ids []string
	for i, e := range c.Edits {
		id := c.EditAnnotations[i]
		if _, seen := byID[id]; !seen {
			ids = append(ids, id)
		}
		byID[id] = append(byID[id], e)
	}
	for _, id := range ids {
		hunks, err := g.hunks(st.path, base, byID[id])
		if err != nil {
			return err
		}
		for _, h := range hunks {
			g.add(id, h)
		}
	}
	next, errs := apply.ApplyTextEdits(st.path, base, c.Edits, g.we.encoding)
	if len(errs) > 0 {
		return errs[0]
	}
	g.content[st.node] = next
	return nil
}

// hunks renders edits (of one label) on base: the lines each touches,
// edits on the same or neighbouring lines as one.
func (g *grouper) hunks(path string, base []byte, edits []plan.TextEdit) ([]plan.GroupedChange, error) {
	type placed struct {
		lo, hi int
		e      plan.TextEdit
	}
	var ps []placed
	for _, e := range edits {
		lo, err := apply.OffsetOf(path, base, e.Range.Start, g.we.encoding)
		if err != nil {
			return nil, err
		}
		hi, err := apply.OffsetOf(path, base, e.Range.End, g.we.encoding)
		if err != nil {
			return nil, err
		}
		ps = append(ps, placed{lo, max(lo, hi), e})
	}
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].lo < ps[j].lo })
	var out []plan.GroupedChange
	for i := 0; i < len(ps); {
		from, to := lineStart(base, ps[i].lo), lineEnd(base, ps[i].hi)
		j := i + 1
		for j < len(ps) && lineStart(base, ps[j].lo) <= to {
			to = max(to, lineEnd(base, ps[j].hi))
			j++
		}
		// The cluster's edits, moved to the start of its lines.
		var local []plan.TextEdit
		for _, p := range ps[i:j] {
			e := p.e
			e.Range.Start = apply.PositionOf(base[from:to], p.lo-from, g.we.encoding)
			e.Range.End = apply.PositionOf(base[from:to], p.hi-from, g.we.encoding)
			local = append(local, e)
		}
		newText, errs := apply.ApplyTextEdits(path, base[from:to], local, g.we.encoding)
		if len(errs) > 0 {
			return nil, errs[0]
		}
		out = append(out, plan.GroupedChange{Op: "edit", Path: path, Line: 1 + bytes.Count(base[:from], []byte("\n")), Old: string(base[from:to]), New: string(newText)})
		i = j
	}
	return out, nil
}

// lineStart is the start of the line holding offset off; lineEnd the end
// of that line, its "\n" included.
func lineStart(b []byte, off int) int { return bytes.LastIndexByte(b[:off], '\n') + 1 }

func lineEnd(b []byte, off int) int {
	if i := bytes.IndexByte(b[off:], '\n'); i >= 0 {
		return off + i + 1
	}
	return len(b)
}
