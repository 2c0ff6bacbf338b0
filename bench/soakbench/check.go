package main

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/txedit/txedit/bench/internal/timing"
)

// report is what the soak counts at the end.
type report struct {
	savesMade, savesLost map[string]int // by style
	editsOK              map[string]int // by who
	sent                 map[string]int // by who
	editsLost            int            // answered success, marker gone, no outside writer replaced it
	editsReplaced        int            // answered success, replaced by an outside writer afterwards
	twoFileOK            int
	halfApplied          int
	halfReplaced         int // one file lacks the marker because an outside writer replaced it
	halfWiped            int // one file lacks it because a later commit on a transient state wiped it
	savesWiped           map[string]int
	editsWiped           int
	refusedInEffect      int
	refusedKept          int // refused, its marker kept by an outside save of its commit's moment
	unknown              int // no answer (the server was killed)
	unknownInEffect      int
	partialReads         int // edits whose read saw a transient state of an in-place save
	partialCommits       int // ... and were answered success
	refusals             map[string]int
	pending              int
	noticed              int // outside saves whose writer found them gone at its next read of the file
	pendingIDs           []string
	strays               []string
	recoversActive       int
	details              []string
	fatal                string
}

var anyMark = regexp.MustCompile(`soak ([to])([0-9]{7})`)

