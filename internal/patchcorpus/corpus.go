// Package patchcorpus makes model-like patches from real files: each a real
// edit (a changed line with a block inserted after it, or a function or
// block deleted) rendered in the three patch formats agents send (Codex's
// apply_patch envelope, a Responses apply_patch_call, a unified diff), plus
// one typical model mistake, with the outcome intended: apply, refuse,
// either, or a retry that must change nothing. The differential test in
// engine and bench/patchpeers run them through txedit and through the real
// programs agents use; docs/patch-formats.md says what they measure.
//
// The package is pure: it is given the files' bytes, and returns cases.
package patchcorpus

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"sort"
	"strings"
)

// Intent is the outcome a case intends.
type Intent string

// The intents.
const (
	Apply  Intent = "apply"  // succeed, leaving Want
	Refuse Intent = "refuse" // fail, changing nothing
	Either Intent = "either" // Want, or a failure that changes nothing
	Retry  Intent = "retry"  // applied once (Want), then again: success, nothing changes
)

// Format is a patch path.
type Format string

// The formats.
const (
	ApplyPatch Format = "apply_patch"
	Responses  Format = "responses"
	Diff       Format = "diff"
)

// Formats lists the formats in table order.
var Formats = []Format{ApplyPatch, Responses, Diff}

// Path is the name every case's file has in its tree.
const Path = "f.go"

// Case is one patch and what it should do to one file.
type Case struct {
	Name   string // class/source:line
	Class  string // the mistake
	Before []byte // the file when the patch arrives
	Want   []byte // the intended content (nil for Refuse)
	Intent Intent
	// Patches holds the patch per format; a format the class does not
	// exist in is absent. Responses holds the apply_patch_call item.
	Patches map[Format]string
}

// Source is a file to make cases from.
type Source struct {
	Name string
	Data []byte
}

// line ops of a hunk
const (
	ctxLine = ' '
	delLine = '-'
	addLine = '+'
)

// hunk is an edit of lines [a, b) by repl with context [lo, a) and [b, hi).
type hunk struct {
	lines      []string // the file the hunk was made from
	a, b, lo   int
	hi         int
	repl       []string
	anchor     string // an @@ line (apply_patch, responses)
	noEOF      bool   // omit *** End of File
	lineShift  int    // diffs: added to the stated line numbers
	countDelta int    // diffs: added to the old count
	// mistake rewrites a line of the patch: kind is ' ', '-' or '+'.
	mistake func(kind byte, s string) string
}

func newHunk(lines []string, a, b int, repl []string, ctx int) *hunk {
	return &hunk{lines: lines, a: a, b: b, repl: repl, lo: max(a-ctx, 0), hi: min(b+ctx, len(lines))}
}

// ops returns the hunk's lines in patch order.
func (h *hunk) ops() (kinds []byte, texts []string) {
	add := func(k byte, s string) {
		if h.mistake != nil {
			s = h.mistake(k, s)
		}
		kinds, texts = append(kinds, k), append(texts, s)
	}
	for i := h.lo; i < h.a; i++ {
		add(ctxLine, h.lines[i])
	}
	for i := h.a; i < h.b; i++ {
		add(delLine, h.lines[i])
	}
	for _, l := range h.repl {
		add(addLine, l)
	}
	for i := h.b; i < h.hi; i++ {
		add(ctxLine, h.lines[i])
	}
	return kinds, texts
}

// body renders the hunk's lines.
func (h *hunk) body() string {
	var b strings.Builder
	kinds, texts := h.ops()
	for i, k := range kinds {
		b.WriteByte(k)
		b.WriteString(texts[i])
		b.WriteByte('\n')
	}
	return b.String()
}

// v4a renders the hunk as apply_patch / Responses hunk text.
func (h *hunk) v4a() string {
	s := "@@\n"
	if h.anchor != "" {
		s = "@@ " + h.anchor + "\n"
	}
	s += h.body()
	if h.hi == len(h.lines) && !h.noEOF {
		s += "*** End of File\n"
	}
	return s
}

