package main

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"sync/atomic"

	"github.com/txedit/txedit/bench/internal/delta"
)

// Agents in parallel (docs/design.md, "Concurrency"; -agents): sessions
// of the claude toolset that read a file once and then edit lines of it
// without reading it again — lines of their own, and a few lines every
// agent edits (-hot of the edits) — each edit adding a marker to the end
// of its line (Edit: old_string the line as the agent knows it, new_string
// the line and the marker). Others' edits of the same file are rebased
// under them; an edit refused is retried from the line the refusal shows
// as it is now, or else after reading the file again. Their markers are
// checked as every other edit's are: in the file at the end unless
// refused, or replaced by an outside writer.

var numberedLine = regexp.MustCompile(`^([0-9]+)\t(.*)$`)

// agentText is the file's text as Read shows it (numbered lines).
func agentText(read string) string {
	var lines []string
	for _, l := range strings.Split(read, "\n") {
		if m := numberedLine.FindStringSubmatch(l); m != nil {
			lines = append(lines, m[2])
		}
	}
	// Read numbers the empty string after a final newline too.
	return strings.Join(lines, "\n")
}

func lineWith(text, prefix string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}

func replaceLine(text, prefix, line string) string {
	ls := strings.Split(text, "\n")
	for i, l := range ls {
		if strings.HasPrefix(l, prefix) {
			ls[i] = line
			break
		}
	}
	return strings.Join(ls, "\n")
}

// agentCounts are the agents' own counts (the rest is the soak's check).
type agentCounts struct {
	reads, refusals, withRegion, rebased, landed, gaveUp, done atomic.Int64
}

func (s *soak) agentLoop(ss *session) {
	c := s.c
	ss.rng = rand.New(rand.NewPCG(c.seed, uint64(2000+ss.n)))
	rng := ss.rng
	defer s.agentsLeft.Add(-1)
	err := ss.start()
	if err == errDead {
		err = ss.restart()
	}
	if err != nil {
		s.fail("%s: start: %v", ss.name, err)
		return
	}
	defer ss.stopServer()
	known := map[string]string{} // file -> its text as this agent knows it
	read := func(f string) error {
		for try := 0; ; try++ {
			r, err := ss.tool("Read", map[string]any{"file_path": f})
			if err != nil {
				return err
			}
			s.agents.reads.Add(1)
			if r.IsError || len(r.Content) == 0 {
				s.fail("%s: Read %s: [%s] %v", ss.name, f, r.code(), r.Content)
				return nil
			}
			known[f] = agentText(r.Content[0].Text)
			if strings.HasSuffix(known[f], trailer) || try == 20 {
				return nil // (not a save in place half done)
			}
		}
	}
	me := ss.n - agentBase
	own := func() int {
		// Lines 4.. of this agent's share (l % agents == me); 1-3 are hot.
		n := (c.lines - 2 - 4) / c.agents
		return 4 + me + c.agents*rng.IntN(max(n, 1))
	}
	for k := 0; k < c.agentEdits && !s.stop.Load(); k++ {
		f := s.names[rng.IntN(len(s.names))]
		l, form := own(), "Edit, own line"
		if rng.Float64() < c.hot {
			l, form = 1+rng.IntN(3), "Edit, shared line"
		}
		prefix := fmt.Sprintf("%s line %04d:", f, l)
		landed := false
		for try := 0; try < 30 && !s.stop.Load() && !landed; try++ {
			if known[f] == "" {
				if err := read(f); err != nil {
					if ss.died(err) {
						known = map[string]string{} // a new server: a new session
						continue
					}
					return
				}
			}
			line := lineWith(known[f], prefix)
			if line == "" {
				known[f] = "" // read again
				continue
			}
			e := &edit{who: "agent", agent: "soak-" + ss.clientName(), form: form, files: []string{f}, base: []string{""}, partial: []bool{false}}
			var marker string
			e.id, marker = s.txeditMarker()
			next := line + " " + strings.TrimSuffix(marker, "\n")
			e.ts = nowFn()
			r, err := ss.tool("Edit", map[string]any{"file_path": f, "old_string": line + "\n", "new_string": next + "\n"})
			e.tr = nowFn()
			if err != nil {
				if err != errDead && err != errTimeout {
					s.fail("%s: %v", ss.name, err)
					return
				}
				// No answer (the server was killed): a new server, a new
				// session; the agent reads again and makes the edit anew.
				e.outcome = "unknown"
				s.addEdit(e)
				if !ss.died(err) {
					return
				}
				known = map[string]string{}
				continue
			}
			if !r.IsError {
				e.outcome, landed = "ok", true
				s.agents.landed.Add(1)
				s.addEdit(e)
				if len(r.Content) > 0 && strings.Contains(r.Content[0].Text, delta.NoteStart) {
					s.agents.rebased.Add(1)
					// The note's change brings the agent's view up to
					// date; one too large to show: read again.
					if t, ok := delta.Apply(known[f], r.Content[0].Text); ok {
						known[f] = replaceLine(t, prefix, next)
					} else {
						known[f] = ""
					}
					continue
				}
				known[f] = replaceLine(known[f], prefix, next)
				continue
			}
			e.outcome, e.code = "refused", r.code()
			if len(r.Content) > 0 {
				e.msg = r.Content[0].Text
			}
			s.addEdit(e)
			s.agents.refusals.Add(1)
			if rl := delta.RegionLine(e.msg, prefix); rl != "" {
				s.agents.withRegion.Add(1)
				if t, ok := delta.Apply(known[f], e.msg); ok {
					known[f] = t
				}
				known[f] = replaceLine(known[f], prefix, rl)
				continue
			}
			known[f] = "" // no region shown: read the file again
		}
		if !landed && !s.stop.Load() {
			s.agents.gaveUp.Add(1)
		}
		pause(rng, c.agentThink)
	}
	s.agents.done.Add(1)
}

// died handles an error of a call: true when the server died (or was
// killed) and a new one was started.
func (ss *session) died(err error) bool {
	if err != errDead {
		ss.s.fail("%s: %v", ss.name, err)
		return false
	}
	if err := ss.restart(); err != nil {
		ss.s.fail("%s: restart: %v", ss.name, err)
		return false
	}
	return true
}

// agentBase numbers the agents' sessions after the MCP sessions'.
const agentBase = 100
