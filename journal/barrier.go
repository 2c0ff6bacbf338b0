package journal

import (
	"context"
	"sync"

	"github.com/txedit/txedit/internal/par"
)

// defaultSyncWorkers is how many fsyncs a commit keeps in flight. Measured
// on ext4 (bench/README.md): a thousand fdatasyncs of fresh 4 KiB files
// take about as long as one syncfs of a quiet file system when 32-64 run
// at once, and unlike syncfs they do not wait for other processes' data.
const defaultSyncWorkers = 64

// syncer runs the durability calls of one transaction — the fdatasync of
// each staged file, the pack's, the directories' fsyncs — many at once, so
// that they overlap each other and the writing of the next files. It
// remembers the first failure; wait returns it once every call has ended.
// With one worker it runs each call at once, in the caller's goroutine, so
// the order of calls is fixed (the crash tests enumerate it).
type syncer struct {
	sem chan struct{} // nil: one at a time, inline
	wg  sync.WaitGroup
	mu  sync.Mutex
	err error
}

func newSyncer(workers int) *syncer {
	s := &syncer{}
	if workers > 1 {
		s.sem = make(chan struct{}, workers)
	}
	return s
}

// do runs fn, in the background once fewer than the limit run. A panic in
// fn (a simulated crash, say) is a failure like any other. Run inline, fn's
// error is returned at once; in the background, by wait.
func (s *syncer) do(fn func() error) error {
	run := func() error {
		err := par.Do(context.Background(), 1, 1, func(int) error { return fn() })
		if err != nil {
			s.mu.Lock()
			if s.err == nil {
				s.err = err
			}
			s.mu.Unlock()
		}
		return err
	}
	if s.sem == nil {
		return run()
	}
	s.sem <- struct{}{}
	s.wg.Add(1)
	go func() {
		defer func() {
			<-s.sem
			s.wg.Done()
		}()
		run()
	}()
	return nil
}

// failed returns the first failure so far, without waiting.
func (s *syncer) failed() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// wait waits for every call to end and returns the first failure.
func (s *syncer) wait() error {
	s.wg.Wait()
	return s.failed()
}