// render returns the hunk's patch in each format.
func (h *hunk) render() map[Format]string {
	out := map[Format]string{}
	v := h.v4a()
	out[ApplyPatch] = "*** Begin Patch\n*** Update File: " + Path + "\n" + v + "*** End Patch\n"
	item := map[string]any{"type": "apply_patch_call", "call_id": "call_1", "status": "completed",
		"operation": map[string]any{"type": "update_file", "path": Path, "diff": v}}
	js, _ := json.Marshal(item)
	out[Responses] = string(js)
	oldN, newN := h.hi-h.lo, h.hi-h.lo-(h.b-h.a)+len(h.repl)
	oldAt, newAt := h.lo+1, h.lo+1
	if oldN == 0 {
		oldAt--
	}
	if newN == 0 {
		newAt--
	}
	out[Diff] = fmt.Sprintf("--- a/%s\n+++ b/%s\n@@ -%d,%d +%d,%d @@\n%s", Path, Path,
		oldAt+h.lineShift, oldN+h.countDelta, newAt+h.lineShift, newN, h.body())
	return out
}

// apply returns the hunk's lines applied: the intended file.
func (h *hunk) apply() []string {
	out := append([]string(nil), h.lines[:h.a]...)
	out = append(out, h.repl...)
	return append(out, h.lines[h.b:]...)
}

func join(lines []string, nl string) []byte {
	if len(lines) == 0 {
		return nil
	}
	return []byte(strings.Join(lines, nl) + nl)
}

func split(data []byte) []string {
	s := strings.TrimSuffix(string(data), "\n")
	return strings.Split(s, "\n")
}

// Generate makes the cases of every source (a source too small or without
// functions gives fewer). The choices are seeded by the source's name, so
// the corpus is the same on every run.
func Generate(srcs []Source) []*Case {
	var out []*Case
	for _, s := range srcs {
		if bytes.Contains(s.Data, []byte("\r")) || len(s.Data) == 0 || bytes.IndexByte(s.Data, 0) >= 0 {
			continue
		}
		g := &gen{src: s, lines: split(s.Data), rng: rand.New(rand.NewPCG(seedOf(s.Name), 21))}
		out = append(out, g.all()...)
	}
	return out
}

func seedOf(name string) uint64 {
	var h uint64 = 14695981039346656037
	for i := 0; i < len(name); i++ {
		h = (h ^ uint64(name[i])) * 1099511628211
	}
	return h
}

type gen struct {
	src   Source
	lines []string
	rng   *rand.Rand
	out   []*Case
}

func (g *gen) add(class string, at int, before []string, want []string, intent Intent, patches map[Format]string, only ...Format) {
	c := &Case{Name: fmt.Sprintf("%s/%s:%d", class, g.src.Name, at+1), Class: class, Before: join(before, "\n"), Intent: intent, Patches: patches}
	if want != nil {
		c.Want = join(want, "\n")
	}
	if len(only) > 0 {
		for f := range c.Patches {
			keep := false
			for _, o := range only {
				keep = keep || o == f
			}
			if !keep {
				delete(c.Patches, f)
			}
		}
	}
	g.out = append(g.out, c)
}

