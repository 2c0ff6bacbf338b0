package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/txedit/txedit/apply"
	"github.com/txedit/txedit/hash"
	"github.com/txedit/txedit/plan"
)

// edit_file, as the official server's applyFileEdits with txedit's rules:
// the file's text with CRLF made LF, each edit applied in turn to the
// result of those before it, the answer the diff of the whole change in a
// fenced block. An edit's oldText that occurs once is replaced; one that
// occurs several times is refused as ambiguous, listing the lines (the
// official server takes the first, a guess). Text found nowhere is looked
// for line by line with the matching ladder of txedit's patch formats
// (trailing whitespace, then all surrounding whitespace, then Unicode
// punctuation): one place is used, with the official re-indentation of
// newText, and the answer says which rung matched; several places are
// ambiguous; none is the official "Could not find exact match". Nothing is
// written unless every edit applies; the write keeps the file's CRLF and
// BOM, needs a prior read in the session, and is one undoable
// transaction. A dryRun needs no read and writes nothing.

type fsEditArg struct {
	OldText string `json:"oldText"`
	NewText string `json:"newText"`
}

func fsEdit(ctx context.Context, env *Env, args json.RawMessage) Result {
	var a struct {
		Path   string      `json:"path"`
		Edits  []fsEditArg `json:"edits"`
		DryRun bool        `json:"dryRun"`
	}
	if err := decode(args, &a); err != nil {
		return fsFailErr(err)
	}
	p, err := fsResolve(rootsOf(env), a.Path)
	if err != nil {
		return fsFailErr(err)
	}
	// Read without counting as the agent's read: the rule asks whether
	// the agent has seen the file.
	b, err := p.root.S.Workspace().ReadBytes(ctx, p.abs)
	if err != nil {
		return fsFailErr(fsError(err, p, "open"))
	}
	content := lf(decodeUTF8(b.Data))
	modified, notes, err := applyFsEdits(a.Path, content, a.Edits)
	// A file changed since the session read it: the engine answers (a
	// rebase of the edits made against the version read, or a refusal
	// with what changed), not the current text's own mismatch.
	stale := !a.DryRun && p.root.S.Stale(p.abs, b.Hash)
	if err != nil && !stale {
		return fsFailErr(err)
	}
	if a.DryRun {
		return fsOK(fsEditAnswer(p, content, modified, notes))
	}
	// The edits are a function of the text, computed again on the bytes
	// the write replaces, under the lock: a change made since the session
	// read the file is merged with them, or refused (docs/design.md,
	// "Concurrency"), never overwritten.
	var mu sync.Mutex
	type run struct {
		in, out string
		notes   []string
	}
	runs := map[hash.Sum]run{}
	rewrite := func(cur []byte) (string, error) {
		in := lf(decodeUTF8(cur))
		out, notes, err := applyFsEdits(a.Path, in, a.Edits)
		if err == nil {
			mu.Lock()
			runs[hash.Of(cur)] = run{in, out, notes}
			mu.Unlock()
		}
		return out, err
	}
	res, _ := p.root.S.Apply(ctx, &plan.Request{Summary: "edit_file " + a.Path, DeltaShown: true, FileEdits: []plan.FileEdit{{
		Path: p.abs, Edits: []plan.Edit{{Command: string(plan.Create), Rewrite: rewrite}}}}})
	if !res.Success {
		return fsFailErr(writeAnswer(res, p, "open"))
	}
	if d := deltaOf(res); d != nil && d.Rebased {
		// The diff shown is of the edits on the version they were
		// applied to.
		if sum, err := hash.ParseSum(d.Current); err == nil {
			mu.Lock()
			r, ok := runs[sum]
			mu.Unlock()
			if ok {
				content, modified, notes = r.in, r.out, r.notes
			}
		}
		return fsOK(fsEditAnswer(p, content, modified, notes) + strings.TrimPrefix(rebasedNote(res), "\n\n") + "\n")
	}
	return fsOK(fsEditAnswer(p, content, modified, notes))
}

// fsEditAnswer is edit_file's answer: the diff in a fenced block, then
// the notes on looser matches.
func fsEditAnswer(p *fsPath, content, modified string, notes []string) string {
	diff := jsUnifiedDiff(p.shown(), content, modified)
	fence := "```"
	for strings.Contains(diff, fence) {
		fence += "`"
	}
	text := fence + "diff\n" + diff + fence + "\n\n"
	if len(notes) > 0 {
		text += strings.Join(notes, "\n") + "\n"
	}
	return text
}

