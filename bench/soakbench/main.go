// Command soakbench is the soak (bench/run.sh soak; bench/README.md, "Soak"): on a
// scratch tree of small text files it runs, at the same time, several
// `txedit mcp` sessions and `txedit apply` processes making hash-checked
// edits, outside writers that know nothing of txedit (rename-style and
// in-place saves), and a kill -9 of one MCP server every few seconds
// followed by `txedit recover` and a new server; then it counts what was
// lost (bench/README.md, "Soak").
//
// Every save and every edit adds a unique marker line and nobody removes
// one, so at the end every marker ever written must be in its file. A
// missing marker is a loss, except a txedit edit's that an outside writer
// replaced: a save that read the file before the edit was answered, saved
// after it was sent, and did not carry its marker (outside writers do not
// check hashes; that overwrite is theirs). Each file has one outside writer,
// so outside writers never lose each other's saves.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

type config struct {
	dir, txedit, fsName string
	files, lines        int
	mcp, cli            int
	agents, agentEdits  int
	hot                 float64
	rename, inplace     int
	saves               int
	duration            time.Duration
	kill                time.Duration
	twoFile             float64
	think, agentThink   time.Duration
	gap                 time.Duration
	chunks              int
	seed                uint64
	timeout             time.Duration
	details             int
}

func main() {
	var c config
	flag.StringVar(&c.dir, "dir", "", "scratch directory (removed and made again)")
	flag.StringVar(&c.txedit, "txedit", "txedit", "the txedit binary (txedit-mcp beside it)")
	flag.StringVar(&c.fsName, "fs", "", "the file system's name for the table's title (default: from statfs)")
	flag.IntVar(&c.files, "files", 30, "files in the corpus")
	flag.IntVar(&c.lines, "lines", 300, "lines of each file")
	flag.IntVar(&c.mcp, "mcp", 3, "MCP sessions (txedit mcp processes)")
	flag.IntVar(&c.cli, "cli", 1, "CLI workers (a txedit read and a txedit apply process per edit)")
	flag.IntVar(&c.agents, "agents", 0, "agents in parallel: claude-toolset sessions that read a file once and then edit its lines (their own, and lines every agent edits) without reading again (parallel.go)")
	flag.IntVar(&c.agentEdits, "agent-edits", 100, "edits each agent makes; the soak runs until they are made, and its outside saves are")
	flag.Float64Var(&c.hot, "hot", 0.25, "fraction of an agent's edits that edit one of the lines every agent edits")
	flag.IntVar(&c.rename, "rename", 2, "rename-style outside writers (each owns its own files)")
	flag.IntVar(&c.inplace, "inplace", 2, "in-place outside writers (each owns its own files)")
	flag.IntVar(&c.saves, "saves", 10000, "stop after this many outside saves (0: no limit)")
	flag.DurationVar(&c.duration, "duration", 0, "stop after this long (0: no limit)")
	flag.DurationVar(&c.kill, "kill", 3*time.Second, "kill -9 one MCP server this often (0: never)")
	flag.Float64Var(&c.twoFile, "two", 0.2, "fraction of txedit requests that edit two files")
	flag.DurationVar(&c.think, "think", 20*time.Millisecond, "each outside writer's pause between saves (random, up to twice this)")
	flag.DurationVar(&c.agentThink, "agent-think", 2*time.Millisecond, "each txedit session's pause between edits (random, up to twice this)")
	flag.DurationVar(&c.gap, "gap", time.Millisecond, "in-place writers: pause after the truncating open and between chunks")
	flag.IntVar(&c.chunks, "chunks", 3, "in-place writers: chunks a save is written in")
	flag.Uint64Var(&c.seed, "seed", 0, "random seed (0: from the clock)")
	flag.DurationVar(&c.timeout, "timeout", time.Minute, "a txedit call unanswered this long fails the run")
	flag.IntVar(&c.details, "details", 5, "anomalies of each kind described in detail")
	flag.Parse()
	if c.dir == "" || (c.saves == 0 && c.duration == 0) || c.files < 2 || c.chunks < 2 ||
		c.rename+c.inplace == 0 || c.rename+c.inplace > c.files || c.mcp+c.cli+c.agents == 0 || c.agents > 0 && c.lines < 2*c.agents+8 {
		fmt.Fprintln(os.Stderr, "usage: soakbench -dir DIR -txedit PATH [-saves N | -duration D] (files >= writers, chunks >= 2)")
		flag.PrintDefaults()
		os.Exit(2)
	}
	if c.seed == 0 {
		c.seed = uint64(time.Now().UnixNano())
	}
	if abs, err := filepath.Abs(c.txedit); err == nil {
		c.txedit = abs
	}
	s, err := newSoak(&c)
	if err != nil {
		fmt.Fprintln(os.Stderr, "soakbench:", err)
		os.Exit(1)
	}
	if err := s.run(); err != nil {
		fmt.Fprintln(os.Stderr, "soakbench:", err)
		os.Exit(1)
	}
	r := s.check()
	r.print(os.Stdout, s)
	if r.fatal != "" {
		fmt.Fprintln(os.Stderr, "soakbench:", r.fatal)
		os.Exit(1)
	}
}

