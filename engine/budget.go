package engine

import (
	"context"
	"sync"
)

// Budget bounds the bytes that the calls sharing it hold at once: a
// server's file contents in flight, say (docs/design.md, "The server's
// limits"). It is a weighted semaphore that serves waiters in order; a
// request bigger than the whole budget is served as the whole budget, once
// nothing else is held.
type Budget struct {
	mu      sync.Mutex
	limit   int64
	used    int64
	waiters []*budgetWaiter
}

type budgetWaiter struct {
	n     int64
	ready chan struct{}
}

// NewBudget returns a budget of limit bytes.
func NewBudget(limit int64) *Budget { return &Budget{limit: max(limit, 1)} }

// Limit is the budget's size.
func (b *Budget) Limit() int64 { return b.limit }

// InUse is what is held now.
func (b *Budget) InUse() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// Waiting is the number of calls waiting for the budget now.
func (b *Budget) Waiting() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.waiters)
}

// Acquire waits until n bytes fit (n is at most the limit) and returns the
// function that gives them back; it fails with the context's error if ctx
// ends first.
func (b *Budget) Acquire(ctx context.Context, n int64) (func(), error) {
	n = b.clamp(n)
	if err := b.acquire(ctx, n, true); err != nil {
		return nil, err
	}
	return sync.OnceFunc(func() { b.release(n) }), nil
}

func (b *Budget) clamp(n int64) int64 { return min(max(n, 0), b.limit) }

// acquire takes n bytes (clamped), waiting if wait is set; without it the
// bytes are taken at once, even past the limit.
func (b *Budget) acquire(ctx context.Context, n int64, wait bool) error {
	b.mu.Lock()
	if !wait || (len(b.waiters) == 0 && b.used+n <= b.limit) {
		b.used += n
		b.mu.Unlock()
		return nil
	}
	w := &budgetWaiter{n: n, ready: make(chan struct{})}
	b.waiters = append(b.waiters, w)
	b.mu.Unlock()
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
		b.mu.Lock()
		select {
		case <-w.ready:
			// Served meanwhile: give it back.
			b.used -= n
			b.wake()
		default:
			for i, x := range b.waiters {
				if x == w {
					b.waiters = append(b.waiters[:i], b.waiters[i+1:]...)
					break
				}
			}
			b.wake() // a smaller waiter behind it may fit now
		}
		b.mu.Unlock()
		return ctx.Err()
	}
}

func (b *Budget) release(n int64) {
	b.mu.Lock()
	b.used -= n
	b.wake()
	b.mu.Unlock()
}

// wake serves the waiters, in order, while the first fits (b.mu held).
func (b *Budget) wake() {
	for len(b.waiters) > 0 {
		w := b.waiters[0]
		if b.used+w.n > b.limit && b.used > 0 {
			return
		}
		b.used += w.n
		b.waiters = b.waiters[1:]
		close(w.ready)
	}
}

// charge is one call's hold on a Budget, through its context: the file
// contents its operations read. Its first take waits until the bytes fit;
// once it holds any, later takes do not wait (a call never waits while it
// holds part of the budget, so calls cannot deadlock on each other), and
// everything is given back when the call ends.
type charge struct {
	b    *Budget
	ctx  context.Context
	mu   sync.Mutex
	held int64
}

type chargeKey struct{}

// WithBudget returns a context whose operations charge the file contents
// they read to b, and the function that gives back what they took (call it
// once the call's answer is made). A server gives each call its own.
func WithBudget(ctx context.Context, b *Budget) (context.Context, func()) {
	if b == nil {
		return ctx, func() {}
	}
	c := &charge{b: b, ctx: ctx}
	return context.WithValue(ctx, chargeKey{}, c), c.release
}

func chargeOf(ctx context.Context) *charge {
	c, _ := ctx.Value(chargeKey{}).(*charge)
	return c
}

// waits reports whether a take would wait (the call holds nothing yet).
func (c *charge) waits() bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.held == 0
}

// take charges n bytes of file contents; nil charges nothing.
func (c *charge) take(n int64) error {
	if c == nil || n <= 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	n = c.b.clamp(n)
	if err := c.b.acquire(c.ctx, n, c.held == 0); err != nil {
		return err
	}
	c.held += n
	return nil
}

func (c *charge) release() {
	c.mu.Lock()
	n := c.held
	c.held = 0
	c.mu.Unlock()
	if n > 0 {
		c.b.release(n)
	}
}
