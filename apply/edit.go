package apply

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/txedit/txedit/plan"
)

// Outcome is the result of editing one file's content.
type Outcome struct {
	// Content is the new content (after create, line edits, str_replace and
	// append; copy, move and delete are the caller's business).
	Content []byte
	// Applied counts the edits that took effect, Final included.
	Applied int
	// Failed lists every edit that failed, in edit order. An edit-level
	// failure has Index >= 0; a file-level one -1.
	Failed []*plan.Error
	// Replacements counts the occurrences str_replace edits replaced,
	// Occurrences those they found.
	Replacements, Occurrences int
	// Hunks reports where each hunk of the file's patches went (hunks
	// numbered across the file's patch edits).
	Hunks []plan.HunkReport
	// AlreadyApplied: the file already is as its edits would make it —
	// every patch hunk proven in place, an if_absent file already there
	// with its content — so nothing changes (docs/patch-formats.md). A
	// missing_ok delete of a file already gone fails with file_not_found
	// here: only the engine's journal can prove that deletion.
	AlreadyApplied bool
	// Spans, when known, are the stretches of lines where Content differs
	// from the content Edit was given (Change.Spans): set when the file's
	// only change is one patch's hunks, from where they were placed and
	// which of their lines they kept, so that its diff is the patch's own
	// and need not be computed from both texts again.
	Spans []Span
}

// OK reports whether every edit succeeded.
func (o *Outcome) OK() bool { return len(o.Failed) == 0 }

// Edit applies f's edits to cur, the file's current content (exists is false
// for a file that is not there). Every edit is evaluated even after a
// failure: a failed edit is skipped and reported, and later edits apply to
// what the earlier successful ones produced, so one call reports every
// problem. Edit never panics on any input.
//
// The edits apply in a fixed order: the whole-file checks, create or write,
// patches, line edits, str_replace, append, and the final delete, move or
// copy (which only counts here: the caller does it).
func Edit(f *plan.FileOps, cur []byte, exists bool) *Outcome {
	e := &editor{f: f, out: &Outcome{}}
	e.out.Failed = append(e.out.Failed, f.Invalid...)
	if e.refuseFile(cur, exists) {
		return e.out
	}
	st, base := e.create(cur, exists)
	if f.TextEdits() && IsBinary(base) {
		return e.refuseBinary(base)
	}
	st, base = e.applyPatches(st, base, exists)
	_, body := split(base)
	body = e.lineEdits(st, body, cur, exists)
	var hints hinter // prepared once for all the failures on one body
	for _, op := range f.StrReplaces {
		body = e.strReplace(st, body, op, &hints)
	}
	body = e.appends(st, body)
	if f.Final != nil {
		e.out.Applied++
	}
	if f.Create != nil || len(f.LineEdits)+len(f.StrReplaces)+len(f.Appends) > 0 {
		e.out.Spans = nil // the hunks' spans are not all that changed
	}
	e.out.Content = join(st, body)
	sortFailed(e.out.Failed)
	return e.out
}

// editor is the state of one Edit call: the file's edits and the outcome
// they build.
type editor struct {
	f   *plan.FileOps
	out *Outcome
}

// fail records op's failure.
func (e *editor) fail(op *plan.Op, code plan.Code, format string, args ...any) *plan.Error {
	err := plan.EditErrorf(code, e.f.Path, op.Index, string(op.Command), format, args...)
	e.out.Failed = append(e.out.Failed, err)
	return err
}

// failAll fails every edit of the file with one reason.
func (e *editor) failAll(code plan.Code, format string, args ...any) {
	for _, op := range e.f.AllOps() {
		e.fail(op, code, format, args...)
	}
	sortFailed(e.out.Failed)
}

