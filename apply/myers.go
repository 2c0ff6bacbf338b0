package apply

// The Myers diff of two runs of lines, ported from gotextdiff's myers
// package (github.com/hexops/gotextdiff, BSD-3-Clause, itself from gopls:
// "Copyright 2019 The Go Authors") to work on the lines in place: the same
// search, the same backtracking, the same edits, without joining the lines
// into strings and splitting them again, and without the spans and text
// edits it converts its result to. Each step of the trace keeps only the
// diagonals it can reach (2d+3 of them), not a copy of all N+M.

// myersRange appends the edits turning a[a0:a1] into b[b0:b1] to out.
func myersRange(a, b []string, a0, a1, b0, b1 int, out *[]edit) {
	x, y := a[a0:a1], b[b0:b1]
	if len(x) == 0 && len(y) == 0 {
		return
	}
	trace := myersTrace(x, y)
	snakes := myersBacktrack(trace, len(x), len(y))
	start := len(*out)
	add := func(e edit) {
		e.A0, e.A1, e.B0, e.B1 = a0+e.A0, a0+e.A1, b0+e.B0, b0+e.B1
		if k := len(*out); k > start && (*out)[k-1].A1 == e.A0 && (*out)[k-1].B1 == e.B0 {
			(*out)[k-1].A1, (*out)[k-1].B1 = e.A1, e.B1
			return
		}
		*out = append(*out, e)
	}
	M, N := len(x), len(y)
	i, j := 0, 0
	for _, s := range snakes {
		// delete (horizontal)
		if s[0]-s[1] > i-j {
			e := edit{A0: i, B0: j}
			for s[0]-s[1] > i-j {
				i++
				if i == M {
					break
				}
			}
			e.A1, e.B1 = i, j
			add(e)
		}
		// insert (vertical)
		if s[0]-s[1] < i-j {
			e := edit{A0: i, A1: i, B0: j}
			for s[0]-s[1] < i-j {
				j++
			}
			e.B1 = j
			add(e)
		}
		// equal (diagonal)
		for i < s[0] {
			i++
			j++
		}
		if i >= M && j >= N {
			break
		}
	}
}

// myersStep is the furthest x reached on each diagonal k in [-d-1, d+1]
// after step d of the search (v[k+d+1]).
type myersStep struct {
	d int
	v []int
}

func (s myersStep) at(k int) int { return s.v[k+s.d+1] }

// myersTrace runs the search (the shortest edit sequence) and returns the
// state after every step.
func myersTrace(a, b []string) []myersStep {
	M, N := len(a), len(b)
	offset := N + M
	V := make([]int, 2*(N+M)+1)
	var trace []myersStep
	save := func(d int) {
		// Diagonals -d-1 .. d+1, clamped to V (the rest are never read).
		v := make([]int, 2*d+3)
		lo, hi := offset-d-1, offset+d+2
		copy(v[max(0, -lo):], V[max(0, lo):min(hi, len(V))])
		trace = append(trace, myersStep{d: d, v: v})
	}
	for d := 0; d <= N+M; d++ {
		for k := -d; k <= d; k += 2 {
			// Down if k == -d, right if k == d; else the one reaching
			// further, right (a deletion) on a tie.
			var x int
			if k == -d || (k != d && V[k-1+offset] < V[k+1+offset]) {
				x = V[k+1+offset] // down
			} else {
				x = V[k-1+offset] + 1 // right
			}
			y := x - k
			for x < M && y < N && a[x] == b[y] {
				x++
				y++
			}
			V[k+offset] = x
			if x == M && y == N {
				save(d)
				return trace
			}
		}
		save(d)
	}
	return nil
}

// myersBacktrack returns the snakes of the solution the trace found, in
// order: the end point of each step's single deletion or insertion and
// the diagonal after it (the steps it skips are left out).
func myersBacktrack(trace []myersStep, x, y int) [][2]int {
	snakes := make([][2]int, len(trace))
	set := make([]bool, len(trace))
	d := len(trace) - 1
	for ; x > 0 && y > 0 && d > 0; d-- {
		V := trace[d]
		snakes[d], set[d] = [2]int{x, y}, true
		k := x - y
		var kPrev int
		if k == -d || (k != d && V.at(k-1) < V.at(k+1)) {
			kPrev = k + 1
		} else {
			kPrev = k - 1
		}
		x = V.at(kPrev)
		y = x - kPrev
	}
	if x >= 0 && y >= 0 {
		snakes[d], set[d] = [2]int{x, y}, true
	}
	res := make([][2]int, 0, len(trace))
	for i, s := range snakes {
		if set[i] {
			res = append(res, s)
		}
	}
	return res
}
