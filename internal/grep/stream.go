package grep

import (
	"bytes"
	"io"

	"github.com/txedit/txedit/plan"
)

// What a file search reports.
type Want int

const (
	// WantAny asks whether a line matches: the search stops at the
	// first match, and reading stops there too.
	WantAny Want = iota
	// WantCount asks for the number of matching lines.
	WantCount
	// WantLines asks for the matching lines, numbered, with context.
	WantLines
)

// Query is what to look for in each file of a search; one Query serves
// every goroutine.
type Query struct {
	M      *Matcher
	Want   Want
	Invert bool // select the lines that do not match (no context)
	// Before and After are the lines of context kept with each match
	// (WantLines).
	Before, After int
}

// bufferSize is ripgrep's: a file is read 64 KiB at a time, and the rule
// for binary files is stated in those reads.
const bufferSize = 64 << 10

// Scanner searches files read in pieces into one reusable buffer, the way
// ripgrep's searcher does, so memory does not grow with the files, and a
// search that has its answer stops reading. One Scanner serves one
// goroutine at a time.
//
// Binary files (found by a walk) follow ripgrep's rule: a NUL byte in
// what one read brought in ends the search before that data is searched;
// a NUL in the first read (64 KiB) makes the file count as having no
// match at all.
type Scanner struct {
	buf  []byte
	pend []*plan.Match // matches still waiting for lines of after-context
}

// Search reads r and searches it for q, calling emit (WantLines) for each
// matching line in order. It returns the number of matching lines (1 at
// most with WantAny) and whether a NUL cut the search short. A read error
// is returned with what was found before it.
//
// Each round keeps the lines the next search needs (the unsearched tail,
// the before-context), reads up to a line break, gives waiting matches
// their after-context, and searches the whole lines read.
func (sc *Scanner) Search(r io.Reader, q *Query, emit func(*plan.Match)) (n int, binary bool, err error) {
	if q.M.whole {
		return sc.searchWhole(r, q, emit)
	}
	s := stream{sc: sc, line: 1}
	s.begin()
	defer s.finish(emit)
	for !s.eof {
		s.keepContext(q)
		term, binary, err := s.fill(r)
		if binary || err != nil {
			return n, binary, err
		}
		if term <= s.pos {
			break
		}
		s.giveAfterContext(term, q, emit)
		n += s.searchRegion(term, q, emit)
		if q.Want == WantAny && n > 0 {
			return 1, false, nil
		}
		if q.Want == WantLines {
			s.line += bytes.Count(sc.buf[s.pos:term], []byte{'\n'})
		}
		s.pos = term
	}
	return n, false, nil
}

// stream is the state of one Scanner.Search: sc.buf[pos:end] is read and
// not yet searched.
//
// The reader, the query and emit are passed to its methods, not held,
// so that Search's callers' emit closures stay on their stacks.
type stream struct {
	sc    *Scanner
	pos   int
	end   int
	line  int   // number of the line at buf[pos] (WantLines)
	eof   bool  // r has no more
	total int64 // bytes read from r
}

// begin readies the Scanner's buffer for a file.
func (s *stream) begin() {
	sc := s.sc
	if cap(sc.buf) < bufferSize {
		sc.buf = make([]byte, bufferSize)
	}
	sc.buf = sc.buf[:cap(sc.buf)]
	sc.pend = sc.pend[:0]
}

// finish emits the matches still waiting for after-context (the file
// ended first), and lets go of a buffer grown for a long line.
func (s *stream) finish(emit func(*plan.Match)) {
	sc := s.sc
	for _, m := range sc.pend {
		emit(m)
	}
	sc.pend = sc.pend[:0]
	if cap(sc.buf) > 4*bufferSize {
		sc.buf = nil // grown for a long line: not kept for the next file
	}
}

// keepContext moves the unsearched tail, and the lines of before-context
// that precede it, to the front of the buffer.
func (s *stream) keepContext(q *Query) {
	buf := s.sc.buf
	keep := s.pos
	if q.Want == WantLines && q.Before > 0 {
		keep = linesBack(buf[:s.pos], q.Before)
	}
	copy(buf, buf[keep:s.end])
	s.pos, s.end = s.pos-keep, s.end-keep
}

// fill reads until the data holds a line break, or ends, and returns the
// end of the last whole line. A NUL in what a read brought in ends the
// search (binary) before that read is searched: ripgrep's quit.
func (s *stream) fill(r io.Reader) (term int, binary bool, err error) {
	term = -1
	for term < 0 && !s.eof {
		if s.end == len(s.sc.buf) {
			s.grow(r)
		}
		buf := s.sc.buf
		k, rerr := r.Read(buf[s.end:])
		s.total += int64(k)
		if k > 0 {
			if bytes.IndexByte(buf[s.end:s.end+k], 0) >= 0 {
				return 0, true, nil
			}
			if i := bytes.LastIndexByte(buf[s.end:s.end+k], '\n'); i >= 0 {
				term = s.end + i + 1
			}
			s.end += k
		}
		if rerr == io.EOF {
			s.eof = true
		} else if rerr != nil {
			return 0, false, rerr
		}
	}
	if s.eof {
		term = s.end
	}
	return term, false, nil
}