// refuseFile makes the checks that concern the whole file — a deletion or
// an if_absent create already done, a missing file, a stale content_hash —
// and reports whether they decided the outcome, so that no edit applies.
func (e *editor) refuseFile(cur []byte, exists bool) bool {
	f := e.f
	if !exists && f.Final != nil && f.Final.Command == plan.Delete && f.Final.MissingOK && f.Create == nil {
		// A deletion retried is already applied only with proof, which
		// only the journal has (the engine looks; docs/patch-formats.md).
		e.failAll(plan.CodeFileNotFound, "file does not exist: nothing to delete (a deletion of a missing file counts as already applied only when txedit's journal shows it deleted it)")
		return true
	}
	if c := f.Create; c != nil && c.IfAbsent && exists {
		switch {
		case string(cur) == c.Text && !f.TextEdits() && f.Final == nil:
			e.out.AlreadyApplied, e.out.Content = true, cur
			return true
		case string(cur) == c.Text:
			// Its content is where the request starts from, not what it
			// makes (an LSP CreateFile followed by edits).
			e.failAll(plan.CodeConflict, "already exists: the request creates it, and will not replace it")
			return true
		}
		e.failAll(plan.CodeConflict, "already exists with other content: the patch creates it, and will not replace it")
		return true
	}
	if !exists && f.Create == nil && !onlyAppendText(f) && !blocksOnly(f) {
		e.failAll(plan.CodeFileNotFound, "file does not exist (use create to make it)")
		return true
	}
	if f.Hash == nil {
		return false
	}
	if !exists {
		e.failAll(plan.CodeStaleHash, "content_hash %s given, but the file does not exist", f.Hash)
		return true
	}
	if !f.Hash.Check(cur) {
		e.failAll(plan.CodeStaleHash, "file changed since it was read: content_hash %s no longer matches (now %s); read it again", f.Hash, f.Hash.Current(cur))
		for _, fe := range e.out.Failed {
			if fe.Code == plan.CodeStaleHash {
				fe.Current = f.Hash.Current(cur).String()
			}
		}
		return true
	}
	return false
}

// create returns the content the other edits start from and its style: the
// current content, or the text of a create or write.
func (e *editor) create(cur []byte, exists bool) (style, []byte) {
	st := style{}
	if exists {
		st = detect(cur)
	}
	c := e.f.Create
	if c == nil {
		return st, cur
	}
	text := []byte(c.Text)
	if c.Rewrite != nil {
		var cb []byte
		if exists {
			cb = cur
		}
		t, err := c.Rewrite(cb)
		if err != nil {
			pe := plan.As(err)
			e.fail(c, pe.Code, "%s", pe.Msg)
			return st, cur
		}
		text = []byte(t)
	}
	if c.Command == plan.Write {
		st = detect(text) // the exact bytes given
	} else if exists {
		// Writing a whole file over an existing one keeps its line
		// endings and BOM, as every other edit does.
		ts, body := split(text)
		text = join(style{bom: st.bom || ts.bom}, []byte(st.convert(string(body))))
	} else {
		st = detect(text)
	}
	e.out.Applied++
	return st, text
}

// refuseBinary fails every text edit of a binary file; the others (a
// create, the final delete, move or copy) stand.
func (e *editor) refuseBinary(base []byte) *Outcome {
	for _, op := range e.f.AllOps() {
		if op.Command == plan.Insert || op.Command == plan.ReplaceLines || op.Command == plan.StrReplace || op.Command == plan.Append || op.Command == plan.AppendText ||
			(op.Command == plan.Patch && len(op.Hunks) > 0) || (op.Command == plan.TextEdits && len(op.TextEdits) > 0) {
			e.fail(op, plan.CodeBinaryFile, "file is binary (NUL byte in its first 8000 bytes): text edits are refused")
		}
	}
	sortFailed(e.out.Failed)
	e.out.Content = base
	if e.f.Final != nil {
		e.out.Applied++
	}
	return e.out
}

// applyPatches applies the file's patch edits to base; the style is detected
// again when they changed it.
func (e *editor) applyPatches(st style, base []byte, exists bool) (style, []byte) {
	f := e.f
	if len(f.Patches) == 0 {
		return st, base
	}
	before := base
	base = patches(f, base, exists || f.Create != nil, e.out)
	if !bytes.Equal(before, base) {
		st = detect(base)
	}
	if f.Final != nil && f.Final.Command == plan.Delete && len(base) > 0 && len(e.out.Failed) == 0 {
		e.fail(f.Final, plan.CodeConflict, "the file holds lines the patch does not delete: it differs from what the patch saw")
	}
	return st, base
}

// appends adds the append and append_text edits' text at the end of body.
func (e *editor) appends(st style, body []byte) []byte {
	for _, op := range e.f.Appends {
		if op.Command == plan.AppendText {
			body = append(body, op.Text...)
			e.out.Applied++
			continue
		}
		text := st.wholeLines(op.Text)
		if text != "" && len(body) > 0 && body[len(body)-1] != '\n' {
			body = append(body, st.nl()...)
		}
		body = append(body, text...)
		e.out.Applied++
	}
	return body
}