// all makes the source's cases: one of each class where the file allows.
func (g *gen) all() []*Case {
	lines := g.lines
	if body := g.bodyLine(); body >= 0 {
		ind := leadingTabs(lines[body])
		repl := []string{lines[body] + " // checked", ind + "if debugPatch {", ind + "\tpanic(\"unreachable\")", ind + "}"}
		mk := func() *hunk { return newHunk(lines, body, body+1, repl, 3) }
		h := mk()
		want := h.apply()
		g.add("clean", body, lines, want, Apply, h.render())
		g.add("retry", body, lines, want, Retry, h.render())

		// The file has trailing blanks on the hunk's lines; the model
		// dropped them.
		tb := append([]string(nil), lines...)
		for i := h.lo; i < h.hi; i++ {
			if strings.TrimSpace(tb[i]) != "" {
				tb[i] += "  "
			}
		}
		ht := newHunk(tb, body, body+1, repl, 3)
		ht.mistake = func(_ byte, s string) string { return strings.TrimRight(s, " \t") }
		g.add("trailing-blanks", body, tb, ht.apply(), Apply, ht.render())

		h = mk()
		h.mistake = func(_ byte, s string) string { return tabsToSpaces(s) }
		g.add("tabs-to-spaces", body, lines, want, Apply, h.render())

		h = mk()
		if allIndented(lines[h.lo:h.hi]) {
			h.mistake = func(_ byte, s string) string { return strings.TrimPrefix(s, "\t") }
			g.add("dedented", body, lines, want, Apply, h.render())
		}

		h = mk()
		changed := false
		h.mistake = func(k byte, s string) string {
			if k == addLine {
				return s
			}
			t := typographic(s)
			changed = changed || t != s
			return t
		}
		if p := h.render(); changed {
			g.add("typographic", body, lines, want, Apply, p)
		}

		// A context line changed since the model read the file.
		if c := g.contextLine(h); c >= 0 {
			st := append([]string(nil), lines...)
			st[c] += " // edited"
			hs := newHunk(st, body, body+1, repl, 3)
			g.add("stale-context", body, st, hs.apply(), Either, mk().render())
		}
		// The line it replaces changed.
		st := append([]string(nil), lines...)
		st[body] += " // edited"
		g.add("stale-removed", body, st, nil, Refuse, mk().render())

		h = mk()
		h.anchor = "func noSuchFunction() {"
		g.add("wrong-anchor", body, lines, want, Either, h.render(), ApplyPatch, Responses)
		if fn := g.enclosingFunc(body); fn >= 0 && fn < mk().lo {
			// (An @@ line inside the hunk's own context is a mistake
			// Codex refuses too: lines are looked for after it.)
			h = mk()
			h.anchor = lines[fn]
			g.add("anchored", body, lines, want, Apply, h.render(), ApplyPatch, Responses)
		}
		h = mk()
		h.lineShift = 7 + g.rng.IntN(20)
		g.add("wrong-line-numbers", body, lines, want, Apply, h.render(), Diff)
		h = mk()
		h.countDelta = 1
		// As git apply --recount reads it: the body ends at the end.
		g.add("wrong-counts", body, lines, want, Apply, h.render(), Diff)

		h = mk()
		crlfBefore, crlfWant := join(lines, "\r\n"), join(want, "\r\n")
		c := &Case{Name: fmt.Sprintf("crlf/%s:%d", g.src.Name, body+1), Class: "crlf", Before: crlfBefore, Want: crlfWant, Intent: Apply, Patches: h.render()}
		g.out = append(g.out, c)
	}
	g.ambiguous()
	g.blankTwin()
	g.deletions()
	return g.out
}

// bodyLine picks a line inside a function body: indented by one or two
// tabs, a statement (not a brace or comment), with three lines each side.
func (g *gen) bodyLine() int {
	var cands []int
	for i := 3; i < len(g.lines)-3; i++ {
		l := g.lines[i]
		t := strings.TrimSpace(l)
		n := len(leadingTabs(l))
		if n < 1 || n > 2 || t == "" || t == "}" || strings.HasPrefix(t, "//") || strings.HasSuffix(t, "{") || strings.HasSuffix(t, ",") || strings.HasSuffix(t, "(") ||
			strings.HasPrefix(t, "case ") || strings.HasPrefix(t, "default:") || strings.Contains(l, "`") || g.enclosingFunc(i) < 0 {
			continue
		}
		cands = append(cands, i)
	}
	if len(cands) == 0 {
		return -1
	}
	return cands[g.rng.IntN(len(cands))]
}

