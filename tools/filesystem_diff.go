package tools

import (
	"strconv"
	"strings"
)

// The official filesystem server's edit_file answers with a diff made by
// the npm package diff (jsdiff 8.0.4): createTwoFilesPatch(path, path, old,
// new, "original", "modified"), 4 lines of context. An agent reads that
// text, so the filesystem toolset renders it the same way: the Myers
// variant of jsdiff's diffLines (its choices among equally short diffs
// decide which lines a hunk shows) and its structuredPatch and
// formatPatch, ported below. docs/filesystem.md names the release.

// jsChange is one component of a line diff: count lines added, removed
// or common.
type jsChange struct {
	added, removed bool
	lines          []string // with their "\n" (the last may lack it)
}

// jsLines splits text into lines, each keeping its "\n" (or "\r\n"), as
// jsdiff's line tokenizer does; a final empty token is dropped.
func jsLines(s string) []string {
	var out []string
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// jsComponent is a node of jsdiff's path: a run of count tokens of one
// kind, linked to the run before it.
type jsComponent struct {
	count          int
	added, removed bool
	prev           *jsComponent
}

type jsPath struct {
	oldPos int
	last   *jsComponent
}

// jsDiffLines is jsdiff's Diff.diff over line tokens, without its time or
// edit-length limits.
func jsDiffLines(oldText, newText string) []jsChange {
	oldT, newT := jsLines(oldText), jsLines(newText)
	oldLen, newLen := len(oldT), len(newT)
	extract := func(p *jsPath, diagonal int) int {
		oldPos := p.oldPos
		newPos := oldPos - diagonal
		common := 0
		for newPos+1 < newLen && oldPos+1 < oldLen && oldT[oldPos+1] == newT[newPos+1] {
			newPos++
			oldPos++
			common++
		}
		if common > 0 {
			p.last = &jsComponent{count: common, prev: p.last}
		}
		p.oldPos = oldPos
		return newPos
	}
	addTo := func(p *jsPath, added, removed bool, oldInc int) *jsPath {
		last := p.last
		if last != nil && last.added == added && last.removed == removed {
			return &jsPath{oldPos: p.oldPos + oldInc, last: &jsComponent{count: last.count + 1, added: added, removed: removed, prev: last.prev}}
		}
		return &jsPath{oldPos: p.oldPos + oldInc, last: &jsComponent{count: 1, added: added, removed: removed, prev: last}}
	}
	build := func(last *jsComponent) []jsChange {
		var comps []*jsComponent
		for c := last; c != nil; c = c.prev {
			comps = append(comps, c)
		}
		out := make([]jsChange, 0, len(comps))
		newPos, oldPos := 0, 0
		for i := len(comps) - 1; i >= 0; i-- {
			c := comps[i]
			ch := jsChange{added: c.added, removed: c.removed}
			if !c.removed {
				ch.lines = newT[newPos : newPos+c.count]
				newPos += c.count
				if !c.added {
					oldPos += c.count
				}
			} else {
				ch.lines = oldT[oldPos : oldPos+c.count]
				oldPos += c.count
			}
			out = append(out, ch)
		}
		return out
	}
	// bestPath is indexed by diagonal, which runs from -(old+new) to
	// old+new: offset by that.
	off := oldLen + newLen + 1
	bestPath := make([]*jsPath, 2*off+1)
	bestPath[off] = &jsPath{oldPos: -1}
	newPos := extract(bestPath[off], 0)
	if bestPath[off].oldPos+1 >= oldLen && newPos+1 >= newLen {
		return build(bestPath[off].last)
	}
	minDiag, maxDiag := -off, off
	for editLength := 1; editLength <= oldLen+newLen; editLength++ {
		for d := max(minDiag, -editLength); d <= min(maxDiag, editLength); d += 2 {
			removePath, addPath := bestPath[off+d-1], bestPath[off+d+1]
			if removePath != nil {
				bestPath[off+d-1] = nil
			}
			canAdd := false
			if addPath != nil {
				addNewPos := addPath.oldPos - d
				canAdd = 0 <= addNewPos && addNewPos < newLen
			}
			canRemove := removePath != nil && removePath.oldPos+1 < oldLen
			if !canAdd && !canRemove {
				bestPath[off+d] = nil
				continue
			}
			var base *jsPath
			if !canRemove || (canAdd && removePath.oldPos < addPath.oldPos) {
				base = addTo(addPath, true, false, 0)
			} else {
				base = addTo(removePath, false, true, 1)
			}
			newPos = extract(base, d)
			if base.oldPos+1 >= oldLen && newPos+1 >= newLen {
				return build(base.last)
			}
			bestPath[off+d] = base
			if base.oldPos+1 >= oldLen {
				maxDiag = min(maxDiag, d-1)
			}
			if newPos+1 >= newLen {
				minDiag = max(minDiag, d+1)
			}
		}
	}
	return nil // not reached: the edit graph always has a path
}

// jsUnifiedDiff is jsdiff's createTwoFilesPatch(name, name, oldText,
// newText, "original", "modified") with its default 4 lines of context.
func jsUnifiedDiff(name, oldText, newText string) string {
	const context = 4
	diff := jsDiffLines(oldText, newText)
	diff = append(diff, jsChange{}) // as jsdiff does: eases the clean-up
	type hunk struct {
		oldStart, oldLines, newStart, newLines int
		lines                                  []string
	}
	var hunks []hunk
	oldRangeStart, newRangeStart, oldLine, newLine := 0, 0, 1, 1
	var cur []string
	ctxLines := func(ls []string) []string {
		out := make([]string, len(ls))
		for i, l := range ls {
			out[i] = " " + l
		}
		return out
	}
	for i, c := range diff {
		if c.added || c.removed {
			if oldRangeStart == 0 {
				oldRangeStart, newRangeStart = oldLine, newLine
				if i > 0 {
					prev := diff[i-1].lines
					cur = ctxLines(prev[max(0, len(prev)-context):])
					oldRangeStart -= len(cur)
					newRangeStart -= len(cur)
				}
			}
			for _, l := range c.lines {
				if c.added {
					cur = append(cur, "+"+l)
				} else {
					cur = append(cur, "-"+l)
				}
			}
			if c.added {
				newLine += len(c.lines)
			} else {
				oldLine += len(c.lines)
			}
			continue
		}
		if oldRangeStart != 0 {
			if len(c.lines) <= context*2 && i < len(diff)-2 {
				cur = append(cur, ctxLines(c.lines)...)
			} else {
				n := min(len(c.lines), context)
				cur = append(cur, ctxLines(c.lines[:n])...)
				hunks = append(hunks, hunk{oldRangeStart, oldLine - oldRangeStart + n, newRangeStart, newLine - newRangeStart + n, cur})
				oldRangeStart, newRangeStart, cur = 0, 0, nil
			}
		}
		oldLine += len(c.lines)
		newLine += len(c.lines)
	}
	var b strings.Builder
	b.WriteString("Index: " + name + "\n")
	b.WriteString("===================================================================\n")
	b.WriteString("--- " + name + "\toriginal\n")
	b.WriteString("+++ " + name + "\tmodified\n")
	for _, h := range hunks {
		if h.oldLines == 0 {
			h.oldStart--
		}
		if h.newLines == 0 {
			h.newStart--
		}
		b.WriteString("@@ -" + strconv.Itoa(h.oldStart) + "," + strconv.Itoa(h.oldLines) + " +" + strconv.Itoa(h.newStart) + "," + strconv.Itoa(h.newLines) + " @@\n")
		for _, l := range h.lines {
			if t, ok := strings.CutSuffix(l, "\n"); ok {
				b.WriteString(t + "\n")
			} else {
				b.WriteString(l + "\n\\ No newline at end of file\n")
			}
		}
	}
	return b.String()
}
