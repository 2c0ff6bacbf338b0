package engine

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"
	"unsafe"

	"github.com/txedit/txedit/fsys"
	"github.com/txedit/txedit/hash"
	"github.com/txedit/txedit/plan"
)

// Session is one agent's connection to a workspace (docs/agents.md): an MCP
// connection, or one agent of a program that embeds txedit. Its
// transactions are recorded with its agent name and id. It remembers the
// content hash of what it read or wrote of each file, and — unless
// NoReadCheck — a write of an existing file through it commits only if the
// session has read or written the file and its bytes still hash to what
// the session saw; otherwise it fails with not_read or stale_hash and
// writes nothing. The comparison is by content, so a touch or an
// equal-bytes rewrite raises no alarm. Creating a file needs no read;
// edits that carry their own content_hash, and files a pattern_replace
// finds, are checked by their own rules.
//
// The check runs again under the workspace lock, so of two sessions racing
// to write what both read, one is refused.
//
// A Session holds its Workspace (it does not embed it: closing a session
// must not close the workspace its other sessions share): the
// reads it does not check (Grep, Glob, List, Log, …) go to the workspace
// as they are (session_fwd.go). It is safe for concurrent use.
type Session struct {
	w         *Workspace
	agent, id string
	check     bool

	mu   sync.Mutex
	seen map[string]*seenFile // by resolved, root-relative path
}

// seenFile is what a session last read or wrote of a file: its whole hash
// then, and the line ranges read since (tokens HEX@S-E).
type seenFile struct {
	file   hash.Sum
	ranges []hash.Token
	// shown, if set, is a later version of which a refusal showed the
	// session lines start..end only (its change was too large to show
	// whole): an edit within them may be rebased from that version
	// (rebase.go). Its bytes are in the base cache under shownKey(rel).
	shown *shownRegion
}

type shownRegion struct {
	sum        hash.Sum
	start, end int
}

// shownKey is the base cache's key of a file's shown version.
func shownKey(rel string) string { return rel + "\x00shown" }

// maxRanges bounds the line-range reads remembered per file.
const maxRanges = 16

// SessionOptions configure a session.
type SessionOptions struct {
	// Agent names who works through the session (an MCP client's
	// clientInfo.name); it is recorded with every transaction.
	Agent string
	// NoReadCheck turns the read-before-write rule off.
	NoReadCheck bool
}

// NewSession starts a session on w.
func (w *Workspace) NewSession(o SessionOptions) *Session {
	var r [6]byte
	rand.Read(r[:])
	return &Session{w: w, agent: o.Agent, id: hex.EncodeToString(r[:]), check: !o.NoReadCheck, seen: map[string]*seenFile{}}
}

// Close ends the session: it forgets what the session read. The workspace
// stays open for its other sessions; close it with s.Workspace().Close.
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen = map[string]*seenFile{}
	s.w.bases.forget(s.id, "")
	return nil
}

// Agent returns the session's agent name.
func (s *Session) Agent() string { return s.agent }

// ID returns the session's id, recorded with its transactions.
func (s *Session) ID() string { return s.id }

// Apply is [Workspace.Apply] through the session: the read-before-write
// rule applies, the transaction is recorded as the session's, and the files
// it writes count as read.
//
// A commit that an outside writer's save interrupts (the file replaced,
// or open for writing, between the check under the lock and the swap:
// conflict, nothing written) is tried again a few times, a few
// milliseconds apart, as the agent would do: each try checks the
// session's read again, so the edit is rebased on the save, or refused
// with what it changed (docs/design.md, "Concurrency").
//
// When the last try meets a save too, the refusal still shows the change
// and the current text of the lines the edit concerns, taken from the
// file as it is then, or, if a save has just emptied it, as it last had
// content (lastlook.go).
func (s *Session) Apply(ctx context.Context, req *plan.Request) (*plan.Result, error) {
	if req.DryRun {
		return s.apply1(ctx, req, nil)
	}
	// A streamed commit's results reach the stream once, from the answer
	// given: a try that is tried again hands over nothing (holding).
	ctx, st := holding(ctx)
	res, err := s.apply1(ctx, req, &tryState{limit: s.w.bases.session, file: s.w.bases.file})
	emitUnheld(st, res)
	return res, err
}