// enclosingFunc returns the "func " line above i, if i is in its body.
func (g *gen) enclosingFunc(i int) int {
	for j := i - 1; j >= 0; j-- {
		l := g.lines[j]
		if strings.HasPrefix(l, "func ") && strings.HasSuffix(l, "{") {
			return j
		}
		if l == "}" || l == ")" || strings.HasPrefix(l, "type ") || strings.HasPrefix(l, "var ") {
			return -1
		}
	}
	return -1
}

// contextLine picks a non-blank context line of h that is not a brace.
func (g *gen) contextLine(h *hunk) int {
	var cands []int
	for i := h.lo; i < h.hi; i++ {
		if (i < h.a || i >= h.b) && len(strings.TrimSpace(h.lines[i])) > 2 {
			cands = append(cands, i)
		}
	}
	if len(cands) == 0 {
		return -1
	}
	return cands[g.rng.IntN(len(cands))]
}

// ambiguous: a hunk with one context line each side whose lines stand
// twice in the file; the edit is meant for the second place.
func (g *gen) ambiguous() {
	lines := g.lines
	seen := map[string]int{}
	for i := 1; i+1 < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		if len(leadingTabs(lines[i])) == 0 || t == "" || t == "}" || strings.HasSuffix(t, "{") {
			continue
		}
		key := lines[i-1] + "\n" + lines[i] + "\n" + lines[i+1]
		if _, ok := seen[key]; !ok {
			seen[key] = i
			continue
		}
		ind := leadingTabs(lines[i])
		h := newHunk(lines, i, i+1, []string{lines[i], ind + "traceAmbiguous()"}, 1)
		g.add("ambiguous", i, lines, h.apply(), Either, h.render())
		return
	}
}

// blankTwin: the file has two blank lines, one of them a tab; the edit
// deletes one; the model wrote both as empty lines (trailing blanks
// dropped), so only the patch's markers say which is the context.
func (g *gen) blankTwin() {
	lines := g.lines
	for i := 4; i+4 < len(lines); i++ {
		if lines[i] != "" || strings.TrimSpace(lines[i-1]) == "" || strings.TrimSpace(lines[i+1]) == "" {
			continue
		}
		twin := []string{"", "\t"}
		del := g.rng.IntN(2)
		if g.rng.IntN(2) == 1 {
			twin[0], twin[1] = twin[1], twin[0]
		}
		before := append(append(append([]string(nil), lines[:i]...), twin...), lines[i+1:]...)
		h := newHunk(before, i+del, i+del+1, nil, 3)
		h.mistake = func(_ byte, s string) string { return strings.TrimRight(s, " \t") }
		g.add("blank-twin", i, before, h.apply(), Apply, h.render())
		return
	}
}