func (s *soak) check() *report {
	r := &report{savesMade: map[string]int{}, savesLost: map[string]int{}, savesWiped: map[string]int{}, editsOK: map[string]int{}, sent: map[string]int{}, refusals: map[string]int{}}
	present := map[string]map[string]bool{} // file -> "t0000001" / "o0000001"
	for _, name := range s.names {
		data, err := os.ReadFile(s.path(name))
		if err != nil {
			r.fatal = fmt.Sprintf("read %s at the end: %v", name, err)
			return r
		}
		set := map[string]bool{}
		for _, m := range anyMark.FindAllStringSubmatch(string(data), -1) {
			set[m[1]+m[2]] = true
		}
		present[name] = set
	}
	savesOf := map[string][]*save{}
	for _, sv := range s.saves {
		savesOf[sv.file] = append(savesOf[sv.file], sv)
	}
	// The journal (its newest transactions: retention keeps 200): what
	// is pending, and which transaction wrote a state a refusal's
	// marker came back from.
	out, err := exec.Command(s.c.txedit, "log", "--root", s.tree, "--json").Output()
	var log []txn
	if err != nil || json.Unmarshal(out, &log) != nil {
		r.fatal = fmt.Sprintf("txedit log --json: %v: %s", err, out)
		return r
	}
	wroteBy := func(f, h string) string {
		if k := writer(log, f, h); k >= 0 {
			return fmt.Sprintf(", written by transaction %s (%s)", log[k].ID, log[k].State)
		}
		return ""
	}
	editsOf := map[string][]*edit{}
	for _, e := range s.edits {
		for _, f := range e.files {
			editsOf[f] = append(editsOf[f], e)
		}
	}
	end := time.Now()
	detail := map[string]int{}
	addDetail := func(kind, text string) {
		detail[kind]++
		if detail[kind] <= s.c.details {
			r.details = append(r.details, kind+": "+text)
		}
	}
	ms := func(t time.Time) string { return fmt.Sprintf("%.1fms", float64(t.Sub(s.start).Microseconds())/1000) }

	// A commit on a transient state of an in-place save replaced its file
	// with a prefix: every marker written before it and past the cut is
	// gone. wipedAfter says whether such a commit of f was answered after t.
	wipes := map[string][]*edit{}
	for _, e := range s.edits {
		for i, f := range e.files {
			if e.outcome == "ok" && e.partial[i] {
				wipes[f] = append(wipes[f], e)
			}
		}
	}
	wipedAfter := func(f string, t time.Time, self *edit) bool {
		for _, c := range wipes[f] {
			if c != self && c.tr.After(t) {
				return true
			}
		}
		return false
	}

	// Outside saves: every one must be in its file (each file has one
	// outside writer, and txedit edits only add lines).
	for _, sv := range s.saves {
		r.savesMade[sv.style]++
		if present[sv.file][fmt.Sprintf("o%07d", sv.id)] {
			continue
		}
		r.savesLost[sv.style]++
		if wipedAfter(sv.file, sv.r, nil) {
			r.savesWiped[sv.style]++
			continue
		}
		var near []string
		for _, e := range editsOf[sv.file] {
			if e.ts.After(sv.w.Add(100*time.Millisecond)) || e.tr.Before(sv.r.Add(-100*time.Millisecond)) {
				continue
			}
			i := indexOf(e.files, sv.file)
			rel := "read another state"
			switch {
			case e.base[i] == sv.readHash:
				rel = "read the state this save replaced"
			case e.base[i] == sv.wroteHash:
				rel = "read this save"
			case e.partial[i]:
				rel = "read a transient in-place state"
			}
			near = append(near, fmt.Sprintf("t%07d (%s %s, sent %s, answered %s: %s%s, %s)", e.id, e.who, e.form, ms(e.ts), ms(e.tr), e.outcome, codeSuffix(e.code), rel))
		}
		addDetail("outside save lost ("+sv.style+")", fmt.Sprintf("%s o%07d read %s, saved %s; txedit edits of the file around it: %s",
			sv.file, sv.id, ms(sv.r), ms(sv.w), strings.Join(near, "; ")))
	}

	// replacedBy says whether an outside save replaced e's marker in f:
	// it read before e was answered, saved after e was sent, and did not
	// carry the marker.
	replacedBy := func(e *edit, f string) *save {
		tr := e.tr
		if e.outcome == "unknown" {
			tr = end
		}
		for _, sv := range savesOf[f] {
			if sv.r.Before(tr) && sv.w.After(e.ts) && !sv.tmarks[e.id] {
				return sv
			}
		}
		return nil
	}
	for _, e := range s.edits {
		mark := fmt.Sprintf("t%07d", e.id)
		var in, missing []string
		for _, f := range e.files {
			if present[f][mark] {
				in = append(in, f)
			} else {
				missing = append(missing, f)
			}
		}
		r.sent[e.who]++
		anyPartial := false
		for _, p := range e.partial {
			anyPartial = anyPartial || p
		}
		if anyPartial {
			r.partialReads++
		}
		switch e.outcome {
		case "ok":
			r.editsOK[e.who]++
			if len(e.files) > 1 {
				r.twoFileOK++
			}
			if anyPartial {
				r.partialCommits++
				addDetail("commit on a transient in-place state", fmt.Sprintf("t%07d (%s %s) of %v, sent %s, answered %s", e.id, e.who, e.form, e.files, ms(e.ts), ms(e.tr)))
			}
		case "refused":
			r.refusals[e.code]++
			addDetail("refusal "+e.code, fmt.Sprintf("t%07d (%s %s): %.300s", e.id, e.who, e.form, e.msg))
			if len(in) > 0 {
				kind := "refused but in effect"
				if keptFromMoment(e, in, savesOf, log) {
					kind = "refused, kept by an outside save of its commit's moment"
					r.refusedKept++
				} else {
					r.refusedInEffect++
				}
				// Where the marker came from: the first outside save that
				// carried it read a state that had it (read during the
				// request: the commit's moment before its rollback?).
				var carried []string
				for _, f := range in {
					var first *save
					for _, sv := range savesOf[f] {
						if sv.tmarks[e.id] && (first == nil || sv.r.Before(first.r)) {
							first = sv
						}
					}
					if first != nil {
						carried = append(carried, fmt.Sprintf("o%07d of %s (%s, read %s state %s%s, saved %s)", first.id, f, first.style, ms(first.r), first.readHash, wroteBy(f, first.readHash), ms(first.w)))
					}
				}
				addDetail(kind, fmt.Sprintf("t%07d (%s %s of %v, read %v, sent %s, answered %s) [%s] is in %v; the first outside save carrying it: %v; answer: %.300s",
					e.id, e.who, e.form, e.files, e.base, ms(e.ts), ms(e.tr), e.code, in, carried, e.msg))
			}
		case "unknown":
			r.unknown++
			if len(in) > 0 {
				r.unknownInEffect++
			}
		}
		// Whatever was missing: replaced by an outside writer, or lost.
		var lost []string
		for _, f := range missing {
			if replacedBy(e, f) == nil {
				lost = append(lost, f)
			}
		}
		wiped := len(lost) > 0
		for _, f := range lost {
			wiped = wiped && wipedAfter(f, e.ts, e)
		}
		if e.outcome == "ok" && len(missing) > 0 {
			if len(lost) > 0 && wiped {
				r.editsLost++
				r.editsWiped++
			} else if len(lost) > 0 {
				r.editsLost++
				var around []string
				for _, f := range lost {
					for _, sv := range savesOf[f] {
						if sv.w.After(e.ts.Add(-100*time.Millisecond)) && sv.r.Before(e.tr.Add(100*time.Millisecond)) {
							around = append(around, fmt.Sprintf("o%07d (%s, read %s, saved %s, carries it: %v)", sv.id, sv.style, ms(sv.r), ms(sv.w), sv.tmarks[e.id]))
						}
					}
				}
				addDetail("txedit edit lost", fmt.Sprintf("t%07d (%s %s) of %v answered success (sent %s, answered %s) is not in %v; outside saves around it: %s",
					e.id, e.who, e.form, e.files, ms(e.ts), ms(e.tr), lost, strings.Join(around, "; ")))
			} else {
				r.editsReplaced++
			}
		}
		// All or nothing: a request's marker is in every file or none,
		// but for files an outside writer replaced afterwards.
		if len(e.files) > 1 && len(in) > 0 && len(missing) > 0 && e.outcome != "refused" {
			if len(lost) > 0 && wiped {
				r.halfWiped++
			} else if len(lost) > 0 {
				r.halfApplied++
				addDetail("half applied", fmt.Sprintf("t%07d (%s %s, %s) of %v is in %v only (sent %s, answered %s)", e.id, e.who, e.form, e.outcome, e.files, in, ms(e.ts), ms(e.tr)))
			} else {
				r.halfReplaced++
			}
		}
	}

	// The journal: nothing pending after the final recover.
	for _, t := range log {
		if t.State == "pending" {
			r.pendingIDs = append(r.pendingIDs, t.ID)
		}
	}
	// The same from the journal's names (txns/ID, a transaction's file or
	// an older txedit's directory, with neither mark; ID.conflicts holds
	// what recovery saved aside).
	if ents, err := os.ReadDir(filepath.Join(s.tree, ".txedit", "txns")); err == nil {
		names := map[string]bool{}
		for _, e := range ents {
			names[e.Name()] = true
		}
		for _, e := range ents {
			if !strings.Contains(e.Name(), ".") && !names[e.Name()+".committed"] && !names[e.Name()+".rolledback"] && indexOf(r.pendingIDs, e.Name()) < 0 {
				r.pendingIDs = append(r.pendingIDs, e.Name())
			}
		}
	}
	r.pending = len(r.pendingIDs)
	// No staged or temporary file left in the tree.
	filepath.WalkDir(s.tree, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && d.Name() == ".txedit" {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".tmp") {
			rel, _ := filepath.Rel(s.tree, p)
			r.strays = append(r.strays, rel)
		}
		return nil
	})
	for _, text := range s.noticed {
		r.details = append(r.details, "loss seen by its writer: "+text)
	}
	r.noticed = s.nnoticed
	r.recoversActive = len(s.recovered)
	for i, text := range s.recovered {
		if i < s.c.details {
			r.details = append(r.details, "txedit recover: "+text)
		}
	}
	if len(s.failures) > 0 {
		r.fatal = fmt.Sprintf("%d harness failures, first: %s", len(s.failures), s.failures[0])
	}
	return r
}

