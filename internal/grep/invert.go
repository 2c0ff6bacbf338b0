package grep

import "bytes"

// Invert calls emit, as one-line blocks, for the lines of buf that no
// match touches (grep -v), until emit returns false. It returns the number
// of such lines.
func (s *Matcher) Invert(buf []byte, emit func(Block) bool) int {
	return s.invert(buf, 1, true, emit)
}

// invert is Invert with the number of buf's first line given; without
// lines, the blocks' Line is 0.
func (s *Matcher) invert(buf []byte, first int, lines bool, emit func(Block) bool) int {
	n, pos, line := 0, 0, first
	stop := false
	emitUpTo := func(end int) {
		for pos < end && !stop {
			le := len(buf)
			if i := bytes.IndexByte(buf[pos:], '\n'); i >= 0 {
				le = pos + i + 1
			}
			n++
			b := Block{Start: pos, End: le}
			if lines {
				b.Line = line
			}
			if !emit(b) {
				stop = true
			}
			pos = le
			line++
		}
	}
	s.search(buf, 0, false, func(b Block) bool {
		emitUpTo(b.Start)
		line += bytes.Count(buf[b.Start:b.End], []byte{'\n'})
		if b.End == len(buf) && (len(buf) == 0 || buf[len(buf)-1] != '\n') {
			line++
		}
		pos = b.End
		return !stop
	})
	emitUpTo(len(buf))
	return n
}