// grow makes room for a line longer than the buffer: it grows threefold,
// as ripgrep's does; or, if the rest of the file is known to be small
// enough, to hold all of it at once (one allocation for a megabyte-long
// line, not three).
func (s *stream) grow(r io.Reader) {
	buf := s.sc.buf
	n := 3 * len(buf)
	if sz, ok := r.(sizer); ok {
		if size, err := sz.Size(); err == nil && size > s.total && size-s.total <= maxExactGrowth {
			n = max(s.end+int(size-s.total)+1, len(buf)+bufferSize)
		}
	}
	nb := make([]byte, n)
	copy(nb, buf[:s.end])
	s.sc.buf = nb
}

// giveAfterContext gives the matches waiting for after-context the lines
// of buf[pos:term], and emits those that have it all.
func (s *stream) giveAfterContext(term int, q *Query, emit func(*plan.Match)) {
	sc := s.sc
	if len(sc.pend) == 0 {
		return
	}
	done := 0
	for i, m := range sc.pend {
		m.After = append(m.After, LinesAfter(sc.buf[:term], s.pos, q.After-len(m.After))...)
		if len(m.After) == q.After {
			done = i + 1
		}
	}
	for _, m := range sc.pend[:done] {
		emit(m)
	}
	sc.pend = append(sc.pend[:0], sc.pend[done:]...)
}

// searchRegion searches the whole lines buf[pos:term] and returns the
// number of lines selected. A match whose after-context is not all read
// yet waits in sc.pend.
func (s *stream) searchRegion(term int, q *Query, emit func(*plan.Match)) int {
	sc := s.sc
	buf := sc.buf
	region := buf[s.pos:term]
	lines := q.Want == WantLines
	if q.Invert {
		return q.M.invert(region, s.line, lines, func(b Block) bool {
			if lines {
				emit(&plan.Match{Line: b.Line, Text: TrimEOL(region[b.Start:b.End])})
			}
			return q.Want != WantAny
		})
	}
	return q.M.search(region, s.line, lines, func(b Block) bool {
		if lines {
			m := &plan.Match{Line: b.Line, Text: TrimEOL(region[b.Start:b.End])}
			if q.Before > 0 {
				m.Before = LinesBefore(buf, s.pos+b.Start, q.Before)
			}
			if q.After > 0 {
				m.After = LinesAfter(buf[:term], s.pos+b.End, q.After)
			}
			if len(m.After) < q.After && (!s.eof || len(sc.pend) > 0) {
				sc.pend = append(sc.pend, m)
			} else {
				emit(m)
			}
		}
		return q.Want != WantAny
	})
}

// maxExactGrowth bounds what a buffer grows by at once to hold the rest
// of a file.
const maxExactGrowth = 4 << 20

// sizer is a reader that can tell the size of what it reads (a file).
type sizer interface {
	Size() (int64, error)
}

// linesBack returns the offset of the start of the nth line before the
// end of b (b ends at a line start).
func linesBack(b []byte, n int) int {
	end := len(b)
	for ; n > 0 && end > 0; n-- {
		end = bytes.LastIndexByte(b[:end-1], '\n') + 1
	}
	return end
}

// searchWhole reads the whole file (for multiline patterns, and those
// that anchor on the start or end of the text) and searches it at once,
// with the binary rule of Searchable.
func (sc *Scanner) searchWhole(r io.Reader, q *Query, emit func(*plan.Match)) (int, bool, error) {
	buf := sc.buf[:0]
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		k, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+k]
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, false, err
		}
	}
	if cap(buf) <= 4*bufferSize {
		sc.buf = buf // a big one is left to the collector
	}
	data, ok := Searchable(buf)
	if !ok {
		return 0, true, nil
	}
	n := SearchLines(q, data, emit)
	return n, len(data) < len(buf), nil
}

// SearchLines searches data, held whole, for q: what Scanner.Search does
// for a file, for a file already read (one named explicitly is searched
// whole, binary or not).
func SearchLines(q *Query, data []byte, emit func(*plan.Match)) int {
	lines := q.Want == WantLines
	if q.Invert {
		return q.M.invert(data, 1, lines, func(b Block) bool {
			if lines {
				emit(&plan.Match{Line: b.Line, Text: TrimEOL(data[b.Start:b.End])})
			}
			return q.Want != WantAny
		})
	}
	return q.M.search(data, 1, lines, func(b Block) bool {
		if lines {
			m := &plan.Match{Line: b.Line, Text: TrimEOL(data[b.Start:b.End])}
			if q.Before > 0 {
				m.Before = LinesBefore(data, b.Start, q.Before)
			}
			if q.After > 0 {
				m.After = LinesAfter(data, b.End, q.After)
			}
			emit(m)
		}
		return q.Want != WantAny
	})
}
