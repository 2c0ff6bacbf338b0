package engine

import (
	"context"
	"sync"

	"github.com/txedit/txedit/plan"
)

// Streaming results. A write's result holds a diff per file (Preview in a
// dry run, Diff after a commit) and, in a dry run, their concatenation
// (Result.Diff): for a replacement across 50,000 files that is more than
// the files themselves. A caller that prints results as they come (the
// command line) asks for them one file at a time instead: each file's
// result is handed over as soon as it is final, in the order of
// Result.Files, and the engine keeps none of its diff afterwards. Library
// callers and small requests keep getting the whole Result from Apply.

type streamKey struct{}

type stream struct {
	fn    func(*plan.FileResult)
	diffs bool
	// want, if set, is asked before each committed diff is read back:
	// once it says no, the diffs left are not read (StreamResultsWhile).
	want func() bool
	// held: a commit's results that carry no transaction (it failed, or
	// had nothing to write) are not handed over by the apply but by the
	// Session that may try the commit again (Session.Apply): only the
	// answer it gives reaches fn, once.
	held bool
}

// holding is ctx with its stream's results of a commit without a
// transaction held back for the caller (stream.held), and that stream
// (nil: ctx streams nothing).
func holding(ctx context.Context) (context.Context, *stream) {
	s := streamOf(ctx)
	if s == nil {
		return ctx, nil
	}
	h := *s
	h.held = true
	return context.WithValue(ctx, streamKey{}, &h), s
}

// emitUnheld hands res's files to s, which held them (holding).
func emitUnheld(s *stream, res *plan.Result) {
	if s == nil || res == nil || res.TransactionID != "" {
		return
	}
	for _, r := range res.Files {
		emit(s, r)
	}
}

// StreamResults returns a context whose writes (Apply, Preview) hand each
// file's result to fn as soon as it is final, in the order of
// Result.Files, from one goroutine at a time. In a dry run a file is final
// once its preview is rendered; in a commit, once the transaction
// committed or failed (all files then come at the end). With diffs false
// a committed file's Diff is not read back from the journal for fn.
//
// After fn returns, the engine drops the file's Preview and Diff: the
// FileResult left in Result.Files carries everything else (status, counts,
// hash, errors), and Result.Diff stays empty. Memory is then bounded by
// the workers, not by the number of files.
func StreamResults(ctx context.Context, fn func(*plan.FileResult), diffs bool) context.Context {
	return context.WithValue(ctx, streamKey{}, &stream{fn: fn, diffs: diffs})
}

// StreamResultsWhile is StreamResults with committed diffs read back
// from the journal only while want reports true, asked before each file's
// diff is read: a caller that stops at a budget (the toolsets' answer,
// tools/answercap.go) reads no diff past it. A file whose recorded diff
// was left unread comes to fn with Diff empty and DiffLeft set, so that
// the caller can count what it left out.
func StreamResultsWhile(ctx context.Context, fn func(*plan.FileResult), want func() bool) context.Context {
	return context.WithValue(ctx, streamKey{}, &stream{fn: fn, diffs: true, want: want})
}

func streamOf(ctx context.Context) *stream {
	s, _ := ctx.Value(streamKey{}).(*stream)
	if s == nil || s.fn == nil {
		return nil
	}
	return s
}

// emitter hands results to a stream in index order as they become final,
// and holds workers back so that no more than window results wait for an
// earlier one: what it holds is bounded by the window, not the file count.
type emitter struct {
	s      *stream
	files  []*plan.FileResult
	window int

	mu   sync.Mutex
	cond *sync.Cond
	next int    // the first index not yet emitted
	done []bool // done[i]: files[i] is final
}

func newEmitter(s *stream, files []*plan.FileResult, window int) *emitter {
	e := &emitter{s: s, files: files, window: max(1, window), done: make([]bool, len(files))}
	e.cond = sync.NewCond(&e.mu)
	return e
}

// wait blocks until index i is within the window of the next to emit.
// Indexes must be started in increasing order (par.Do does), so the ones
// before i are under way and the wait ends.
func (e *emitter) wait(i int) {
	e.mu.Lock()
	for i >= e.next+e.window {
		e.cond.Wait()
	}
	e.mu.Unlock()
}

// finish marks index i final and emits every final result from next on.
// Emission happens under the lock: fn sees one result at a time, in order.
func (e *emitter) finish(i int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.done[i] = true
	for e.next < len(e.files) && e.done[e.next] {
		emit(e.s, e.files[e.next])
		e.next++
	}
	e.cond.Broadcast()
}

// emit hands one result over and drops its diffs.
func emit(s *stream, r *plan.FileResult) {
	s.fn(r)
	r.Preview, r.Diff = "", ""
}
