package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/txedit/txedit/plan"
)

// waitFor polls cond until it holds, failing after 10 s (a bound for a
// machine however loaded, not a measure of speed).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after 10s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestBudget: Acquire waits while the bytes do not fit, serves waiters in
// order, gives a request bigger than the budget the whole budget once
// nothing else is held, and leaves the queue when its context ends.
func TestBudget(t *testing.T) {
	b := NewBudget(10)
	r1, _ := b.Acquire(context.Background(), 6)
	got := make(chan string, 3)
	go func() { r, _ := b.Acquire(context.Background(), 6); got <- "second"; r() }()
	waitFor(t, "the second waits", func() bool { return b.Waiting() == 1 })
	go func() { r, _ := b.Acquire(context.Background(), 100); got <- "big"; r() }()
	waitFor(t, "the big one waits behind it", func() bool { return b.Waiting() == 2 })
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { _, err := b.Acquire(ctx, 1); errc <- err }()
	waitFor(t, "a third waits in order, though it would fit", func() bool { return b.Waiting() == 3 })
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Acquire: %v", err)
	}
	select {
	case g := <-got:
		t.Fatalf("%s was served while 6 of 10 are held", g)
	default:
	}
	r1()
	if a, b := <-got, <-got; a != "second" || b != "big" {
		t.Errorf("served %s then %s, want the order they came in", a, b)
	}
	waitFor(t, "all given back", func() bool { return b.InUse() == 0 })
	r1() // twice is once
	if b.InUse() != 0 {
		t.Errorf("in use %d after a second release", b.InUse())
	}
}

// TestBudgetChargesReads: the file contents a call reads are charged to
// its budget until it gives them back; its first file waits until it fits
// beside what other calls hold, later ones do not (so that calls holding
// parts of the budget never wait for each other), and many calls reading
// several files each through one small budget all finish.
func TestBudgetChargesReads(t *testing.T) {
	dir := t.TempDir()
	for i := 0; i < 4; i++ {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d", i)), []byte(strings.Repeat("x", 600)), 0o644)
	}
	w := openWS(t, dir, nil)
	b := NewBudget(1000)
	ctx1, done1 := WithBudget(context.Background(), b)
	if _, err := w.ReadBytes(ctx1, "f0"); err != nil {
		t.Fatal(err)
	}
	if b.InUse() != 600 {
		t.Fatalf("in use %d after a 600-byte read, want 600", b.InUse())
	}
	// A second file of the same call does not wait, though it does not fit.
	if _, err := w.Read(ctx1, &plan.ReadRequest{Mode: "Line", Path: "f1"}); err != nil {
		t.Fatal(err)
	}
	if b.InUse() != 1200 {
		t.Fatalf("in use %d after the call's second file, want 1200", b.InUse())
	}
	// Another call's first file waits for it.
	ctx2, done2 := WithBudget(context.Background(), b)
	read := make(chan error, 1)
	go func() { _, err := w.ReadBytes(ctx2, "f2"); read <- err }()
	waitFor(t, "the other call waits", func() bool { return b.Waiting() == 1 })
	done1()
	if err := <-read; err != nil {
		t.Fatal(err)
	}
	done2()
	if b.InUse() != 0 {
		t.Fatalf("in use %d after both calls gave back", b.InUse())
	}
	// A call that ends while it waits gives up with its context's error.
	ctx3, done3 := WithBudget(context.Background(), b)
	w.ReadBytes(ctx3, "f0")
	cctx, cancel := context.WithCancel(context.Background())
	ctx4, done4 := WithBudget(cctx, b)
	go func() { _, err := w.ReadBytes(ctx4, "f1"); read <- err }()
	waitFor(t, "the fourth waits", func() bool { return b.Waiting() == 1 })
	cancel()
	if err := <-read; err == nil {
		t.Errorf("a call cancelled while it waited for the budget read its file")
	}
	done3()
	done4()
	// Many calls, several files each, one budget smaller than two files:
	// none waits forever.
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, done := WithBudget(context.Background(), b)
			defer done()
			for j := 0; j < 4; j++ {
				if _, err := w.ReadBytes(ctx, fmt.Sprintf("f%d", (i+j)%4)); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if b.InUse() != 0 {
		t.Errorf("in use %d after every call gave back", b.InUse())
	}
}