// apply1 is Session.Apply's tries (tries nil: one, a dry run).
func (s *Session) apply1(ctx context.Context, req *plan.Request, tries *tryState) (*plan.Result, error) {
	for try := 0; ; try++ {
		o := s.w.begin()
		res, err := o.apply(ctx, req, &caller{agent: s.agent, session: s, deltaShown: req.DeltaShown, tries: tries})
		o.end()
		var ce *fsys.ConflictError
		if !errors.As(err, &ce) || ce.Op != "commit" {
			ce = nil
		}
		again := ce != nil || emptiedMeanwhile(res) || tries.wasWriting("")
		if tries == nil || !again || res.TransactionID != "" {
			tries.flush(nil) // this answer is given: what it showed counts
			return res, err
		}
		if try == len(conflictRetries) {
			return s.lastLook(ctx, req, res, err, ce, tries, try+1)
		}
		// The agent never sees this try's answer: what it would have
		// shown counts for nothing.
		tries.drop()
		if testHookRetry != nil {
			testHookRetry(try)
		}
		select {
		case <-ctx.Done():
			return res, err
		case <-time.After(conflictRetries[try]):
		}
	}
}

// emptiedMeanwhile reports a refusal because a file the session read
// with content is now empty: most likely an outside writer's save in
// place between its truncation and its write, which a moment later is
// over.
func emptiedMeanwhile(res *plan.Result) bool {
	for _, f := range res.Files {
		if !f.Success && emptiedDelta(f.Delta) {
			return true
		}
	}
	return false
}

// emptiedDelta reports a delta from a version with content to an empty
// file.
func emptiedDelta(d *plan.Delta) bool {
	empty := hash.Of(nil).String()
	return d != nil && d.Current == empty && d.Read != empty
}

// testHookRetry, set only by tests, runs before a session tries a
// commit again.
var testHookRetry func(try int)

// conflictRetries are the pauses before each new try of a commit an
// outside save interrupted.
var conflictRetries = []time.Duration{2 * time.Millisecond, 10 * time.Millisecond, 40 * time.Millisecond}

// Undo is [Workspace.Undo] recorded as the session's; the files it
// restores count as read.
func (s *Session) Undo(ctx context.Context, uo UndoOptions) (*plan.Result, error) {
	o := s.w.begin()
	defer o.end()
	res, err := o.undo(ctx, uo, &caller{agent: s.agent, session: s})
	if res != nil && res.Success && !res.DryRun {
		for _, f := range res.Files {
			s.noteWrite(f.Path, f.ContentHash)
		}
	}
	return res, err
}

// Read is [Workspace.Read] through the session: what it returns counts as
// read.
func (s *Session) Read(ctx context.Context, req *plan.ReadRequest) ([]*plan.ReadResult, error) {
	var out []*plan.ReadResult
	err := s.ReadEach(ctx, req, func(r *plan.ReadResult) error {
		out = append(out, r)
		return nil
	})
	return out, err
}

// ReadEach is [Workspace.ReadEach] through the session.
func (s *Session) ReadEach(ctx context.Context, req *plan.ReadRequest, fn func(*plan.ReadResult) error) error {
	return s.w.ReadEach(ctx, req, func(r *plan.ReadResult) error {
		s.noteRead(r)
		return fn(r)
	})
}