const trailer = "-- end --\n"

// An edit is one txedit request: its marker goes into each of its files.
type edit struct {
	id      int
	who     string // mcp or cli
	agent   string // the agent its transactions record
	form    string // how it was sent (for the details)
	files   []string
	base    []string // the content hash each file was read at
	partial []bool   // the read was a transient state of an in-place save
	ts, tr  time.Time
	outcome string // ok, refused, unknown (the server was killed, no answer)
	code    string
	msg     string // the refusal's message
}

// A save is one outside writer's save of one file.
type save struct {
	id        int
	style     string // rename or in-place
	file      string
	r, w      time.Time // before the read, after the rename or close
	readHash  string
	wroteHash string
	tmarks    map[int]bool // txedit markers in what it wrote
	ok        bool
}

type soak struct {
	c        *config
	tree     string
	names    []string
	owner    map[string]string // file -> rename or in-place
	stop     atomic.Bool
	nsaves   atomic.Int64
	nextT    atomic.Int64
	nextO    atomic.Int64
	kills    atomic.Int64
	recovers atomic.Int64
	start    time.Time
	elapsed  time.Duration

	mu        sync.Mutex
	edits     []*edit
	saves     []*save
	transient map[string]map[string]bool // file -> hashes of in-place saves' partial states
	recovered []string                   // what each recover reported, when it did something
	failures  []string                   // errors of the harness itself (a failed read, a timeout)
	noticed   []string                   // losses an outside writer saw at its next read, explained from the journal
	nnoticed  int
	sessions  []*session

	agentsLeft atomic.Int64
	agents     agentCounts
}

var nowFn = time.Now

