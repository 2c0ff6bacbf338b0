// Package par runs independent steps on a bounded number of goroutines:
// the one worker pool of the engine and the journal.
package par

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/sourcegraph/conc/panics"
	"github.com/sourcegraph/conc/pool"
)

// PanicError is a panic in a step, turned into an error so that the
// caller can clean up (roll back a transaction, release a lock) and the
// process keeps serving.
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string { return fmt.Sprintf("panic: %v", e.Value) }

// Unwrap returns the panic value if it is an error.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// Do calls fn(0), …, fn(n-1) on at most workers goroutines (steps are
// taken in order) and returns the first error. After an error, or once
// ctx is done, no new step starts; ctx's error is returned if it ended the
// run. A panic in fn becomes a *PanicError.
func Do(ctx context.Context, n, workers int, fn func(i int) error) error {
	if n <= 0 {
		return ctx.Err()
	}
	workers = max(1, min(workers, n))
	var (
		next  atomic.Int64
		stop  atomic.Bool
		mu    sync.Mutex
		first error
	)
	record := func(err error) {
		mu.Lock()
		if first == nil {
			first = err
		}
		mu.Unlock()
		stop.Store(true)
	}
	step := func() {
		for !stop.Load() {
			if err := ctx.Err(); err != nil {
				record(err)
				return
			}
			i := int(next.Add(1) - 1)
			if i >= n {
				return
			}
			var c panics.Catcher
			var err error
			c.Try(func() { err = fn(i) })
			if r := c.Recovered(); r != nil {
				err = &PanicError{Value: r.Value, Stack: r.Stack}
			}
			if err != nil {
				record(err)
			}
		}
	}
	if workers == 1 {
		step()
		return first
	}
	p := pool.New().WithMaxGoroutines(workers)
	for w := 0; w < workers; w++ {
		p.Go(step)
	}
	p.Wait()
	return first
}
