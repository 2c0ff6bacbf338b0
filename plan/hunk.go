package plan

import "slices"

// Hunk is one change of a patch, located by its content rather than by
// trusted line numbers. Every native edit format (apply_patch, unified and git
// diffs, SEARCH/REPLACE blocks) compiles to hunks; package apply places them.
//
// Lines carry no terminators. A trailing "\r" on a line is ignored when
// matching and dropped from added lines, which take the file's own line
// ending.
type Hunk struct {
	// Anchors are apply_patch "@@ text" lines: each is found in order, after
	// the previous one, before Old. Old is then the first match at or after
	// the last anchor line, and a pure addition goes right after that line.
	Anchors []string `json:"anchors,omitempty"`
	// Old holds the lines the hunk expects (context and removed lines).
	// Empty Old is a pure addition.
	Old []string `json:"old"`
	// New holds the lines that replace Old (context and added lines).
	New []string `json:"new"`
	// Line is the 1-based line where the patch says Old starts (unified
	// diffs); for an empty Old, the line New is inserted before. 0 means
	// unknown: the hunk is located by content alone.
	Line int `json:"line,omitempty"`
	// AtEOF says Old must end at the end of the file (apply_patch
	// "*** End of File"); a pure addition then appends.
	AtEOF bool `json:"at_eof,omitempty"`
	// OldNoEOL and NewNoEOL are unified diffs' "\ No newline at end of
	// file" on the old and the new side. Either implies AtEOF. When they
	// differ the hunk changes the final newline: the file must end the way
	// the old side says, and ends the way the new side says. When they are
	// equal (always, in formats that cannot say it) the file keeps its final
	// newline, or its lack of one.
	OldNoEOL bool `json:"old_no_eol,omitempty"`
	NewNoEOL bool `json:"new_no_eol,omitempty"`
	// Marks, when the patch said, is the hunk's lines in patch order as
	// their markers: ' ' (context: in Old and New), '-' (only in Old), '+'
	// (only in New). It tells which of two lines equal in the patch (a
	// deleted one and a kept one, the file's differing in trailing blanks)
	// is the context; without it the lines are paired by their longest
	// common subsequence.
	Marks string `json:"-"`
	// Recounted: the unified hunk's header counts disagreed with its
	// lines, and it was read by its lines instead (as git apply --recount
	// does), its body being delimited by the next @@ line, the next file
	// or the end. Reported (HunkReport.Recounted) so the agent knows.
	Recounted bool `json:"-"`
}

// Changes reports whether applying h changes anything: its old and new
// lines differ, or it changes the final newline. A hunk that does not is
// pure context: it must still be found, and it counts neither as applied nor
// as already applied.
func (h *Hunk) Changes() bool {
	return h.OldNoEOL != h.NewNoEOL || !slices.Equal(h.Old, h.New)
}

// EndsAtEOF reports whether h's Old must end at the end of the file.
func (h *Hunk) EndsAtEOF() bool { return h.AtEOF || h.OldNoEOL || h.NewNoEOL }

// Rung names how loosely a hunk matched the file: the matching ladder tries
// each in this order and the first that finds a place wins.
type Rung string

// The rungs of the matching ladder, strictest first.
const (
	// RungExact: lines equal (a trailing "\r" aside, so LF patches match
	// CRLF files).
	RungExact Rung = "exact"
	// RungTrailingSpace: equal once trailing whitespace is removed.
	RungTrailingSpace Rung = "trailing_whitespace"
	// RungWhitespace: equal once leading and trailing whitespace is removed.
	RungWhitespace Rung = "whitespace"
	// RungUnicode: equal once trimmed and with Unicode dashes, quotes and
	// spaces (‐‑‒–—―−, ‘’‚‛“”„‟, NBSP and the other Unicode spaces) mapped
	// to ASCII.
	RungUnicode Rung = "unicode"
)

// Rungs lists the ladder, strictest first.
var Rungs = []Rung{RungExact, RungTrailingSpace, RungWhitespace, RungUnicode}

// looser reports whether r is a looser rung than s.
func (r Rung) looser(s Rung) bool {
	return slices.Index(Rungs, r) > slices.Index(Rungs, s)
}

// HunkReport says how one hunk was placed.
type HunkReport struct {
	// Hunk is the hunk's 0-based index in its file's hunks.
	Hunk int `json:"hunk"`
	// Line is the 1-based line of the file (as it was before the patch;
	// for SEARCH/REPLACE blocks, as the blocks before left it) where the
	// hunk's Old starts, or before which a pure addition went (the line
	// count plus one: at the end). For an already applied hunk, where its
	// New stands.
	Line int `json:"line"`
	// Rung is the loosest rung its anchors and lines needed.
	Rung Rung `json:"match"`
	// Offset is how many lines away from the patch's stated line the hunk
	// applied (unified diffs, like patch's "offset N lines").
	Offset int `json:"offset,omitempty"`
	// AlreadyApplied: the hunk's change is already in the file; nothing was
	// done.
	AlreadyApplied bool `json:"already_applied,omitempty"`
	// Recounted: the hunk's header counts disagreed with its lines, which
	// were taken instead ("counts recounted", as git apply --recount).
	Recounted bool `json:"recounted,omitempty"`
}

// LoosestRung returns the loosest rung among reports, the one to show per
// file; "" when there are none.
func LoosestRung(reports []HunkReport) Rung {
	var r Rung
	for _, h := range reports {
		if r == "" || h.Rung.looser(r) {
			r = h.Rung
		}
	}
	return r
}

// BinaryPatch is a git binary patch ("GIT binary patch"): the new content
// whole (a literal) or as a delta from the old, between the two versions
// git names by their object ids (the diff's "index OLD..NEW" line, full
// length). It applies only to the content whose id is Old, and what it
// makes must have the id New, so it is exact or refused, never a guess.
type BinaryPatch struct {
	// Old and New are the git object ids (hex: 40 digits for SHA-1, 64
	// for SHA-256) of the content before and after.
	Old, New string
	// Delta: Data is a git delta from the old content; else Data is the
	// new content itself.
	Delta bool
	Data  []byte
}