func newSoak(c *config) (*soak, error) {
	s := &soak{c: c, tree: filepath.Join(c.dir, "tree"), owner: map[string]string{}, transient: map[string]map[string]bool{}}
	if err := os.RemoveAll(c.dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(s.tree, 0o755); err != nil {
		return nil, err
	}
	words := strings.Fields("the quick brown fox jumps over a lazy dog while seven wizards quietly judge boxing matches")
	for i := 0; i < c.files; i++ {
		name := fmt.Sprintf("f%02d.txt", i)
		var b strings.Builder
		fmt.Fprintf(&b, "# %s: soak corpus (markers go before the last line)\n", name)
		for l := 1; l < c.lines-1; l++ {
			fmt.Fprintf(&b, "%s line %04d:", name, l)
			for k := 0; k < 8; k++ {
				b.WriteString(" " + words[(i*7+l*3+k)%len(words)])
			}
			b.WriteString("\n")
		}
		b.WriteString(trailer)
		if err := os.WriteFile(filepath.Join(s.tree, name), []byte(b.String()), 0o644); err != nil {
			return nil, err
		}
		s.names = append(s.names, name)
	}
	return s, nil
}

func (s *soak) path(name string) string { return filepath.Join(s.tree, name) }

func (s *soak) fail(format string, a ...any) {
	s.mu.Lock()
	s.failures = append(s.failures, fmt.Sprintf(format, a...))
	s.mu.Unlock()
}

func (s *soak) addEdit(e *edit) {
	s.mu.Lock()
	s.edits = append(s.edits, e)
	s.mu.Unlock()
}

// markerFor returns a new txedit marker line and its id.
func (s *soak) txeditMarker() (int, string) {
	id := int(s.nextT.Add(1))
	return id, fmt.Sprintf("soak t%07d\n", id)
}

// withMarker is content with the marker line added: before the trailer
// when the content ends with it (and holds it once), else at the end.
func withMarker(content, marker string) string {
	if strings.HasSuffix(content, trailer) && strings.Count(content, trailer) == 1 {
		return content[:len(content)-len(trailer)] + marker + trailer
	}
	if content != "" && !strings.HasSuffix(content, "\n") {
		content += "\n"
	}
	return content + marker
}

func (s *soak) run() error {
	c := s.c
	// Assign the files to the outside writers: each file has at most one.
	writers := c.rename + c.inplace
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		style := "rename"
		if w >= c.rename {
			style = "in-place"
		}
		var mine []string
		for i := w; i < len(s.names); i += writers {
			mine = append(mine, s.names[i])
			s.owner[s.names[i]] = style
		}
		wg.Add(1)
		go func(w int, style string, mine []string) {
			defer wg.Done()
			s.outsideWriter(w, style, mine)
		}(w, style, mine)
	}
	s.start = time.Now()
	var agents sync.WaitGroup
	for i := 0; i < c.mcp; i++ {
		ss := &session{s: s, n: i}
		s.sessions = append(s.sessions, ss)
		agents.Add(1)
		go func() { defer agents.Done(); ss.loop() }()
	}
	for i := 0; i < c.cli; i++ {
		agents.Add(1)
		go func(i int) { defer agents.Done(); s.cliLoop(i) }(i)
	}
	s.agentsLeft.Store(int64(c.agents))
	for i := 0; i < c.agents; i++ {
		ss := &session{s: s, n: agentBase + i, toolset: "claude", name: fmt.Sprintf("agent%d", i)}
		s.sessions = append(s.sessions, ss)
		agents.Add(1)
		go func() { defer agents.Done(); s.agentLoop(ss) }()
	}
	killerDone := make(chan struct{})
	go func() { defer close(killerDone); s.killer() }()

	for !s.stop.Load() {
		time.Sleep(50 * time.Millisecond)
		if (c.saves > 0 && s.nsaves.Load() >= int64(c.saves) || c.duration > 0 && time.Since(s.start) >= c.duration) && s.agentsLeft.Load() == 0 {
			s.stop.Store(true)
		}
		s.mu.Lock()
		if len(s.failures) > 0 {
			s.stop.Store(true) // the harness failed: stop and say so
		}
		s.mu.Unlock()
	}
	wg.Wait()
	agents.Wait()
	<-killerDone
	s.elapsed = time.Since(s.start)
	// The final recover: whatever a killed server left behind.
	if out, err := s.recover(); err != nil {
		return fmt.Errorf("final txedit recover: %v\n%s", err, out)
	}
	return nil
}

// killer sends SIGKILL to one live MCP server every c.kill; the session
// notices, runs txedit recover and starts a new server.
func (s *soak) killer() {
	if s.c.kill <= 0 || len(s.sessions) == 0 {
		return
	}
	rng := rand.New(rand.NewPCG(s.c.seed, 99))
	next := time.Now().Add(s.c.kill)
	for !s.stop.Load() {
		time.Sleep(20 * time.Millisecond)
		if time.Now().Before(next) {
			continue
		}
		next = time.Now().Add(s.c.kill)
		ss := s.sessions[rng.IntN(len(s.sessions))]
		if ss.killNow() {
			s.kills.Add(1)
		}
	}
}

