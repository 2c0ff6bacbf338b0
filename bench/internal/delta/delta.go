// Package delta reads txedit's notes as the benchmarks' simulated agents
// do (docs/design.md, "Concurrency"): the change a note shows, applied to
// the agent's view of the file, and the lines a refusal shows as they are
// now.
package delta

import (
	"regexp"
	"strconv"
	"strings"
)

// NoteStart is where txedit's note begins in an answer.
const NoteStart = "Note (txedit): "

var (
	hunkHeader = regexp.MustCompile(`^@@ -([0-9]+)(?:,([0-9]+))? \+([0-9]+)(?:,([0-9]+))? @@$`)
	numbered   = regexp.MustCompile(`^ *([0-9]+)\t(.*)$`)
)

// Apply applies the change a note in answer shows to text, the agent's view
// of the file before it (lines without their line ends, joined by "\n").
// ok is false when there is no note, or when it leaves part of the change
// out (too large: lines to read again), or it does not fit text: the agent
// must read the file again.
func Apply(text, answer string) (string, bool) {
	i := strings.Index(answer, NoteStart)
	if i < 0 {
		return text, false
	}
	note := answer[i:]
	if strings.Contains(note, "… and more") || strings.Contains(note, "Too large to show") {
		return text, false
	}
	type hunk struct {
		at, n int // lines at..at+n (0-based) of text
		new   []string
	}
	var hunks []*hunk
	var cur *hunk
	for _, l := range strings.Split(note, "\n")[1:] {
		if m := hunkHeader.FindStringSubmatch(l); m != nil {
			a, _ := strconv.Atoi(m[1])
			n := 1
			if m[2] != "" {
				n, _ = strconv.Atoi(m[2])
			}
			at := a - 1
			if n == 0 {
				at = a // "-A,0": after line A
			}
			cur = &hunk{at: at, n: n}
			hunks = append(hunks, cur)
			continue
		}
		switch {
		case cur == nil:
		case strings.HasPrefix(l, "+"):
			cur.new = append(cur.new, l[1:])
		case strings.HasPrefix(l, "-"), strings.HasPrefix(l, `\`):
		default:
			cur = nil // the note's text after its diff
		}
	}
	if len(hunks) == 0 {
		return text, false
	}
	lines := strings.Split(text, "\n")
	for k := len(hunks) - 1; k >= 0; k-- {
		h := hunks[k]
		if h.at < 0 || h.at+h.n > len(lines) {
			return text, false
		}
		lines = append(lines[:h.at], append(append([]string(nil), h.new...), lines[h.at+h.n:]...)...)
	}
	return strings.Join(lines, "\n"), true
}

// RegionLine is the line starting with prefix among those a refusal shows
// as they are now ("Lines S-E now read:", then numbered lines), or "".
func RegionLine(answer, prefix string) string {
	i := strings.Index(answer, " now read:\n")
	if i < 0 {
		return ""
	}
	for _, l := range strings.Split(answer[i:], "\n") {
		if m := numbered.FindStringSubmatch(l); m != nil && strings.HasPrefix(m[2], prefix) {
			return m[2]
		}
	}
	return ""
}