// lineEdits applies the insert and replace_lines edits, whose line numbers
// all refer to body as it was before any of them.
func (e *editor) lineEdits(st style, body, cur []byte, exists bool) []byte {
	f, out := e.f, e.out
	if len(f.LineEdits) == 0 {
		return body
	}
	starts := lineStarts(body)
	nlines := len(starts) - 1
	var ok []*plan.Op
	for _, op := range f.LineEdits {
		if op.Hash != nil {
			if !exists {
				e.fail(op, plan.CodeStaleHash, "content_hash %s given, but the file does not exist", op.Hash)
				continue
			}
			if !op.Hash.Check(cur) {
				now := op.Hash.Current(cur)
				err := e.fail(op, plan.CodeStaleHash, "content changed since it was read: content_hash %s no longer matches (now %s); read it again", op.Hash, now)
				err.Current = now.String()
				continue
			}
		}
		if op.Command == plan.Insert && op.Start > nlines {
			e.fail(op, plan.CodeLineOutOfRange, "insert_line %d is past the end: the file has %d lines", op.Start, nlines)
			continue
		}
		if op.Command == plan.ReplaceLines && op.End > nlines {
			e.fail(op, plan.CodeLineOutOfRange, "lines %d-%d are past the end: the file has %d lines", op.Start, op.End, nlines)
			continue
		}
		ok = append(ok, op)
	}
	// One pass in ascending order gives the same result as applying the
	// edits bottom-up, in linear time.
	var b bytes.Buffer
	b.Grow(len(body) + 64)
	pos := 0
	for _, op := range ok {
		switch op.Command {
		case plan.Insert:
			at := starts[op.Start]
			b.Write(body[pos:at])
			pos = at
			text := st.wholeLines(op.Text)
			if text != "" && b.Len() > 0 && at == len(body) && b.Bytes()[b.Len()-1] != '\n' {
				b.WriteString(st.nl()) // the old last line gains its terminator
			}
			b.WriteString(text)
		case plan.ReplaceLines:
			lo, hi := starts[op.Start-1], starts[op.End]
			b.Write(body[pos:lo])
			pos = hi
			text := st.wholeLines(op.Text)
			if hi == len(body) && (len(body) == 0 || body[len(body)-1] != '\n') {
				// The replaced lines ended the file without a final
				// newline: the replacement does too.
				text = strings.TrimSuffix(strings.TrimSuffix(text, "\n"), "\r")
			}
			b.WriteString(text)
		}
		out.Applied++
	}
	b.Write(body[pos:])
	return b.Bytes()
}

// strReplace applies one str_replace edit to body.
func (e *editor) strReplace(st style, body []byte, op *plan.Op, hints *hinter) []byte {
	out := e.out
	old, repl := st.convert(op.Old), st.convert(op.Text)
	at := bytes.Index(body, []byte(old))
	if at < 0 && old != op.Old {
		// A mixed file: the text may sit on lines that end in bare LF.
		if m := bytes.Index(body, []byte(op.Old)); m >= 0 {
			old, repl, at = op.Old, op.Text, m
		}
	}
	if at >= 0 && !op.All && !bytes.Contains(body[at+len(old):], []byte(old)) {
		// The common case, a unique match: one scan of body instead of
		// counting it and then replacing (which counts again).
		out.Applied++
		out.Occurrences++
		out.Replacements++
		res := make([]byte, 0, len(body)-len(old)+len(repl))
		res = append(res, body[:at]...)
		res = append(res, repl...)
		return append(res, body[at+len(old):]...)
	}
	n := 0
	if at >= 0 {
		n = 1 + bytes.Count(body[at+len(old):], []byte(old))
	}
	switch {
	case n == 0:
		e.fail(op, plan.CodeNotFound, "old_str not found%s", hints.hint(body, op.Old))
		return body
	case n > 1 && !op.All && !op.First:
		lines := matchLines(body, []byte(old), 20)
		e.fail(op, plan.CodeAmbiguous, "old_str occurs %d times (at lines %s): add surrounding lines to make it unique, or set replace_all", n, lines)
		return body
	}
	out.Applied++
	out.Occurrences += n
	if op.First {
		out.Replacements++
		return bytes.Replace(body, []byte(old), []byte(repl), 1)
	}
	out.Replacements += n
	return bytes.ReplaceAll(body, []byte(old), []byte(repl))
}