// recover runs txedit recover and keeps what it reports when it did
// something.
func (s *soak) recover() (string, error) {
	out, err := exec.Command(s.c.txedit, "recover", "--root", s.tree, "--json").CombinedOutput()
	s.recovers.Add(1)
	text := string(out)
	if err == nil && !strings.Contains(text, `"recovered": []`) {
		s.mu.Lock()
		s.recovered = append(s.recovered, strings.Join(strings.Fields(text), " "))
		s.mu.Unlock()
	}
	return text, err
}

// outsideWriter saves its files in a loop, as an editor or a formatter
// would, knowing nothing of txedit: read, add a marker line, write.
func (s *soak) outsideWriter(w int, style string, mine []string) {
	rng := rand.New(rand.NewPCG(s.c.seed, uint64(1000+w)))
	n := 0
	last := map[string]*save{} // this writer's last save of each file
	for !s.stop.Load() {
		name := mine[rng.IntN(len(mine))]
		sv := &save{id: int(s.nextO.Add(1)), style: style, file: name}
		marker := fmt.Sprintf("soak o%07d\n", sv.id)
		p := s.path(name)
		sv.r = time.Now()
		data, err := os.ReadFile(p)
		if err != nil {
			s.fail("outside writer %d: read %s: %v", w, name, err)
			return
		}
		sv.readHash = hashOf(data)
		if prev := last[name]; prev != nil && !strings.Contains(string(data), fmt.Sprintf("soak o%07d\n", prev.id)) {
			s.noticeLoss(prev, sv)
		}
		next := withMarker(string(data), marker)
		sv.wroteHash = hashOf([]byte(next))
		sv.tmarks = txeditMarks(next)
		if style == "rename" {
			tmp := filepath.Join(s.tree, fmt.Sprintf(".soak-w%d-%d.tmp", w, n))
			n++
			err = os.WriteFile(tmp, []byte(next), 0o644)
			if err == nil {
				err = os.Rename(tmp, p)
			}
		} else {
			err = s.writeInPlace(rng, p, name, next)
		}
		sv.w = time.Now()
		if err != nil {
			s.fail("outside writer %d (%s): save %s: %v", w, style, name, err)
			return
		}
		sv.ok = true
		last[name] = sv
		s.mu.Lock()
		s.saves = append(s.saves, sv)
		s.mu.Unlock()
		s.nsaves.Add(1)
		pause(rng, s.c.think)
	}
}