// deletions: a function deleted (mid-file and the last one), a block
// deleted; clean, retried, and stale (one line inside changed since the
// model read the file: every peer refuses, and so must txedit).
func (g *gen) deletions() {
	lines := g.lines
	var funcs [][2]int // [doc start, closing brace]
	for i, l := range lines {
		if !strings.HasPrefix(l, "func ") || !strings.HasSuffix(l, "{") {
			continue
		}
		end := -1
		for j := i + 1; j < len(lines); j++ {
			if lines[j] == "}" {
				end = j
				break
			}
			if strings.HasPrefix(lines[j], "func ") {
				break
			}
		}
		if end < 0 || end-i < 3 || end-i > 40 {
			continue
		}
		doc := i
		for doc > 0 && strings.HasPrefix(lines[doc-1], "//") {
			doc--
		}
		funcs = append(funcs, [2]int{doc, end})
	}
	del := func(class string, a, b int) {
		h := newHunk(lines, a, b, nil, 3)
		want := h.apply()
		g.add(class, a, lines, want, Apply, h.render())
		g.add(class+"-retry", a, lines, want, Retry, h.render())
		// One line inside the deleted lines changed (not a blank one).
		var inside []int
		for i := a; i < b; i++ {
			if len(strings.TrimSpace(lines[i])) > 1 {
				inside = append(inside, i)
			}
		}
		if len(inside) == 0 {
			return
		}
		c := inside[g.rng.IntN(len(inside))]
		st := append([]string(nil), lines...)
		st[c] = strings.TrimRight(st[c], " \t") + " // edited"
		g.add("stale-"+class, c, st, nil, Refuse, h.render())
	}
	if len(funcs) >= 3 {
		f := funcs[1+g.rng.IntN(len(funcs)-2)]
		b := f[1] + 1
		if b < len(lines) && lines[b] == "" {
			b++
		}
		del("delete-func", f[0], b)
	}
	if n := len(funcs); n > 0 && funcs[n-1][1] == len(lines)-1 {
		f := funcs[n-1]
		a := f[0]
		if a > 0 && lines[a-1] == "" {
			a--
		}
		del("delete-last-func", a, len(lines))
		// Without *** End of File (apply_patch and Responses only): the
		// new side, the context above, stands whether or not the
		// function is still there.
		h := newHunk(lines, a, len(lines), nil, 3)
		h.noEOF = true
		g.add("missing-end-of-file", a, lines, h.apply(), Apply, h.render(), ApplyPatch, Responses)
		c := f[0] + 1 + g.rng.IntN(f[1]-f[0]-1)
		st := append([]string(nil), lines...)
		st[c] = strings.TrimRight(st[c], " \t") + " // edited"
		g.add("stale-delete-last-func-no-eof", c, st, nil, Refuse, h.render(), ApplyPatch, Responses)
	}
	// A block: an if statement inside a function, two to twelve lines.
	for i := 3; i < len(lines)-6; i++ {
		l := lines[i]
		ind := leadingTabs(l)
		if len(ind) != 1 || !strings.HasPrefix(strings.TrimSpace(l), "if ") || !strings.HasSuffix(l, "{") || g.enclosingFunc(i) < 0 {
			continue
		}
		end := -1
		for j := i + 1; j < len(lines) && j < i+13; j++ {
			if lines[j] == ind+"}" {
				end = j
				break
			}
		}
		if end < 0 || end-i < 2 || end+4 >= len(lines) {
			continue
		}
		del("delete-block", i, end+1)
		return
	}
}

func leadingTabs(s string) string {
	return s[:len(s)-len(strings.TrimLeft(s, "\t"))]
}

func tabsToSpaces(s string) string {
	t := leadingTabs(s)
	return strings.Repeat("    ", len(t)) + s[len(t):]
}

func allIndented(lines []string) bool {
	for _, l := range lines {
		if strings.TrimSpace(l) != "" && !strings.HasPrefix(l, "\t") {
			return false
		}
	}
	return true
}

// typographic turns a line's ASCII quotes and spaced hyphens into the
// typographic ones a model writes when it quotes a file from memory.
func typographic(s string) string {
	var b strings.Builder
	open := true
	for _, r := range s {
		switch r {
		case '"':
			if open {
				b.WriteRune('“')
			} else {
				b.WriteRune('”')
			}
			open = !open
		case '\'':
			b.WriteRune('’')
		default:
			b.WriteRune(r)
		}
	}
	return strings.ReplaceAll(b.String(), " - ", " – ")
}

// GoSources picks n Go files of 3 to 30 KiB from a Go source tree (fsys
// rooted at GOROOT/src), spread evenly over it in path order, skipping
// testdata and vendor directories.
func GoSources(fsys fs.FS, n int) ([]Source, error) {
	var names []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "vendor") {
			return fs.SkipDir
		}
		if d.Type().IsRegular() && strings.HasSuffix(p, ".go") {
			if fi, err := d.Info(); err == nil && fi.Size() >= 3<<10 && fi.Size() <= 30<<10 {
				names = append(names, p)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []Source
	for i := 0; i < n && len(names) > 0; i++ {
		p := names[i*len(names)/n]
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil, err
		}
		out = append(out, Source{Name: p, Data: data})
	}
	return out, nil
}