// txn is a transaction as txedit log --json lists it.
type txn struct {
	ID    string    `json:"id"`
	Time  time.Time `json:"time"`
	State string    `json:"state"`
	Agent string    `json:"agent"`
	Files []struct {
		Path    string `json:"path"`
		NewHash string `json:"new_hash"`
	} `json:"files"`
}

// writer is the index in log of the transaction that wrote state h of
// file f (-1: none there).
func writer(log []txn, f, h string) int {
	for k, t := range log {
		for _, tf := range t.Files {
			if tf.Path == f && tf.NewHash == h {
				return k
			}
		}
	}
	return -1
}

// keptFromMoment says whether a refused edit's marker is in its files
// (in) only because an outside writer read it there during the request,
// in the moment a commit of the edit that was then rolled back had its
// version in place, and saved it (docs/journal.md, "Writers outside
// txedit"): in each file the first outside save carrying the marker
// read, while the request was in flight, a state the journal shows a
// rolled-back transaction of the edit's agent, begun during the request,
// wrote; and no transaction of that agent begun during the request is
// anything but rolled back. Without that proof (the journal keeps 200
// transactions) it counts as in effect.
func keptFromMoment(e *edit, in []string, savesOf map[string][]*save, log []txn) bool {
	during := func(t *txn) bool { return t.Agent == e.agent && !t.Time.Before(e.ts) && !t.Time.After(e.tr) }
	for k := range log {
		if during(&log[k]) && log[k].State != "rolled_back" {
			return false
		}
	}
	for _, f := range in {
		var first *save
		for _, sv := range savesOf[f] {
			if sv.tmarks[e.id] && (first == nil || sv.r.Before(first.r)) {
				first = sv
			}
		}
		if first == nil || first.r.Before(e.ts) || first.r.After(e.tr) {
			return false
		}
		k := writer(log, f, first.readHash)
		if k < 0 || log[k].State != "rolled_back" || !during(&log[k]) {
			return false
		}
	}
	return true
}