// writeInPlace writes next over the file as a plain program does: open
// with O_TRUNC, write it in chunks, close; the empty and partial states
// between are visible to readers for a moment (c.gap), and their hashes
// are recorded first, so that an edit based on one can be told.
func (s *soak) writeInPlace(rng *rand.Rand, p, name, next string) error {
	cuts := []int{0}
	for i := 1; i < s.c.chunks; i++ {
		cuts = append(cuts, rng.IntN(len(next)))
	}
	cuts = append(cuts, len(next))
	sortInts(cuts)
	s.mu.Lock()
	set := s.transient[name]
	if set == nil {
		set = map[string]bool{}
		s.transient[name] = set
	}
	for _, k := range cuts[:len(cuts)-1] {
		set[hashOf([]byte(next[:k]))] = true
	}
	s.mu.Unlock()
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	for i := 1; i < len(cuts); i++ {
		if s.c.gap > 0 {
			time.Sleep(s.c.gap)
		}
		if _, err := f.WriteString(next[cuts[i-1]:cuts[i]]); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}

// noticeLoss is called when an outside writer's read (of next) lacks the
// marker of its previous save of the file: the loss happened between
// prev's save and this read. For the first few it asks the journal which
// transaction wrote, or which rollback restored, the state read.
func (s *soak) noticeLoss(prev, next *save) {
	s.mu.Lock()
	s.nnoticed++
	n := s.nnoticed
	s.mu.Unlock()
	if n > s.c.details {
		return
	}
	out, _ := exec.Command(s.c.txedit, "log", "--root", s.tree, "--json", "-n", "60").Output()
	var log []struct {
		ID    string `json:"id"`
		State string `json:"state"`
		Agent string `json:"agent"`
		Files []struct {
			Path    string `json:"path"`
			OldHash string `json:"old_hash"`
			NewHash string `json:"new_hash"`
		} `json:"files"`
	}
	json.Unmarshal(out, &log)
	var who []string
	for _, t := range log {
		for _, f := range t.Files {
			if f.Path != next.file {
				continue
			}
			if f.NewHash == next.readHash {
				who = append(who, fmt.Sprintf("%s (%s, %s) wrote it, from %s", t.ID, t.State, t.Agent, f.OldHash))
			}
			if f.OldHash == next.readHash {
				who = append(who, fmt.Sprintf("%s (%s, %s) read it", t.ID, t.State, t.Agent))
			}
			if f.OldHash == prev.wroteHash || f.OldHash == prev.readHash {
				who = append(who, fmt.Sprintf("%s (%s, %s) replaced %s (old_hash: the save's %s)", t.ID, t.State, t.Agent, f.OldHash,
					map[bool]string{true: "own content", false: "before-state"}[f.OldHash == prev.wroteHash]))
			}
		}
	}
	ms := func(t time.Time) string { return fmt.Sprintf("%.1fms", float64(t.Sub(s.start).Microseconds())/1000) }
	s.mu.Lock()
	s.noticed = append(s.noticed, fmt.Sprintf("%s: o%07d (%s, saved %s as %s) missing at the writer's next read (%s, state %s); journal: %s",
		next.file, prev.id, prev.style, ms(prev.w), prev.wroteHash, ms(next.r), next.readHash, strings.Join(who, "; ")))
	s.mu.Unlock()
}

func sortInts(a []int) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

func pause(rng *rand.Rand, d time.Duration) {
	if d > 0 {
		time.Sleep(time.Duration(rng.Int64N(int64(2 * d))))
	}
}

// pick chooses the files of one request: one, or two different ones.
func (s *soak) pick(rng *rand.Rand) []string {
	a := s.names[rng.IntN(len(s.names))]
	if rng.Float64() >= s.c.twoFile {
		return []string{a}
	}
	for {
		b := s.names[rng.IntN(len(s.names))]
		if b != a {
			return []string{a, b}
		}
	}
}

// isTransient says whether content (of hash h) is a partial state of an
// in-place save of name.
func (s *soak) isTransient(name, h string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.transient[name][h]
}

// fileEdit is the fileEdits entry that adds marker to a file read as
// content: a str_replace of the trailer, or an append when the read saw a
// state without it (a transient state of an in-place save, or what a
// commit on one left).
func fileEdit(name, content, h, marker string, withHash bool) map[string]any {
	var ed map[string]any
	if strings.HasSuffix(content, trailer) && strings.Count(content, trailer) == 1 {
		ed = map[string]any{"command": "str_replace", "old_str": trailer, "new_str": marker + trailer}
	} else {
		ed = map[string]any{"command": "append", "new_str": strings.TrimSuffix(marker, "\n")}
	}
	fe := map[string]any{"path": name, "edits": []any{ed}}
	if withHash {
		fe["content_hash"] = h
	}
	return fe
}

func exitCode(err error) int {
	if ee, ok := err.(*exec.ExitError); ok {
		if st, ok := ee.Sys().(syscall.WaitStatus); ok && st.Signaled() {
			return -1
		}
		return ee.ExitCode()
	}
	if err != nil {
		return -2
	}
	return 0
}