// noteRead remembers a successful Line-mode read: the whole file, or a
// range of it. A read refused because the file is binary counts for the
// whole file: the agent learnt what is there, and can only replace,
// move or delete it whole.
func (s *Session) noteRead(r *plan.ReadResult) {
	if r.FileHash != "" && !r.Success && r.Code == plan.CodeBinaryFile {
		if rel, err := s.w.direct().resolve(r.Path); err == nil {
			s.noteResolved(rel, r.FileHash)
		}
		return
	}
	if !r.Success || r.FileHash == "" || r.ContentHash == "" {
		return
	}
	rel, err := s.w.direct().resolve(r.Path)
	if err != nil {
		return
	}
	file, err1 := hash.ParseSum(r.FileHash)
	tok, err2 := hash.ParseToken(r.ContentHash)
	if err1 != nil || err2 != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sf := s.seen[rel]
	if sf == nil || sf.file != file {
		sf = &seenFile{file: file}
		s.seen[rel] = sf
	}
	if tok.IsRange() {
		if len(sf.ranges) == maxRanges {
			sf.ranges = sf.ranges[1:]
		}
		sf.ranges = append(sf.ranges, tok)
	} else {
		sf.ranges = nil
		// The bytes of a whole read, for a later rebase (basecache.go):
		// a Line read's content is the file's bytes, which the read
		// never writes again; anything else (a Search) is not kept.
		if data := unsafe.Slice(unsafe.StringData(r.Content), len(r.Content)); hash.Of(data) == file {
			s.w.bases.put(s.id, rel, file, nonNil(data))
		}
	}
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// seenSum is the whole-file hash of what the session last read or wrote
// of rel.
func (s *Session) seenSum(rel string) (hash.Sum, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sf := s.seen[rel]
	if sf == nil {
		return hash.Sum(0), false
	}
	return sf.file, true
}

// noteShown records that the agent was shown, with a refusal, the change
// d to the version now (data) of rel: when d shows all of it since the
// agent's read (whole), the agent knows that version, which then counts
// as read; otherwise the region it saw counts as a line range read, and
// as a version an edit of that region may be rebased from
// (docs/design.md, "Concurrency").
func (s *Session) noteShown(rel string, data []byte, now hash.Sum, d *plan.Delta, whole bool) {
	if whole && len(d.Reread) == 0 {
		s.mu.Lock()
		s.seen[rel] = &seenFile{file: now}
		s.mu.Unlock()
		s.w.bases.put(s.id, rel, now, nonNil(data))
		return
	}
	if d.Region == nil {
		return
	}
	tok, err := hash.ParseToken(d.Region.Token)
	if err != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if sf := s.seen[rel]; sf != nil {
		if len(sf.ranges) == maxRanges {
			sf.ranges = sf.ranges[1:]
		}
		sf.ranges = append(sf.ranges, tok)
		sf.shown = &shownRegion{sum: now, start: d.Region.Start, end: d.Region.End}
		s.w.bases.put(s.id, shownKey(rel), now, nonNil(data))
	}
}

// shownOf is the version of rel a refusal last showed a region of.
func (s *Session) shownOf(rel string) (shownRegion, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sf := s.seen[rel]; sf != nil && sf.shown != nil {
		return *sf.shown, true
	}
	return shownRegion{}, false
}

// noteWrite remembers a file the session wrote (newHash "" forgets it: it
// was deleted or moved away). name is resolved first.
func (s *Session) noteWrite(name, newHash string) {
	rel, err := s.w.direct().resolve(name)
	if err != nil {
		return
	}
	s.noteResolved(rel, newHash)
}

func (s *Session) noteResolved(rel, newHash string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.w.bases.forget(s.id, shownKey(rel))
	if newHash == "" {
		delete(s.seen, rel)
		s.w.bases.forget(s.id, rel)
		return
	}
	if sum, err := hash.ParseSum(newHash); err == nil {
		s.seen[rel] = &seenFile{file: sum}
	}
}

// noteBytes keeps data, the version sum of rel the session read or
// wrote, for a later rebase.
func (s *Session) noteBytes(rel string, sum hash.Sum, data []byte) {
	s.w.bases.put(s.id, rel, sum, nonNil(data))
}

// allows applies the read-before-write rule to a write of fo to the file
// rel whose current bytes are cur.
func (s *Session) allows(rel string, cur []byte, fo *plan.FileOps) error {
	s.mu.Lock()
	sf := s.seen[rel]
	var ranges []hash.Token
	var file hash.Sum
	if sf != nil {
		file, ranges = sf.file, append([]hash.Token(nil), sf.ranges...)
	}
	s.mu.Unlock()
	if sf == nil {
		return plan.Errorf(plan.CodeNotRead, fo.Path, "this session has not read the file: read it first, then write (creating a new file needs no read)")
	}
	now := hash.Of(cur)
	if now == file {
		return nil
	}
	// A line window read lets line edits inside it through while the rest
	// of the file changed (docs/toolsets.md, "Read before write").
	if len(ranges) > 0 && lineEditsOnly(fo) {
		ok := true
		for _, op := range fo.LineEdits {
			if !inCheckedRange(op, ranges, cur) {
				ok = false
				break
			}
		}
		if ok {
			return nil
		}
	}
	e := plan.Errorf(plan.CodeStaleHash, fo.Path, "the file changed since this session read it (read as %s, now %s): read it again", file, now)
	e.Current = now.String()
	return e
}

func lineEditsOnly(fo *plan.FileOps) bool {
	return fo.Create == nil && fo.Final == nil && len(fo.StrReplaces) == 0 && len(fo.Appends) == 0 && len(fo.LineEdits) > 0
}

// inCheckedRange reports whether op's lines lie inside a range whose token
// still matches cur.
func inCheckedRange(op *plan.Op, ranges []hash.Token, cur []byte) bool {
	lo, hi := op.Start, op.End
	if op.Command == plan.Insert {
		lo, hi = op.Start+1, op.Start // after line N: touches N..N+1
		if op.Start == 0 {
			lo = 1
		}
	}
	for _, t := range ranges {
		if lo >= t.Start && hi <= t.End && t.Check(cur) {
			return true
		}
	}
	return false
}

// needsReadCheck reports whether a task falls under the read-before-write
// rule: an explicit edit (not a file a pattern_replace found) of an
// existing file that changes or removes it, with no content_hash of its
// own.
func needsReadCheck(t *task) bool {
	fo := t.fo
	if fo.Entry < 0 || fo.Hash != nil {
		return false
	}
	for _, op := range fo.AllOps() {
		if op.Hash != nil {
			return false
		}
	}
	if f := fo.Final; f != nil && f.Command == plan.Copy && fo.Create == nil && !fo.TextEdits() {
		return false // a copy reads its source and writes a new file
	}
	return true
}

// caller is who runs an operation: recorded in the journal, and the
// session whose rule applies (nil: none).
type caller struct {
	agent   string
	session *Session
	// dirs, if set, adds directories to the transaction (dirs.go).
	dirs *dirPlan
	// deltaShown: the caller shows the agent a refusal's delta
	// (plan.Request.DeltaShown).
	deltaShown bool
	// tries, if set, is shared by the tries of one Session.Apply that
	// tries a commit again after an outside save (lastlook.go).
	tries *tryState
}

// withDirs is c (its session, its delta bookkeeping, its tries) with the
// directories d added to its transaction.
func (c *caller) withDirs(d *dirPlan) *caller {
	cd := *c
	cd.dirs = d
	return &cd
}

func (c *caller) sessionID() string {
	if c == nil || c.session == nil {
		return ""
	}
	return c.session.id
}

func (c *caller) agentName(def string) string {
	if c == nil || c.agent == "" {
		return def
	}
	return c.agent
}

// checkRead applies the session's rule to task t, whose current bytes are
// cur (nil caller, no session or the rule off: nothing to check).
func (c *caller) checkRead(t *task, cur *fileInfo) error {
	if c == nil || c.session == nil || !c.session.check || !cur.exists || !needsReadCheck(t) || c.dirs != nil && c.dirs.noReadCheck {
		return nil
	}
	return c.session.allows(t.src, cur.data, t.fo)
}

// noteCommitted records, after a commit, what the session wrote.
func (c *caller) noteCommitted(tasks []*task) {
	if c == nil || c.session == nil {
		return
	}
	for _, t := range tasks {
		if !t.changed {
			continue
		}
		sum := t.newSum.String()
		switch f := t.fo.Final; {
		case f == nil:
			c.session.noteResolved(t.src, sum)
			if t.wrote != nil {
				c.session.noteBytes(t.src, t.newSum, t.wrote)
				t.wrote = nil
			}
		case f.Command == plan.Delete:
			c.session.noteResolved(t.src, "")
		case f.Command == plan.Move:
			c.session.noteResolved(t.src, "")
			c.session.noteResolved(t.dst, sum)
		case f.Command == plan.Copy:
			c.session.noteResolved(t.dst, sum)
			if t.cur.exists && t.cur.data != nil && hash.Of(t.cur.data) != t.newSum {
				c.session.noteResolved(t.src, sum)
			}
		}
	}
}

func (s *Session) String() string { return fmt.Sprintf("%s/%s", s.agent, s.id) }

// Stale reports whether the read-before-write rule would find the
// session's view of p out of date: the session read or wrote p, the rule
// is on, and p's bytes now hash to cur, not to what the session saw. A tool
// that checks an edit against the current text itself (Claude Code's
// Edit: old_string not found) lets the engine answer such an edit instead:
// with a rebase, or a refusal carrying what changed (docs/design.md,
// "Concurrency").
func (s *Session) Stale(p, cur string) bool {
	if !s.check {
		return false
	}
	rel, err := s.w.direct().resolve(p)
	if err != nil {
		return false
	}
	read, ok := s.seenSum(rel)
	return ok && read.String() != cur
}