func indexOf(a []string, x string) int {
	for i, y := range a {
		if y == x {
			return i
		}
	}
	return -1
}

func codeSuffix(code string) string {
	if code == "" {
		return ""
	}
	return " " + code
}

func (r *report) print(w io.Writer, s *soak) {
	c := s.c
	kind := timing.FSKind(s.tree)
	name := c.fsName
	if name == "" {
		name = kind
	}
	ok := 0
	for _, n := range r.editsOK {
		ok += n
	}
	fmt.Fprintf(w, "soak: %s (%s), %s: %d files of %d lines; %d MCP sessions, %d CLI workers, %d agents × %d edits (%.0f%% of them on shared lines), %d rename-style and %d in-place outside writers; kill -9 of an MCP server every %v; seed %d\n",
		name, kind, s.tree, c.files, c.lines, c.mcp, c.cli, c.agents, c.agentEdits, 100*c.hot, c.rename, c.inplace, c.kill, c.seed)
	fmt.Fprintf(w, "ran %.1fs: %.0f outside saves/s, %.1f txedit commits/s\n", s.elapsed.Seconds(),
		float64(r.savesMade["rename"]+r.savesMade["in-place"])/s.elapsed.Seconds(), float64(ok)/s.elapsed.Seconds())
	rows := [][2]string{
		{"outside saves made, rename-style", fmt.Sprint(r.savesMade["rename"])},
		{"outside saves lost, rename-style", fmt.Sprint(r.savesLost["rename"])},
		{"outside saves made, in-place", fmt.Sprint(r.savesMade["in-place"])},
		{"outside saves lost, in-place", fmt.Sprint(r.savesLost["in-place"])},
		{"  of which wiped by a commit on a transient state", fmt.Sprint(r.savesWiped["in-place"] + r.savesWiped["rename"])},
		{"outside saves gone at the writer's next read", fmt.Sprint(r.noticed)},
		{"txedit edits sent, MCP", fmt.Sprint(r.sent["mcp"])},
		{"txedit edits sent, CLI", fmt.Sprint(r.sent["cli"])},
		{"txedit edits answered success, MCP", fmt.Sprint(r.editsOK["mcp"])},
		{"txedit edits answered success, CLI", fmt.Sprint(r.editsOK["cli"])},
		{"txedit edits answered success, 2-file", fmt.Sprint(r.twoFileOK)},
		{"txedit edits sent, agents", fmt.Sprint(r.sent["agent"])},
		{"txedit edits answered success, agents", fmt.Sprint(r.editsOK["agent"])},
		{"agents' edits landed (of -agents x -agent-edits)", fmt.Sprintf("%d/%d", s.agents.landed.Load(), c.agents*c.agentEdits)},
		{"agents' edits given up (30 tries)", fmt.Sprint(s.agents.gaveUp.Load())},
		{"agents' edits rebased on changes made since their read", fmt.Sprint(s.agents.rebased.Load())},
		{"agents' refusals", fmt.Sprint(s.agents.refusals.Load())},
		{"agents' refusals that showed the line as it is now", fmt.Sprint(s.agents.withRegion.Load())},
		{"agents' reads", fmt.Sprint(s.agents.reads.Load())},
		{"txedit edits lost after success", fmt.Sprint(r.editsLost)},
		{"  of which wiped by a commit on a transient state", fmt.Sprint(r.editsWiped)},
		{"txedit edits replaced by an outside writer", fmt.Sprint(r.editsReplaced)},
		{"transactions half applied", fmt.Sprint(r.halfApplied)},
		{"2-file edits with one file replaced by an outside writer", fmt.Sprint(r.halfReplaced)},
		{"2-file edits with one file wiped by a commit on a transient state", fmt.Sprint(r.halfWiped)},
		{"refused edits in effect", fmt.Sprint(r.refusedInEffect)},
		{"refused edits kept by an outside save of their commit's moment", fmt.Sprint(r.refusedKept)},
		{"edits that read a transient in-place state", fmt.Sprint(r.partialReads)},
		{"commits on a transient in-place state", fmt.Sprint(r.partialCommits)},
		{"no answer (server killed), in effect", fmt.Sprint(r.unknownInEffect)},
		{"no answer (server killed), not in effect", fmt.Sprint(r.unknown - r.unknownInEffect)},
		{"pending transactions after the final recover", fmt.Sprint(r.pending)},
		{"stray temporary files", fmt.Sprint(len(r.strays))},
		{"MCP servers killed (kill -9)", fmt.Sprint(s.kills.Load())},
		{"txedit recover runs", fmt.Sprint(s.recovers.Load())},
		{"txedit recover runs that recovered something (rolled back or finished)", fmt.Sprint(r.recoversActive)},
	}
	codes := make([]string, 0, len(r.refusals))
	for code := range r.refusals {
		codes = append(codes, code)
	}
	sort.Strings(codes)
	total := 0
	for _, code := range codes {
		total += r.refusals[code]
	}
	rows = append(rows, [2]string{"refusals", fmt.Sprint(total)})
	for _, code := range codes {
		rows = append(rows, [2]string{"refusals: " + code, fmt.Sprint(r.refusals[code])})
	}
	width := 0
	for _, row := range rows {
		width = max(width, len(row[0]))
	}
	fmt.Fprintf(w, "%-*s %8s\n", width, "what", "count")
	for _, row := range rows {
		fmt.Fprintf(w, "%-*s %8s\n", width, row[0], row[1])
	}
	if len(r.pendingIDs) > 0 {
		fmt.Fprintf(w, "pending: %v\n", r.pendingIDs)
	}
	if len(r.strays) > 0 {
		fmt.Fprintf(w, "stray: %v\n", r.strays)
	}
	for _, d := range r.details {
		fmt.Fprintln(w, "  "+d)
	}
}
