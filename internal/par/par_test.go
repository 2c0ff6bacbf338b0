package par

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
)

func TestDoRunsEveryStepOnce(t *testing.T) {
	for _, workers := range []int{1, 3, 64} {
		var hits [100]atomic.Int32
		if err := Do(context.Background(), len(hits), workers, func(i int) error { hits[i].Add(1); return nil }); err != nil {
			t.Fatal(err)
		}
		for i := range hits {
			if n := hits[i].Load(); n != 1 {
				t.Fatalf("workers %d: step %d ran %d times", workers, i, n)
			}
		}
	}
}

func TestDoStopsAfterFirstError(t *testing.T) {
	boom := errors.New("boom")
	var ran atomic.Int32
	err := Do(context.Background(), 1000, 1, func(i int) error {
		ran.Add(1)
		if i == 10 {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	if n := ran.Load(); n != 11 {
		t.Fatalf("ran %d steps after an error at step 10 with one worker, want 11", n)
	}
}

func TestDoTurnsPanicIntoError(t *testing.T) {
	boom := errors.New("boom")
	err := Do(context.Background(), 50, 4, func(i int) error {
		if i == 7 {
			panic(boom)
		}
		return nil
	})
	var pe *PanicError
	if !errors.As(err, &pe) || !errors.Is(err, boom) || len(pe.Stack) == 0 {
		t.Fatalf("err = %#v, want a *PanicError wrapping boom with a stack", err)
	}
}

func TestDoHonoursContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var ran atomic.Int32
	err := Do(ctx, 1000, 2, func(i int) error {
		if ran.Add(1) == 5 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if n := ran.Load(); n > 10 {
		t.Fatalf("%d steps ran after cancel at 5", n)
	}
}