// matchLines lists the 1-based start lines of the first max occurrences.
func matchLines(body, sub []byte, max int) string {
	starts := lineStarts(body)
	var parts []string
	for off, k := 0, 0; ; k++ {
		i := bytes.Index(body[off:], sub)
		if i < 0 {
			break
		}
		if k == max {
			parts = append(parts, "…")
			break
		}
		at := off + i
		lo, hi := lineOf(starts, at), lineOf(starts, at+len(sub)-1)
		if lo == hi {
			parts = append(parts, fmt.Sprint(lo))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", lo, hi))
		}
		off = at + len(sub)
	}
	return strings.Join(parts, ", ")
}

func sortFailed(errs []*plan.Error) {
	for i := 1; i < len(errs); i++ {
		for j := i; j > 0 && errs[j].Index < errs[j-1].Index; j-- {
			errs[j], errs[j-1] = errs[j-1], errs[j]
		}
	}
}

// patches places the file's patch edits in content, one after another,
// numbering their hunks across the file. A patch whose every hunk is
// already in place changes nothing; when every patch of a file with no
// other edits is so, the file is already applied.
func patches(f *plan.FileOps, content []byte, exists bool, out *Outcome) []byte {
	first, all := len(out.Failed) == 0, true
	offset := 0
	changes := 0 // the patches that changed content (Outcome.Spans)
	defer func() {
		if changes != 1 {
			out.Spans = nil
		}
	}()
	for _, op := range f.Patches {
		if op.Command == plan.TextEdits {
			// Positions, not content: never already applied.
			all = false
			res, errs := textEdits(f.Path, content, op)
			if len(errs) > 0 {
				out.Failed = append(out.Failed, errs...)
				continue
			}
			out.Applied++
			content, exists = res, true
			changes++
			continue
		}
		if len(op.Hunks) == 0 && op.Binary == nil { // a mode change alone
			out.Applied++
			all = false
			continue
		}
		in := content
		if !exists && op.Blocks {
			in = nil // a missing file: an empty SEARCH creates it
		}
		var ho *HunkOutcome
		if op.Binary != nil {
			ho = ApplyBinary(f.Path, in, op.Binary)
		} else if op.Blocks {
			ho = ApplyBlocks(f.Path, in, op.Hunks)
		} else {
			ho = ApplyHunks(f.Path, in, op.Hunks)
		}
		for _, r := range ho.Reports {
			r.Hunk += offset
			out.Hunks = append(out.Hunks, r)
		}
		for _, e := range ho.Failed {
			c := *e
			if idx, ok := c.Edit(); ok {
				c.Index = idx + offset
			}
			out.Failed = append(out.Failed, &c)
		}
		offset += len(op.Hunks)
		if !ho.OK() {
			all = false
			continue
		}
		out.Applied++
		if !ho.AlreadyApplied {
			all = false
			changes++
			out.Spans = ho.spans
		}
		content, exists = ho.Content, true
	}
	onlyPatches := f.Create == nil && f.Final == nil && len(f.LineEdits)+len(f.StrReplaces)+len(f.Appends) == 0
	out.AlreadyApplied = all && first && onlyPatches
	return content
}

// blocksOnly reports whether f's edits are SEARCH/REPLACE patches alone,
// which may create a missing file (an empty SEARCH).
func blocksOnly(f *plan.FileOps) bool {
	if len(f.Patches) == 0 || f.Create != nil || f.Final != nil || len(f.LineEdits)+len(f.StrReplaces)+len(f.Appends) > 0 {
		return false
	}
	for _, op := range f.Patches {
		if !op.Blocks {
			return false
		}
	}
	return true
}

// onlyAppendText reports whether every edit of f is an append_text, which
// creates a missing file.
func onlyAppendText(f *plan.FileOps) bool {
	if len(f.Appends) == 0 || f.Create != nil || f.Final != nil || len(f.LineEdits)+len(f.StrReplaces) > 0 || f.Hash != nil {
		return false
	}
	for _, op := range f.Appends {
		if op.Command != plan.AppendText {
			return false
		}
	}
	return true
}