// lf turns CRLF into LF, as the official normalizeLineEndings does.
func lf(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

// applyFsEdits applies the edits in turn; notes say which edits needed a
// looser rung of the ladder.
func applyFsEdits(name, content string, edits []fsEditArg) (string, []string, error) {
	var notes []string
	for i, e := range edits {
		old, repl := lf(e.OldText), lf(e.NewText)
		if old == "" {
			content = repl + content // "".includes("") and replace("", …): at the start
			continue
		}
		switch n := strings.Count(content, old); {
		case n == 1:
			content = strings.Replace(content, old, repl, 1)
			continue
		case n > 1:
			return "", nil, plain(plan.CodeAmbiguous, fmt.Sprintf("[ambiguous] edit %d: its oldText occurs %d times in %s (at lines %s): nothing was written. Give more surrounding text so that it matches one place.",
				i+1, n, name, occurrenceLines(content, old)))
		}
		next, rung, err := looseEdit(name, content, old, repl)
		if err != nil {
			if plan.CodeOf(err) == plan.CodeAmbiguous {
				return "", nil, plain(plan.CodeAmbiguous, fmt.Sprintf("[ambiguous] edit %d: its oldText matches several places of %s once whitespace is ignored (%s): nothing was written. Give more surrounding text so that it matches one place.",
					i+1, name, strings.TrimPrefix(plan.As(err).Msg, "")))
			}
			return "", nil, plain(plan.CodeNotFound, "Could not find exact match for edit:\n"+e.OldText)
		}
		content = next
		if rung == plan.RungExact {
			continue
		}
		note := fmt.Sprintf("Note (txedit): edit %d's oldText matched only with %s ignored", i+1, rungWords(rung))
		if rung != plan.RungTrailingSpace {
			note += "; its newText was written at the file's indentation"
		}
		notes = append(notes, note+"; check the diff.")
	}
	return content, notes, nil
}

func rungWords(r plan.Rung) string {
	switch r {
	case plan.RungTrailingSpace:
		return "trailing whitespace"
	case plan.RungWhitespace:
		return "leading and trailing whitespace"
	case plan.RungUnicode:
		return "whitespace and Unicode punctuation (dashes, quotes, spaces)"
	}
	return string(r)
}

// occurrenceLines lists the 1-based lines where old starts in content.
func occurrenceLines(content, old string) string {
	var lines []string
	off := 0
	for len(lines) < 20 {
		i := strings.Index(content[off:], old)
		if i < 0 {
			break
		}
		lines = append(lines, fmt.Sprint(strings.Count(content[:off+i], "\n")+1))
		off += i + max(1, len(old))
	}
	return strings.Join(lines, ", ")
}

// looseEdit finds old's lines in content with the matching ladder (one
// place, or ambiguous, or none) and replaces them with repl's lines,
// moved to the indentation they matched at.
func looseEdit(name, content, old, repl string) (string, plan.Rung, error) {
	oldLines := strings.Split(old, "\n")
	hunkOld := oldLines
	if len(hunkOld) > 1 && hunkOld[len(hunkOld)-1] == "" {
		hunkOld = hunkOld[:len(hunkOld)-1]
	}
	newLines := strings.Split(repl, "\n")
	o := apply.ApplyBlocks(name, []byte(content), []plan.Hunk{{Old: hunkOld, New: hunkOld}})
	if !o.OK() {
		return "", "", o.Failed[0]
	}
	if len(o.Reports) != 1 || o.Reports[0].AlreadyApplied {
		return "", "", plan.Errorf(plan.CodeNotFound, name, "not found")
	}
	at := o.Reports[0].Line - 1
	lines := strings.Split(content, "\n")
	if at < 0 || at+len(hunkOld) > len(lines) {
		return "", "", plan.Errorf(plan.CodeNotFound, name, "not found")
	}
	if len(hunkOld) < len(oldLines) && len(newLines) > 1 && newLines[len(newLines)-1] == "" {
		newLines = newLines[:len(newLines)-1]
	}
	// newText is written at the file's indentation, as the patch formats
	// write a hunk matched on the whitespace rung (apply.Reindent): each
	// of oldText's indentations maps to the file's where it matched, and
	// newText's lines go through that map, deeper ones by the file's unit.
	// (The official server puts every line after the first at the first
	// line's indent plus its own offset from oldText's, which loses the
	// file's indentation: "  return b + a" matched four spaces deep stays
	// two deep.)
	out := newLines
	if rung := o.Reports[0].Rung; rung != plan.RungExact && rung != plan.RungTrailingSpace {
		out = apply.Reindent(lines[at:at+len(hunkOld)], hunkOld, newLines, lines)
	}
	lines = append(lines[:at], append(out, lines[at+len(hunkOld):]...)...)
	return strings.Join(lines, "\n"), o.Reports[0].Rung, nil
}
